# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/rc.sh: the Debian guests of clockfix's init scripts (openrc/, sysvinit/): a root of
# vm_debian_root sysvinit or openrc with the static clockfix and the script as this build
# configured them, enabled as a user would, booted with the dead RTC from the busybox initramfs of
# vm_debian_initramfs (without clockfix: only the init script sets the clock) that leaves the root
# read-only, so that the boot checks it (checkroot's fsck). A real NTP client synchronises the
# clock over the test's own network (tests/vm/ntp.sh): chrony, as Debian's package runs it from
# its LSB script, or busybox's ntpd, as Alpine's OpenRC service does. Late in the boot,
# /etc/rc.local (run by sysv-rc's rc.local, or OpenRC's in the default runlevel) waits for the
# daemon's report of NTP's correction, reports and powers off. Sourced after tests/lib/lib.sh,
# tests/vm/lib.sh, tests/vm/debian.sh and tests/vm/ntp.sh.

# vm_rc_overlay OVERLAY SCRIPT CLIENT WRITTEN: a tree OVERLAY holding the static clockfix where the
# configured init script SCRIPT runs it, SCRIPT as /etc/init.d/clockfix, its settings (a floor a
# day before WRITTEN, the disk's newest time, itself older than clockfix's build), the stamp's
# directory, ntp-probe, Debian's busybox (its syslogd receives the daemon's messages), the NTP
# client CLIENT (chrony: in the root already; busybox: BUSYBOX_NTPD and an OpenRC service "ntpd"
# that runs it, as Alpine's does), the LSB script clockfix-test-net, which in rcS starts syslogd,
# ntp-probe's watch and the sampling of the daemon's wake-ups, then brings the network up (as
# ifupdown's networking would: 192.0.2.2/24 via 192.0.2.1 on eth0), and /etc/rc.local, which
# says "CLOCKFIX-TEST key=value": after (the clock), uptime, root (ro or rw), pid (the pid
# file's), comm (that process's name), status (the script's status command: lsb=EXIT for
# sysvinit, openrc=STATE for OpenRC), then once the daemon logged NTP's correction synced=1 and
# the fields of its entry (its log lines as "SYSLOG ..."), the server's time (ntp-probe query),
# synced_clock (the clock then), under OpenRC what its stop and start did with a stale pid file
# naming another program called clockfix (stale_other=clockfix, that process' name;
# stale_stop=alive, stale_start=clockfix, stale_start_other=alive: left alone, the daemon started
# again) and done=1, and powers off once the runlevel is reached.
vm_rc_overlay() {
        local overlay=$1 script=$2 client=$3 written=$4 bin conf
        : "${CLOCKFIX_STATIC:?run through meson test}" "${NTP_PROBE:?run through meson test}"
        bin=$(sed -n -e 's/^CLOCKFIX=\(.*\)$/\1/p' -e 's/^command="\(.*\)"$/\1/p' "$script")
        [ -n "$bin" ] || fail "$script names no clockfix"
        conf=$("$CLOCKFIX_STATIC" --help | sed -n 's/.*read settings from FILE instead of \(.*\)$/\1/p')
        [ -n "$conf" ] || fail "the static clockfix names no configuration file"
        mkdir -p "$overlay$(dirname "$bin")" "$overlay$(dirname "$conf")" "$overlay/etc/init.d" \
                "$overlay/var/lib/clockfix" "$overlay/usr/local/bin"
        cp "$CLOCKFIX_STATIC" "$overlay$bin"
        printf 'not-before = @%s\n' $((written - 86400)) >"$overlay$conf"
        install -m 755 "$script" "$overlay/etc/init.d/clockfix"
        cp "$NTP_PROBE" "$overlay/usr/local/bin/ntp-probe"
        cp /bin/busybox "$overlay/usr/local/bin/busybox"
        case "$client" in
        chrony) ;;
        busybox)
                : "${BUSYBOX_NTPD:?vm_busybox_ntpd first}"
                cp "$BUSYBOX_NTPD" "$overlay/usr/local/bin/busybox-ntpd"
                ln -s busybox-ntpd "$overlay/usr/local/bin/ntpd"
                # Its messages on the console (Debian's start-stop-daemon has no --stdout).
                printf '#!/bin/sh\nexec /usr/local/bin/ntpd "$@" >/dev/console 2>&1\n' >"$overlay/usr/local/bin/ntpd-console"
                chmod 755 "$overlay/usr/local/bin/ntpd-console"
                cat >"$overlay/etc/init.d/ntpd" <<SH
#!/sbin/openrc-run
# busybox's ntpd as an OpenRC service, as Alpine has it: in the foreground (-n), under
# start-stop-daemon.
description="busybox ntpd"
command=/usr/local/bin/ntpd-console
command_args="-n -p $VM_NTP_SERVER"
command_background=yes
pidfile=/run/ntpd.pid
depend() {
        need clockfix-test-net
}
SH
                chmod 755 "$overlay/etc/init.d/ntpd"
                ;;
        *) fail "vm_rc_overlay: no client named $client" ;;
        esac
        cat >"$overlay/etc/init.d/clockfix-test-net" <<SH
