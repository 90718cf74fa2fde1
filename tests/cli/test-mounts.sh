#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Beyond the root: the local ext2/3/4 filesystems of the root's /etc/fstab, on real images, read
# from the unmounted root as an initramfs reads it, and live as the unit does (a chroot):
# - a /var of its own: timesyncd's clock file, clockfix's stamp and the record read there, with the
#   path inside it, and a decoy at /var/lib on the root's own disk (under the mount point) not used;
#   a recorded future time of the root passed over by the record that /var holds;
# - a root never written ("ro" in its fstab) beside a writable /data: /data's time wins; without
#   /data, and with an overlay root (overlayroot=, boot=overlay), status says the clock can be no
#   better than the image's time;
# - OSTree: the deployment of ostree= read as /, its stateroot's /var;
# - entries not read: noauto, bind mounts, network, tmpfs, vfat, swap; one with nofail that is
#   missing is not waited for; --device still replaces the whole search;
# - a hostile /etc/fstab on the root (binary, huge) changes nothing but itself.
. "$SRCDIR/tests/lib/lib.sh"

W=1800000000 # 2027-01-15: the image's time
POLICY=(--not-before 2026-01-01 --now 2000-01-01 --config /dev/null)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
uuid_of() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p'; }
src() { jqo "[.sources[] | select(.source == \"$1\" and .device == \"$2\")] | first | $3"; }

# cfm IMAGES ARGS...: cf with root= of the first image given by --cmdline (plus EXTRA_CMDLINE),
# every image (a comma-separated list) fingerprinted before and after: never written
cfm() {
        local images=$1 i before=() after=()
        shift
        IFS=, read -ra list <<<"$images"
        printf 'root=%s ro %s\n' "${list[0]}" "${EXTRA_CMDLINE:-}" >"$TMP/cmdline"
        for i in "${list[@]}"; do before+=("$("$FINGERPRINT" "$i")"); done
        cf "$@" --cmdline "$TMP/cmdline" "${POLICY[@]}"
        for i in "${list[@]}"; do after+=("$("$FINGERPRINT" "$i")"); done
        [ "${before[*]}" == "${after[*]}" ] || fail "clockfix $*: an image changed"
}

# root_image IMG FSTAB-TEXT [DEBUGFS-COMMAND...]: an ext4 root of the image's time with FSTAB-TEXT as
# its /etc/fstab
root_image() {
        local img=$1 fstab=$2
        shift 2
        mkimg "$img" "$W" 16M -t ext4
        printf '%s' "$fstab" >"$TMP/fstab.in"
        stamp "$img" "$W" "mkdir etc" "write $TMP/fstab.in etc/fstab" "$@"
}

# --- A /var of its own.
var=$TMP/var.img
mkimg "$var" "$W" 16M -t ext4 -L cfxvar$$
# What the running system writes under /var: timesyncd's clock (through DynamicUser='s relative link) and
# clockfix's stamp, an hour and two after the image's time; the record lists a future time of the
# root's superblock (its last check, set ten years ahead by a boot whose clock was wrong).
root=$TMP/root.img
F=$((W + 315576000))
root_image "$root" "LABEL=cfxvar$$ /var ext4 defaults 0 2
# the root itself, and what is not read
/dev/disk/by-label/nothing / ext4 defaults 0 1
tmpfs /tmp tmpfs defaults 0 0
" "ssv lastcheck @$F" \
        "mkdir var" "mkdir var/lib" "mkdir var/lib/clockfix" "write /dev/null var/lib/clockfix/clock" \
        "sif var/lib/clockfix/clock mtime @$((W + 90000))"
printf 'clockfix-future-times 1\n%s superblock:last_check %s\n' "$(uuid_of "$root")" "${F}000000" >"$TMP/record"
stamp "$var" "$W" "mkdir lib" "mkdir lib/private" "mkdir lib/private/systemd" "mkdir lib/private/systemd/timesync" \
        "mkdir lib/systemd" "symlink lib/systemd/timesync ../private/systemd/timesync" \
        "write /dev/null lib/private/systemd/timesync/clock" "sif lib/private/systemd/timesync/clock mtime @$((W + 3600))" \
        "mkdir lib/clockfix" "write /dev/null lib/clockfix/clock" "sif lib/clockfix/clock mtime @$((W + 7200))" \
        "write $TMP/record lib/clockfix/future-times"
