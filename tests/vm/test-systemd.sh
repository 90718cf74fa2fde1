#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clockfix.service in a whole Debian systemd boot, of this machine's release (QEMU, a dead RTC at 2000-01-01), installed
# with `meson install` into a debootstrapped root:
# 1. It sets the clock to just after the disk's newest time before systemd-fsck-root.service,
#    systemd-remount-fs.service and time-set.target; once a default route appears it starts the
#    NTP unit of /etc/clockfix.conf over D-Bus; that unit plays an NTP client (steps the clock an
#    hour forward, marks the kernel synchronised); the daemon logs the correction in a structured
#    journal entry and exits 0.
# 2. The guest writes a file every second and loses power: the next boot's clock is within
#    seconds of the moment the power went.
# 3. Under systemd the record stays in /var/lib/clockfix, the one directory the units' sandboxes
#    let them write: state-dir of clockfix.conf is ignored with a warning, --state-dir on
#    clockfix-learn.service's command line refused (exit status 2).
# The initramfs (VM_DEBIAN_INITRD): busybox (the default), which mounts the root read-only and
# runs no clockfix, so that clockfix.service sets the clock; or initramfs-tools, made by this
# machine's mkinitramfs with clockfix's hook, which sets the clock before the root is mounted,
# and clockfix.service then finds it set (as on a Debian system with the package; tests/release.sh
# runs it so on Debian 13).
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
: "${NTP_PLAY:?run through meson test}"

STEP=3600

vm_kernel
vm_debian_root
initrd=${VM_DEBIAN_INITRD:-busybox}
case $initrd in
busybox) vm_debian_initramfs "$TMP/initrd.gz" ;;
initramfs-tools)
        vm_initramfs_tools_conf "$TMP/initramfs-tools"
        vm_initramfs_tools_hook "$TMP/initramfs-tools"
        vm_mkinitramfs "$TMP/initramfs-tools" "$TMP/initrd.gz"
        ;;
*) fail "VM_DEBIAN_INITRD=$initrd: not busybox or initramfs-tools" ;;
esac

overlay=$TMP/overlay
# The NTP unit steps the clock an hour; not after a power cut (clockfix.test=...).
vm_debian_clockfix "$overlay" "$STEP" '!clockfix.test'
# Another state directory in the configuration file, which both clockfix.service and
# clockfix-learn.service read: their sandboxes let them write in /var/lib/clockfix only, so they
# ignore it with a warning.
printf 'state-dir = /var/lib/clockfix-elsewhere\n' >>"$overlay$CONF"
mkdir -p "$overlay/var/lib/clockfix-elsewhere"
# The disk's newest time: a week after clockfix's floor.
written=$((FLOOR + 7 * 86400))

# What the guest reports, by the test of the kernel command line.
vm_debian_test_unit "$overlay" clockfix-test-report "After=clockfix-test-net.service" <<'SH'
. /usr/local/libexec/clockfix-test-lib
mode=normal
case " $(cat /proc/cmdline) " in *" clockfix.test=cut "*) mode=cut ;; *" clockfix.test=after-cut "*) mode=after-cut ;; esac
case $mode in
normal)
        # Until the daemon is done with NTP.
        wait_daemon
        say clockfix_result=$(mono clockfix.service Result)
        say clockfix_status=$(mono clockfix.service ExecMainStatus)
        say clockfix_state=$(mono clockfix.service ActiveState)
        say clockfix_ready=$(mono clockfix.service ActiveEnterTimestampMonotonic)
        say clockfix_exec=$(mono clockfix.service ExecMainStartTimestampMonotonic)
        say fsck_start=$(mono systemd-fsck-root.service InactiveExitTimestampMonotonic)
        say remount_start=$(mono systemd-remount-fs.service InactiveExitTimestampMonotonic)
        say time_set=$(mono time-set.target ActiveEnterTimestampMonotonic)
        say ntp_job=$(job_result clockfix-test-ntp.service)
        # clockfix-learn.service given another state directory on its command line: refused.
        mkdir -p /run/systemd/system/clockfix-learn.service.d
        printf '[Service]\nExecStart=\nExecStart=%s learn --boot --state-dir /var/lib/clockfix-elsewhere\n' \
                "$(command -v clockfix)" >/run/systemd/system/clockfix-learn.service.d/state-dir.conf
        systemctl daemon-reload
        systemctl start clockfix-learn.service || true
        say learn_status=$(mono clockfix-learn.service ExecMainStatus)
        journal clockfix.service systemd-fsck-root.service systemd-remount-fs.service time-set.target \
                clockfix-test-ntp.service clockfix-learn.service
        sync_entry
        ;;
