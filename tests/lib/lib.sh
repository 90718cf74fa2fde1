# SPDX-License-Identifier: LGPL-2.1-or-later
# lib.sh: what the shell tests share. Sourced; meson sets CLOCKFIX, FINGERPRINT, SRCDIR. Its first
# part, what needs neither meson nor root (fail and the checks, waiting, at_exit), is
# tests/lib/lib-base.sh.

# shellcheck source=tests/lib/lib-base.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-base.sh"

# Each test in a mount namespace of its own (as root). Tests run side by side, and a namespace
# that another test makes meanwhile (unshare -m) would hold a copy of every mount this one makes:
# an unmount here would then only detach this test's copy, and the filesystem, still mounted
# there, would not be written to its image before this test reads it.
if [ "$(id -u)" == 0 ] && [ -z "${CLOCKFIX_TEST_NS:-}" ]; then
        CLOCKFIX_TEST_NS=1 exec unshare -m --propagation private "$BASH" "$0" "$@"
fi
: "${CLOCKFIX:?run through meson test}" "${FINGERPRINT:?run through meson test}"

tmp_dir /tmp/clockfix-test.XXXXXX
chmod 755 "$TMP"
# detach_loops: detaches the loop devices of the test's images (those whose backing file is under
# $TMP), as the test ends (before $TMP goes) or when it calls it. Found by their backing file,
# never by a device name kept from attach: a test may detach a device itself, and another test
# running at the same time may hold the same name by then. Those marked to detach at their last
# close (autoclear: after `losetup -d` of a device still open, or of `mount -o loop`) are left to
# do so: by the time `losetup -d` came, the name could be another test's.
detach_loops() {
        local l
        [ -n "${TMP:-}" ] || return 0
        for l in $(losetup -l -n -O NAME,AUTOCLEAR,BACK-FILE |
                awk -v t="$TMP/" '$2 == 0 && index($3, t) == 1 { print $1 }'); do
                losetup -d "$l" 2>/dev/null || true
        done
}
at_exit detach_loops