#!/bin/sh
### BEGIN INIT INFO
# Provides:          clockfix-test-net
# Required-Start:    mountkernfs \$local_fs clockfix
# Required-Stop:
# Default-Start:     S
# Default-Stop:
# Short-Description: clockfix test: syslogd, what watches NTP, then the network
### END INIT INFO
[ "\$1" = start ] || exit 0
exec >/dev/console 2>&1
/usr/local/bin/busybox syslogd -O /run/messages
# (into files: the console mixes the kernel's messages into lines; rc.local prints them)
/usr/local/bin/ntp-probe clocks >/run/ntp-watch
setsid /usr/local/bin/ntp-probe watch </dev/null >>/run/ntp-watch 2>&1 &
pid=\$(cat /run/clockfix.pid 2>/dev/null)
setsid sh -c 'while [ -r /proc/\$1/status ]; do
        echo "CLOCKFIX-TEST wake=\$(cut -d" " -f1 /proc/uptime),\$(sed -n "s/^voluntary_ctxt_switches:[^0-9]*//p" /proc/\$1/status)"
        sleep 2
done' sh "\${pid:-0}" </dev/null >/run/ntp-wake 2>&1 &
ip link set lo up
ip addr add $VM_NTP_GUEST/24 dev eth0
ip link set eth0 up
ip route add default via $VM_NTP_SERVER
echo "clockfix-test-net: eth0 $VM_NTP_GUEST/24 via $VM_NTP_SERVER"
SH
        chmod 755 "$overlay/etc/init.d/clockfix-test-net"
        cat >"$overlay/etc/rc.local" <<SH
#!/bin/sh
# The report of clockfix's test, late in the boot, then a power-off.
exec >/dev/console 2>&1
say() { echo "CLOCKFIX-TEST \$*"; }
say after=\$(date +%s)
say uptime=\$(cut -d' ' -f1 /proc/uptime)
say root=\$(awk '\$2 == "/" { print \$4 }' /proc/mounts | cut -d, -f1)
pid=\$(cat /run/clockfix.pid 2>/dev/null)
say pid=\${pid:-none}
say comm=\$(cat "/proc/\${pid:-0}/comm" 2>/dev/null || echo none)
if command -v rc-service >/dev/null; then
        say status=openrc=\$(rc-service clockfix status 2>&1 | sed -n 's/.*status: *//p')
        rc-status sysinit | sed 's/^/RC /'
else
        /etc/init.d/clockfix status >/dev/null
        say status=lsb=\$?
fi
# The daemon's messages go to syslog: until it logged NTP's correction (its entry), 3 minutes at most.
i=0
while ! grep -q CLOCKFIX_CORRECTION_USEC /run/messages 2>/dev/null && [ \$i -lt 360 ]; do
        sleep 0.5
        i=\$((i + 1))
        # (a line every 30 s: the host takes a silent console for a hung guest)
        [ \$((i % 60)) -ne 0 ] || say waiting=\$((i / 2))
done
grep -q CLOCKFIX_CORRECTION_USEC /run/messages && say synced=1
sed 's/^/SYSLOG /' /run/messages
sed -n 's/.*clockfix.*\[\(CLOCKFIX_.*\)\]\$/\1/p' /run/messages | tr ' ' '\n' | sed 's/^/CLOCKFIX-TEST /'
$(vm_ntp_lines)
/usr/local/bin/ntp-probe query $VM_NTP_SERVER
say synced_clock=\$(date +%s)
if command -v rc-service >/dev/null; then
        # OpenRC and a stale pid file that names a program called clockfix but not clockfix (a
        # copy of sleep): stop leaves it alone (the daemon, then untracked, is stopped here), and
        # start starts the daemon all the same. (Debian's openrc runs dpkg's start-stop-daemon,
        # which compares the executable too; OpenRC's own, as Alpine and Gentoo have it, does not.)
        # (on the root: /run is mounted noexec)
        mkdir -p /var/tmp/other
        cp /bin/sleep /var/tmp/other/clockfix
        /var/tmp/other/clockfix 600 </dev/null >/dev/null 2>&1 &
        other=\$!
        sleep 0.2
        say stale_other=\$(cat "/proc/\$other/comm" 2>/dev/null || echo none)
        daemon=\$(cat /run/clockfix.pid)
        echo "\$other" >/run/clockfix.pid
        # (--nodeps: the services that need it, clockfix-test-net and ntpd, stay)
        rc-service clockfix --nodeps stop
        kill -0 "\$other" 2>/dev/null && say stale_stop=alive || say stale_stop=killed
        kill -TERM "\$daemon"
        echo "\$other" >/run/clockfix.pid
        rc-service clockfix --nodeps start
        new=\$(cat /run/clockfix.pid 2>/dev/null)
        [ -n "\$new" ] && [ "/proc/\$new/exe" -ef "$bin" ] && say stale_start=clockfix || say stale_start=\${new:-none}
        kill -0 "\$other" 2>/dev/null && say stale_start_other=alive || say stale_start_other=killed
        kill "\$other"
