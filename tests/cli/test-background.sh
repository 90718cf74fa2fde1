#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon as an init script without systemd runs it (OpenRC, sysvinit, busybox init):
# - `daemon --background --pid-file`: the foreground process exits 0 once the daemon is ready, its
#   pid in the pid file; the daemon is a session of its own with /dev/null for its standard
#   streams and its messages in syslog (a socket at /dev/log of the test's own); SIGTERM saves the
#   stamp, removes the pid file and ends it, and so do SIGQUIT and SIGINT; SIGHUP is ignored;
# - a daemon whose stderr is /dev/null logs to syslog, in the foreground too;
# - started with its standard streams closed and a descriptor of the caller's open, it returns
#   and keeps none of them;
# - a failure of set (not allowed to set the clock), or a pid file it cannot write, is the
#   foreground's exit status, and nothing stays in the background;
# - --ntp-unit without systemd (no /run/systemd/system) is refused, and ntp-unit in the
#   configuration file ignored with a warning (the boot goes on);
# - --background and --pid-file go with daemon only; a relative pid file is refused;
# - the LSB init script knows the daemon by its executable: a stale pid file naming another
#   program called clockfix neither stops a start nor is killed at stop, and a daemon whose
#   program an upgrade replaced is still known.
# Without CAP_SYS_TIME, on disks older than the clock: the host's clock is never touched. /dev,
# /run and /var/lib are the test's own (a mount namespace); the network an empty namespace.
if [ -z "${CLOCKFIX_TEST_NAMESPACE:-}" ]; then
        CLOCKFIX_TEST_NAMESPACE=1 exec unshare -m -n --propagation private bash "$0" "$@"
fi
. "$SRCDIR/tests/lib/lib.sh"

cleanup_background() {
        [ -z "${bg:-}" ] || kill -KILL "$bg" 2>/dev/null || true
        [ -z "${daemon:-}" ] || kill -KILL "$daemon" 2>/dev/null || true
        [ -z "${listener:-}" ] || kill "$listener" 2>/dev/null || true
        [ -z "${impostor:-}" ] || kill -KILL "$impostor" 2>/dev/null || true
}
at_exit cleanup_background

# The namespace: a /dev of a few nodes and a syslog socket at /dev/log, an empty /run (no systemd
# here), /var/lib a tmpfs for the stamp file.
mkdir "$TMP/dev"
mount --rbind /dev "$TMP/dev"
mount -t tmpfs tmpfs /dev
for n in null zero full random urandom; do
        touch "/dev/$n"
        mount --bind "$TMP/dev/$n" "/dev/$n"
done
ln -s /proc/self/fd /dev/fd
umount -l "$TMP/dev"
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib
mkdir /var/lib/clockfix
listen /dev/log
SYSLOG=/dev/log.log
daemon_disk
STAMP=/var/lib/clockfix/clock

# stamp_clock: the time a file written now on the stamp's filesystem gets, in seconds: the kernel
# stamps files from a clock that lags `date` by up to a tick, so a stamp saved just after a second
# began may bear the second before, and only a time from the same clock orders it.
stamp_clock() {
        touch /var/lib/clockfix/before
        stat -c %Y /var/lib/clockfix/before
}

# pid_of FILE: the pid the pid file holds ("" if none)
pid_of() {
        cat "$1" 2>/dev/null || true
}

############################################################################
# 1. --background: ready, in the background, in syslog; SIGTERM saves the stamp.
rc=0
timeout 120 "${NOCAP[@]}" "$CLOCKFIX" daemon --background --pid-file /run/clockfix.pid --stay \
        "${COMMON[@]}" >"$TMP/fg.out" 2>"$TMP/fg.err" || rc=$?
assert_eq "$rc" 0 "--background: the foreground's exit status ($(cat "$TMP/fg.err"))"
bg=$(pid_of /run/clockfix.pid)
assert_match "$bg" "^[0-9]+$" "--background: the pid file, once the foreground exited"
kill -0 "$bg" 2>/dev/null || fail "--background: the daemon $bg is not running"
# Its own session, away from the test's; /dev/null for its standard streams.
assert_eq "$(ps -o sid= -p "$bg" | tr -d ' ')" "$bg" "--background: a session of its own"
for fd in 0 1 2; do
        assert_eq "$(readlink "/proc/$bg/fd/$fd")" /dev/null "--background: its fd $fd"