cut)
        # A machine at work: a write every second, each on disk (fsync), until the power goes.
        for i in 1 2 3 4 5 6 7 8; do
                date +%s >>/var/tmp/alive
                sync /var/tmp/alive
                say alive=$(date +%s)
                say alive_up=$(cut -d' ' -f1 /proc/uptime)
                sleep 1
        done
        say cut=1
        sleep 600
        ;;
after-cut)
        set_to=$(journalctl -b -o cat --no-pager -u clockfix.service |
                sed -n 's/^Clock moved forward from [^ ]* to \([^ ]*\) .* from \([^ ]*\) of .*/\1 \2/p' | head -n 1)
        say set_to=$(date -u -d "${set_to% *}" +%s)
        say set_from=${set_to#* }
        say stamp_before=$(stat -c %Y /var/lib/clockfix/clock 2>/dev/null || echo none)
        journal clockfix.service
        ;;
esac
say done=1
systemctl --no-block poweroff
SH

vm_debian_disk "$TMP/root.img" "$overlay" "$written"

############################################################################
# 1. The boot, the hand-over to NTP.
vm_debian_boot systemd "$TMP/initrd.gz" "$TMP/root.img" ""
vm_debian_finished systemd
echo "systemd boot: $BOOT_MS ms"
grep -a '^JOURNAL ' <<<"$CONSOLE" | sed 's/^JOURNAL /  | /'

assert_eq "$(marker clockfix_state) $(marker clockfix_result) $(marker clockfix_status)" "inactive success 0" \
        "clockfix.service exited 0"
ready=$(marker clockfix_ready)
[ "${ready:-0}" -gt 0 ] || fail "clockfix.service never became active (READY=1)"
for m in fsck_start remount_start time_set; do
        t=$(marker "$m")
        [ "${t:-0}" -gt 0 ] || { vm_dump systemd; fail "no $m in the guest"; }
        [ "$ready" -le "$t" ] || fail "clockfix was ready at $ready µs, after $m at $t µs"
done
echo "clockfix ready at $((ready / 1000)) ms of boot; fsck of / at $(($(marker fsck_start) / 1000)) ms," \
        "remount at $(($(marker remount_start) / 1000)) ms, time-set.target at $(($(marker time_set) / 1000)) ms"

journal=$(grep -a '^JOURNAL ' <<<"$CONSOLE")
iso=$(date -u -d "@$((written + 1))" +%Y-%m-%dT%H:%M:%SZ)
moved="Clock moved forward from [0-9T:-]+Z to $iso \(\+[0-9 a-z]+\) from superblock:[a-z_]+ of /dev/vda"
rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s)
if [ "$initrd" == busybox ]; then
        assert_match "$journal" "clockfix\[[0-9]+\]: $moved" "clockfix.service set the clock to just after the disk's time"
        # From systemd's clock: its build time (later than the dead RTC could have come to in this
        # boot) plus the boot so far, and before the disk's time.
        from=$(sed -n 's/.*clockfix\[[0-9]*\]: Clock moved forward from \([^ ]*\) to .*/\1/p' <<<"$journal" | head -n 1)
        from=$(date -u -d "$from" +%s)
        [ "$from" -gt $((rtc2000 + $(vm_boot_s) + 1)) ] && [ "$from" -lt "$written" ] ||
                fail "clockfix moved the clock from $from: not systemd's time (after the RTC's, before the disk's $written)"
