# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/rc.sh: the Debian guests of clockfix's init scripts (openrc/, sysvinit/): a root of
# vm_debian_root sysvinit or openrc with the static clockfix and the script as this build
# configured them, enabled as a user would, booted with the dead RTC from the busybox initramfs of
# vm_debian_initramfs (without clockfix: only the init script sets the clock) that leaves the root
# read-only, so that the boot checks it (checkroot's fsck). Late in the boot, /etc/rc.local (run
# by sysv-rc's rc.local, or OpenRC's in the default runlevel) reports, lets ntp-play synchronise
# the clock and powers off. Sourced after tests/lib.sh, tests/vm/lib.sh and tests/vm/debian.sh.

# How far ntp-play steps the clock.
VM_RC_STEP=3600

# vm_rc_overlay OVERLAY SCRIPT: a tree OVERLAY holding the static clockfix where the configured
# init script SCRIPT runs it, SCRIPT as /etc/init.d/clockfix, the stamp's directory, ntp-play,
# busybox (its syslogd receives the daemon's messages) and /etc/rc.local, which says
# "CLOCKFIX-TEST key=value": after (the clock), uptime, root (ro or rw), pid (the pid file's),
# comm (that process's name), status (the script's status command: lsb=EXIT for sysvinit,
# openrc=STATE for OpenRC), synced (1 once the daemon logged NTP's correction; its log lines as
# "SYSLOG ..."), then done=1, and powers off once the runlevel is reached. Sets FLOOR
# (clockfix's build time, seconds).
vm_rc_overlay() {
        local overlay=$1 script=$2 bin
        : "${CLOCKFIX_STATIC:?run through meson test}" "${NTP_PLAY:?run through meson test}"
        FLOOR=$(date -u -d "$("$CLOCKFIX" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
        bin=$(sed -n -e 's/^CLOCKFIX=\(.*\)$/\1/p' -e 's/^command="\(.*\)"$/\1/p' "$script")
        [ -n "$bin" ] || fail "$script names no clockfix"
        mkdir -p "$overlay$(dirname "$bin")" "$overlay/etc/init.d" "$overlay/var/lib/clockfix" "$overlay/usr/local/bin"
        cp "$CLOCKFIX_STATIC" "$overlay$bin"
        install -m 755 "$script" "$overlay/etc/init.d/clockfix"
        cp "$NTP_PLAY" "$overlay/usr/local/bin/ntp-play"
        cp /bin/busybox "$overlay/usr/local/bin/busybox"
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
# The daemon's messages go to syslog: a syslogd for them, a default route (the network is up),
# then an NTP client that steps the clock and marks it synchronised.
/usr/local/bin/busybox syslogd -O /run/messages
ip link set lo up
ip route add default dev lo
/usr/local/bin/ntp-play $VM_RC_STEP
i=0
while ! grep -q CLOCKFIX_CORRECTION_USEC /run/messages 2>/dev/null && [ \$i -lt 60 ]; do
        sleep 0.5
        i=\$((i + 1))
done
grep -q CLOCKFIX_CORRECTION_USEC /run/messages && say synced=1
sed 's/^/SYSLOG /' /run/messages
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
# it logged NTP's correction; the root was read-write then; the script's stop ran at the
# power-off and the stamp it saved is on the disk
vm_rc_check() {
        local name=$1 written=$2 disk=$3 rtc target=$(($2 + 1)) moved fsck saved after stop report
        rtc=$(date -u -d 2000-01-01T00:00:00Z +%s)
        vm_debian_finished "$name"
        vm_rtc_clock "$name" "the clock in the initramfs" "$(marker initrd_clock)" "$rtc"
        vm_moved "$name" "$rtc" "$target"
        vm_check "$name" "$written"
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
        assert_eq "$(marker synced)" 1 "$name: the daemon logged NTP's correction"
        # The init script's stop ran at the power-off, after the report ("Saving the clock's stamp"
        # from both scripts), and the stamp it saved is on the disk, after the report's clock and NTP's
        # step.
        stop=$({ grep -an "Saving the clock's stamp" <<<"$CONSOLE" || true; } | tail -n 1 | cut -d: -f1)
        report=$({ grep -an "CLOCKFIX-TEST done=1" <<<"$CONSOLE" || true; } | tail -n 1 | cut -d: -f1)
        [ -n "$stop" ] && [ "$stop" -gt "$report" ] ||
                { vm_dump "$name"; fail "$name: the init script's stop did not run at the power-off"; }
        "$CLOCKFIX" status --json --config /dev/null --journal-budget 0 --device "$disk" >"$TMP/$name.json" || true
        after=$(marker after)
        saved=$(jq -r '.sources[] | select(.source == "file:/var/lib/clockfix/clock") | .time' "$TMP/$name.json")
        [ -n "$saved" ] && [ "$saved" -ge $((after + VM_RC_STEP)) ] ||
                fail "$name: the stamp reads '${saved:-nothing}', not at least the report's $after plus NTP's step $VM_RC_STEP s"
        echo "$name: $BOOT_MS ms; daemon pid $(marker pid), status $(marker status); stamp saved at power-off: $saved" \
                "($((saved - after - VM_RC_STEP)) s after the report's clock plus the step)"
}
