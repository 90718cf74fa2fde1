#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Roots that are never written, and the filesystems of /etc/fstab that are: whole Debian boots
# (QEMU, no RTC: a dead one at 2000-01-01, no NTP) with the initramfs of initramfs-tools' own
# mkinitramfs, made with clockfix's hook for the guest's /etc/fstab:
# (a) An A/B board: the root read-only (`ro` in fstab and on the kernel command line), an ext4
#     /data on a second disk, checked and mounted by systemd, written and synced every second by a
#     service until the power goes (QEMU killed) while the clock was right (the RTC of that boot
#     30 days after the image). The next boot's clock is within 10 s of the last write: set (1) in
#     the initramfs by the hook, before anything is mounted, and (2) by clockfix.service alone,
#     from an initramfs of the same configuration without clockfix's hook, ready before /data is
#     checked or mounted.
# (b) A /var of its own (an ext4 in fstab) with sysvinit (no systemd), holding clockfix's stamp,
#     timesyncd's clock file and the record of times in the future, which lists /var's last check
#     time, 10 years ahead: the hook sets the clock from clockfix's stamp, passing the recorded
#     time over; the init script finds the clock set; `clockfix status` on the running system
#     reads /var live, its stamp there, and passes the recorded time over too.
# (c) An overlay root by Debian's overlayroot (overlayroot=tmpfs: a tmpfs upper layer), systemd:
#     the clock is at the image's time plus the margin, and `clockfix status` says the clock can be
#     no better than the image's time.
# Each part runs whatever became of the others; the test fails if one did.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
: "${SYSVINIT_SCRIPT:?run through meson test}" "${CLOCKFIX_STATIC:?run through meson test}"

# (each part runs in a subshell: its QEMU is told to vm_kill_all through this file)
# shellcheck disable=SC2034 # read by vm_run (tests/vm/lib.sh)
VM_PID_FILE=$TMP/vm-pids
# Fixed UUIDs: the guests' fstab names the disks by them, as Debian's installer writes it.
DATA_UUID=5e0a7c1e-da7a-4d6b-9d3e-000000000001
VAR_UUID=5e0a7c1e-da7a-4d6b-9d3e-000000000002
# 3652 days: ten years, leap days included.
AHEAD=$((3652 * 86400))
RECORD=/var/lib/clockfix/future-times

# iso SECONDS: the UTC time as clockfix writes it
iso() {
        date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

# moved NAME [JOURNAL]: "TO SOURCE DEVICE" of clockfix's first "Clock moved forward from X to TO
# (...) from SOURCE of DEVICE" on the console (the initramfs), or with JOURNAL in the lines
# "JOURNAL ..." (clockfix.service), TO in seconds; "" without one
moved() {
        local lines line
        if [ -n "${2:-}" ]; then
                lines=$(grep -a '^JOURNAL ' <<<"$CONSOLE" || true)
        else
                lines=$(grep -av '^JOURNAL ' <<<"$CONSOLE" || true)
        fi
        line=$(sed -n 's/.*Clock moved forward from [^ ]* to \([^ ]*\) .* from \([^ ]*\) of \([^ :]*\).*/\1 \2 \3/p' \
                <<<"$lines" | head -n 1)
        [ -n "$line" ] || return 0
        echo "$(date -u -d "${line%% *}" +%s) ${line#* }"
}

# initramfs_conf DIR [HOOK]: an initramfs-tools configuration (vm_initramfs_tools_conf), with
# clockfix's hook when HOOK is "hook", and the test's local-bottom script: once the root is
# mounted (read-only), "CLOCKFIX-TEST initrd_after=SECONDS" (the clock), and with
# clockfix.test=initrd a power-off there ("CLOCKFIX-TEST done=1"), before anything else is mounted
initramfs_conf() {
        vm_initramfs_tools_conf "$1"
        [ "${2:-}" != hook ] || vm_initramfs_tools_hook "$1"
        mkdir -p "$1/scripts/local-bottom"
        cat >"$1/scripts/local-bottom/clockfix-test" <<'SH'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
echo "CLOCKFIX-TEST initrd_after=$(date +%s)"
case " $(cat /proc/cmdline) " in
*" clockfix.test=initrd "*)
        echo "CLOCKFIX-TEST done=1"
        reboot -f
        ;;
esac
SH
        chmod 755 "$1/scripts/local-bottom/clockfix-test"
}

