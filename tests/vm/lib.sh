# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/lib.sh: what the VM tests share: a Debian kernel unpacked (never installed) into a cache,
# initramfs images, root disks with known times, and QEMU boots judged by markers on the serial
# console. Sourced after tests/lib/lib.sh.

# The cache of the unpacked kernel (and an ARM guest's busybox, the guests' Debian roots...), kept
# between runs (the build directory's, by default); each entry made once, under a lock (vm_cached).
VM_CACHE=${VM_CACHE:-${BUILDDIR:-$SRCDIR/build}/vm-cache}
# How long a boot may take, in seconds, on an idle machine: a busybox boot takes 5 to 20 s in
# software emulation. Emulation slows down as much as the host is loaded, so every limit is
# multiplied by VM_TIME_FACTOR (vm_factor); a guest is stopped as hung when its console stays
# silent for VM_SILENCE (times the factor), which no boot here comes near, or when it runs past
# VM_TIMEOUT (times the factor) while still writing.
VM_TIMEOUT=${VM_TIMEOUT:-120}
VM_SILENCE=${VM_SILENCE:-60}
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
# The kernel arguments of every PC guest (vm_boot, vm_debian_qemu, bench/read-cost), besides the
# TSC's frequency (vm_pc_cmdline). At boot the kernel checks that the timer's interrupt reaches the
# CPU through the IO-APIC within a few ticks (check_timer(), arch/x86/kernel/apic/io_apic.c), and
# panics when no way it tries does ("IO-APIC + timer doesn't work!"): on a busy host the emulated
# CPU can miss those ticks, and a systemd boot of vm-systemd panicked so on this machine with two
# other guests running. no_timer_check skips the check; QEMU's timer is wired as the kernel expects.
#
# A guest's kernel seeds its random number generator from interrupt timings, and until it is seeded
# getrandom() blocks; under emulation on a busy host those timings come slowly, and the 6.1
# kernel's fallback (try_to_generate_entropy(), a timer raced against the CPU) can spin: a
# systemctl of vm-layout's guest sat in getrandom() until a soft lockup, and the test's time limit.
# QEMU's emulated CPU can have RDRAND (VM_PC_CPU), and a kernel that trusts the CPU's generator
# (random.trust_cpu=on, Debian's default) is seeded from it before init runs.
VM_PC_APPEND="no_timer_check random.trust_cpu=on"
# QEMU's CPU of every PC guest: its default with RDRAND
VM_PC_CPU="-cpu qemu64,+rdrand"

# vm_pc_cmdline: sets VM_PC_CMDLINE to the kernel arguments of every PC guest: the host's TSC
# frequency (tsc_early_khz=, measured once by tsc-khz, TSC_KHZ; why: vm_boot) and VM_PC_APPEND.
# The Debian guests' PCs need it as much as the microvms: one of vm-sysvinit, left to calibrate its
# delay loop on a host loaded with three guests, said "calibrate_delay_direct() failed" and was
# never heard from again.
vm_pc_cmdline() {
        [ -n "${TSC_KHZ:-}" ] || fail "a PC guest needs tsc-khz (TSC_KHZ): run through meson test"
        [ -n "${VM_TSC_KHZ:-}" ] || VM_TSC_KHZ=$("$TSC_KHZ") || fail "tsc-khz failed"
        VM_PC_CMDLINE="tsc_early_khz=$VM_TSC_KHZ $VM_PC_APPEND"
}

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

# vm_cached NAME COMMAND...: makes the cache's entry NAME ($VM_CACHE/NAME) with COMMAND the first
# time, under NAME's lock: the VM tests run two at a time, and a second test that needs NAME waits
# for the first to make it rather than making it into the same folder. An entry is whole once
# NAME.ok exists; one left half made by a run that stopped is made again.
vm_cached() {
        local name=$1 lock
        shift
        mkdir -p "$VM_CACHE"
        exec {lock}>"$VM_CACHE/$name.lock"
        flock "$lock"
        if [ ! -f "$VM_CACHE/$name.ok" ]; then
                rm -rf "${VM_CACHE:?}/$name"
                "$@"
                touch "$VM_CACHE/$name.ok"
        fi
        exec {lock}>&-
}

