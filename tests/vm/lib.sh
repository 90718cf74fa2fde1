# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/lib.sh: what the VM tests share: a Debian kernel unpacked (never installed) into a cache,
# initramfs images, root disks with known times, and QEMU boots judged by markers on the serial
# console. Sourced after tests/lib.sh.

# The cache of the unpacked kernel, kept between runs (the build directory's, by default).
VM_CACHE=${VM_CACHE:-${BUILDDIR:-$SRCDIR/build}/vm-cache}
# A boot that takes longer than this (in software emulation) has hung.
VM_TIMEOUT=${VM_TIMEOUT:-60}

# vm_kernel: sets KVER, KROOT (the unpacked package) and KERNEL (its vmlinuz), downloading and
# unpacking the current Debian 12 kernel package the first time
vm_kernel() {
        local pkg
        mkdir -p "$VM_CACHE"
        if [ ! -f "$VM_CACHE/kernel.ok" ]; then
                pkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
                [ -n "$pkg" ] || fail "no kernel package behind linux-image-amd64 (apt-get update?)"
                rm -rf "$VM_CACHE/kroot" "$VM_CACHE"/*.deb
                (cd "$VM_CACHE" && apt-get download "$pkg" >/dev/null 2>&1) || fail "cannot download $pkg"
                dpkg-deb -x "$VM_CACHE"/linux-image-*.deb "$VM_CACHE/kroot"
                rm -f "$VM_CACHE"/*.deb
                KVER=$(ls "$VM_CACHE/kroot/lib/modules")
                depmod -b "$VM_CACHE/kroot" "$KVER"
                touch "$VM_CACHE/kernel.ok"
        fi
        KROOT=$VM_CACHE/kroot
        KVER=$(ls "$KROOT/lib/modules")
        KERNEL=$KROOT/boot/vmlinuz-$KVER
}

# vm_modules MODULE...: the .ko files they need, in load order, relative to KROOT
vm_modules() {
        local m
        for m in "$@"; do
                modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
        done | sed "s|^$KROOT/||" | awk '!seen[$0]++'
}

# vm_busybox_initramfs OUT INIT [SOURCE:PATH...]: a busybox-only initramfs: busybox, the virtio
# block modules, INIT as /init, and each SOURCE file of the host at PATH
vm_busybox_initramfs() {
        local out=$1 init=$2 dir m f
        shift 2
        dir=$(mktemp -d "$TMP/initramfs.XXXXXX")
        mkdir -p "$dir/bin" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/tmp"
        cp /bin/busybox "$dir/bin/busybox"
        for m in $(vm_modules virtio_pci virtio_mmio virtio_blk); do
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
# QEMU argument, a microvm without any RTC (the clock starts at 1970) instead.
vm_boot() {
        local name=$1 initrd=$2 disk=$3 append=$4 started machine=(-M pc -m 256M -nographic)
        local drive=(-drive "file=$disk,format=raw,if=virtio")
        shift 4
        if [ "${1:-}" == microvm ]; then
                shift
                machine=(-M microvm,rtc=off -m 256M -nodefaults -display none -serial stdio)
                drive=(-device virtio-blk-device,drive=d0 -drive "id=d0,file=$disk,format=raw,if=none")
        fi
        local try
        for try in 1 2 3; do
                started=$(date +%s%N)
                timeout "$VM_TIMEOUT" qemu-system-x86_64 "${machine[@]}" -no-reboot -kernel "$KERNEL" \
                        -initrd "$initrd" -append "console=ttyS0 panic=-1 reboot=t $append" "${drive[@]}" "$@" \
                        </dev/null >"$TMP/$name.console" 2>&1 || true
                BOOT_MS=$((($(date +%s%N) - started) / 1000000))
                CONSOLE=$(tr -d '\r' <"$TMP/$name.console")
                # A guest that neither finished nor failed within the timeout hung in emulation: about
                # one microvm boot in fifteen stops in the kernel's early timer setup, long before the
                # initramfs runs (software emulation without KVM). Try again, and say so.
                grep -aq "CLOCKFIX-TEST done=" <<<"$CONSOLE" || [ "$BOOT_MS" -lt $((VM_TIMEOUT * 1000)) ] && break
                echo "$name: the guest hung for $VM_TIMEOUT s; booting it again" >&2
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
