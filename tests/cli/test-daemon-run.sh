#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clockfix daemon against the real kernel interfaces, without touching the host's clock (it runs
# without CAP_SYS_TIME, on disks older than the clock) or the host's network (network namespaces
# of its own) or files (private mount namespaces):
# - readiness: READY=1 and STATUS= on $NOTIFY_SOCKET, STOPPING=1 and exit 0 on SIGTERM;
# - the network: a default route appearing later (rtnetlink events), or there already (the dump),
#   IPv4 and IPv6;
# - NTP: timesyncd's flag file appearing, or touched when it was there already;
# - the stamp file: not written while anything else writes to its filesystem, written once the
#   filesystem has been idle for the save interval, and at stop; `clockfix stamp` writes it, but
#   not with clockfix=0 on the kernel command line.
. "$SRCDIR/tests/lib/lib.sh"

NS=clockfix-test-$$
cleanup_daemon() {
        ip netns del "$NS" 2>/dev/null || true
        ip netns del "$NS-6" 2>/dev/null || true
        ip netns del "$NS-flag" 2>/dev/null || true
        [ -z "${WRITER:-}" ] || kill "$WRITER" 2>/dev/null || true
        # A daemon left running by a failed check holds the test's stdout: meson would wait for it.
        [ -z "${daemon:-}" ] || kill -KILL "$daemon" 2>/dev/null || true
        [ -z "${listener:-}" ] || kill "$listener" 2>/dev/null || true
        umount "$TMP/mnt" 2>/dev/null || true
}
at_exit cleanup_daemon

# Disks older than the clock: the daemon leaves the clock alone, and could not change it anyway.
daemon_disk

############################################################################
# Readiness, a default route that appears later, the NTP unit, SIGTERM.
ip netns add "$NS"
listen "$TMP/notify"
# As if systemd ran the system (/run/systemd/system, in a mount namespace of its own): the daemon
# takes an NTP unit only then.
cat >"$TMP/systemd.sh" <<'SH'
mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec "$@"
SH
NOTIFY_SOCKET=$TMP/notify ip netns exec "$NS" unshare -m --propagation private sh "$TMP/systemd.sh" \
        "${NOCAP[@]}" "$CLOCKFIX" daemon --dry-run --stay --timeout 3 "${COMMON[@]}" --ntp-unit chrony.service \
        2>"$TMP/d1.err" &
daemon=$!
wait_for "$TMP/notify.log" "READY=1" 30 || fail "no READY=1: $(cat "$TMP/notify.log" "$TMP/d1.err")"
assert_match "$(cat "$TMP/notify.log")" \
        "^READY=1 \| STATUS=Clock left alone, already past superblock:[a-z_]+ of $TMP/old.img; waiting for the network and NTP$" \
        "READY=1 with STATUS="
sleep 1
grep -q "Network is up" "$TMP/d1.err" && fail "network up before any route: $(cat "$TMP/d1.err")"

ip link add "cf$$a" type veth peer name "cf$$b" netns "$NS"
ip netns exec "$NS" ip link set "cf$$b" up
ip netns exec "$NS" ip addr add 192.0.2.2/24 dev "cf$$b"
ip netns exec "$NS" ip route add default via 192.0.2.1
wait_for "$TMP/d1.err" "Network is up: default route via 192.0.2.1 dev cf$$b$" 30 ||
        fail "the route was not seen: $(cat "$TMP/d1.err")"
assert_match "$(cat "$TMP/d1.err")" "Would start chrony.service; --dry-run: not started" "NTP unit after the network"
wait_for "$TMP/notify.log" "STATUS=Network is up; waiting for NTP from chrony.service" 30 ||
        fail "no STATUS= for the network: $(cat "$TMP/notify.log")"

if [ "$host_synced" == false ]; then
        wait_for "$TMP/d1.err" "No NTP synchronisation within 3 s \(--timeout\): keeping the stamp file fresh" 30 ||
                fail "--timeout: $(cat "$TMP/d1.err")"
else
        assert_match "$(cat "$TMP/d1.err")" "already synchronised by NTP" "the host's clock is synchronised"
fi
kill -TERM "$daemon"
rc=0
wait_exit "$daemon" 30 || rc=$?
assert_eq "$rc" 0 "SIGTERM: exit"
assert_match "$(cat "$TMP/d1.err")" "Stopping \(Terminated\)" "SIGTERM: logged"
wait_for "$TMP/notify.log" "^STOPPING=1$" 30 || fail "no STOPPING=1: $(cat "$TMP/notify.log")"
stop_listening
ip link del "cf$$a" 2>/dev/null || true