done
assert_match "$(tr '\0' ' ' <"/proc/$bg/cmdline")" "daemon --background" "--background: the process"
# set's messages went to the foreground's stderr (the console of a boot), none to syslog yet.
assert_match "$(cat "$TMP/fg.err")" "is already at or past .*: left alone" "--background: set's message"
assert_eq "$(cat "$TMP/fg.out")" "" "--background: nothing on stdout"
grep -q "left alone" "$SYSLOG" && fail "--background: set's message in syslog: $(cat "$SYSLOG")"

before=$(stamp_clock)
kill -TERM "$bg"
wait_until 60 gone "$bg" || fail "--background: still running 60 s after SIGTERM"
bg=
[ ! -e /run/clockfix.pid ] || fail "--background: the pid file is still there after the daemon stopped"
wait_for "$SYSLOG" "clockfix\[[0-9]+\]: Stopping \(Terminated\)$" 10 ||
        fail "--background: no stop in syslog: $(cat "$SYSLOG")"
pid=$(sed -n 's/.*clockfix\[\([0-9]*\)\]: Stopping.*/\1/p' "$SYSLOG")
assert_match "$(cat "$SYSLOG")" "^<30>.* clockfix\[$pid\]: Stopping" "--background: daemon.info, with its pid"
[ -f "$STAMP" ] || fail "--background: no stamp saved at SIGTERM"
[ "$(stat -c %Y "$STAMP")" -ge "$before" ] || fail "--background: the stamp is older than the SIGTERM"
echo "--background: ready, pid $pid in the pid file, stopped by SIGTERM with the stamp saved"

############################################################################
# 2. In the foreground with stderr on /dev/null (a daemon an init script supervises): syslog.
: >"$SYSLOG"
rm -f "$STAMP"
"${NOCAP[@]}" "$CLOCKFIX" daemon --pid-file /run/fg.pid --stay "${COMMON[@]}" 2>/dev/null &
daemon=$!
wait_until 60 test -s /run/fg.pid || fail "foreground: no pid file"
assert_eq "$(pid_of /run/fg.pid)" "$daemon" "foreground: the pid file"
wait_for "$SYSLOG" "clockfix\[$daemon\]: Clock .* is already at or past .*: left alone$" 10 ||
        fail "foreground, stderr on /dev/null: set's message not in syslog: $(cat "$SYSLOG")"
kill -TERM "$daemon"
rc=0
wait_exit "$daemon" 60 || rc=$?
daemon=
assert_eq "$rc" 0 "foreground: exit status after SIGTERM"
[ ! -e /run/fg.pid ] || fail "foreground: the pid file is still there"
[ -f "$STAMP" ] || fail "foreground: no stamp saved at SIGTERM"

############################################################################
# 2a. The other signals, in the foreground with a pid file: SIGQUIT and SIGINT stop it as SIGTERM
# does (exit 0, the stamp saved, the pid file removed); SIGHUP is said and ignored, and SIGTERM
# still stops it after it. (env: bash starts a job of its own with SIGINT and SIGQUIT ignored.)
for sig in QUIT INT HUP; do
        : >"$SYSLOG"
        rm -f "$STAMP"
        env --default-signal=INT,QUIT "${NOCAP[@]}" "$CLOCKFIX" daemon --pid-file /run/sig.pid --stay \
                "${COMMON[@]}" 2>/dev/null &
        daemon=$! pid=$!
        wait_until 60 test -s /run/sig.pid || fail "SIG$sig: no pid file"
        before=$(stamp_clock)
        kill "-$sig" "$daemon"
        if [ "$sig" == HUP ]; then
                wait_for "$SYSLOG" "clockfix\[$daemon\]: Ignoring SIGHUP: nothing to reload or reopen \(SIGTERM stops the daemon\)$" 30 ||
                        fail "SIGHUP: not said in syslog: $(cat "$SYSLOG")"
                kill -0 "$daemon" 2>/dev/null || fail "SIGHUP: the daemon is gone"
                assert_eq "$(pid_of /run/sig.pid)" "$daemon" "SIGHUP: the pid file"
                [ ! -e "$STAMP" ] || fail "SIGHUP: the stamp was written"
                kill -TERM "$daemon"
        fi
        rc=0
        wait_exit "$daemon" 60 || rc=$?
        daemon=
        assert_eq "$rc" 0 "SIG$sig: exit status"
        [ ! -e /run/sig.pid ] || fail "SIG$sig: the pid file is still there after the daemon stopped"
        [ -f "$STAMP" ] && [ "$(stat -c %Y "$STAMP")" -ge "$before" ] || fail "SIG$sig: no stamp saved at the stop"
        case $sig in QUIT) why=Quit ;; INT) why=Interrupt ;; HUP) why=Terminated ;; esac
        wait_for "$SYSLOG" "clockfix\[$pid\]: Stopping \($why\)$" 10 ||
                fail "SIG$sig: no stop in syslog: $(cat "$SYSLOG")"