vardev=$(blkid -L "cfxvar$$" 2>/dev/null || true)
[ -z "$vardev" ] || fail "a device of this machine already has the label cfxvar$$"
attach "$var"
udevadm settle 2>/dev/null || true
# udev may not run here (a container): the tag is then found through the block devices' superblocks.
cfm "$root,$var" status --json
assert_eq "$RC" 0 "var: exit"
assert_eq "$(jqo '.devices | length')" 2 "var: the root and /var read"
assert_eq "$(jqo '.devices[1].origin + " " + .devices[1].mount_dir')" "mount /var" "var: /var from the root's fstab"
assert_eq "$(jqo .mounts_from)" "/etc/fstab on $root" "var: the fstab read from the root's disk"
assert_eq "$(jqo .devices[1].device)" "$DEV" "var: /var found by its label"
assert_eq "$(src file:/var/lib/systemd/timesync/clock "$DEV" .time)" $((W + 3600)) "var: timesyncd's clock on /var"
assert_eq "$(src file:/var/lib/clockfix/clock "$DEV" .time)" $((W + 7200)) "var: clockfix's stamp on /var"
# The decoy under the mount point on the root's disk is hidden at run time: not a time of the root.
assert_eq "$(src file:/var/lib/clockfix/clock "$root" .time)" null "var: the root's own /var/lib not read"
assert_eq "$(jqo '.devices[0].files[] | select(.path == "/var/lib/clockfix/clock") | .error')" \
        "on another filesystem" "var: the root says where the stamp is"
assert_eq "$(jqo .estimate)" $((W + 7200)) "var: clockfix's stamp on /var wins"
# The record on /var serves the root's times: the future last check is passed over.
assert_eq "$(src superblock:last_check "$root" .verdict)" future_at_last_sync "var: the record on /var applies to the root"
assert_eq "$(jqo '.devices[1].future_record.entries[0].on_disk')" true "var: the record's entry is the root's"
cfm "$root,$var" status
assert_match "$OUT" "Device $DEV \(/var of /etc/fstab on $root LABEL=cfxvar$$\)" "var: status names the fstab entry"
assert_match "$OUT" "superblock:last_check .* in the future at the last sync" "var: status passes it over"

# --fstab: the copy an initramfs hook bakes, read instead of the root's own, which saves its
# lookup on the disk; not there, the root's own is read after all.
printf 'LABEL=cfxvar%s /var ext4 defaults 0 2\n' $$ >"$TMP/baked"
cfm "$root,$var" status --json --fstab "$TMP/baked"
assert_eq "$(jqo .mounts_from)" "$TMP/baked" "--fstab: the table given"
assert_eq "$(jqo '.devices[1].mount_dir')" /var "--fstab: /var read"
cfm "$root,$var" set --dry-run -v --fstab "$TMP/baked"
baked=$(sed -n "s|^<7>clockfix: $root: \([0-9]*\) bytes read from it in all$|\1|p" <<<"$ERR")
cfm "$root,$var" set --dry-run -v
ondisk=$(sed -n "s|^<7>clockfix: $root: \([0-9]*\) bytes read from it in all$|\1|p" <<<"$ERR")
[ -n "$baked" ] && [ -n "$ondisk" ] && [ "$baked" -lt "$ondisk" ] ||
        fail "--fstab: the root's reads with the copy ($baked bytes) not fewer than with its lookup ($ondisk)"
# With the copy, the root and /var cost what each costs alone: nothing is looked up that is not
# needed (here no stamp file, and so no record either).
total() { sed -n 's|^<7>clockfix: .* read: \([0-9]*\) bytes read in all, .*|\1|p' <<<"$ERR"; }
cfm "$root,$var" set --dry-run -v --no-stamps --fstab "$TMP/baked"
both=$(total)
cf set --dry-run -v --no-stamps --device "$root" --device "$DEV" "${POLICY[@]}"
alone=$(total)
[ -n "$alone" ] && [ "$both" == "$alone" ] ||
        fail "--fstab: the root and /var read $both bytes, each alone $alone"