############################################################################
# An IPv6 default route that is there before the daemon starts: found in the kernel's table.
ip netns add "$NS-6"
ip netns exec "$NS-6" ip link add "cf$$c" type veth peer name "cf$$d"
ip netns exec "$NS-6" ip link set "cf$$d" up
ip netns exec "$NS-6" ip link set "cf$$c" up
ip netns exec "$NS-6" ip -6 route add default dev "cf$$c"
ip netns exec "$NS-6" "${NOCAP[@]}" "$CLOCKFIX" daemon --dry-run --stay --device "$TMP/old.img" \
        --config /dev/null 2>"$TMP/d2.err" &
daemon=$!
wait_for "$TMP/d2.err" "Network is up: default route dev cf$$c$" 30 || fail "IPv6 route: $(cat "$TMP/d2.err")"
kill -TERM "$daemon"
wait_exit "$daemon" 30

############################################################################
# Turned off on the kernel command line: READY=1 all the same, exit 0. The static build (no
# libsystemd) speaks the notification protocol by itself.
echo "root=/dev/nonexistent clockfix=0" >"$TMP/off"
for bin in "$CLOCKFIX" "$CLOCKFIX_STATIC"; do
        listen "$TMP/notify2"
        rc=0
        NOTIFY_SOCKET=$TMP/notify2 "$bin" daemon --boot --cmdline "$TMP/off" --config /dev/null 2>"$TMP/off.err" || rc=$?
        assert_eq "$rc" 0 "$(basename "$bin") daemon, clockfix=0: exit"
        wait_for "$TMP/notify2.log" "^READY=1 \| STATUS=Turned off by clockfix=0 on the kernel command line$" 30 ||
                fail "$(basename "$bin") daemon, clockfix=0: no READY=1: $(cat "$TMP/notify2.log" "$TMP/off.err")"
        stop_listening
done
listen "$TMP/notify2"
NOTIFY_SOCKET=$TMP/notify2 "${NOCAP[@]}" "$CLOCKFIX_STATIC" daemon --dry-run "${COMMON[@]}" --timeout 1 \
        2>"$TMP/static.err" || fail "static daemon: $(cat "$TMP/static.err")"
wait_for "$TMP/notify2.log" "^READY=1 \| STATUS=Clock left alone, already past superblock:" 30 ||
        fail "static daemon: no READY=1: $(cat "$TMP/notify2.log" "$TMP/static.err")"
stop_listening

############################################################################
# NTP through timesyncd's flag file (a private /run/systemd, without journald: the entry goes to
# stderr). A flag that was there at the start counts only once touched again: touched every second
# until the daemon has seen it, so that a touch comes after the daemon's first look however long
# that takes (emulation, a loaded machine).
cat >"$TMP/sync.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /run/systemd
mkdir /run/systemd/timesync
touch /run/systemd/timesync/synchronized
"$@" &
daemon=$!
while sleep 1 && kill -0 "$daemon" 2>/dev/null; do
        echo "touching the flag" >&2
        touch /run/systemd/timesync/synchronized
done
wait "$daemon"
SH
rc=0
timeout 120 unshare -m --propagation private bash "$TMP/sync.sh" "${NOCAP[@]}" "$CLOCKFIX" daemon --dry-run \
        "${COMMON[@]}" 2>"$TMP/d3.err" || rc=$?
assert_eq "$rc" 0 "synchronised: exit"
d3=$(cat "$TMP/d3.err")
if [ "$host_synced" == false ]; then
        # Not before the flag was touched.
        assert_match "$(sed -n '/touching the flag/,$p' <<<"$d3")" \
                "Clock synchronised by NTP \(timesyncd\) [0-9.]+ s after clockfix started \(it left the clock alone\), with no step: NTP corrected the clock by [-+][0-9.]+ s; the estimate from superblock:last_write of $TMP/old.img was -[0-9.]+ s off" \
                "synchronised after the flag was touched"
        correction=$(sed -n 's/.*CLOCKFIX_CORRECTION_USEC=\(-\{0,1\}[0-9]*\) .*/\1/p' <<<"$d3")
        error=$(sed -n 's/.*CLOCKFIX_ESTIMATE_ERROR_USEC=\(-\{0,1\}[0-9]*\)[] ].*/\1/p' <<<"$d3")
        [ -n "$correction" ] && [ "${correction#-}" -lt 1000000 ] || fail "nobody stepped the clock, yet: $d3"
        # The clock was right; the estimate, the disk's time (a day old) plus a second, a day behind.
        [ -n "$error" ] && [ "$error" -gt -$(((86400 + 30) * 1000000)) ] && [ "$error" -lt -$(((86400 - 30) * 1000000)) ] ||
                fail "CLOCKFIX_ESTIMATE_ERROR_USEC=$error, expected a day behind: $d3"