# split_disks ROOT OUT SPLIT FAKE [COMMAND]: the cached root DEBIAN_ROOT with the tree OVERLAY
# ($TMP/overlay-NAME, by ROOT's name) on top as ext4 images: ROOT, and with SPLIT (MOUNT:IMAGE:UUID)
# what is under MOUNT moved out to IMAGE (UUID), MOUNT left empty on ROOT; every time in both
# stamped FAKE by mke2fs; COMMAND (sh) runs in a chroot of the tree first
split_disks() {
        local out=$1 overlay=$2 split=$3 fake=$4 command=${5:-} dir mnt img uuid
        dir=$(mktemp -d "$TMP/layout-root.XXXXXX")
        tar -C "$dir" --numeric-owner --xattrs --xattrs-include='*' -xf "$DEBIAN_ROOT"
        cp -a "$overlay/." "$dir/"
        if [ -n "$command" ]; then
                unshare -m --propagation private chroot "$dir" /bin/sh -c "$command" >"$TMP/chroot.log" 2>&1 ||
                        { cat "$TMP/chroot.log" >&2; fail "in a chroot of the Debian root: $command failed"; }
        fi
        if [ -n "$split" ]; then
                IFS=: read -r mnt img uuid <<<"$split"
                mkdir -p "$TMP/split$mnt"
                cp -a "$dir$mnt/." "$TMP/split$mnt/"
                rm -rf "${dir:?}$mnt"
                mkdir "$dir$mnt"
                E2FSPROGS_FAKE_TIME=$fake mke2fs -q -F -t ext4 -U "$uuid" -d "$TMP/split$mnt" "$img" 256M >/dev/null ||
                        fail "mke2fs -d $TMP/split$mnt $img failed"
                rm -rf "$TMP/split$mnt"
        fi
        E2FSPROGS_FAKE_TIME=$fake mke2fs -q -F -t ext4 -L debian -d "$dir" "$out" "$VM_DEBIAN_DISK_SIZE" >/dev/null ||
                fail "mke2fs -d $dir $out failed"
        rm -rf "$dir"
}

vm_kernel
vm_debian_root
SYSTEMD_ROOT=$DEBIAN_ROOT
vm_debian_root sysvinit
SYSVINIT_ROOT=$DEBIAN_ROOT
# Debian's overlayroot (cloud-initramfs-tools), unpacked: its hook and init-bottom script go into
# the initramfs configuration of part (c), as the package puts them into /usr/share/initramfs-tools.
OVERLAYROOT=$VM_CACHE/overlayroot
vm_cached overlayroot vm_deb_unpack overlayroot "$OVERLAYROOT"

# The systemd guests' clockfix and test library (FLOOR: its build time); the images' time: a week
# after it.
mkdir -p "$TMP/overlay-a"
vm_debian_install "$TMP/overlay-a"
image=$((FLOOR + 7 * 86400))
cp -a "$TMP/overlay-a" "$TMP/overlay-c"
failed=()

