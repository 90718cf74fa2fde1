# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/lib.sh: what the VM tests share: a Debian kernel unpacked (never installed) into a cache,
# initramfs images, root disks with known times, and QEMU boots judged by markers on the serial
# console. Sourced after tests/lib.sh.

# The cache of the unpacked kernel (and an ARM guest's busybox), kept between runs (the build
# directory's, by default).
VM_CACHE=${VM_CACHE:-${BUILDDIR:-$SRCDIR/build}/vm-cache}
# A boot that takes longer than this (in software emulation) has hung.
VM_TIMEOUT=${VM_TIMEOUT:-60}
# The guest's architecture, as Debian names it: amd64 (a PC, the default), or armhf or arm64 (QEMU's
# virt machine, for the tests of a cross build). The kernel and busybox of an ARM guest come from
# Debian's archive too; the cache keeps them apart from the amd64 ones (VM_SUFFIX), so one cache
# may serve every architecture.
VM_ARCH=${VM_ARCH:-amd64}
case "$VM_ARCH" in
amd64) VM_KERNEL_PACKAGE=linux-image-amd64 VM_SUFFIX="" ;;
armhf) VM_KERNEL_PACKAGE=linux-image-armmp:armhf VM_SUFFIX=-armhf ;;
arm64) VM_KERNEL_PACKAGE=linux-image-arm64:arm64 VM_SUFFIX=-arm64 ;;
*) fail "VM_ARCH=$VM_ARCH: not amd64, armhf or arm64" ;;
esac
# The modules of a busybox initramfs: what finds and reads the disk on either machine.
VM_INITRAMFS_MODULES=${VM_INITRAMFS_MODULES:-virtio_pci virtio_mmio virtio_blk}