else
        assert_match "$d3" "already synchronised by NTP: nothing to hand over" "the host's clock is synchronised"
fi

# The same where timesyncd makes its directory only after the daemon started (as it does at boot,
# after clockfix.service), in a network namespace with no route: no timer looks for NTP then, and
# the flag is seen through its watch (inotify on /run/systemd, then on the directory).
ip netns add "$NS-flag"
cat >"$TMP/flag-later.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /run/systemd
"$@" &
daemon=$!
i=0
while ! grep -q READY=1 "$NOTIFY_LOG" && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
done
sleep 1
mkdir /run/systemd/timesync
while kill -0 "$daemon" 2>/dev/null; do
        echo "touching the flag" >&2
        touch /run/systemd/timesync/synchronized
        sleep 1
done
wait "$daemon"
SH
listen "$TMP/notify3"
rc=0
NOTIFY_SOCKET=$TMP/notify3 NOTIFY_LOG=$TMP/notify3.log timeout 60 ip netns exec "$NS-flag" \
        unshare -m --propagation private bash "$TMP/flag-later.sh" "${NOCAP[@]}" "$CLOCKFIX" daemon --dry-run \
        "${COMMON[@]}" 2>"$TMP/d4.err" || rc=$?
stop_listening
assert_eq "$rc" 0 "flag made later: exit ($(cat "$TMP/d4.err"))"
if [ "$host_synced" == false ]; then
        assert_match "$(sed -n '/touching the flag/,$p' "$TMP/d4.err")" "Clock synchronised by NTP \(timesyncd\)" \
                "flag made later, no network: synchronised after the flag was touched"
        grep -q "Network is up" "$TMP/d4.err" && fail "flag made later: a route in an empty namespace: $(cat "$TMP/d4.err")"
else
        assert_match "$(cat "$TMP/d4.err")" "already synchronised by NTP: nothing to hand over" "the host's clock is synchronised"
fi

############################################################################
# The stamp file: its filesystem is a loop-mounted image, seen by the daemon as /var/lib (a private
# mount namespace); a writer writes to the same filesystem, then stops.
mkdir -p "$TMP/img/var/lib/clockfix" "$TMP/mnt"
mkimg "$TMP/stamp.img" "$old" 16M -t ext4 -d "$TMP/img"
mount -o loop "$TMP/stamp.img" "$TMP/mnt"
stamp=$TMP/mnt/var/lib/clockfix/clock
writer() {
        while :; do
                date >>"$TMP/mnt/log"
                sync "$TMP/mnt/log"
                sleep 0.2
        done
}
writer &
WRITER=$!
cat >"$TMP/keep.sh" <<SH
mount --bind "$TMP/mnt/var/lib" /var/lib
exec "\$@"
SH
unshare -m --propagation private bash "$TMP/keep.sh" "${NOCAP[@]}" "$CLOCKFIX" daemon --stay --save-interval 2 \
        "${COMMON[@]}" -v 2>"$TMP/d4.err" &
daemon=$!
# (an interval of 2 s: the writer's sync may take a second on a loaded machine, and an interval
# with no write in it would be one the daemon may write in)
sleep 5
[ -e "$stamp" ] && fail "the stamp was written while another writer wrote: $(cat "$TMP/d4.err")"
assert_match "$(cat "$TMP/d4.err")" "Not touching /var/lib/clockfix/clock: the filesystem was written meanwhile" \
        "not written while the filesystem is busy"