############################################################################
# (a) The A/B board: a read-only root, /data written until the power goes.
part_a() {
        local overlay=$TMP/overlay-a rtc_ok went went_up cut_s line set_to set_from set_dev most
        DEBIAN_ROOT=$SYSTEMD_ROOT
        printf '/dev/vda / ext4 ro,errors=remount-ro 0 1\nUUID=%s /data ext4 defaults 0 2\n' "$DATA_UUID" \
                >"$overlay/etc/fstab"
        mkdir -p "$overlay/data"
        # The writer: a file on /data written and synced every second, each write's time on the
        # console once it is on the disk, until the power goes (in the boot clockfix.test=write).
        vm_debian_test_unit "$overlay" clockfix-test-writer "RequiresMountsFor=/data" \
                "ConditionKernelCommandLine=clockfix.test=write" <<'SH'
. /usr/local/libexec/clockfix-test-lib
i=0
while :; do
        w=$(date +%s)
        echo "$w" >>/data/alive
        sync /data/alive
        say alive=$w
        say alive_up=$(cut -d' ' -f1 /proc/uptime)
        i=$((i + 1))
        [ $i -ne 6 ] || say cut=1
        sleep 1
done
SH
        # The report of the boot after the cut: clockfix.service's line, when it was ready, when
        # /data was checked and mounted.
        vm_debian_test_unit "$overlay" clockfix-test-report "After=data.mount" \
                "ConditionKernelCommandLine=clockfix.test=after" <<'SH'
. /usr/local/libexec/clockfix-test-lib
say clock=$(date +%s)
say clockfix_ready=$(mono clockfix.service ActiveEnterTimestampMonotonic)
# (the check systemd-fstab-generator made for /data's line, named after its UUID link)
spec=$(awk '$2 == "/data" { print $1 }' /etc/fstab)
fsck=systemd-fsck@$(systemd-escape -p "/dev/disk/by-uuid/${spec#UUID=}").service
say data_fsck_start=$(mono "$fsck" InactiveExitTimestampMonotonic)
say data_mount_start=$(mono data.mount InactiveExitTimestampMonotonic)
say root=$(awk '$2 == "/" { print $4 }' /proc/mounts | cut -d, -f1)
journal clockfix.service "$fsck" data.mount
echo "STATUS $(clockfix status 2>&1 | tr '\n' '|')"
say done=1
systemctl --no-block --no-wall poweroff
SH
        # systemd-logind cannot start on this root (its state directory is read-only), and a wall
        # message sent through it would hold the power-off for D-Bus's timeout.
        ln -sfn /dev/null "$overlay/etc/systemd/system/systemd-logind.service"
        split_disks "$TMP/a-root.img" "$overlay" "" "$image"
        E2FSPROGS_FAKE_TIME=$image mke2fs -q -F -t ext4 -U "$DATA_UUID" "$TMP/a-data.img" 256M >/dev/null
        initramfs_conf "$TMP/a-without"
        vm_mkinitramfs "$TMP/a-without" "$TMP/a-without.img" "$overlay/etc/fstab"
        initramfs_conf "$TMP/a-with" hook
        vm_mkinitramfs "$TMP/a-with" "$TMP/a-with.img" "$overlay/etc/fstab"
        lsinitramfs "$TMP/a-with.img" | sed -n 's|^\(etc/clockfix/.*\)|  initramfs: \1|p'

        # The boot that writes: the clock right (the RTC 30 days after the image), the power cut
        # after six writes, as the writer goes on.
        rtc_ok=$((image + 30 * 86400))
        vm_debian_boot_cut write "$TMP/a-with.img" "$TMP/a-root.img" "clockfix.test=write" "CLOCKFIX-TEST cut=1" \
                -rtc "base=$(date -u -d "@$rtc_ok" +%Y-%m-%dT%H:%M:%S),clock=vm" \
                -drive "file=$TMP/a-data.img,format=raw,if=virtio"
        [ "$CUT" == 1 ] || { vm_dump write; fail "(a) the guest did not reach the power cut"; }
        went=$(marker alive) went_up=$(marker alive_up) cut_s=$(vm_boot_s)
        [ "$went" -ge "$rtc_ok" ] || fail "(a) the last write at $went, before the RTC's $rtc_ok"
        echo "(a) write: $BOOT_MS ms; last write at $(iso "$went") (guest uptime $went_up s), then the power cut"
        # The clock at the cut: at most the last write plus the rest of the boot on the host.
        most=$((went + cut_s - ${went_up%.*} + 2))

        # (1) The initramfs, before anything is mounted; the boot stops there: the disks stay as the
        # cut left them.
        vm_debian_boot after-initrd "$TMP/a-with.img" "$TMP/a-root.img" "clockfix.test=initrd" \
                -drive "file=$TMP/a-data.img,format=raw,if=virtio"
        vm_debian_finished after-initrd
        line=$(moved after-initrd)
        read -r set_to set_from set_dev <<<"${line:-none none none}"
        echo "(a) after-initrd: $BOOT_MS ms; the hook set the clock to ${set_to:-nothing} from $set_from of $set_dev:" \
                "$((${set_to/none/0} - went)) s from the last write (the image's time: $((image - went)) s)"
        # (a failure here is told, and the boot of (2) made all the same)
        a1=0
        if [ "$set_to" == none ] || [ "$set_to" -lt "$went" ] || [ "$set_to" -gt "$most" ] || [ "$set_to" -gt $((went + 10)) ]; then
                echo "FAIL: (a) after the cut the hook set the clock to $set_to, not within 10 s after the last write $went" >&2
                a1=1
        else
                between "(a) the clock after the hook" "$(marker initrd_after)" "$set_to" $((set_to + $(vm_boot_s)))
        fi

        # (2) clockfix.service alone: the same initramfs without clockfix's hook.
        vm_debian_boot after-service "$TMP/a-without.img" "$TMP/a-root.img" "clockfix.test=after" \
                -drive "file=$TMP/a-data.img,format=raw,if=virtio"
        vm_debian_finished after-service
        grep -a '^JOURNAL \|^STATUS ' <<<"$CONSOLE" | sed 's/^/  | /'
        ! grep -aq 'Clock moved forward' <<<"$(grep -av '^JOURNAL ' <<<"$CONSOLE")" ||
                fail "(a) after-service: clockfix ran in the initramfs without its hook"
        line=$(moved after-service journal)
        read -r set_to set_from set_dev <<<"${line:-none none none}"
        echo "(a) after-service: $BOOT_MS ms; clockfix.service set the clock to $set_to from $set_from of $set_dev:" \
                "$((${set_to/none/0} - went)) s from the last write"
        assert_eq "$(marker root)" ro "(a) after-service: the root late in the boot"
        if [ "$set_to" == none ] || [ "$set_to" -lt "$went" ] || [ "$set_to" -gt "$most" ] || [ "$set_to" -gt $((went + 10)) ]; then
                echo "FAIL: (a) after the cut clockfix.service set the clock to $set_to, not within 10 s after the last write $went" >&2
                a1=1
        fi
        # Before /data's fsck, which replays its journal, and its mount, which writes it: both with
        # the clock not set.
        local ready fsck mount
        ready=$(marker clockfix_ready) fsck=$(marker data_fsck_start) mount=$(marker data_mount_start)
        [ "${ready:-0}" -gt 0 ] && [ "${fsck:-0}" -gt 0 ] && [ "${mount:-0}" -gt 0 ] ||
                fail "(a) after-service: no times of clockfix.service ($ready), /data's fsck ($fsck) or mount ($mount)"
        [ "$ready" -le "$fsck" ] && [ "$ready" -le "$mount" ] ||
                fail "(a) clockfix.service was ready at $ready µs, after /data's fsck ($fsck µs) or mount ($mount µs) began"
        echo "(a) clockfix.service ready at $((ready / 1000)) ms, /data's fsck at $((fsck / 1000)) ms, its mount at $((mount / 1000)) ms"
        return "$a1"
}