# In a cross build (EXE_WRAPPER, tests/lib/lib-base.sh) the programs built for the target run under
# the exe wrapper, as this machine has no binfmt_misc to do it. CLOCKFIX, CLOCKFIX_STATIC and
# CLOCKFIX_NOBLKID then name small scripts that run them so, which every way of running a program
# takes (timeout, setpriv, strace, unshare, ip netns exec); the ..._BIN variables name the programs
# themselves, for tests that copy or inspect the file.
CLOCKFIX_BIN=$CLOCKFIX
CLOCKFIX_STATIC_BIN=${CLOCKFIX_STATIC:-}
CLOCKFIX_NOBLKID_BIN=${CLOCKFIX_NOBLKID:-}
if [ ${#EXE_WRAPPER[@]} -gt 0 ]; then
        mkdir -p "$TMP/bin"
        declare -A REAL_BIN # wrapper script -> the program it runs
        for v in CLOCKFIX CLOCKFIX_STATIC CLOCKFIX_NOBLKID; do
                [ -n "${!v:-}" ] || continue
                w=$TMP/bin/$(basename "${!v}")
                printf '#!/bin/sh\nexec %s %s "$@"\n' "$MESON_EXE_WRAPPER" "$(sq "${!v}")" >"$w"
                chmod 755 "$w"
                REAL_BIN[$w]=${!v}
                export "$v=$w"
        done
fi

# user_wrapper WRAPPER: prints a script that runs the program WRAPPER runs, for the user nobody.
# qemu-user opens the program and the sysroot by their paths, with the user's rights, and the
# checkout may lie in a directory nobody may enter (a clone in a mktemp -d directory, mode 700):
# copies of both in $TMP, made once, serve instead.
user_wrapper() {
        local real=${REAL_BIN[$1]:-} w=$TMP/user/bin/$(basename "$1") arg prev= words=
        # (a program of this machine, such as a test's own stand-in, runs as it is)
        [ -n "$real" ] || { echo "$1"; return; }
        if [ ! -d "$TMP/user" ]; then
                mkdir -p "$TMP/user/bin"
                cp -a "$SYSROOT" "$TMP/user/sysroot"
                chmod -R a+rX "$TMP/user"
        fi
        if [ ! -x "$w" ]; then
                cp "$real" "$w.bin"
                for arg in "${EXE_WRAPPER[@]}"; do
                        [ "$prev" != -L ] || arg=$TMP/user/sysroot
                        words+="$(sq "$arg") "
                        prev=$arg
                done
                printf '#!/bin/sh\nexec %s%s "$@"\n' "$words" "$(sq "$w.bin")" >"$w"
                chmod 755 "$w" "$w.bin"
        fi
        echo "$w"
}

# mkimg FILE EPOCH SIZE [MKE2FS-ARGS...]: an image whose created, last write and last check are EPOCH
mkimg() {
        local file=$1 epoch=$2 size=$3
        shift 3
        # mke2fs says "Creating regular file" on stdout even with -q.
        E2FSPROGS_FAKE_TIME=$epoch mke2fs -q -F "$@" "$file" "$size" >/dev/null
}

# stamp FILE WRITE-EPOCH DEBUGFS-COMMAND...: runs debugfs commands; last write becomes WRITE-EPOCH.
# A superblock time set as "ssv FIELD @SECONDS" is written by sb-times (tests/helpers/sb-times.c), low
# bits and _hi byte, after the others: debugfs sets the _hi byte of a time past 2038 from 1.47.1
# on, and not before.
stamp() {
        local file=$1 epoch=$2 cmd others=() times=()
        shift 2
        times=("wtime=$epoch")
        : "${SB_TIMES:?run through meson test}"
        for cmd in "$@"; do
                if [[ $cmd =~ ^ssv\ (mkfs_time|wtime|mtime|lastcheck|first_error_time|last_error_time)\ @([0-9]+)$ ]]; then
                        times+=("${BASH_REMATCH[1]}=${BASH_REMATCH[2]}")
                else
                        others+=("$cmd")
                fi
        done
        [ ${#others[@]} -eq 0 ] ||
                printf '%s\n' "${others[@]}" | E2FSPROGS_FAKE_TIME=$epoch debugfs -w -f - "$file" >/dev/null 2>&1
        "$SB_TIMES" "$file" "${times[@]}" || fail "stamp $file: sb-times ${times[*]} failed"
}

# sb_time FILE LABEL: a time from `dumpe2fs -h` as seconds since the epoch ("" for n/a or absent)
sb_time() {
        local v
        v=$(dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p")
        case "$v" in "" | "n/a") echo "" ;; *) date -u -d "$v" +%s ;; esac
}

# json_contract WHAT ARGS...: when ARGS hold --json and OUT is not empty, OUT must be one JSON
# object whose every number is an integer within +-2^53, the most JSON readers take exactly
# (docs/design.md §8); a value beyond that is null. Without evidence, the action is unavailable, or
# set to the floor itself from the build. Every readable device says whether its
# stamp files were skipped ("stamps_skipped": why, or null), and has "files" only when they were
# looked up; a file is never found with an error.
json_contract() {
        local what=$1 a bad
        shift
        for a in "$@"; do
                [ "$a" == --json ] || continue
                [ -n "$OUT" ] || return 0
                bad=$(jq -c '[.. | numbers | select(. != floor or . > 9007199254740992 or . < -9007199254740992)]' <<<"$OUT") ||
                        fail "$what: not JSON: $OUT"
                [ "$bad" == "[]" ] || fail "$what: numbers beyond +-2^53 or not integers: $bad"
                [ "$(jq -r type <<<"$OUT")" == object ] || fail "$what: not one object"
                bad=$(jq -c '[.devices[]? | select(.readable) | select((has("stamps_skipped") | not)
                        or ((.stamps_skipped != null) == has("files"))
                        or ([.files[]? | select(.found and .error != null)] | length > 0)) | .device]' <<<"$OUT")
                [ "$bad" == "[]" ] || fail "$what: stamp files neither skipped nor listed, both, or found with an error: $bad"
                # No evidence: nothing, or the clock set to the floor itself, from the build.
                jq -e '(.evidence | type) == "boolean" and
                        (.action != "unavailable" or (.evidence | not)) and
                        (.evidence or .action == "unavailable" or
                                (.action == "set" and .source == "build" and .estimate == .floor and .target == .floor))' \
                        <<<"$OUT" >/dev/null || fail "$what: evidence, action and the floor do not agree: $(jq -c \
                        '{action, evidence, source, estimate, target, floor}' <<<"$OUT")"
                return 0
        done
}

# cf ARGS...: runs clockfix; sets OUT, ERR, RC. Every image given with -d/--device is
# fingerprinted before and after: clockfix must never write to it. With AS_USER=1 it runs as
# the user nobody with no capabilities at all: the kernel will not let it set the clock. With
# CLOCKFIX_TRACE_WRITES=1 in the environment (tests/run.sh runs the cli and image suites so once
# more), it also runs under strace, and any open for writing, creating or truncating, or any write
# but to stdout and stderr, fails the test, whatever the file. With --json, json_contract holds.
cf() {
        local args=("$@") images=() i fp_before=() fp_after=()
        for ((i = 0; i < ${#args[@]}; i++)); do
                case "${args[i]}" in
                -d | --device) [ -f "${args[i + 1]:-}" ] && images+=("${args[i + 1]}") ;;
                esac
        done
        for i in "${images[@]}"; do fp_before+=("$("$FINGERPRINT" "$i")"); done
        local program=$CLOCKFIX
        [ -z "${AS_USER:-}" ] || [ ${#EXE_WRAPPER[@]} -eq 0 ] || program=$(user_wrapper "$CLOCKFIX")
        RC=0
        OUT=$(${CLOCKFIX_TRACE_WRITES:+strace -f -qq -o "$TMP/writes.trace" -e trace=open,openat,openat2,creat,truncate,ftruncate,write,writev,pwrite64,pwritev,pwritev2} \
                ${AS_USER:+setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs} \
                "$program" "$@" 2>"$TMP/stderr") || RC=$?
        ERR=$(cat "$TMP/stderr")
        if [ -n "${CLOCKFIX_TRACE_WRITES:-}" ]; then
                local bad
                bad=$(awk '/(open|openat|openat2)\(/ && /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/ { print; next }
                        /creat\(|truncate\(/ { print; next }
                        /(write|writev|pwrite64|pwritev2?)\(/ { split($2, a, /[(,]/); if (a[2] != "1" && a[2] != "2") print }' \
                        "$TMP/writes.trace")
                [ -z "$bad" ] || fail "clockfix $* opened or wrote for writing: $bad"
        fi
        for i in "${images[@]}"; do fp_after+=("$("$FINGERPRINT" "$i")"); done
        [ "${fp_before[*]}" == "${fp_after[*]}" ] || fail "clockfix $* changed an image"
        json_contract "clockfix $*" "$@"
        return 0
}

# live_root IMAGE DIR...: IMAGE, attached (DEV) and mounted at ROOT=$TMP/root, made a root to
# chroot into, as the mounted / of a running system is for clockfix: each DIR of this machine
# (usr, dev, proc) bound read-only into it, /bin, /lib... linked as here, and clockfix (the
# dynamic build) in its /tmp. In a cross build the sysroot is bound at its own path too, for the
# exe wrapper, which /usr holds. Undone by live_root_done, or at exit.
LIVE_MOUNTS=()
live_root() {
        local img=$1 d
        shift
        [ "$(id -u)" == 0 ] || fail "needs root to mount and chroot (CI runs as root)"
        attach "$img"
        ROOT=$TMP/root
        mkdir -p "$ROOT"
        mount "$DEV" "$ROOT"
        LIVE_MOUNTS=("$ROOT")
        for d in "$@" ${SYSROOT:+"${SYSROOT#/}"}; do
                mkdir -p "$ROOT/$d"
                mount --bind -o ro "/$d" "$ROOT/$d"
                LIVE_MOUNTS+=("$ROOT/$d")
        done
        for d in bin lib lib64 sbin; do [ ! -L "/$d" ] || ln -sfn "$(readlink "/$d")" "$ROOT/$d"; done
        mkdir -p "$ROOT/tmp"
        cp "$CLOCKFIX_BIN" "$ROOT/tmp/clockfix"
}

live_root_done() {
        local i
        for ((i = ${#LIVE_MOUNTS[@]} - 1; i >= 0; i--)); do umount "${LIVE_MOUNTS[i]}" 2>/dev/null || true; done
        LIVE_MOUNTS=()
}
at_exit live_root_done

# fifo_trap FIFO: makes a FIFO at FIFO, with a writer that waits in its open() until something
# opens the FIFO for reading, then touches FIFO.opened; returns once the writer is blocked there.
# What must never be opened (a link to /dev/watchdog, which arms it) is made a link to one or a FIFO
# itself: fifo_untouched FIFO then tells that nothing opened it. The writer gives up after 60 s, and
# is killed by fifo_traps_done or at exit (before live_root_done: its open holds the mount).
declare -A FIFO_WRITERS=() # FIFO -> the pid of timeout, whose child is the writer
fifo_trap() {
        mkfifo "$1"
        # shellcheck disable=SC2016 # the writer's own $1
        timeout 60 sh -c ': >"$1" && touch "$1.opened"' sh "$1" &
        FIFO_WRITERS[$1]=$!
        wait_until 30 fifo_untouched "$1" ||
                fail "fifo_trap: no writer blocked opening $1 (its wchan: $(cat "/proc/$(pgrep -P "$!")/wchan" 2>&1))"
}

# fifo_untouched FIFO: whether the writer of fifo_trap is still blocked in the FIFO's open, asleep
# where the kernel puts a writer until a reader comes (fs/pipe.c; wait_for_partner() is inlined in
# some builds). A reader's open wakes it before it returns, so a check after the reader is
# reliable: a writer once woken never sleeps there again.
fifo_untouched() {
        local writer
        writer=$(pgrep -P "${FIFO_WRITERS[$1]}") || return 1
        [ ! -e "$1.opened" ] && [[ "$(cat "/proc/$writer/wchan" 2>/dev/null)" =~ ^(wait_for_partner|fifo_open)$ ]]
}

fifo_traps_done() {
        local f
        for f in "${!FIFO_WRITERS[@]}"; do
                kill "${FIFO_WRITERS[$f]}" 2>/dev/null || true
                wait "${FIFO_WRITERS[$f]}" 2>/dev/null || true
        done
        FIFO_WRITERS=()
}
at_exit fifo_traps_done

# live_clockfix ARGS...: runs the clockfix of live_root there; sets OUT, ERR, RC
live_clockfix() {
        RC=0
        OUT=$(chroot "$ROOT" "${EXE_WRAPPER[@]}" /tmp/clockfix "$@" 2>"$TMP/stderr") || RC=$?
        ERR=$(cat "$TMP/stderr")
        json_contract "clockfix $* (live)" "$@"
}

# listen SOCKET: plays systemd's side of sd_notify() at SOCKET, into SOCKET.log, until killed
# ($listener); returns once the socket is there.
listen() {
        rm -f "$1"
        "$NOTIFY_LISTEN" "$1" 600 >"$1.log" &
        listener=$!
        wait_until 30 test -S "$1" || fail "notify-listen did not bind $1"
}

stop_listening() {
        kill "$listener" 2>/dev/null || true
        wait "$listener" 2>/dev/null || true
        listener=
}

# daemon_disk: what the daemon tests run a daemon on, which leaves the clock alone and without
# CAP_SYS_TIME could not change it anyway: $TMP/old.img, an ext4 image last written a day ago
# (old, in seconds); COMMON, the arguments that take it, no configuration file and a floor a day
# before it; NOCAP, which runs a program without CAP_SYS_TIME; host_synced, the kernel's NTP state
# of the host (true or false), read by clockfix itself (adjtimex, read only)
# shellcheck disable=SC2034 # for the daemon tests
daemon_disk() {
        old=$(($(date +%s) - 86400))
        mkimg "$TMP/old.img" "$old" 8M -t ext4
        COMMON=(--device "$TMP/old.img" --config /dev/null --not-before "@$((old - 86400))")
        NOCAP=(setpriv --inh-caps=-sys_time --bounding-set=-sys_time)
        host_synced=$("$CLOCKFIX" status --json "${COMMON[@]}" | jq -r .ntp_synchronized)
}

# jqo FILTER: applies jq to OUT
jqo() {
        jq -r "$1" <<<"$OUT"
}

# attach IMAGE: sets DEV to a loop device for the image, detached when the test ends
attach() {
        DEV=$(losetup -f --show -P "$1")
}

# logdump_last IMAGE [JOURNAL-DEVICE]: "SEQUENCE BLOCK" of the last commit block that e2fsprogs'
# own walk of the log (debugfs logdump, as e2fsck's recovery reads it) finds; "" for none
logdump_last() {
        debugfs -c -R "logdump${2:+ -f $2}" "$1" 2>/dev/null |
                sed -n 's/^Found expected sequence \([0-9]*\), type 2 (commit block) at block \([0-9]*\)$/\1 \2/p' |
                tail -n 1
}

# logdump_start IMAGE: the block a dirty log starts at, as debugfs logdump says
logdump_start() {
        debugfs -c -R logdump "$1" 2>/dev/null | sed -n 's/^Journal starts at block \([0-9]*\), transaction.*/\1/p'
}