kill "$WRITER"
wait "$WRITER" 2>/dev/null || true
WRITER=
# The log line comes after the write (the file itself exists from open() on, before fsync()).
idle="Touched /var/lib/clockfix/clock \(no other write in the interval\)"
wait_count "$TMP/d4.err" "$idle" 1 60 || fail "no stamp after the filesystem went idle: $(cat "$TMP/d4.err")"
first=$(stat -c %.9Y "$stamp")
wait_count "$TMP/d4.err" "$idle" 2 60 || fail "an idle filesystem: touched once, not again: $(cat "$TMP/d4.err")"
second=$(stat -c %.9Y "$stamp")
[[ "$second" > "$first" ]] || fail "an idle filesystem: the second touch left the time ($first, $second)"
kill -TERM "$daemon"
wait_exit "$daemon" 30
third=$(stat -c %.9Y "$stamp")
[[ "$third" > "$second" ]] || fail "not touched at stop: $(cat "$TMP/d4.err")"
assert_match "$(cat "$TMP/d4.err")" "Touched /var/lib/clockfix/clock \(at stop\)" "touched at stop"
assert_eq "$(stat -c %s:%a "$stamp")" "0:644" "the stamp: empty, rw-r--r-- (the umask of this shell)"

# `clockfix stamp`, which clockfix-stamp.service runs: touches it; where it cannot, one line, exit 1.
before=$(stat -c %.9Y "$stamp")
unshare -m --propagation private bash "$TMP/keep.sh" "$CLOCKFIX" stamp || fail "clockfix stamp failed"
[[ "$(stat -c %.9Y "$stamp")" > "$before" ]] || fail "clockfix stamp did not touch the stamp"
# With clockfix=0 on the kernel command line (--cmdline: what /proc/cmdline would say), with or
# without --boot: nothing written, one line, exit 0, as the daemon then writes nothing either.
printf 'ro quiet clockfix=0 root=/dev/vda\n' >"$TMP/off.cmdline"
for boot in "" --boot; do
        before=$(stat -c %.9Y "$stamp")
        sleep 0.01
        rc=0
        # shellcheck disable=SC2086 # no word, or one
        unshare -m --propagation private bash "$TMP/keep.sh" "$CLOCKFIX" stamp $boot --cmdline "$TMP/off.cmdline" \
                2>"$TMP/stamp.err" || rc=$?
        assert_eq "$rc" 0 "clockfix stamp $boot with clockfix=0: exit"
        assert_eq "$(cat "$TMP/stamp.err")" \
                "<6>clockfix: Turned off by clockfix=0 on the kernel command line ($TMP/off.cmdline): /var/lib/clockfix/clock not touched" \
                "clockfix stamp $boot with clockfix=0: message"
        sync -f "$stamp"
        assert_eq "$(stat -c %.9Y "$stamp")" "$before" "clockfix stamp $boot with clockfix=0: the stamp's time"
done
# clockfix=1 is on.
printf 'clockfix=1\n' >"$TMP/on.cmdline"
unshare -m --propagation private bash "$TMP/keep.sh" "$CLOCKFIX" stamp --cmdline "$TMP/on.cmdline" ||
        fail "clockfix stamp with clockfix=1 failed"
[[ "$(stat -c %.9Y "$stamp")" > "$before" ]] || fail "clockfix stamp with clockfix=1 did not touch the stamp"
mount -o remount,ro "$TMP/mnt"
rc=0
unshare -m --propagation private bash "$TMP/keep.sh" "$CLOCKFIX" stamp 2>"$TMP/stamp.err" || rc=$?
assert_eq "$rc" 1 "clockfix stamp on a read-only filesystem: exit"
assert_eq "$(cat "$TMP/stamp.err")" "<3>clockfix: Cannot touch /var/lib/clockfix/clock: Read-only file system" \
        "clockfix stamp on a read-only filesystem: message"

# Without its directory: one warning, and the daemon goes on.
mkdir -p "$TMP/empty"
cat >"$TMP/nodir.sh" <<SH
mount --bind "$TMP/empty" /var/lib
exec "\$@"
SH
unshare -m --propagation private bash "$TMP/nodir.sh" "${NOCAP[@]}" "$CLOCKFIX" daemon --stay \
        "${COMMON[@]}" 2>"$TMP/d5.err" &
daemon=$!
wait_for "$TMP/d5.err" "/var/lib/clockfix is not a directory: the stamp file is not kept" 30 ||
        fail "no warning without the directory: $(cat "$TMP/d5.err")"
kill -TERM "$daemon"
wait_exit "$daemon" 30
echo ok