############################################################################
# (b) A /var of its own, sysvinit: the stamp there, a recorded time in the future passed over.
part_b() {
        local overlay=$TMP/overlay-b bin conf stamp line set_to set_from set_dev status
        DEBIAN_ROOT=$SYSVINIT_ROOT
        bin=$(sed -n 's/^CLOCKFIX=\(.*\)$/\1/p' "$SYSVINIT_SCRIPT")
        conf=$("$CLOCKFIX_STATIC" --help | sed -n 's/.*read settings from FILE instead of \(.*\)$/\1/p')
        mkdir -p "$overlay$(dirname "$bin")" "$overlay$(dirname "$conf")" "$overlay/etc/init.d" \
                "$overlay/var/lib/clockfix" "$overlay/var/lib/systemd/timesync"
        cp "$CLOCKFIX_STATIC" "$overlay$bin"
        install -m 755 "$SYSVINIT_SCRIPT" "$overlay/etc/init.d/clockfix"
        printf '/dev/vda / ext4 errors=remount-ro 0 1\nUUID=%s /var ext4 defaults 0 2\n' "$VAR_UUID" >"$overlay/etc/fstab"
        # The stamp two days after the image, timesyncd's clock file a minute before it; the record
        # lists /var's last check time, 10 years ahead, as a sync that saw it there leaves it.
        stamp=$((image + 2 * 86400))
        : >"$overlay/var/lib/clockfix/clock"
        : >"$overlay/var/lib/systemd/timesync/clock"
        {
                echo "# clockfix: times found on the disk in the future when NTP synchronised the clock."
                echo "clockfix-future-times 1"
                echo "$VAR_UUID superblock:last_check $(((stamp + AHEAD) * 1000000)) $(iso $((stamp + AHEAD)))"
        } >"$overlay$RECORD"
        sed "s|@CLOCKFIX@|$bin|g" >"$overlay/etc/rc.local" <<'SH'
#!/bin/sh
# The report of clockfix's test, late in the boot, then a power-off.
exec >/dev/console 2>&1
echo "CLOCKFIX-TEST after=$(date +%s)"
echo "CLOCKFIX-TEST var=$(awk '$2 == "/var" { print $3 }' /proc/mounts)"
/etc/init.d/clockfix status >/dev/null
echo "CLOCKFIX-TEST lsb=$?"
echo "STATUS $(@CLOCKFIX@ status 2>&1 | tr '\n' '|')"
echo "JSON $(@CLOCKFIX@ status --json 2>/dev/null | tr -d '\n')"
echo "CLOCKFIX-TEST after_status=$(date +%s)"
echo "CLOCKFIX-TEST done=1"
setsid sh -c 'sleep 1; poweroff' </dev/null >/dev/null 2>&1 &
SH
        chmod 755 "$overlay/etc/rc.local"
        split_disks "$TMP/b-root.img" "$overlay" "/var:$TMP/b-var.img:$VAR_UUID" "$image" \
                "update-rc.d clockfix defaults"
        debugfs -w -R "sif /lib/clockfix/clock mtime $(date -u -d "@$stamp" +%Y%m%d%H%M%S)" "$TMP/b-var.img" >/dev/null 2>&1
        debugfs -w -R "sif /lib/systemd/timesync/clock mtime $(date -u -d "@$((stamp - 60))" +%Y%m%d%H%M%S)" \
                "$TMP/b-var.img" >/dev/null 2>&1
        stamp "$TMP/b-var.img" "$image" "ssv lastcheck @$((stamp + AHEAD))"
        initramfs_conf "$TMP/b-with" hook
        vm_mkinitramfs "$TMP/b-with" "$TMP/b-with.img" "$overlay/etc/fstab"

        vm_debian_boot var "$TMP/b-with.img" "$TMP/b-root.img" "" -drive "file=$TMP/b-var.img,format=raw,if=virtio"
        vm_debian_finished var
        grep -a '^STATUS \|^JSON ' <<<"$CONSOLE" | sed 's/^/  | /'
        line=$(moved var)
        read -r set_to set_from set_dev <<<"${line:-none none none}"
        echo "(b) var: $BOOT_MS ms; the hook set the clock to $set_to from $set_from of $set_dev" \
                "(the stamp: $stamp, the image: $image)"
        assert_eq "$(marker var)" ext4 "(b) /var mounted late in the boot"
        assert_eq "$set_to $set_from" "$((stamp + 1)) file:/var/lib/clockfix/clock" "(b) the clock the hook set, its source"
        between "(b) the clock late in the boot" "$(marker after)" "$set_to" $((set_to + $(vm_boot_s)))
        assert_match "$CONSOLE" "is already at or past $(iso $((stamp + 1)))" "(b) the init script found the clock set"
        assert_eq "$(marker lsb)" 0 "(b) the daemon runs (the script's status)"
        # clockfix status on the running system, /var mounted and written by this boot: /var read
        # live as an entry of fstab, its stamp found there, the estimate the newest write (at or
        # after the stamp, at most the clock once status was done), the recorded time passed over.
        status=$(grep -a '^JSON ' <<<"$CONSOLE" | tail -n 1 | cut -d' ' -f2-)
        local vardev estimate
        vardev=$(jq -r '.devices[] | select(.mount_dir == "/var" and .origin == "mount") | .device' <<<"$status" 2>/dev/null)
        [ -n "$vardev" ] || fail "(b) status: /var not read as an entry of fstab: $status"
        assert_eq "$(jq -r '[.sources[] | select(.source == "file:/var/lib/clockfix/clock")] | first | .device' <<<"$status")" \
                "$vardev" "(b) status: clockfix's stamp read on /var"
        estimate=$(jq -r .estimate <<<"$status" 2>/dev/null)
        between "(b) the estimate of status on the running system" "$estimate" "$stamp" "$(marker after_status)"
        assert_eq "$(jq -r '[.sources[] | select(.source == "superblock:last_check" and .time == '$((stamp + AHEAD))') | .verdict][0]' \
                <<<"$status" 2>/dev/null)" future_at_last_sync "(b) status: /var's recorded last check time"
}