else
        # The hook, from the dead RTC's time (the boot so far), before the root was mounted; then
        # the service found the clock set.
        hook=$(grep -av '^JOURNAL ' <<<"$CONSOLE" | grep -a 'Clock moved forward' || true)
        assert_match "$hook" "$moved" "the initramfs hook set the clock to just after the disk's time"
        from=$(sed -n 's/.*Clock moved forward from \([^ ]*\) to .*/\1/p' <<<"$hook" | head -n 1)
        from=$(date -u -d "$from" +%s)
        [ "$from" -ge "$rtc2000" ] && [ "$from" -le $((rtc2000 + $(vm_boot_s) + 1)) ] ||
                fail "the hook moved the clock from $from: not the dead RTC's time ($rtc2000 and the boot so far)"
        mounted=$({ grep -anm 1 'EXT4-fs (vda): mounted' <<<"$CONSOLE" || true; } | cut -d: -f1)
        hook_at=$({ grep -anm 1 'Clock moved forward' <<<"$CONSOLE" || true; } | cut -d: -f1)
        [ -n "$mounted" ] && [ "$hook_at" -lt "$mounted" ] || fail "the hook did not run before the root was mounted"
        assert_match "$journal" "clockfix\[[0-9]+\]: Clock [0-9T:-]+Z is already at or past $iso from superblock:[a-z_]+ of /dev/vda: left alone" \
                "clockfix.service found the clock set"
fi
assert_match "$journal" "clockfix\[[0-9]+\]: Ignoring state-dir /var/lib/clockfix-elsewhere \($CONF:2\): clockfix.service and clockfix-learn.service may write the record in /var/lib/clockfix only" \
        "clockfix.service ignored state-dir of the configuration file"
assert_eq "$(marker learn_status)" 2 "clockfix-learn.service with --state-dir: exit status"
assert_match "$journal" "clockfix\[[0-9]+\]: --state-dir /var/lib/clockfix-elsewhere: clockfix.service and clockfix-learn.service may write the record in /var/lib/clockfix only" \
        "clockfix-learn.service refused --state-dir"
assert_match "$journal" "Network is up: default route dev lo" "the daemon saw the route"
assert_match "$journal" "Started clockfix-test-ntp.service" "the daemon started the NTP unit over D-Bus"
assert_eq "$(marker ntp_job)" done "the NTP unit ran"
[ -n "$(marker ntp_to)" ] || fail "the NTP unit did not step the clock"

# The structured entry: the source, and NTP's correction: the hour of the step, give or take the
# time the NTP unit took between reading the clock and setting it.
assert_eq "$(marker CLOCKFIX_SOURCE)" "$(grep -ao 'from superblock:[a-z_]*' <<<"$journal" | head -n 1 | cut -d' ' -f2)" "CLOCKFIX_SOURCE"
assert_eq "$(marker CLOCKFIX_DEVICE)" /dev/vda "CLOCKFIX_DEVICE"
# (the service set the clock, or found it set by the hook)
assert_eq "$(marker CLOCKFIX_ACTION)" "$([ "$initrd" == busybox ] && echo set || echo none)" "CLOCKFIX_ACTION"
assert_eq "$(marker CLOCKFIX_SYNC_SIGNAL)" kernel "CLOCKFIX_SYNC_SIGNAL"
correction=$(marker CLOCKFIX_CORRECTION_USEC)
error=$(marker CLOCKFIX_ESTIMATE_ERROR_USEC)
[ -n "$correction" ] && [ "$correction" -gt $(((STEP - 1) * 1000000)) ] && [ "$correction" -lt $(((STEP + 1) * 1000000)) ] ||
        fail "CLOCKFIX_CORRECTION_USEC=$correction, expected about $((STEP * 1000000))"
if [ "$initrd" == busybox ]; then
        # clockfix set the clock to its estimate: the estimate's error is minus the correction.
        assert_eq "$error" "$((-correction))" "CLOCKFIX_ESTIMATE_ERROR_USEC"
