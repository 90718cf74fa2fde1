#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Finding the device through the real binary: root= from --cmdline (path, LABEL=, UUID=,
# PARTUUID=, device number) on loop devices, --device with a tag, and --wait for a device that
# appears late or never. Every case resolves before clockfix would fall back to the host's own
# mountinfo and fstab (those fall-backs are tested with crafted files in the image suite).
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root for loop devices (CI runs as root)"

CLOCKFIX_DYNAMIC=$CLOCKFIX
label=cfx$$
uuid=$(printf '%08x' $$)-1234-4321-8765-0123456789ab
img=$TMP/disk.img
mkimg "$img" 1800000000 16M -t ext4 -L "$label" -U "$uuid"
attach "$img"
disk=$DEV

cmdline() { printf '%s\n' "$1" >"$TMP/cmdline"; }

majmin() { printf '%d %d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
devno=$(majmin "$disk" | tr ' ' :)
for root in "$disk" "LABEL=$label" "UUID=$uuid" "$devno"; do
        cmdline "console=ttyS0 root=$root rootwait -- single"
        cf status --json --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "root=$root: exit"
        assert_eq "$(jqo '[.devices[0].origin, .devices[0].spec, .devices[0].device] | @tsv')" \
                "$(printf 'cmdline\t%s\t%s' "$root" "$disk")" "root=$root: device"
        assert_eq "$(jqo '[.source, .estimate] | @tsv')" "$(printf 'superblock:last_write\t1800000000')" "root=$root: decision"
done

# Two disks with the same UUID and label (a card copied to a USB stick): the search of the kernel's
# block devices names neither and leaves the choice to libblkid, as udev's links would have made
# it (hidden here, in this test's own mount namespace, should udev run). Without libblkid: none.
cp "$img" "$TMP/copy.img"
attach "$TMP/copy.img"
copy=$DEV
[ ! -d /dev/disk ] || mount -t tmpfs tmpfs /dev/disk
for root in "UUID=$uuid" "LABEL=$label"; do
        cmdline "root=$root"
        cf status -v --json --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "root=$root on two disks: exit"
        assert_match "$ERR" "${root%%=*}=${root#*=}: on /dev/loop[0-9]+ and /dev/loop[0-9]+ at least: left to libblkid" \
                "root=$root on two disks: the search"
        assert_match "$(jqo '.devices[0].device')" "^($disk|$copy)$" "root=$root on two disks: libblkid's choice"
        CLOCKFIX=$CLOCKFIX_NOBLKID cf status --json --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 3 "root=$root on two disks, no libblkid: exit"
done
! mountpoint -q /dev/disk || umount /dev/disk
losetup -d "$copy"

# PARTUUID and PARTLABEL live in a partition table.
timg=$TMP/table.img
truncate -s 24M "$timg"
printf 'label: gpt\nsize=16M, type=L, uuid=%s, name=cfxp%s\n' "$uuid" $$ | sfdisk -q "$timg"
attach "$timg"
[ -b "${DEV}p1" ] || partx -a "$DEV"
part=${DEV}p1
E2FSPROGS_FAKE_TIME=1800000100 mke2fs -q -F -t ext4 "$part" >/dev/null
for root in "PARTUUID=$uuid" "PARTUUID=${uuid^^}" "PARTLABEL=cfxp$$"; do
        cmdline "root=$root"
        cf set --dry-run --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "root=$root: exit"
        assert_match "$ERR" "from superblock:last_write of $part; --dry-run" "root=$root: line"
done

# --device takes tags too.
cf status --json --device "LABEL=$label" --not-before 2026-01-01
assert_eq "$(jqo '.devices[0].device')" "$disk" "--device LABEL="

# Everything about udev's links and libblkid runs in a private /dev (a tmpfs in a mount namespace)
# that holds the two loop devices and the links a case makes, whether udev runs here or not.
mkimg "$TMP/other.img" 1800000300 8M -t ext4 -L "cfxother$$"
attach "$TMP/other.img"
other=$DEV
# (in a cross build, the target's, which qemu-user loads from the sysroot)
if [ -n "$SYSROOT" ]; then
        blkid_so=$(readlink -f "$(find "$SYSROOT" -name libblkid.so.1 | head -n 1)")
else
        blkid_so=$(readlink -f "$(pkg-config --variable=libdir blkid)/libblkid.so.1")
fi
# private_dev SETUP BINARY ARGS...: runs BINARY ARGS... under strace there, after the shell
# snippet SETUP; sets PD_OUT, PD_ERR, PD_RC, PD_MS (wall time) and PD_BLKID (yes: libblkid opened)
private_dev() {
        local setup=$1 started
        shift
        PD_RC=0
        started=$(date +%s%N)
        # Under ptrace LeakSanitizer cannot run (in the ASan build); the leak checks are elsewhere.
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
                DISK=$disk OTHER=$other DISK_NUM="$(majmin "$disk")" OTHER_NUM="$(majmin "$other")" SETUP=$setup \
                TRACE=$TMP/open.trace BLKID_SO=$blkid_so unshare -m bash -c '
                set -e
                mount --make-rprivate /
                mount -t tmpfs tmpfs /dev
                mknod /dev/null c 1 3
                mknod "$DISK" b $DISK_NUM
                mknod "$OTHER" b $OTHER_NUM
                mkdir -p /dev/disk/by-label /dev/disk/by-uuid
                eval "$SETUP"
                exec strace -f -qq -e trace=openat -o "$TRACE" "$@"' sh "$@" >"$TMP/pd.out" 2>"$TMP/pd.err" || PD_RC=$?
        PD_MS=$((($(date +%s%N) - started) / 1000000))
        PD_OUT=$(cat "$TMP/pd.out") PD_ERR=$(cat "$TMP/pd.err")
        PD_BLKID=no
        ! grep -q 'libblkid\.so' "$TMP/open.trace" || PD_BLKID=yes
}
# (--no-floor-fallback: the messages of a device not found alone; the floor's, test-bad-input)
POL=(--not-before 2026-01-01 --now 2000-01-01 --no-stamps --journal-budget 0 --no-floor-fallback)
device_of() { jq -r '.devices[0].device' <<<"$PD_OUT"; }

# libblkid is loaded only when it is needed: not for a path or a device number (sysfs names it),
# nor for a tag that udev links or an ext superblock of the kernel's block devices holds; for a tag
# that none has, to search the other filesystems.
for root in "$disk" "$devno" "LABEL=$label" "UUID=$uuid"; do
        cmdline "root=$root"
        private_dev "" "$CLOCKFIX" status --json --cmdline "$TMP/cmdline" "${POL[@]}"
        assert_eq "$(device_of)" "$disk" "root=$root: the device"
        assert_eq "$PD_BLKID" no "root=$root: libblkid loaded"
done
private_dev "" "$CLOCKFIX" status --json --device "LABEL=cfx-none-$$" "${POL[@]}"
assert_eq "$PD_BLKID" yes "LABEL= that no ext superblock has: libblkid loaded"

# udev's links come first: links that point to the other disk (which libblkid's search would never
# pick for these values) are what clockfix follows, without loading libblkid; names udev escapes
# too ("cfx sp" is cfx\x20sp), with or without libblkid in the build.
links='ln -s "../../${OTHER#/dev/}" "/dev/disk/by-label/'$label'"
        ln -s "../../${OTHER#/dev/}" "/dev/disk/by-uuid/'$uuid'"
        ln -s "../../${OTHER#/dev/}" "/dev/disk/by-label/cfx\\x20sp'$$'"'
for binary in "$CLOCKFIX" "$CLOCKFIX_NOBLKID"; do
        for spec in "LABEL=$label" "UUID=$uuid" "LABEL=cfx sp$$"; do
                private_dev "$links" "$binary" status --json --device "$spec" "${POL[@]}"
                assert_eq "$(device_of) $(jq -r .estimate <<<"$PD_OUT") $PD_BLKID" "$other 1800000300 no" \
                        "$spec: udev's link ($(basename "$binary"))"
        done
done

# A link that udev makes 100 ms after the start is found (each look for the device looks for the
# link; libblkid's search alone waits for the list of devices to change), by a build without
# libblkid too, well within --wait (which would otherwise end in "did not appear").
late='(sleep 0.1; ln -s "../../${OTHER#/dev/}" /dev/disk/by-label/cfxlate'$$') &'
private_dev "$late" "$CLOCKFIX_NOBLKID" status --json --device "LABEL=cfxlate$$" --wait 60 "${POL[@]}"
assert_eq "$PD_RC:$(device_of)" "0:$other" "a late link: found"
echo "a link made 100 ms after the start: found after $PD_MS ms (strace included)"

# Without libblkid, built so (-Dblkid=disabled) or not loadable: paths and device numbers as ever; a
# tag udev has no link for is one line that says why; a foreign filesystem is "not ext".
for root in "$disk" "$devno"; do
        cmdline "root=$root"
        private_dev "" "$CLOCKFIX_NOBLKID" status --json --cmdline "$TMP/cmdline" "${POL[@]}"
        assert_eq "$PD_RC:$(device_of)" "0:$disk" "without libblkid: root=$root"
done
private_dev "" "$CLOCKFIX_NOBLKID" status --json --device "LABEL=$label" "${POL[@]}"
assert_eq "$PD_RC:$(device_of)" "0:$disk" "without libblkid: LABEL= of an ext filesystem"
none=LABEL=cfx-none-$$
private_dev "" "$CLOCKFIX_NOBLKID" set --dry-run --device "$none" "${POL[@]}"
assert_eq "$PD_RC:$PD_ERR" "3:<3>clockfix: $none: no udev link for it (/dev/disk/by-*) nor an ext superblock or partition table that has it, and libblkid cannot search further: this clockfix is built without libblkid (-Dblkid=disabled); name the root as /dev/NAME or MAJOR:MINOR" \
        "built without libblkid, a tag nothing has"
private_dev 'mount --bind /dev/null "$BLKID_SO"' "$CLOCKFIX" set --dry-run --device "$none" "${POL[@]}"
assert_match "$PD_RC:$PD_ERR" "^3:<3>clockfix: $none: no udev link for it \(/dev/disk/by-\*\) nor an ext superblock or partition table that has it, and libblkid cannot search further: libblkid\.so\.1 cannot be loaded \(.*\); name the root as /dev/NAME or MAJOR:MINOR$" \
        "libblkid not loadable, a tag nothing has"
CLOCKFIX=$CLOCKFIX_NOBLKID
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
cf set --dry-run --device "$TMP/vfat.img" --not-before 2026-01-01 --now 2000-01-01 --no-floor-fallback
assert_eq "$RC:$ERR" "3:<3>clockfix: $TMP/vfat.img: no ext2/3/4 filesystem found (bad superblock magic)" \
        "without libblkid, vfat"
CLOCKFIX=$CLOCKFIX_DYNAMIC

# --wait: a device that appears after a second is found...
# (made under another name and renamed, so that it appears whole, as a device does)
( sleep 1; mkimg "$TMP/making.img" 1800000200 8M -t ext2; mv "$TMP/making.img" "$TMP/late.img" ) &
start=$(date +%s%N)
cf status --json --device "$TMP/late.img" --wait 20 --not-before 2026-01-01
wait
took=$((($(date +%s%N) - start) / 1000000))
assert_eq "$RC" 0 "late device: exit"
assert_eq "$(jqo .estimate)" 1800000200 "late device: estimate"
# Not before it was there (a second after the start), and not by waiting out --wait (20 s).
[ $took -ge 1000 ] || fail "late device: found after $took ms, before it was made"

# ... and one that never appears ends the wait on time, with a clear line: how long it was waited
# for and which setting said so, in words of a device (not ETIMEDOUT's "Connection timed out").
never="did not appear within 1.5 s (--wait): is the driver or module for it loaded? check root= and the device name"
start=$(date +%s%N)
cf set --dry-run --device "LABEL=cfx-never-$$" --wait 1.5 --not-before 2026-01-01
took=$((($(date +%s%N) - start) / 1000000))
assert_eq "$RC" 3 "never: exit"
assert_eq "$ERR" "<3>clockfix: LABEL=cfx-never-$$: $never" "never: message"
# Not before the end of the wait; and it ended (a hang would meet meson's timeout).
[ $took -ge 1500 ] || fail "never: gave up after $took ms, before --wait 1.5"
# -v says the same of the device where it gave up on it.
cf -v set --dry-run --device "LABEL=cfx-never-$$" --wait 1.5 --not-before 2026-01-01
assert_match "$ERR" "^<7>clockfix: LABEL=cfx-never-$$ \(--device\): did not appear within 1\.5 s \(--wait\)$" "never, -v: the line of the device"
assert_match "$ERR" "^<3>clockfix: LABEL=cfx-never-$$: did not appear within 1\.5 s \(--wait\): " "never, -v: the message"
[[ $ERR != *"timed out"* ]] || fail "never, -v: ETIMEDOUT's text: $ERR"
# status says it too, in the table and in the JSON's "error" (text for people); the wait named where it
# was set: the configuration file's line, the kernel's parameter.
cf status --device "LABEL=cfx-never-$$" --wait 0.2 --not-before 2026-01-01
assert_match "$OUT" "did not appear within 0\.2 s \(--wait\): is the driver" "never, status: the table"
printf 'wait = 0.2\n' >"$TMP/wait.conf"
cf status --json --config "$TMP/wait.conf" --device "LABEL=cfx-never-$$" --not-before 2026-01-01
assert_eq "$(jqo '.devices[0] | [.readable, .error] | map(tostring) | join(" ")')" \
        "false did not appear within 0.2 s ($TMP/wait.conf:1): is the driver or module for it loaded? check root= and the device name" \
        "never, status --json: the wait of the file"
cmdline "clockfix.wait=0.2 clockfix.device=LABEL=cfx-never-$$"
cf -v status --json --config /dev/null --boot --cmdline "$TMP/cmdline" --not-before 2026-01-01
assert_match "$(jqo '.devices[0].error')" "^did not appear within 0\.2 s \(clockfix\.wait=\): " "never, status --json: the kernel's wait"
assert_match "$ERR" "^<7>clockfix: LABEL=cfx-never-$$ \(--device\): did not appear within 0\.2 s \(clockfix\.wait=\)$" \
        "never, -v: the kernel's wait"
[[ $ERR$OUT != *"timed out"* ]] || fail "never, the kernel's wait: ETIMEDOUT's text: $ERR $OUT"
echo ok