# vm_kernel: sets KVER, KROOT (the unpacked package) and KERNEL (its vmlinuz), downloading and
# unpacking the current kernel package of VM_ARCH (this machine's release) the first time
vm_kernel() {
        KROOT=$VM_CACHE/kroot$VM_SUFFIX
        vm_cached "kroot$VM_SUFFIX" vm_kernel_unpack
        KVER=$(ls "$KROOT/lib/modules")
        KERNEL=$KROOT/boot/vmlinuz-$KVER
}
vm_kernel_unpack() {
        local pkg
        pkg=$(apt-cache depends "$VM_KERNEL_PACKAGE" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
        [ -n "$pkg" ] || fail "no kernel package behind $VM_KERNEL_PACKAGE (${VM_SUFFIX:+dpkg --add-architecture $VM_ARCH; }apt-get update?)"
        vm_deb_unpack "$pkg" "$KROOT"
        # (Debian 13's kernel has its modules in /usr/lib/modules only: a merged /usr)
        [ -e "$KROOT/lib" ] || [ ! -d "$KROOT/usr/lib/modules" ] || ln -s usr/lib "$KROOT/lib"
        depmod -b "$KROOT" "$(ls "$KROOT/lib/modules")"
}

# vm_busybox: sets BUSYBOX to a static busybox that runs in the guest: the host's for amd64, else
# Debian's busybox-static of VM_ARCH, unpacked into the cache the first time
vm_busybox() {
        if [ "$VM_ARCH" == amd64 ]; then
                BUSYBOX=/bin/busybox
                return
        fi
        BUSYBOX=$VM_CACHE/busybox$VM_SUFFIX/bin/busybox
        vm_cached "busybox$VM_SUFFIX" vm_deb_unpack "busybox-static:$VM_ARCH" "$VM_CACHE/busybox$VM_SUFFIX"
        [ -f "$BUSYBOX" ] || fail "busybox-static:$VM_ARCH holds no /bin/busybox"
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

# vm_factor: what the time limits of a boot are multiplied by: VM_TIME_FACTOR when set, else 1
# plus the host's load per CPU (the 1-minute load average; 12 on 2 CPUs gives 7), rounded down: a
# guest's virtual CPU shares the host's CPUs with that load, and runs about that many times slower.
vm_factor() {
        if [ -n "${VM_TIME_FACTOR:-}" ]; then
                echo "$VM_TIME_FACTOR"
                return
        fi
        awk -v cpus="$(nproc)" '{ print 1 + int($1 / cpus) }' /proc/loadavg
}

# The QEMU processes that are running, killed when the test ends, however it ends.
VM_PIDS=()
vm_kill_all() {
        local p
        for p in "${VM_PIDS[@]}" $(cat "$TMP/vm-pids" 2>/dev/null); do
                kill -KILL "$p" 2>/dev/null || true
        done
}
at_exit vm_kill_all

# vm_run NAME LIMIT SILENCE [CUT] -- COMMAND...: runs QEMU's COMMAND with its output (the serial
# console) in $TMP/NAME.console until it ends (QEMU's pid also in VM_PID_FILE if set: a boot in a
# background subshell sets $TMP/vm-pids, which vm_kill_all reads); kills it when a line contains CUT (sets CUT=1), or
# when it has written nothing for SILENCE s or run for LIMIT s (both in seconds, multiplied by
# vm_factor), which fails the test as a hang, with the console's last line. Sets CONSOLE and
# BOOT_MS (QEMU's start to its end).
vm_run() {
        local name=$1 factor limit silence cut=$4 pid started now size=-1 quiet_since
        factor=$(vm_factor)
        limit=$(($2 * factor)) silence=$(($3 * factor))
        shift 4
        [ "${1:-}" != -- ] || shift
        CUT=""
        started=$(date +%s%N)
        quiet_since=$started
        "$@" </dev/null >"$TMP/$name.console" 2>&1 &
        pid=$!
        VM_PIDS+=("$pid")
        # (a boot run in the background, in a subshell, tells its QEMU to the test: vm_kill_all)
        [ -z "${VM_PID_FILE:-}" ] || echo "$pid" >>"$VM_PID_FILE"
        while kill -0 "$pid" 2>/dev/null; do
                sleep 0.1
                now=$(date +%s%N)
                if [ -n "$cut" ] && grep -aqF -- "$cut" "$TMP/$name.console"; then
                        # A power cut: nothing is flushed or unmounted.
                        kill -KILL "$pid" 2>/dev/null || true
                        CUT=1
                        break
                fi
                if [ "$(stat -c %s "$TMP/$name.console")" != "$size" ]; then
                        size=$(stat -c %s "$TMP/$name.console")
                        quiet_since=$now
                elif [ $((now - quiet_since)) -ge $((silence * 1000000000)) ]; then
                        hung "$name" "$pid" "no output for $silence s"
                fi
                [ $((now - started)) -lt $((limit * 1000000000)) ] ||
                        hung "$name" "$pid" "still running after $limit s"
        done
        wait "$pid" 2>/dev/null || true
        BOOT_MS=$((($(date +%s%N) - started) / 1000000))
        CONSOLE=$(tr -d '\r' <"$TMP/$name.console")
}

# hung NAME PID WHY: stops the guest PID and fails the test: it hung
hung() {
        local last
        kill -KILL "$2" 2>/dev/null || true
        wait "$2" 2>/dev/null || true
        last=$(tr -d '\r' <"$TMP/$1.console" | grep -av '^[[:space:]]*$' | tail -n 1)
        vm_dump "$1"
        fail "$1: guest hung: $3 (load $(cut -d' ' -f1-3 /proc/loadavg)), last line: ${last:-none}"
}

# vm_nic: QEMU's arguments for the guest's network: none, or with VM_NETNS (tests/vm/ntp.sh) a
# virtio NIC on that namespace's tap0 (QEMU must then run in the namespace)
vm_nic() {
        if [ -n "${VM_NETNS:-}" ]; then
                echo "-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0"
        else
                echo "-nic none"
        fi
}

# vm_boot NAME INITRD DISK APPEND [QEMU-ARGS...]: boots the kernel on a PC with DISK as virtio
# /dev/vda; the serial console goes to $TMP/NAME.console, and CONSOLE. With `microvm` as the first
# QEMU argument, a microvm without any RTC (the clock starts at 1970) instead. For an ARM VM_ARCH,
# QEMU's virt machine (its RTC, a PL031, is set with -rtc as a PC's), DISK on its virtio-mmio bus
# and the console on its PL011 (ttyAMA0). A PC has no network card, or with VM_NETNS a virtio NIC
# in that namespace (vm_nic). A guest that hangs fails the test (vm_run).
vm_boot() {
        local name=$1 initrd=$2 disk=$3 append=$4 machine=(-M pc -m 256M -nographic $(vm_nic)) netns=()
        local drive=(-drive "file=$disk,format=raw,if=virtio") qemu=qemu-system-x86_64
        local console="console=ttyS0 panic=-1 reboot=t" limit=$VM_TIMEOUT
        shift 4
        if [ "${1:-}" == microvm ]; then
                shift
                machine=(-M microvm,rtc=off -m 256M -nodefaults -display none -serial stdio)
                drive=(-device virtio-blk-device,drive=d0 -drive "id=d0,file=$disk,format=raw,if=none")
        fi
        if [ "$VM_ARCH" == amd64 ]; then
                # The kernel must know the TSC's frequency. A microvm gives it nothing to measure
                # it against but the PIT: no HPET, no ACPI PM timer, no port 0x61 (the PC
                # speaker's) on which the slow PIT calibration waits. quick_pit_calibrate()
                # (arch/x86/kernel/tsc.c) gives up when its reads of the PIT are not evenly spaced,
                # as they are not when the host is busy ("tsc: Fast TSC calibration failed"); the
                # kernel then marks the TSC unusable ("Unable to calibrate against PIT", "No
                # reference (HPET/PMTIMER) available") and is left with jiffies, which do not
                # advance in this guest: the boot stops at the first wait for a tick, the
                # delay-loop calibration (with lpj= given, a little later), every time on a loaded
                # machine. A PC's calibration on a busy host can succeed with a wrong frequency:
                # its clock then ran 2.3 times too fast (an uptime of 46 s in a boot of 20). So
                # both are given the frequency (tsc_early_khz=), and no calibration runs: the TSC
                # serves as clock and clocksource from the start, and lpj is derived from it. In
                # emulation a guest's TSC is the host's own (QEMU's rdtsc reads the host's
                # counter), so the value is the host's TSC frequency, measured by tsc-khz; a wrong
                # one would only make the guest's clock run fast or slow.
                vm_pc_cmdline
                console+=" $VM_PC_CMDLINE"
                # shellcheck disable=SC2206 # the words of VM_PC_CPU
                machine+=($VM_PC_CPU)
        else
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
        [ -z "${VM_NETNS:-}" ] || netns=(ip netns exec "$VM_NETNS")
        vm_run "$name" "$limit" "$VM_SILENCE" "" -- "${netns[@]}" "$qemu" "${machine[@]}" -no-reboot -kernel "$KERNEL" \
                -initrd "$initrd" -append "$console $append" "${drive[@]}" "$@"
}

# marker KEY: the value of the last "CLOCKFIX-TEST KEY=VALUE" on the console ("" if none)
marker() {
        { grep -ao "CLOCKFIX-TEST $1=[^ ]*" <<<"$CONSOLE" || true; } | tail -n 1 | sed "s/^CLOCKFIX-TEST $1=//"
}

# vm_dump NAME: the end of a console, for a failure message
vm_dump() {
        # A kernel's report of trouble comes first, whatever followed it: a panic, an oops, a stall,
        # a task blocked; then the console's end.
        tr -d '\r' <"$TMP/$1.console" | grep -a -m 3 -A 8 -E \
                'Kernel panic|BUG:|Oops|WARNING: CPU|INFO: (task|rcu)|rcu: INFO|blocked for more than|calibrate_delay_direct\(\) failed' |
                sed 's/^/  ! /' >&2 || true
        tail -n 30 "$TMP/$1.console" | tr -d '\r' | sed 's/^/  | /' >&2
}

# vm_initramfs_tools_conf DIR: DIR, a copy of this machine's /etc/initramfs-tools for the guests'
# kernel (vm_kernel): the modules that find and read the disk listed (MODULES=list), no resume
vm_initramfs_tools_conf() {
        local conf=$1
        cp -a /etc/initramfs-tools "$conf"
        mkdir -p "$conf/hooks" "$conf/scripts/local-premount" "$conf/conf.d"
        echo "RESUME=none" >"$conf/conf.d/resume"
        sed -i 's/^MODULES=.*/MODULES=list/' "$conf/initramfs.conf"
        printf '%s\n' virtio_pci virtio_mmio virtio_blk ext4 crc32c_generic >"$conf/modules"
}

# vm_initramfs_tools_hook DIR: clockfix's hook and local-premount script in the initramfs-tools
# configuration DIR, the hook copying the clockfix of this build, with its libraries (copy_exec)
vm_initramfs_tools_hook() {
        local conf=$1
        : "${INITRAMFS_TOOLS_HOOK:?run through meson test}"
        install -m 755 "$INITRAMFS_TOOLS_HOOK" "$conf/hooks/clockfix"
        install -m 755 "$SRCDIR/initramfs/initramfs-tools/scripts/local-premount/clockfix" "$conf/scripts/local-premount/"
        sed -i "s|^CLOCKFIX=.*|CLOCKFIX=$CLOCKFIX|" "$conf/hooks/clockfix"
}

# vm_mkinitramfs DIR OUT [FSTAB]: the image OUT made by initramfs-tools' own mkinitramfs with the
# configuration DIR for the unpacked kernel, in a private mount namespace (the host's /lib/modules
# and /boot are not touched; as root); with FSTAB, the guest's /etc/fstab, mkinitramfs and its
# hooks see that file as /etc/fstab, as they would on the guest
vm_mkinitramfs() {
        [ "$(id -u)" == 0 ] || fail "mkinitramfs needs root for its mount namespace (CI runs as root)"
        [ -n "${KROOT:-}" ] || vm_kernel
        # mkinitramfs reads /lib/modules/<version> and /boot/config-<version>: bind the unpacked ones.
        mkdir -p /lib/modules
        unshare -m --propagation private sh -c 'mount --bind "$1/lib/modules" /lib/modules &&
                mount --bind "$1/boot" /boot && { [ -z "$5" ] || mount --bind "$5" /etc/fstab; } &&
                mkinitramfs -d "$2" -o "$3" "$4"' \
                sh "$KROOT" "$1" "$2" "$KVER" "${3:-}" >"$TMP/mkinitramfs.log" 2>&1 ||
                { cat "$TMP/mkinitramfs.log" >&2; fail "mkinitramfs failed"; }
}

# vm_root_disk OUT WRITTEN: an ext4 root filesystem holding busybox and an /sbin/init that reports
# the clock ("CLOCKFIX-TEST after=") then the guest's uptime ("uptime=") and powers off; made a
# day before WRITTEN, last mounted an hour before, last written at WRITTEN (so clockfix's estimate
# is WRITTEN)
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
echo "CLOCKFIX-TEST uptime=$(/bin/busybox cut -d' ' -f1 /proc/uptime)"
echo "CLOCKFIX-TEST root=$(/bin/busybox awk '$2 == "/" { print $4 }' /proc/mounts | /bin/busybox cut -d, -f1)"
echo "CLOCKFIX-TEST done=1"
/bin/busybox reboot -f
INIT
        chmod 755 "$dir/sbin/init"
        E2FSPROGS_FAKE_TIME=$((written - 86400)) mke2fs -q -F -t ext4 -d "$dir" "$out" 32M >/dev/null
        stamp "$out" "$written" "ssv mtime @$((written - 3600))"
}

# vm_fresh NAME: a copy of the root disk $TMP/root.img (vm_root_disk) for the boot NAME, its path: a
# boot may write to its disk (a mount, an fsck), and the next one would then see a later time than
# WRITTEN
vm_fresh() {
        cp --sparse=always "$TMP/root.img" "$TMP/$1.disk"
        echo "$TMP/$1.disk"
}

# vm_image_cost GENERATOR STARTED IMAGE WITHOUT: how long GENERATOR took since STARTED (date +%s%N)
# to make IMAGE, its size, and how much larger it is than WITHOUT, the same made without clockfix
vm_image_cost() {
        echo "$1: $((($(date +%s%N) - $2) / 1000000)) ms; image $(stat -c %s "$3") bytes," \
                "$(($(stat -c %s "$3") - $(stat -c %s "$4"))) more than without clockfix"
}

# The checks below relate the times a guest reports to one another, to the disk's and to the
# boot's length, never to how fast a boot should be: under load a guest takes minutes to reach
# the same point. Guests report their uptime (/proc/uptime) beside their clock; their clock and
# uptime run at the host's pace (the RTC with clock=vm and the TSC follow the host's clock in
# emulation).

# vm_elapsed FROM TO: the seconds from the uptime FROM to the uptime TO (as /proc/uptime gives
# them: 12.34), rounded up
vm_elapsed() {
        awk -v a="$1" -v b="$2" 'BEGIN { d = b - a; print (d == int(d)) ? d : int(d) + 1 }'
}

# vm_boot_s: the boot just made (BOOT_MS), in whole seconds rounded up
vm_boot_s() {
        echo $(((BOOT_MS + 999) / 1000))
}

# vm_rtc_clock NAME WHAT TIME RTC: a clock TIME (seconds) read while the clock still ran from an
# RTC started at RTC (0 for none): at least RTC, and at most RTC plus the boot's length (the RTC
# counts from QEMU's start, the kernel reads it a moment later, the clock runs on from there)
vm_rtc_clock() {
        [ -n "$3" ] && [ "$3" -ge "$4" ] && [ "$3" -le $(($4 + $(vm_boot_s) + 1)) ] ||
                { vm_dump "$1"; fail "$1: $2 read '$3', not the RTC's $4 plus at most the boot's $(vm_boot_s) s"; }
}

# vm_moved NAME RTC TARGET: clockfix's line "Clock moved forward from T1 to T2" is on the console,
# with T1 the clock of an RTC started at RTC (vm_rtc_clock) and T2 TARGET (seconds)
vm_moved() {
        local line from to
        line=$({ grep -aoE "Clock moved forward from [0-9T:-]+Z to [0-9T:-]+Z" <<<"$CONSOLE" || true; } | head -n 1)
        [ -n "$line" ] || { vm_dump "$1"; fail "$1: no \"Clock moved forward\" line from clockfix"; }
        read -r _ _ _ _ from _ to <<<"$line"
        vm_rtc_clock "$1" "clockfix's \"moved from\"" "$(date -u -d "$from" +%s)" "$2"
        assert_eq "$(date -u -d "$to" +%s)" "$3" "$1: clockfix's \"moved to\" ($to)"
}

# vm_check NAME WRITTEN: the clock the root's init saw ("after") is clockfix's target (WRITTEN + 1
# s) plus at most the guest's uptime, read just after it: clockfix set the clock after the kernel
# started, however long ago that was
vm_check() {
        local after up target=$(($2 + 1)) most
        after=$(marker after) up=$(marker uptime)
        [ -n "$(marker done)" ] || { vm_dump "$1"; fail "$1: the guest did not finish booting"; }
        [ -n "$after" ] && [ -n "$up" ] || { vm_dump "$1"; fail "$1: the guest reported no clock or uptime"; }
        most=$((target + $(vm_elapsed 0 "$up") + 1))
        [ "$after" -ge "$target" ] && [ "$after" -le "$most" ] ||
                { vm_dump "$1"; fail "$1: the clock read $after after clockfix, expected $target to $most (uptime $up s)"; }
}