done
echo "SIGQUIT and SIGINT stop the daemon with the stamp saved; SIGHUP is ignored"

############################################################################
# 2b. Started with its standard streams closed and a descriptor of the caller's open (a pipe a
# boot logger reads to its end): it returns all the same, and the daemon keeps none of them.
rc=0
timeout 120 "${NOCAP[@]}" "$CLOCKFIX" daemon --background --pid-file /run/closed.pid --stay "${COMMON[@]}" \
        <&- >&- 2>&- 7>"$TMP/fd7" || rc=$?
assert_eq "$rc" 0 "closed streams: the foreground's exit status"
bg=$(pid_of /run/closed.pid)
kill -0 "$bg" 2>/dev/null || fail "closed streams: the daemon '$bg' is not running"
[ ! -e "/proc/$bg/fd/7" ] || fail "closed streams: the daemon kept the caller's descriptor 7"
for fd in 0 1 2; do
        assert_eq "$(readlink "/proc/$bg/fd/$fd")" /dev/null "closed streams: its fd $fd"
done
kill -TERM "$bg"
wait_until 60 gone "$bg" || fail "closed streams: still running after SIGTERM"
bg=

# 2c. A pid file it cannot write: said on the console, exit status 1, no daemon left untracked.
rc=0
timeout 120 "${NOCAP[@]}" "$CLOCKFIX" daemon --background --pid-file /run/none/clockfix.pid --stay \
        "${COMMON[@]}" 2>"$TMP/nopid.err" || rc=$?
assert_eq "$rc" 1 "pid file not writable: the foreground's exit status"
assert_match "$(cat "$TMP/nopid.err")" "Cannot write the pid file /run/none/clockfix.pid: No such file or directory" \
        "pid file not writable: message"
pgrep -f "pid-file /run/none/clockfix.pid" >/dev/null && fail "pid file not writable: a daemon still runs"

############################################################################
# 3. set fails (a disk newer than the clock, no right to set it): that is the foreground's exit
# status, and no daemon stays.
new=$(($(date +%s) + 86400))
mkimg "$TMP/new.img" "$new" 8M -t ext4
rc=0
timeout 120 "${NOCAP[@]}" "$CLOCKFIX" daemon --background --pid-file /run/fail.pid --device "$TMP/new.img" \
        --config /dev/null 2>"$TMP/fail.err" || rc=$?
assert_eq "$rc" 4 "set not allowed: the foreground's exit status ($(cat "$TMP/fail.err"))"
[ ! -e /run/fail.pid ] || fail "set not allowed: a pid file"
pgrep -f "clockfix daemon --background --pid-file /run/fail.pid" >/dev/null &&
        fail "set not allowed: a daemon still runs"

############################################################################
# 4. No systemd here: --ntp-unit refused, ntp-unit of the file ignored with a warning.
cf daemon --background --pid-file /run/unit.pid --ntp-unit chrony.service "${COMMON[@]}"
assert_eq "$RC" 2 "--ntp-unit without systemd: exit"
assert_match "$ERR" "^(<3>)?clockfix: --ntp-unit chrony.service: systemd does not run this system \(no /run/systemd/system\), so no unit can be started: leave ntp-unit out and start the NTP client from the init system" \
        "--ntp-unit without systemd: message"
[ ! -e /run/unit.pid ] || fail "--ntp-unit without systemd: a daemon started"
printf 'ntp-unit = chrony.service\n' >"$TMP/unit.conf"
rc=0
timeout 120 "${NOCAP[@]}" "$CLOCKFIX" daemon --background --pid-file /run/unit.pid --device "$TMP/old.img" \
        --config "$TMP/unit.conf" --not-before "@$((old - 86400))" 2>"$TMP/unit.err" || rc=$?
assert_eq "$rc" 0 "ntp-unit in the file without systemd: exit ($(cat "$TMP/unit.err"))"
assert_match "$(cat "$TMP/unit.err")" "Ignoring ntp-unit chrony.service \($TMP/unit.conf:1\): systemd does not run this system" \
        "ntp-unit in the file without systemd: warning"
bg=$(pid_of /run/unit.pid)
kill -TERM "$bg"
wait_until 60 gone "$bg" || fail "ntp-unit in the file: the daemon still runs after SIGTERM"
bg=