cfm "$root,$var" status --json --fstab "$TMP/no-such-fstab"
assert_eq "$(jqo .mounts_from)" "/etc/fstab on $root" "--fstab not there: the root's own"
cfm "$root" status --fstab relative/fstab
assert_eq "$RC" 2 "--fstab relative: exit"
assert_match "$ERR" "--fstab: not an absolute path" "--fstab relative: said"
# fstab = in clockfix.conf does the same.
printf 'fstab = %s\n' "$TMP/baked" >"$TMP/conf"
printf 'root=%s\n' "$root" >"$TMP/cmdline"
cf status --json --cmdline "$TMP/cmdline" --config "$TMP/conf" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$(jqo .mounts_from)" "$TMP/baked" "fstab = in the file"

# --root: the root device as an initramfs found it, tried before root= (which names another here);
# a device list still replaces the whole search.
mkimg "$TMP/other.img" "$W" 8M -t ext4
cfm "$root,$var,$TMP/other.img" status --json --root "$root" --cmdline /dev/null
assert_eq "$(jqo '[.devices[] | .origin] | join(" ")')" "root mount" "--root: the root, then /var"
printf 'root=%s\n' "$TMP/other.img" >"$TMP/cmdline.other"
cf status --json --root "$root" --cmdline "$TMP/cmdline.other" "${POLICY[@]}"
assert_eq "$(jqo '.devices[0].device + " " + .devices[0].origin')" "$root root" "--root before root="
printf 'device = %s\n' "$TMP/other.img" >"$TMP/conf.device"
cf status --json --root "$root" --config "$TMP/conf.device" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$(jqo '[.devices[] | .device] | join(" ")')" "$TMP/other.img" "device = beats --root"
cf status --root ""
assert_eq "$RC" 2 "--root empty: exit"

# --device replaces the search: no fstab read, and the stamps are the device's own.
cf status --json --device "$root" "${POLICY[@]}"
assert_eq "$(jqo '.devices | length')" 1 "--device: one device"
assert_eq "$(jqo .mounts_from)" null "--device: no fstab"
assert_eq "$(src file:/var/lib/clockfix/clock "$root" .time)" $((W + 90000)) "--device: the stamp on the device itself"

# Live, as clockfix.service reads it: the root mounted as / (a chroot), /var mounted on it. The
# stamps are read with statx() through the mounts, each on the device that holds it.
printf 'root=none\n' >"$TMP/cmdline.live"
vardev=$DEV
live_root "$root" usr dev proc sys
mount "$vardev" "$ROOT/var"
LIVE_MOUNTS+=("$ROOT/var")
touch -d "@$((W + 9000))" "$ROOT/var/lib/clockfix/clock"
cp "$TMP/cmdline.live" "$ROOT/tmp/cmdline"
live_clockfix status --json --cmdline /tmp/cmdline "${POLICY[@]}"
assert_eq "$RC" 0 "live: exit"
assert_eq "$(jqo '[.devices[] | select(.readable) | .mount_dir] | join(" ")')" "/ /var" "live: the root and /var read"
assert_eq "$(jqo .mounts_from)" /etc/fstab "live: the running system's fstab"
assert_eq "$(jqo '[.devices[] | select(.mount_dir == "/var") | .files[] | select(.path == "/var/lib/clockfix/clock")] | first | .live')" \
        true "live: /var's stamp read live"
assert_eq "$(jqo .estimate)" $((W + 9000)) "live: the page cache's time of /var's stamp"
# Live, a link at a stamp's path is followed by its target's name, never opened: a FIFO there
# would hold an open until a writer comes (fifo_trap).
fifo_trap "$ROOT/var/trap"
ln -sfn /var/trap "$ROOT/var/lib/clockfix/clock"
live_clockfix status --json --cmdline /tmp/cmdline "${POLICY[@]}"
assert_eq "$(jqo '[.devices[] | select(.mount_dir == "/var") | .files[] | select(.path == "/var/lib/clockfix/clock")] | first | .error')" \
        "not a regular file" "live: a link to a FIFO, followed to it"
fifo_untouched "$ROOT/var/trap" || fail "live: the FIFO at the end of a link was opened"
fifo_traps_done
live_root_done
detach_loops

