#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A root filesystem with a time in the future: clockfix learns it at NTP synchronisation and never
# uses that value again, while a new value of the same source counts again. Whole Debian 12
# systemd boots (QEMU, a dead RTC at 2000-01-01) with clockfix installed by `meson install`, and
# the static clockfix in the initramfs, run on the root before it is mounted:
# 1. The root's last check time (s_lastcheck) is 10 years after its other times: the initramfs
#    sets the clock to just after it; the NTP stand-in steps the clock 10 years back and marks the
#    kernel synchronised; the daemon logs each time of the disk that is later than NTP's and has
#    clockfix-learn.service record them in /var/lib/clockfix/future-times. Then the power goes.
# 2. The next boot: neither the initramfs nor clockfix.service uses the recorded last check time;
#    the clock is set from the next best source, a time of the first boot after NTP's step.
# 3. On the host, a later fsck rewrites s_lastcheck: the new value is plausible and the newest,
#    and the next boot's initramfs sets the clock to it.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
: "${CLOCKFIX_STATIC:?run through meson test}"

# 3652 days: ten years, leap days included.
AHEAD=$((3652 * 86400))
RECORD=/var/lib/clockfix/future-times

# iso SECONDS: the UTC time as clockfix writes it
iso() {
        date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

# status_json IMAGE: clockfix status --json of the image, read on the host (the record too, from
# inside the image)
status_json() {
        "$CLOCKFIX" status --json --config /dev/null --device "$1" || true
}

# source_of JSON SOURCE FIELD: a field of one source of a status --json
source_of() {
        jq -r --arg s "$2" ".sources[] | select(.source == \$s) | .$3" <<<"$1"
}

# set_line NAME: "TO SOURCE" of the initramfs' "Clock moved forward from X to TO (...) from SOURCE
# of /dev/vda", TO in seconds; fails without one
set_line() {
        local line
        line=$(sed -n 's/^INITRD .*Clock moved forward from [^ ]* to \([^ ]*\) .* from \([^ ]*\) of \/dev\/vda.*/\1 \2/p' \
                <<<"$CONSOLE" | head -n 1)
        [ -n "$line" ] || { vm_dump "$1"; fail "$1: the initramfs' clockfix did not set the clock"; }
        echo "$(date -u -d "${line% *}" +%s) ${line#* }"
}

vm_kernel
vm_debian_root
vm_debian_initramfs "$TMP/initrd.gz" "$CLOCKFIX_STATIC:/clockfix"

overlay=$TMP/overlay
# NTP steps the clock back by the disk's error, in the first boot only.
vm_debian_clockfix "$overlay" "-$AHEAD" clockfix.test=learn
written=$((FLOOR + 7 * 86400))
lastcheck=$((written + AHEAD))

# What the guest reports, by the test of the kernel command line.
vm_debian_test_unit "$overlay" clockfix-test-report "After=clockfix-test-net.service" <<'SH'
. /usr/local/libexec/clockfix-test-lib
case " $(cat /proc/cmdline) " in
*" clockfix.test=learn "*)
        wait_daemon
        # clockfix-learn.service, which the daemon starts at the synchronisation: until it has run.
        i=0
        while [ -z "$(job_result clockfix-learn.service)" ] && [ $i -lt 60 ]; do
                sleep 1
                i=$((i + 1))
        done
        say clockfix_result=$(mono clockfix.service Result)
        say learn_job=$(job_result clockfix-learn.service)
        say ntp_job=$(job_result clockfix-test-ntp.service)
        journal clockfix.service clockfix-learn.service clockfix-test-ntp.service
        sync_entry
        sed 's/^/RECORD /' /var/lib/clockfix/future-times
        say clock_end=$(date +%s)
        say clock_end_up=$(cut -d' ' -f1 /proc/uptime)
        say cut=1
        sleep 600
        ;;
*)
        say clock=$(date +%s)
        say clockfix_state=$(mono clockfix.service ActiveState)
        journal clockfix.service
        echo "STATUS $(clockfix status --json | tr -d '\n')"
        say done=1
        systemctl --no-block poweroff
        ;;
esac
SH

vm_debian_disk "$TMP/root.img" "$overlay" "$written"
# The last check 10 years ahead, as a boot with a clock 10 years fast leaves it after its fsck.
stamp "$TMP/root.img" "$written" "ssv lastcheck @$lastcheck"
uuid=$(tune2fs -l "$TMP/root.img" | sed -n 's/^Filesystem UUID: *//p')
json=$(status_json "$TMP/root.img")
assert_eq "$(jq -r '.estimate' <<<"$json") $(jq -r '.source' <<<"$json")" "$lastcheck superblock:last_check" \
        "the new disk's estimate"