############################################################################
# 5. The options go with daemon only; the pid file's path is absolute.
for args in "set --background" "status --pid-file /run/x.pid" "stamp --background"; do
        # shellcheck disable=SC2086 # words on purpose
        cf $args "${COMMON[@]}"
        assert_eq "$RC" 2 "$args: exit"
        assert_match "$ERR" "applies to daemon only" "$args: message"
done
cf daemon --pid-file run/x.pid "${COMMON[@]}"
assert_eq "$RC" 2 "a relative pid file: exit"
assert_match "$ERR" "--pid-file: not an absolute path \"run/x.pid\"" "a relative pid file: message"
############################################################################
# 6. The LSB init script (sysvinit, busybox init) and a stale pid file: the process it names runs
# a program called clockfix too (a copy of sleep), but not clockfix. start starts the daemon all
# the same, stop leaves that process alone; a daemon whose program an upgrade replaced is still
# known for it. (Natively only: under qemu-user every target program's executable is qemu.)
lsb() {
        rc=0
        "${NOCAP[@]}" sh "$SYSVINIT_SCRIPT" "$1" >"$TMP/lsb.out" 2>&1 || rc=$?
}
if [ ${#EXE_WRAPPER[@]} -eq 0 ]; then
        # The script's settings, the test's own: its clockfix a copy (to be replaced), our disk.
        mount -t tmpfs tmpfs /etc/default
        mkdir "$TMP/sbin" "$TMP/other"
        cp "$CLOCKFIX_BIN" "$TMP/sbin/clockfix"
        cat >/etc/default/clockfix <<CONF
CLOCKFIX=$TMP/sbin/clockfix
CLOCKFIX_OPTS="$(printf '%q ' "${COMMON[@]}")"
CLOCKFIX_PIDFILE=/run/lsb.pid
CONF
        cp /bin/sleep "$TMP/other/clockfix"
        "$TMP/other/clockfix" 600 &
        impostor=$!
        # (read at each try: until the fork has run the copy, its name is the shell's)
        wait_until 10 grep -qx clockfix "/proc/$impostor/comm" || fail "LSB: no impostor"
        echo "$impostor" >/run/lsb.pid

        lsb status
        assert_eq "$rc" 1 "LSB: status with the pid file of another program called clockfix ($(cat "$TMP/lsb.out"))"
        assert_match "$(cat "$TMP/lsb.out")" "the daemon does not run, but its pid file is there" "LSB: status"
        lsb start
        assert_eq "$rc" 0 "LSB: start over a stale pid file ($(cat "$TMP/lsb.out"))"
        bg=$(pid_of /run/lsb.pid)
        [ -n "$bg" ] && [ "$bg" != "$impostor" ] || fail "LSB: start took process $impostor for the daemon: $(cat "$TMP/lsb.out")"
        [ "/proc/$bg/exe" -ef "$TMP/sbin/clockfix" ] || fail "LSB: the pid file names $bg, not clockfix"
        kill -0 "$impostor" 2>/dev/null || fail "LSB: start killed process $impostor"

        # An upgrade replaces the program while the daemon runs: it is still the daemon.
        cp "$CLOCKFIX_BIN" "$TMP/sbin/clockfix.new"
        mv "$TMP/sbin/clockfix.new" "$TMP/sbin/clockfix"
        lsb status
        assert_eq "$rc" 0 "LSB: status after an upgrade ($(cat "$TMP/lsb.out"))"
        assert_match "$(cat "$TMP/lsb.out")" "the daemon runs \(pid $bg\)" "LSB: status after an upgrade"
        rm -f "$STAMP"
        lsb stop
        assert_eq "$rc" 0 "LSB: stop ($(cat "$TMP/lsb.out"))"
        wait_until 30 gone "$bg" || fail "LSB: stop left the daemon $bg running"
        bg=
        [ -f "$STAMP" ] || fail "LSB: no stamp after stop"
        [ ! -e /run/lsb.pid ] || fail "LSB: the pid file is still there after stop"

        # stop with the pid file of the other program: it goes on running.
        echo "$impostor" >/run/lsb.pid
        lsb stop
        assert_eq "$rc" 0 "LSB: stop with a stale pid file ($(cat "$TMP/lsb.out"))"
        sleep 0.5
        kill -0 "$impostor" 2>/dev/null || fail "LSB: stop killed process $impostor, which is not clockfix"
        [ ! -e /run/lsb.pid ] || fail "LSB: the stale pid file is still there after stop"
        kill "$impostor"
        wait "$impostor" 2>/dev/null || true
        impostor=
        echo "LSB script: a stale pid file naming another program called clockfix neither stops a start nor is killed"
fi
echo ok