############################################################################
# (c) An overlay root with a tmpfs upper layer: the clock can be no better than the image's time.
part_c() {
        local overlay=$TMP/overlay-c conf=$TMP/c-with line set_to set_from set_dev status
        DEBIAN_ROOT=$SYSTEMD_ROOT
        printf '/dev/vda / ext4 ro,errors=remount-ro 0 1\n' >"$overlay/etc/fstab"
        vm_debian_test_unit "$overlay" clockfix-test-report <<'SH'
. /usr/local/libexec/clockfix-test-lib
say clock=$(date +%s)
say root=$(awk '$2 == "/" { print $3 }' /proc/mounts)
say upper=$(awk '$2 == "/media/root-rw" { print $3 }' /proc/mounts)
journal clockfix.service
echo "STATUS $(clockfix status 2>&1 | tr '\n' '|')"
say done=1
systemctl --no-block poweroff
SH
        split_disks "$TMP/c-root.img" "$overlay" "" "$image"
        initramfs_conf "$conf" hook
        install -m 755 "$OVERLAYROOT/usr/share/initramfs-tools/hooks/overlayroot" "$conf/hooks/"
        mkdir -p "$conf/scripts/init-bottom" "$conf/conf-hooks.d"
        install -m 755 "$OVERLAYROOT/usr/share/initramfs-tools/scripts/init-bottom/overlayroot" "$conf/scripts/init-bottom/"
        cp "$OVERLAYROOT/usr/share/initramfs-tools/conf-hooks.d/overlayroot" "$conf/conf-hooks.d/"
        echo overlay >>"$conf/modules"
        vm_mkinitramfs "$conf" "$TMP/c-with.img" "$overlay/etc/fstab"

        vm_debian_boot overlay "$TMP/c-with.img" "$TMP/c-root.img" "overlayroot=tmpfs"
        vm_debian_finished overlay
        grep -a '^JOURNAL \|^STATUS ' <<<"$CONSOLE" | sed 's/^/  | /'
        assert_eq "$(marker root) $(marker upper)" "overlay tmpfs" "(c) the root and its upper layer"
        line=$(moved overlay)
        read -r set_to set_from set_dev <<<"${line:-none none none}"
        echo "(c) overlay: $BOOT_MS ms; the hook set the clock to $set_to from $set_from of $set_dev (the image: $image)"
        assert_eq "$set_to" $((image + 1)) "(c) the clock the hook set: the image's time and the margin"
        between "(c) the clock late in the boot" "$(marker clock)" "$set_to" $((set_to + $(vm_boot_s)))
        status=$(grep -a '^STATUS ' <<<"$CONSOLE" | tail -n 1)
        assert_match "$status" "no better than the image's time" "(c) clockfix status in the guest"
}

for part in ${VM_LAYOUT_PARTS:-a b c}; do
        set +e
        (
                set -e
                "part_$part"
        )
        rc=$?
        set -e
        [ "$rc" -eq 0 ] || failed+=("($part)")
done
[ ${#failed[@]} -eq 0 ] || fail "failed: ${failed[*]}"
echo ok