# --- A root never written beside a writable /data, and roots alone.
data=$TMP/data.img
mkimg "$data" "$W" 16M -t ext4
stamp "$data" $((W + 86400 * 30))
root_image "$TMP/ab.img" "/dev/disk/by-label/x / ext4 ro 0 1
$data /data ext4 defaults,nofail 0 2
$TMP/spare.img /spare ext4 noauto 0 2
$data /home none bind 0 0
$TMP/missing.img /missing ext4 nofail 0 2
server:/x /nfs nfs defaults 0 0
/dev/sda9 none swap sw 0 0
/dev/sda8 /boot/firmware vfat defaults 0 2
"
mkimg "$TMP/spare.img" $((W + 86400 * 400)) 4M -t ext4
cfm "$TMP/ab.img,$data" status --json --wait 3
assert_eq "$RC" 0 "ab: exit"
assert_eq "$(jqo '[.devices[] | .mount_dir] | join(" ")')" "/ /data /missing" "ab: the root, /data and the missing nofail one tried"
assert_eq "$(jqo .estimate)" $((W + 86400 * 30)) "ab: /data's last write wins, not the noauto one"
assert_eq "$(jqo '.devices[0].read_only')" true "ab: the root is never written"
assert_eq "$(jqo '.devices[1].read_only')" false "ab: /data is"
assert_eq "$(jqo .read_only)" false "ab: something is written"
assert_match "$(jqo .devices[2].error)" "^no such device" "ab: nofail is not waited for"
cfm "$TMP/ab.img,$data" status --wait 3
assert_no_note() { [[ "$OUT" != *"no better than the image's time"* ]] || fail "$1: $OUT"; }
assert_no_note "ab: no note with a writable /data"

root_image "$TMP/ro.img" "LABEL=x / ext4 ro,noatime 0 1
"
cfm "$TMP/ro.img" status
assert_eq "$RC" 0 "ro: exit"
assert_match "$OUT" "no better than the image's time" "ro: status says what cannot work"
assert_match "$OUT" "never written at boot" "ro: the root is never written"
root_image "$TMP/rw.img" "LABEL=x / ext4 defaults 0 1
"
cfm "$TMP/rw.img" status
assert_no_note "rw: a root written at boot"
EXTRA_CMDLINE="overlayroot=tmpfs" cfm "$TMP/rw.img" status --json
assert_eq "$(jqo .read_only)" true "overlayroot: never written"
EXTRA_CMDLINE="boot=overlay" cfm "$TMP/rw.img" status
assert_match "$OUT" "no better than the image's time" "boot=overlay: status says it"
EXTRA_CMDLINE="overlayroot=disabled" cfm "$TMP/rw.img" status --json
assert_eq "$(jqo .read_only)" false "overlayroot=disabled: written"

# --- Symbolic links through the mounts: systemd's answer for a read-only root, timesyncd's clock
# file a link into /data (absolute), clockfix's state directory a link to a directory there
# (relative), both followed to /data and read there; a loop of links, and a link to a device
# node, not followed past their ends (nothing opened: the FIFO trap of the live run below).
ldata=$TMP/ldata.img
mkimg "$ldata" "$W" 16M -t ext4
stamp "$ldata" "$W" "mkdir timesync" "write /dev/null timesync/clock" "sif timesync/clock mtime @$((W + 5000))" \
        "mkdir clockfix" "write /dev/null clockfix/clock" "sif clockfix/clock mtime @$((W + 4000))"
root_image "$TMP/links.img" "/dev/disk/by-label/x / ext4 ro 0 1
$ldata /data ext4 defaults 0 2
" "mkdir var" "mkdir var/lib" "mkdir var/lib/systemd" "mkdir var/lib/systemd/timesync" \
        "symlink var/lib/systemd/timesync/clock /data/timesync/clock" \
        "symlink var/lib/clockfix ../../data/clockfix" \
        "symlink etc/fake-hwclock.data /etc/loop1" "symlink etc/loop1 /etc/loop2" "symlink etc/loop2 /etc/fake-hwclock.data"
cfm "$TMP/links.img,$ldata" status --json
assert_eq "$RC" 0 "links: exit"
assert_eq "$(src file:/var/lib/systemd/timesync/clock "$ldata" .time)" $((W + 5000)) "links: timesyncd's clock read on /data"
assert_eq "$(src file:/var/lib/clockfix/clock "$ldata" .time)" $((W + 4000)) "links: clockfix's directory on /data"
assert_eq "$(jqo .estimate)" $((W + 5000)) "links: the clock file on /data wins"
assert_eq "$(jqo '.devices[0].files[] | select(.path == "/etc/fake-hwclock.data") | .error')" \
        "more than 8 symbolic links on the way" "links: a loop"