############################################################################
# 1. clockfix sets the clock 10 years ahead, NTP steps it back, the daemon records the times.
vm_debian_boot_cut learn "$TMP/initrd.gz" "$TMP/root.img" clockfix.test=learn "CLOCKFIX-TEST cut=1"
[ "$CUT" == 1 ] || { vm_dump learn; fail "learn: the guest did not reach the power cut"; }
learn_ms=$BOOT_MS learn_s=$(vm_boot_s)
echo "boot 1 (learn, then a power cut): $learn_ms ms"
grep -a '^INITRD \|^JOURNAL \|^RECORD ' <<<"$CONSOLE" | sed 's/^/  | /'

assert_eq "$(marker initrd_set)" 0 "learn: the initramfs' clockfix"
assert_match "$CONSOLE" "INITRD /dev/vda +superblock:last_check +$(iso "$lastcheck") +plausible \(estimate\)" \
        "learn: the initramfs' status"
rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s)
vm_moved learn "$rtc2000" $((lastcheck + 1))
assert_eq "$(marker clockfix_result) $(marker ntp_job) $(marker learn_job)" "success done done" \
        "learn: clockfix.service, the NTP unit's and clockfix-learn.service's start jobs"

# NTP's step: from clockfix's clock back to the true time.
ntp_from=$(marker ntp_from) ntp_to=$(marker ntp_to)
[ -n "$ntp_to" ] || { vm_dump learn; fail "learn: the NTP unit did not step the clock"; }
true1=${ntp_to%.*}
between "learn: the clock NTP stepped from" "${ntp_from%.*}" $((lastcheck + 1)) $((lastcheck + 1 + learn_s))
echo "NTP stepped the clock from $(iso "${ntp_from%.*}") to $(iso "$true1")"
# The true time when the power went: the guest's last reading, plus the rest of the boot on the host.
end=$(marker clock_end) end_up=$(marker clock_end_up)
[ -n "$end" ] && [ -n "$end_up" ] || { vm_dump learn; fail "learn: the guest did not report its clock"; }
most=$((end + learn_s - ${end_up%.*} + 2))
echo "the power went at $(iso "$end") or at most $((most - end)) s later (guest uptime $end_up s, boot $learn_s s)"

# The log: one warning per time found in the future, the last check among them; the structured
# entry names them all and the record.
journal=$(grep -a '^JOURNAL ' <<<"$CONSOLE")
assert_match "$journal" "superblock:last_check of /dev/vda (is|was) $(iso "$lastcheck"), .*ahead of NTP's time: recorded in $RECORD.*tune2fs -T now /dev/vda" \
        "learn: the warning about the last check time"
count=$(marker CLOCKFIX_FUTURE_COUNT)
sources=$(grep -ao 'CLOCKFIX-TEST CLOCKFIX_FUTURE_SOURCES=.*' <<<"$CONSOLE" | tail -n 1 | cut -d= -f2-)
assert_match " $sources " " superblock:last_check " "learn: CLOCKFIX_FUTURE_SOURCES"
read -r -a words <<<"$sources"
assert_eq "$count" "${#words[@]}" "learn: CLOCKFIX_FUTURE_COUNT against CLOCKFIX_FUTURE_SOURCES ($sources)"
assert_eq "$(marker CLOCKFIX_RECORD)" "$RECORD" "learn: CLOCKFIX_RECORD"
assert_eq "$(marker CLOCKFIX_SYNC_SIGNAL)" kernel "learn: CLOCKFIX_SYNC_SIGNAL"
correction=$(marker CLOCKFIX_CORRECTION_USEC)
between "learn: CLOCKFIX_CORRECTION_USEC" "$correction" $(((-AHEAD - 1) * 1000000)) $(((-AHEAD + 1) * 1000000))
echo "the daemon recorded $count times: $sources"

# The record, read on the host from the image the power cut left (no journal replayed): each
# source the entry named, the last check with its exact value.
debugfs -R "cat $RECORD" "$TMP/root.img" 2>/dev/null >"$TMP/record" || true
sed 's/^/  record| /' "$TMP/record"
assert_eq "$(grep -v '^#' "$TMP/record" | head -n 1)" "clockfix-future-times 1" "the record's header, on the disk after the power cut"
grep -qE "^$uuid superblock:last_check ${lastcheck}000000 $(iso "$lastcheck" | sed 's/Z$//')(\.0+)?Z$" "$TMP/record" ||
        fail "the record on the disk holds no line for superblock:last_check at $lastcheck of $uuid"
