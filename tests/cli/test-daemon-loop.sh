#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon over time, in each of its waiting modes: its CPU time over a few seconds once it
# waits (a loop that spins at 100% shows as seconds; a waiting daemon uses next to nothing);
# that it stops trying the NTP unit once NTP synchronised and then exits; and the stamp on a
# filesystem read-only for every process, or in the daemon's mount namespace alone with no
# systemd to start clockfix-stamp.service: each said once, with its real cause, and no stall.
# Without CAP_SYS_TIME, on disks older than the clock: the host's clock is never touched; the
# network and /run are namespaces of the test's own.
. "$SRCDIR/tests/lib/lib.sh"

NS=clockfix-loop-$$
cleanup_loop() {
        # The daemon and what runs it, a process group of their own (see start).
        [ -z "${daemon:-}" ] || kill -KILL -- "-$daemon" 2>/dev/null || true
        [ -z "${listener:-}" ] || kill "$listener" 2>/dev/null || true
        [ -z "${watcher:-}" ] || kill "$watcher" 2>/dev/null || true
        ip netns del "$NS" 2>/dev/null || true
        umount "$TMP/mnt" 2>/dev/null || true
}
at_exit cleanup_loop

daemon_disk
echo "the host's clock synchronised by NTP: $host_synced"

# A network namespace with a default route: the network is up at once.
ip netns add "$NS"
ip netns exec "$NS" ip link add "cl$$a" type veth peer name "cl$$b"
ip netns exec "$NS" ip link set "cl$$a" up
ip netns exec "$NS" ip link set "cl$$b" up
ip netns exec "$NS" ip addr add 192.0.2.2/24 dev "cl$$a"
ip netns exec "$NS" ip route add default via 192.0.2.1

# A private /run without systemd or a bus, where timesyncd's flag is touched every second while
# the file FLAG names is there (then NTP synchronised, as timesyncd tells it).
cat >"$TMP/run.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /run
# /run/systemd/system: as if systemd ran the system, which the daemon asks before it takes an NTP unit.
mkdir -p /run/systemd/timesync /run/systemd/system
"$@" &
daemon=$!
trap 'kill -TERM "$daemon"' TERM
while sleep 1 && kill -0 "$daemon" 2>/dev/null; do
        [ ! -e "$FLAG" ] || touch /run/systemd/timesync/synchronized
done
wait "$daemon"
SH