# A link to a device node on the disk: looked up there, not a regular file, never opened.
root_image "$TMP/dev.img" "/dev/disk/by-label/x / ext4 defaults 0 1
" "mkdir dev" "cd /dev" "mknod watchdog c 10 130" "cd /" "mkdir var" "mkdir var/lib" "mkdir var/lib/clockfix" \
        "symlink var/lib/clockfix/clock /dev/watchdog"
cfm "$TMP/dev.img" status --json
assert_eq "$(jqo '.devices[0].files[] | select(.path == "/var/lib/clockfix/clock") | .error')" "not a regular file" \
        "links: to a device node"

# --- OSTree (Fedora IoT, Torizon): ostree= on the kernel command line names the deployment that
# is / (through a link), on the root's disk; /var is the stateroot's, on the same disk. Read from
# the unmounted root, the stamp under /var and the deployment's fstab are found there.
printf 'UUID=x / ext4 defaults 1 1\n%s /srv ext4 defaults 0 2\n' "$ldata" >"$TMP/os.fstab"
osdir=ostree/deploy/tor/deploy/abc123.0
root_image "$TMP/os.img" "" "rm etc/fstab" "mkdir ostree" "mkdir ostree/deploy" "mkdir ostree/deploy/tor" \
        "mkdir ostree/deploy/tor/deploy" "mkdir $osdir" "mkdir $osdir/etc" "write $TMP/os.fstab $osdir/etc/fstab" \
        "mkdir $osdir/var" "mkdir ostree/deploy/tor/var" "mkdir ostree/deploy/tor/var/lib" \
        "mkdir ostree/deploy/tor/var/lib/clockfix" "write /dev/null ostree/deploy/tor/var/lib/clockfix/clock" \
        "sif ostree/deploy/tor/var/lib/clockfix/clock mtime @$((W + 6000))" \
        "mkdir ostree/boot.1" "mkdir ostree/boot.1/tor" "mkdir ostree/boot.1/tor/0123" \
        "symlink ostree/boot.1/tor/0123/0 ../../../deploy/tor/deploy/abc123.0"
EXTRA_CMDLINE="ostree=/ostree/boot.1/tor/0123/0" cfm "$TMP/os.img,$ldata" status --json
assert_eq "$RC" 0 "ostree: exit"
assert_eq "$(jqo .deployment)" "/$osdir" "ostree: the deployment"
assert_eq "$(jqo .mounts_from)" "/$osdir/etc/fstab on $TMP/os.img" "ostree: the deployment's fstab"
assert_eq "$(jqo '.devices[1].mount_dir')" /srv "ostree: its entries read"
assert_eq "$(src file:/var/lib/clockfix/clock "$TMP/os.img" .time)" $((W + 6000)) "ostree: the stamp in the stateroot's /var"
EXTRA_CMDLINE="ostree=/ostree/boot.1/tor/0123/9" cfm "$TMP/os.img" status --json
assert_eq "$(jqo .deployment)" null "ostree: a deployment not there: the root as it is"
assert_eq "$(jqo .mounts_from)" null "ostree: a deployment not there: no fstab at the top"

# --- Hostile tables: binary, and larger than any fstab.
head -c 20000 /dev/urandom >"$TMP/junk"
root_image "$TMP/junk.img" "" "rm etc/fstab" "write $TMP/junk etc/fstab"
cfm "$TMP/junk.img" status --json
assert_eq "$RC" 0 "junk fstab: exit"
assert_eq "$(jqo '.devices[0].readable')" true "junk fstab: the root read"
for i in $(seq 3000); do echo "/dev/nothing$i /m$i ext4 nofail 0 2"; done >"$TMP/huge"
root_image "$TMP/huge.img" "" "rm etc/fstab" "write $TMP/huge etc/fstab"
cfm "$TMP/huge.img" status --json
assert_eq "$RC" 0 "huge fstab: exit"
# Larger than 64 KiB: not read at all, and said in the log of -v.
assert_eq "$(jqo '.devices | length')" 1 "huge fstab: nothing but the root"
# No table read: whether the root is written is not known ("ro" on the command line is how Debian
# boots every root), so nothing is said of the image's time.
assert_eq "$(jqo .read_only)" false "huge fstab: not said to be never written"