for s in "${words[@]}"; do
        grep -q "^$uuid $s [0-9]" "$TMP/record" || fail "the record on the disk does not hold $s"
done

############################################################################
# 2. The next boot: the recorded value is not used, by the initramfs nor by the unit.
vm_debian_boot after "$TMP/initrd.gz" "$TMP/root.img" clockfix.test=after
vm_debian_finished after
after_s=$(vm_boot_s)
echo "boot 2 (after the power cut): $BOOT_MS ms"
grep -a '^INITRD \|^JOURNAL ' <<<"$CONSOLE" | sed 's/^/  | /'

assert_eq "$(marker initrd_set)" 0 "after: the initramfs' clockfix"
assert_match "$CONSOLE" "INITRD /dev/vda +superblock:last_check +$(iso "$lastcheck") +in the future at the last sync" \
        "after: the initramfs' status of the last check time"
# The clock: from a time of the first boot after NTP's step, at most the true time when the
# power went (the guest's last reading plus the rest of that boot on the host), plus the margin.
line=$(set_line after)
read -r set_to set_from <<<"$line"
[ "$set_from" != superblock:last_check ] || fail "after: the initramfs set the clock from the recorded last check time"
echo "after: the initramfs set the clock to $(iso "$set_to") from $set_from"
between "after: the clock set by the initramfs" "$set_to" $((true1 + 1)) "$most"
# clockfix.service left the clock there: the clock the guest reports is that one plus at most
# this boot.
between "after: the clock after clockfix.service" "$(marker clock)" "$set_to" $((set_to + after_s))
journal=$(grep -a '^JOURNAL ' <<<"$CONSOLE")
! grep -q "from superblock:last_check" <<<"$journal" || fail "after: clockfix.service used the last check time"
assert_match "$journal" "clockfix\[[0-9]+\]: /dev/vda: superblock:last_check $(iso "$lastcheck") was in the future at the last" \
        "after: clockfix.service's verdict on the last check time"
assert_eq "$(marker clockfix_state)" active "after: clockfix.service waits for NTP"
status=$(grep -a '^STATUS ' <<<"$CONSOLE" | tail -n 1 | cut -d' ' -f2-)
assert_eq "$(source_of "$status" superblock:last_check verdict)" future_at_last_sync "after: the guest's status of the last check time"
# (by then this boot has written to the disk: its estimate is this boot's, not later than its clock)
between "after: the guest's estimate" "$(jq -r .estimate <<<"$status")" "$true1" "$(jq -r .now <<<"$status")"
echo "after: clock $(marker clock) once multi-user, $(($(marker clock) - set_to)) s after the initramfs set it"
json=$(status_json "$TMP/root.img")
assert_eq "$(source_of "$json" superblock:last_check verdict) $(source_of "$json" superblock:last_check time)" \
        "future_at_last_sync $lastcheck" "after: the host's status of the last check time"

############################################################################
# 3. A later fsck rewrites the last check time: the new value counts again. A day after the first
# boot's true time: later than anything the boots wrote, and plausible. e2fsck writes the
# superblock's last write time with the same value, and of two equal times the one listed first
# (last_write) names the estimate: the verdict of last_check tells whether its new value counts.
fsck_time=$((true1 + 86400))
rc=0
E2FSCK_TIME=$fsck_time e2fsck -fy "$TMP/root.img" >"$TMP/fsck.log" 2>&1 || rc=$?
[ "$rc" -le 1 ] || { cat "$TMP/fsck.log" >&2; fail "e2fsck -fy exited $rc"; }
json=$(status_json "$TMP/root.img")
assert_eq "$(source_of "$json" superblock:last_check verdict) $(source_of "$json" superblock:last_check time)" \
        "plausible $fsck_time" "after the fsck: the host's status of the last check time"
assert_eq "$(jq -r .estimate <<<"$json")" "$fsck_time" "after the fsck: the estimate"

vm_debian_boot fsck "$TMP/initrd.gz" "$TMP/root.img" clockfix.test=initrd
vm_debian_finished fsck
echo "boot 3 (initramfs only): $BOOT_MS ms"
grep -a '^INITRD ' <<<"$CONSOLE" | sed 's/^/  | /'
assert_eq "$(marker initrd_set)" 0 "fsck: the initramfs' clockfix"
assert_match "$CONSOLE" "INITRD /dev/vda +superblock:last_check +$(iso "$fsck_time") +plausible" \
        "fsck: the initramfs' status of the new last check time"
vm_moved fsck "$rtc2000" $((fsck_time + 1))
echo "fsck: the initramfs set the clock to $(iso $((fsck_time + 1))) from $(set_line fsck | cut -d' ' -f2)"
echo ok