# vm_deb_unpack PACKAGE DIR: downloads PACKAGE (name[:arch]) from Debian's archive and unpacks it
# into DIR, without installing it; a package of another architecture needs that architecture in
# dpkg and apt's lists (dpkg --add-architecture ARCH; apt-get update)
vm_deb_unpack() {
        local dl
        dl=$(mktemp -d "$TMP/deb.XXXXXX")
        # apt's sandbox user cannot write to this private directory: apt says so and downloads as
        # root.
        (cd "$dl" && apt-get download "$1" >/dev/null 2>&1) ||
                fail "cannot download $1${VM_SUFFIX:+ (dpkg --add-architecture $VM_ARCH; apt-get update?)}"
        dpkg-deb -x "$dl"/*.deb "$2"
        rm -rf "$dl"
}

# vm_kernel: sets KVER, KROOT (the unpacked package) and KERNEL (its vmlinuz), downloading and
# unpacking the current Debian 12 kernel package of VM_ARCH the first time
vm_kernel() {
        local pkg
        KROOT=$VM_CACHE/kroot$VM_SUFFIX
        mkdir -p "$VM_CACHE"
        if [ ! -f "$VM_CACHE/kernel$VM_SUFFIX.ok" ]; then
                pkg=$(apt-cache depends "$VM_KERNEL_PACKAGE" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
                [ -n "$pkg" ] || fail "no kernel package behind $VM_KERNEL_PACKAGE (${VM_SUFFIX:+dpkg --add-architecture $VM_ARCH; }apt-get update?)"
                rm -rf "$KROOT"
                vm_deb_unpack "$pkg" "$KROOT"
                KVER=$(ls "$KROOT/lib/modules")
                depmod -b "$KROOT" "$KVER"
                touch "$VM_CACHE/kernel$VM_SUFFIX.ok"
        fi
        KVER=$(ls "$KROOT/lib/modules")
        KERNEL=$KROOT/boot/vmlinuz-$KVER
}

# vm_busybox: sets BUSYBOX to a static busybox that runs in the guest: the host's for amd64, else
# Debian's busybox-static of VM_ARCH, unpacked into the cache the first time
vm_busybox() {
        if [ "$VM_ARCH" == amd64 ]; then
                BUSYBOX=/bin/busybox
                return
        fi
        BUSYBOX=$VM_CACHE/busybox$VM_SUFFIX/bin/busybox
        if [ ! -f "$VM_CACHE/busybox$VM_SUFFIX.ok" ]; then
                rm -rf "$VM_CACHE/busybox$VM_SUFFIX"
                vm_deb_unpack "busybox-static:$VM_ARCH" "$VM_CACHE/busybox$VM_SUFFIX"
                [ -f "$BUSYBOX" ] || fail "busybox-static:$VM_ARCH holds no /bin/busybox"
                touch "$VM_CACHE/busybox$VM_SUFFIX.ok"
        fi
}

# vm_modules MODULE...: the .ko files they need, in load order, relative to KROOT
vm_modules() {
        local m
        for m in "$@"; do
                modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
        done | sed "s|^$KROOT/||" | awk '!seen[$0]++'
}

# vm_busybox_initramfs OUT INIT [SOURCE:PATH...]: a busybox-only initramfs: busybox, the modules
# of VM_INITRAMFS_MODULES and what they need, listed in load order in /modules, INIT as /init, and
# each SOURCE file of the host at PATH
vm_busybox_initramfs() {
        local out=$1 init=$2 dir m f
        shift 2
        vm_busybox
        dir=$(mktemp -d "$TMP/initramfs.XXXXXX")
        mkdir -p "$dir/bin" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/tmp"
        cp "$BUSYBOX" "$dir/bin/busybox"
        # shellcheck disable=SC2086 # a list of names
        for m in $(vm_modules $VM_INITRAMFS_MODULES); do
                mkdir -p "$dir/$(dirname "$m")"
                cp "$KROOT/$m" "$dir/$m"
                echo "/$m" >>"$dir/modules"
        done
        cp "$init" "$dir/init"
        chmod 755 "$dir/init"
        for f in "$@"; do
                mkdir -p "$dir/$(dirname "${f#*:}")"
                cp "${f%%:*}" "$dir/${f#*:}"
        done
        (cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
}

# vm_boot NAME INITRD DISK APPEND [QEMU-ARGS...]: boots the kernel on a PC with DISK as virtio
# /dev/vda; the serial console goes to $TMP/NAME.console, and CONSOLE. With `microvm` as the first
# QEMU argument, a microvm without any RTC (the clock starts at 1970) instead. For an ARM VM_ARCH,
# QEMU's virt machine (its RTC, a PL031, is set with -rtc as a PC's), DISK on its virtio-mmio bus
# and the console on its PL011 (ttyAMA0).
vm_boot() {
        local name=$1 initrd=$2 disk=$3 append=$4 started machine=(-M pc -m 256M -nographic)
        local drive=(-drive "file=$disk,format=raw,if=virtio") qemu=qemu-system-x86_64
        local console="console=ttyS0 panic=-1 reboot=t" limit=$VM_TIMEOUT
        shift 4
        if [ "${1:-}" == microvm ]; then
                shift
                machine=(-M microvm,rtc=off -m 256M -nodefaults -display none -serial stdio)
                drive=(-device virtio-blk-device,drive=d0 -drive "id=d0,file=$disk,format=raw,if=none")
        fi
        if [ "$VM_ARCH" != amd64 ]; then
                # No network card: the guests need none, and QEMU's user network would be one more
                # thing to emulate.
                case "$VM_ARCH" in
                armhf) qemu=qemu-system-arm machine=(-M virt -cpu cortex-a15) ;;
                arm64) qemu=qemu-system-aarch64 machine=(-M virt -cpu cortex-a53) ;;
                esac
                machine+=(-m 512 -nographic -nic none)
                drive=(-drive "file=$disk,if=none,format=raw,id=d" -device virtio-blk-device,drive=d)
                console="console=ttyAMA0 panic=-1"
                # Emulating an ARM CPU on a PC is slower than emulating a PC: the same boot takes
                # about twice as long.
                limit=$((VM_TIMEOUT * 2))
        fi
        local try
        for try in 1 2 3; do
                started=$(date +%s%N)
                timeout "$limit" "$qemu" "${machine[@]}" -no-reboot -kernel "$KERNEL" \
                        -initrd "$initrd" -append "$console $append" "${drive[@]}" "$@" \
                        </dev/null >"$TMP/$name.console" 2>&1 || true
                BOOT_MS=$((($(date +%s%N) - started) / 1000000))
                CONSOLE=$(tr -d '\r' <"$TMP/$name.console")
                # A guest that neither finished nor failed within the timeout hung in emulation: about
                # one microvm boot in fifteen stops in the kernel's early timer setup, long before the
                # initramfs runs (software emulation without KVM). Try again, and say so.
                grep -aq "CLOCKFIX-TEST done=" <<<"$CONSOLE" || [ "$BOOT_MS" -lt $((limit * 1000)) ] && break
                echo "$name: the guest hung for $limit s; booting it again" >&2
                cp "$TMP/$name.console" "$TMP/$name.hung.console"
        done
}

# marker KEY: the value of the last "CLOCKFIX-TEST KEY=VALUE" on the console ("" if none)
marker() {
        { grep -ao "CLOCKFIX-TEST $1=[^ ]*" <<<"$CONSOLE" || true; } | tail -n 1 | sed "s/^CLOCKFIX-TEST $1=//"
}

# vm_dump NAME: the end of a console, for a failure message
vm_dump() {
        tail -n 30 "$TMP/$1.console" | tr -d '\r' | sed 's/^/  | /' >&2
}

# vm_root_disk OUT WRITTEN: an ext4 root filesystem holding busybox and an /sbin/init that reports
# the clock ("CLOCKFIX-TEST after=") and powers off; made a day before WRITTEN, last mounted an
# hour before, last written at WRITTEN (so clockfix's estimate is WRITTEN)
vm_root_disk() {
        local out=$1 written=$2 dir
        dir=$(mktemp -d "$TMP/rootfs.XXXXXX")
        mkdir -p "$dir/bin" "$dir/sbin" "$dir/proc" "$dir/dev" "$dir/sys" "$dir/tmp"
        cp /bin/busybox "$dir/bin/busybox"
        cat >"$dir/sbin/init" <<'INIT'
#!/bin/busybox sh
# After systemd's switch-root, PID 1's output goes nowhere: write to the console itself.
[ -c /dev/console ] && exec >/dev/console 2>&1
/bin/busybox mount -t proc proc /proc 2>/dev/null
echo "CLOCKFIX-TEST after=$(/bin/busybox date +%s)"
echo "CLOCKFIX-TEST root=$(/bin/busybox awk '$2 == "/" { print $4 }' /proc/mounts | /bin/busybox cut -d, -f1)"
echo "CLOCKFIX-TEST done=1"
/bin/busybox reboot -f
INIT
        chmod 755 "$dir/sbin/init"
        E2FSPROGS_FAKE_TIME=$((written - 86400)) mke2fs -q -F -t ext4 -d "$dir" "$out" 32M >/dev/null
        printf 'ssv mtime @%s\n' "$((written - 3600))" | E2FSPROGS_FAKE_TIME=$written debugfs -w -f - "$out" >/dev/null 2>&1
}

# vm_check NAME WRITTEN: the clock the root's init saw is clockfix's target (WRITTEN + 1 s), plus
# the time the rest of the boot took (at most 60 s in emulation)
vm_check() {
        local after
        after=$(marker after)
        [ -n "$(marker done)" ] || { vm_dump "$1"; fail "$1: the guest did not finish booting"; }
        [ -n "$after" ] && [ "$after" -ge $(($2 + 1)) ] && [ "$after" -le $(($2 + 61)) ] ||
                { vm_dump "$1"; fail "$1: the clock read $after after clockfix, expected $(($2 + 1)) and a little more"; }
}