fi
say done=1
# Once this script is done, so that the runlevel is reached before the power-off stops it.
setsid sh -c 'sleep 1; poweroff' </dev/null >/dev/null 2>&1 &
SH
        chmod 755 "$overlay/etc/rc.local"
}

# vm_rc_check NAME WRITTEN DISK STATUS: the boot NAME of DISK (its newest time WRITTEN) went as it
# should: the clock moved from the dead RTC's to just after WRITTEN by the init script, before
# the root's fsck ran (its line comes later on the console, and it found nothing in the future);
# the daemon runs, and the init system's status command says so (STATUS, as the guest says it);
# the root was read-write late in the boot; the daemon logged NTP's synchronisation, true and in
# time (vm_ntp_check); the script's stop ran at the power-off and the stamp it saved is on the
# disk, at least the clock NTP set
vm_rc_check() {
        local name=$1 written=$2 disk=$3 rtc target=$(($2 + 1)) moved fsck saved synced stop report clock up
        rtc=$(date -u -d 2000-01-01T00:00:00Z +%s)
        vm_debian_finished "$name"
        vm_rtc_clock "$name" "the clock in the initramfs" "$(marker initrd_clock)" "$rtc"
        vm_moved "$name" "$rtc" "$target"
        # The clock in rcS, before the network: the target plus at most the boot so far.
        clock=$(vm_first ntpq_realtime) up=$(vm_first ntpq_boottime)
        [ -n "$clock" ] && [ "${clock%.*}" -ge "$target" ] && [ "${clock%.*}" -le $((target + ${up%.*} + 1)) ] ||
                { vm_dump "$name"; fail "$name: the clock read ${clock:-nothing} in rcS, not $target plus at most ${up:-?} s"; }
        # The order on the console: clockfix's line, then fsck's.
        moved=$({ grep -anE "Clock moved forward from" <<<"$CONSOLE" || true; } | head -n 1 | cut -d: -f1)
        fsck=$({ grep -an "Checking root file system" <<<"$CONSOLE" || true; } | head -n 1 | cut -d: -f1)
        [ -n "$fsck" ] || { vm_dump "$name"; fail "$name: the root was not checked (no fsck on the console)"; }
        [ "$moved" -lt "$fsck" ] || { vm_dump "$name"; fail "$name: fsck ran (line $fsck) before clockfix set the clock (line $moved)"; }
        ! grep -ai "in the future" <<<"$CONSOLE" || fail "$name: fsck found a time in the future"
        echo "$name: clock $(marker initrd_clock) in the initramfs, set to $target by the init script (console line $moved)," \
                "fsck of the root at line $fsck: $(sed -n "${fsck}p" <<<"$CONSOLE")"
        [ "$(marker pid)" != none ] || { vm_dump "$name"; fail "$name: no /run/clockfix.pid"; }
        assert_eq "$(marker comm)" clockfix "$name: the process of the pid file"
        assert_eq "$(marker status)" "$4" "$name: the service's status"
        assert_eq "$(marker root)" rw "$name: the root late in the boot"
        { grep -a '^SYSLOG ' <<<"$CONSOLE" || true; } | sed 's/^SYSLOG /  | /'
        { grep -a 'CLOCKFIX-TEST watch_' <<<"$CONSOLE" || true; } | sed 's/^/  | /'
        assert_eq "$(marker synced)" 1 "$name: the daemon logged NTP's correction"
        vm_ntp_check "$name" "$written"
        # The init script's stop ran at the power-off, after the report ("Saving the clock's stamp"
        # from both scripts), and the stamp it saved is on the disk, no earlier than the clock NTP set.
        stop=$({ grep -an "Saving the clock's stamp" <<<"$CONSOLE" || true; } | tail -n 1 | cut -d: -f1)
        report=$({ grep -an "CLOCKFIX-TEST done=1" <<<"$CONSOLE" || true; } | tail -n 1 | cut -d: -f1)
        [ -n "$stop" ] && [ "$stop" -gt "$report" ] ||
                { vm_dump "$name"; fail "$name: the init script's stop did not run at the power-off"; }
        "$CLOCKFIX" status --json --config /dev/null --journal-budget 0 --device "$disk" >"$TMP/$name.json" || true
        synced=$(marker synced_clock)
        saved=$(jq -r '.sources[] | select(.source == "file:/var/lib/clockfix/clock") | .time' "$TMP/$name.json")
        [ -n "$saved" ] && [ "$saved" -ge "$synced" ] ||
                fail "$name: the stamp reads '${saved:-nothing}', not at least the clock $synced NTP set"
        echo "$name: $BOOT_MS ms; daemon pid $(marker pid), status $(marker status); stamp saved at power-off: $saved" \
                "($((saved - synced)) s after the report's clock, NTP's)"
}