else
        # The hook set the clock to the estimate, which the service found it past by the seconds of
        # the boot between them: the estimate's error is minus the correction less those.
        [ -n "$error" ] && [ "$error" -lt "$((-correction))" ] && [ "$error" -gt $((-correction - $(vm_boot_s) * 1000000)) ] ||
                fail "CLOCKFIX_ESTIMATE_ERROR_USEC=$error: not minus the correction ($((-correction))) less part of the boot"
fi
echo "NTP corrected clockfix's estimate by $correction µs (the step: $STEP s)"

############################################################################
# 2. A power cut while the guest writes, then the next boot.
vm_debian_boot_cut cut "$TMP/initrd.gz" "$TMP/root.img" "clockfix.test=cut" "CLOCKFIX-TEST cut=1"
[ "$CUT" == 1 ] || { vm_dump cut; fail "the guest did not reach the power cut"; }
went=$(marker alive) went_up=$(marker alive_up) cut_s=$(vm_boot_s)
echo "power cut at guest time $went, $BOOT_MS ms into the boot"

vm_debian_boot after-cut "$TMP/initrd.gz" "$TMP/root.img" "clockfix.test=after-cut"
vm_debian_finished after-cut
grep -a '^JOURNAL ' <<<"$CONSOLE" | sed 's/^JOURNAL /  | /'
set_to=$(marker set_to) set_from=$(marker set_from)
if [ "$initrd" != busybox ]; then
        # (set by the hook: its line on the console)
        set_to=$(grep -av '^JOURNAL ' <<<"$CONSOLE" |
                sed -n 's/.*Clock moved forward from [^ ]* to \([^ ]*\) .* from \([^ ]*\) of .*/\1 \2/p' | head -n 1)
        set_from=${set_to#* }
        [ -z "$set_to" ] || set_to=$(date -u -d "${set_to% *}" +%s)
fi
# At least the time of the last write on the disk (synced, so in a journal commit made then or
# later), and at most the guest's clock at the cut: that write's time plus the rest of the cut
# boot (its length on the host, less the guest's uptime at the write, which the boot had passed).
most=$((went + cut_s - ${went_up%.*} + 2))
[ -n "$set_to" ] && [ "$set_to" -ge "$went" ] && [ "$set_to" -le "$most" ] ||
        fail "after the power cut at $went the clock was set to ${set_to:-nothing}, not $went to $most"
assert_eq "$set_from" journal:last_commit "after the power cut: the source"
echo "after the power cut: clock set to $set_to from $set_from, $((set_to - went)) s from the moment the power went"

# The daemon was still waiting for NTP at the power-off: stopped, it had its stamp touched (through
# clockfix-stamp.service: its own sandbox keeps / read-only, as it was when it started), and the
# stamp is on the disk. (Without the journal: its newest commit, written at that stop, would tell
# that no stamp can be newer, and the stamp files would not be looked up.)
assert_eq "$(marker stamp_before)" none "no stamp before the first stop"
"$CLOCKFIX" status --json --config /dev/null --journal-budget 0 --device "$TMP/root.img" >"$TMP/status.json" || true
saved=$(jq -r '.sources[] | select(.source == "file:/var/lib/clockfix/clock") | .time' "$TMP/status.json")
[ -n "$saved" ] && [ "$saved" -ge "$set_to" ] && [ "$saved" -le $((set_to + 300)) ] ||
        fail "the stamp reads '${saved:-nothing}' after a boot that started at $set_to"
echo "the stamp at power-off: $saved ($((saved - set_to)) s after the boot's clockfix)"
# Nothing went to the other state directory.
elsewhere=$(debugfs -R 'ls /var/lib/clockfix-elsewhere' "$TMP/root.img" 2>/dev/null | tr -s ' \n' ' ')
assert_match "$elsewhere" "^ *[0-9]+ +\(12\) +\. +[0-9]+ +\([0-9]+\) +\.\. *$" "/var/lib/clockfix-elsewhere stayed empty"
echo ok