# cpu_ticks PGID: user + system time in clock ticks of the processes of a process group (the
# daemon and what runs it: ip, unshare, the shell of run.sh, qemu in a cross build)
cpu_ticks() {
        { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v g="$1" '$5 == g { t += $14 + $15 } END { print t + 0 }'
}

# wakeups PGID: the voluntary context switches so far of the clockfix of a process group (the
# daemon, whatever runs it): each return from its poll() (and each wait on a write); "" under an
# exe wrapper (qemu-user's own threads wake it)
wakeups() {
        local p
        [ ${#EXE_WRAPPER[@]} -eq 0 ] || return 0
        for p in /proc/[0-9]*; do
                [ "$(cat "$p/comm" 2>/dev/null)" == clockfix ] || continue
                awk -v g="$1" '{ exit !($5 == g) }' "$p/stat" 2>/dev/null || continue
                sed -n 's/^voluntary_ctxt_switches:[^0-9]*//p' "$p/status"
                return 0
        done
}

HZ=$(getconf CLK_TCK)
WINDOW=3
declare -A SPENT WOKE
# idle_cpu MODE PGID: the CPU seconds the group used over WINDOW seconds; fails above 0.3 s (a spinning
# loop uses the whole window, or what the load leaves of it: more than a second in any case); and
# the daemon's wake-ups then (PGID is its pid: start), less those the steps of the host's clock
# over the same window explain (the daemon watches for steps: some hypervisors' guest agents set
# the clock several times a second), in WOKE[MODE]: each step wakes it once, or twice with the line
# it logs; coalesced steps, fewer times
idle_cpu() {
        local before after w0 w1 steps
        kill -0 "$2" 2>/dev/null || fail "$1: the daemon is gone: $(cat "$TMP/$1.err")"
        "$CLOCK_STEPS" >"$TMP/steps" &
        watcher=$!
        wait_for "$TMP/steps" ready 60 || fail "clock-steps: not ready"
        before=$(cpu_ticks "$2") w0=$(wakeups "$2")
        sleep "$WINDOW"
        after=$(cpu_ticks "$2") w1=$(wakeups "$2")
        kill "$watcher" && wait "$watcher" 2>/dev/null || true
        watcher=
        steps=$(grep -c '^step$' "$TMP/steps" || true)
        SPENT[$1]=$(awk -v t=$((after - before)) -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')
        WOKE[$1]=${w1:+$((w1 - w0 > 2 * steps ? w1 - w0 - 2 * steps : 0))}
        echo "$1: ${SPENT[$1]} s of CPU in $WINDOW s${w1:+, woke $((w1 - w0)) times}, $steps step(s) of the host's clock"
        [ $(((after - before) * 10)) -le $((3 * HZ)) ] ||
                fail "$1: ${SPENT[$1]} s of CPU in $WINDOW s: the daemon spins: $(tail -5 "$TMP/$1.err")"
}

# start MODE ARGS...: starts the daemon (daemon=PID, in a process group of its own with what runs
# it) with stderr in $TMP/MODE.err, under a listener for sd_notify(); returns once it is READY=1
# (it then waits for the network and NTP).
start() {
        local mode=$1
        shift
        listen "$TMP/notify"
        NOTIFY_SOCKET=$TMP/notify setsid "$@" 2>"$TMP/$mode.err" &
        daemon=$!
        wait_for "$TMP/notify.log" "READY=1" 240 || fail "$mode: no READY=1: $(cat "$TMP/$mode.err")"
}

# stop MODE: SIGTERM, and its exit
stop() {
        kill -TERM "$daemon"
        wait_exit "$daemon" 30 || fail "$1: exit $? at SIGTERM: $(cat "$TMP/$1.err")"
        daemon=
        stop_listening
}

############################################################################
# 1. --stay --timeout: the timeout passes after NTP synchronised (timesyncd's flag, created once
# the daemon is ready), or after the start when the kernel said synchronised already. Should the
# timeout pass first (a loaded machine), again with a longer one.
for timeout in 4 16 64; do
        touch "$TMP/flag"
        FLAG=$TMP/flag start stay-timeout-synced ip netns exec "$NS" unshare -m --propagation private bash \
                "$TMP/run.sh" "${NOCAP[@]}" "$CLOCKFIX" daemon --stay --timeout "$timeout" --save-interval 0 "${COMMON[@]}"
        ready=$(date +%s)
        wait_for "$TMP/stay-timeout-synced.err" "Clock synchronised by NTP \(timesyncd\)|already synchronised by NTP" 120 ||
                fail "stay-timeout-synced: no synchronisation: $(cat "$TMP/stay-timeout-synced.err")"
        grep -q "No NTP synchronisation within" "$TMP/stay-timeout-synced.err" || break
        echo "the timeout of $timeout s passed before the synchronisation: again"
        stop stay-timeout-synced
done
rm "$TMP/flag"
# The timeout passes.
left=$((ready + timeout + 1 - $(date +%s)))
[ "$left" -le 0 ] || sleep "$left"
grep -q "No NTP synchronisation within" "$TMP/stay-timeout-synced.err" &&
        fail "stay-timeout-synced: the timeout after the synchronisation: $(cat "$TMP/stay-timeout-synced.err")"
idle_cpu stay-timeout-synced "$daemon"
# Done with NTP, with no stamp to keep: nothing at all wakes it.
[ -z "${WOKE[stay-timeout-synced]}" ] || assert_eq "${WOKE[stay-timeout-synced]}" 0 "stay-timeout-synced: wake-ups once NTP synchronised"
stop stay-timeout-synced

# 2. The same from the configuration file, and the timeout from the kernel command line: when the
# timeout passes without NTP, the message names where it came from.
printf 'stay = yes\ntimeout = 5\nsave-interval = 0\n' >"$TMP/stay.conf"
echo "clockfix.timeout=1" >"$TMP/cmdline"
start stay-timeout-file ip netns exec "$NS" unshare -m --propagation private bash "$TMP/run.sh" \
        "${NOCAP[@]}" "$CLOCKFIX" daemon --boot --cmdline "$TMP/cmdline" --device "$TMP/old.img" \
        --config "$TMP/stay.conf" --not-before "@$((old - 86400))"
if [ "$host_synced" == false ]; then
        wait_for "$TMP/stay-timeout-file.err" \
                "No NTP synchronisation within 1 s \(clockfix.timeout=\): keeping the stamp file fresh" 180 ||
                fail "stay-timeout-file: the timeout and its origin: $(cat "$TMP/stay-timeout-file.err")"
else
        sleep 1.5
fi
idle_cpu stay-timeout-file "$daemon"
stop stay-timeout-file

# 3. The network never up (no route in an empty namespace), no timeout.
ip netns add "$NS-empty"
start no-network ip netns exec "$NS-empty" "${NOCAP[@]}" "$CLOCKFIX" daemon --stay --save-interval 0 "${COMMON[@]}"
idle_cpu no-network "$daemon"
grep -q "Network is up" "$TMP/no-network.err" && fail "no-network: network up: $(cat "$TMP/no-network.err")"
# Before the network is up, only an event wakes it (a route, a step of the clock, a signal).
[ -z "${WOKE[no-network]}" ] || assert_eq "${WOKE[no-network]}" 0 "no-network: wake-ups before the network is up"
stop no-network
ip netns del "$NS-empty"

# 4. The NTP unit with no systemd and no bus: warned once, tried again at a slowing pace (-v shows
# the tries); the clock not synchronised meanwhile, or the kernel said so already (then tried once).
start no-bus ip netns exec "$NS" unshare -m --propagation private bash "$TMP/run.sh" "${NOCAP[@]}" \
        "$CLOCKFIX" daemon --stay --save-interval 0 --ntp-unit chrony.service -v "${COMMON[@]}"
tried="Cannot start chrony.service: cannot connect to systemd \(/run/systemd/private\) or the system bus"
wait_for "$TMP/no-bus.err" "$tried" 180 || fail "no-bus: the unit was not tried: $(cat "$TMP/no-bus.err")"
if [ "$host_synced" == false ]; then
        wait_count "$TMP/no-bus.err" "$tried; trying again until the clock is synchronised" 2 180 ||
                fail "no-bus: not tried again: $(cat "$TMP/no-bus.err")"
        idle_cpu no-bus "$daemon"
        assert_eq "$(grep -cE "^<4>.*$tried" "$TMP/no-bus.err")" 1 "no-bus: one warning, the other tries in the debug output"
        grep -qE "^<7>.*$tried" "$TMP/no-bus.err" || fail "no-bus: the tries not shown with -v: $(cat "$TMP/no-bus.err")"
else
        idle_cpu no-bus "$daemon"
        stop no-bus
        assert_eq "$(grep -cE "$tried" "$TMP/no-bus.err")" 1 "no-bus, synchronised at start: tried once"
        assert_match "$(cat "$TMP/no-bus.err")" "$tried; not trying again: the clock is synchronised$" \
                "no-bus, synchronised at start: given up"
fi
[ -z "$daemon" ] || stop no-bus

# 5. The NTP unit with no bus, then NTP synchronises (timesyncd's flag): the unit no longer
# matters; without --stay the daemon says so and exits.
touch "$TMP/flag"
rc=0
FLAG=$TMP/flag timeout 120 ip netns exec "$NS" unshare -m --propagation private bash "$TMP/run.sh" "${NOCAP[@]}" \
        "$CLOCKFIX" daemon --save-interval 0 --ntp-unit chrony.service "${COMMON[@]}" 2>"$TMP/synced-no-bus.err" ||
        rc=$?
assert_eq "$rc" 0 "synced-no-bus: exit ($(cat "$TMP/synced-no-bus.err"))"
rm "$TMP/flag"
if [ "$host_synced" == false ]; then
        assert_match "$(cat "$TMP/synced-no-bus.err")" "Clock synchronised by NTP \(timesyncd\)" "synced-no-bus: synchronised"
        assert_match "$(cat "$TMP/synced-no-bus.err")" "Not starting chrony.service: the clock is synchronised already$" \
                "synced-no-bus: the unit given up once synchronised"
        assert_eq "$(grep -c "Cannot start chrony.service" "$TMP/synced-no-bus.err")" 1 "synced-no-bus: one warning"
else
        assert_match "$(cat "$TMP/synced-no-bus.err")" "already synchronised by NTP" "synced-no-bus: synchronised at start"
fi

############################################################################
# The stamp on a read-only filesystem, the daemon's /var/lib (a private mount namespace).
mkdir -p "$TMP/img/var/lib/clockfix" "$TMP/mnt"
mkimg "$TMP/stamp.img" "$old" 16M -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 -d "$TMP/img"
cat >"$TMP/ro.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /run
mount --bind "$STAMPFS" /var/lib
[ -z "$RO_HERE" ] || mount -o remount,bind,ro /var/lib
exec "$@"
SH
# ro_daemon MODE RO_HERE REGEX N: the daemon, with the stamp filesystem mounted at $TMP/mnt as its
# /var/lib (made read-only in its mount namespace alone when RO_HERE is not empty), until N lines
# of its stderr match REGEX; then its CPU while it waits, and its stop. Sets err to its stderr.
ro_daemon() {
        STAMPFS=$TMP/mnt/var/lib RO_HERE=$2 start "$1" unshare -m --propagation private bash "$TMP/ro.sh" \
                "${NOCAP[@]}" "$CLOCKFIX" daemon --stay --save-interval 1 -v "${COMMON[@]}"
        wait_count "$TMP/$1.err" "$3" "$4" 180 || fail "$1: not said: $(cat "$TMP/$1.err")"
        idle_cpu "$1" "$daemon"
        stop "$1"
        err=$(cat "$TMP/$1.err")
}

# 6. Read-only for every process (mounted ro): said once, at notice level; nothing started; no
# stall at stop.
mount -o loop,ro "$TMP/stamp.img" "$TMP/mnt"
said="Not touching /var/lib/clockfix/clock \(.*\): its filesystem is mounted read-only, for every process"
ro_daemon ro-everywhere "" "$said" 3
assert_eq "$(grep -c "^<5>.*$said" <<<"$err")" 1 "ro-everywhere: said once, then in the debug output"
assert_match "$err" "^<7>clockfix: Not touching /var/lib/clockfix/clock \(at stop\): its filesystem is mounted read-only" \
        "ro-everywhere: at stop, nothing tried"
grep -q "clockfix-stamp.service\|^<4>" <<<"$err" && fail "ro-everywhere: the unit tried, or a warning: $err"
umount "$TMP/mnt"

# 7. Read-only in the daemon's namespace alone (a read-only bind mount of a filesystem mounted
# read-write), with no systemd to start clockfix-stamp.service: one warning naming both causes.
mount -o loop "$TMP/stamp.img" "$TMP/mnt"
cannot="Cannot touch /var/lib/clockfix/clock \(no other write in the interval\): read-only in clockfix's sandbox, and (cannot start clockfix-stamp.service: cannot connect to systemd \(/run/systemd/private\) or the system bus|no libsystemd to start clockfix-stamp.service)$"
ro_daemon ro-here 1 "$cannot" 2
assert_eq "$(grep -cE "^<4>clockfix: $cannot" <<<"$err")" 1 "ro-here: one warning, then in the debug output"
grep -q "No such file or directory\|mounted read-only, for every process" <<<"$err" &&
        fail "ro-here: a wrong cause: $err"
[ ! -e "$TMP/mnt/var/lib/clockfix/clock" ] || fail "ro-here: the stamp was written"
umount "$TMP/mnt"

for mode in "${!SPENT[@]}"; do echo "CPU $mode ${SPENT[$mode]} s / $WINDOW s"; done | sort
echo ok
