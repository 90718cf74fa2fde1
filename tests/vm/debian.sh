# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/debian.sh: a whole Debian guest, of this machine's release (Debian 12 or 13), with systemd as init, for the tests of clockfix's service:
# a minbase root debootstrapped once from the host's own Debian archive into the cache, ext4 disks
# made from it without any mount, a busybox initramfs that mounts the root read-only and hands
# over to systemd, and boots that end by the guest's own power-off or by a power cut. Sourced
# after tests/lib/lib.sh and tests/vm/lib.sh.
#
# In the guest, test units write "CLOCKFIX-TEST key=value" lines to /dev/console (the serial
# console, ttyS0) and "CLOCKFIX-TEST done=1" before they power off; vm_debian_test_unit makes
# such a unit (`systemctl --no-block poweroff` ends the boot). The initramfs says
# "CLOCKFIX-TEST initrd_clock=SECONDS" (the dead RTC's time) and "CLOCKFIX-TEST initrd_root=ro"
# once the root is mounted.

# A systemd boot to power-off takes 15 to 30 s in emulation on an idle machine: the limits of
# vm_run (multiplied by vm_factor, as a busybox guest's) for the whole boot, and for a console
# that stays silent (a test unit may wait a minute for the daemon without a word).
VM_DEBIAN_TIMEOUT=${VM_DEBIAN_TIMEOUT:-300}
VM_DEBIAN_SILENCE=${VM_DEBIAN_SILENCE:-120}
# The size of the disks (sparse): the root and the ext4 journal take about 170 MB of it.
VM_DEBIAN_DISK_SIZE=${VM_DEBIAN_DISK_SIZE:-1G}
# What the cached roots are made of (vm_debian_root): a cache made by another recipe is made again.
# (e2fsprogs, for libext2fs and fsck.ext4: of priority required in Debian 12, not in 13)
# The release of the guests: this machine's, whose archive (its apt sources) they come from.
DEBIAN_CODENAME=${DEBIAN_CODENAME:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
[ -n "$DEBIAN_CODENAME" ] || fail "/etc/os-release names no release (VERSION_CODENAME): not Debian?"
DEBIAN_RECIPE="$DEBIAN_CODENAME minbase systemd-sysv,udev,iproute2,dbus,e2fsprogs recipe 3"
DEBIAN_SYSVINIT_RECIPE="$DEBIAN_CODENAME minbase sysvinit-core,iproute2,e2fsprogs, then chrony recipe 4"
DEBIAN_OPENRC_RECIPE="openrc for sysv-rc recipe 1"
DEBIAN_NTP_RECIPE="ntp clients systemd-timesyncd chrony ntpsec openntpd, networkd at 192.0.2.2 recipe 2"
# The NTP clients of the root named ntp, none of them enabled: a boot enables the one it tries.
DEBIAN_NTP_CLIENTS="systemd-timesyncd chrony ntpsec openntpd"

# vm_debian_mirror: sets DEBIAN_MIRROR (unless already set) to the Debian archive the host's apt
# uses for DEBIAN_CODENAME (deb822 .sources first, then sources.list), and exports http_proxy and
# https_proxy when apt has a proxy: CI reaches nothing but that archive, the way apt does
vm_debian_mirror() {
        local list="" parts="" proxy="" sproxy="" f
        eval "$(apt-config shell list Dir::Etc::sourcelist/f parts Dir::Etc::sourceparts/d)"
        if [ -z "${DEBIAN_MIRROR:-}" ]; then
                # The first URI of a "deb" paragraph for the suite DEBIAN_CODENAME that debootstrap can fetch
                # from (not mirror+, tor+ or cdrom:). Comments and continuation lines are allowed.
                DEBIAN_MIRROR=$(for f in "${parts:-/etc/apt/sources.list.d/}"*.sources; do
                        if [ -f "$f" ]; then cat "$f" && echo; fi
                done | awk -v suite="$DEBIAN_CODENAME" '
                        function flush(n, u, i) {
                                if (uri == "" && v["types"] ~ /(^| )deb( |$)/ && v["enabled"] !~ /^no/ &&
                                    index(" " v["suites"] " ", " " suite " ")) {
                                        n = split(v["uris"], u, " ")
                                        for (i = 1; i <= n; i++)
                                                if (u[i] ~ /^(https?|ftp|file):/) { uri = u[i]; break }
                                }
                                delete v
                                key = ""
                        }
                        { gsub(/\t/, " ") }
                        /^ *#/ { next }
                        /^ *$/ { flush(); next }
                        /^ / { if (key != "") v[key] = v[key] " " $0; next }
                        {
                                key = tolower($1); sub(/:.*/, "", key)
                                val = $0; sub(/^[^:]*: */, "", val)
                                v[key] = tolower(key) == "enabled" ? tolower(val) : val
                        }
                        END { flush(); if (uri != "") print uri }')
        fi
        if [ -z "$DEBIAN_MIRROR" ] && [ -f "${list:-/etc/apt/sources.list}" ]; then
                DEBIAN_MIRROR=$(awk -v suite="$DEBIAN_CODENAME" '$1 == "deb" {
                                i = 2
                                if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                                if ($(i + 1) == suite && $i ~ /^(https?|ftp|file):/) { print $i; exit }
                        }' "${list:-/etc/apt/sources.list}")
        fi
        [ -n "$DEBIAN_MIRROR" ] || fail "no Debian archive for $DEBIAN_CODENAME in the host's apt sources (set DEBIAN_MIRROR)"
        eval "$(apt-config shell proxy Acquire::http::Proxy sproxy Acquire::https::Proxy)"
        if [ -n "$proxy" ] && [ "$proxy" != DIRECT ]; then
                export http_proxy=$proxy
        fi
        if [ -n "$sproxy" ] && [ "$sproxy" != DIRECT ]; then
                export https_proxy=$sproxy
        elif [ -n "$proxy" ] && [ "$proxy" != DIRECT ]; then
                export https_proxy=$proxy
        fi
}

# vm_debian_configure DIR: makes the debootstrapped tree DIR boot quickly and quietly as a guest
# (hostname, fstab, a fixed machine ID, a persistent journal, multi-user as the default target,
# the units that only slow an emulated boot masked) and drops what no test reads
vm_debian_configure() {
        local dir=$1 unit usr_ns
        # systemd-timesyncd would set the clock from the network and stamp its own clock file:
        # a test must add it on purpose. systemd only recommends it, which debootstrap ignores.
        [ ! -e "$dir/lib/systemd/systemd-timesyncd" ] || fail "the Debian root holds systemd-timesyncd"
        echo clockfix-guest >"$dir/etc/hostname"
        printf '127.0.0.1 localhost\n127.0.1.1 clockfix-guest\n' >"$dir/etc/hosts"
        echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$dir/etc/fstab"
        : >"$dir/etc/resolv.conf"
        # A fixed machine ID: an empty one would make every boot a first boot (systemd-firstboot,
        # preset-all) and put each boot's journal in a directory of its own.
        echo 6c6f636b666978000000000000000001 >"$dir/etc/machine-id"
        mkdir -p "$dir/var/log/journal"
        ln -sfn /lib/systemd/system/multi-user.target "$dir/etc/systemd/system/default.target"
        # Timers that would fire a minute into a boot (apt, dpkg, e2scrub, fstrim), e2scrub_reap
        # at boot, and the login prompts the getty generator would start on the serial console,
        # in the middle of the tests' markers.
        for unit in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
                e2scrub_reap.service fstrim.timer getty.target; do
                ln -sfn /dev/null "$dir/etc/systemd/system/$unit"
        done
        # Mark /etc and /var as up to date with /usr, as systemd-update-done would after a first
        # boot: otherwise ldconfig.service and systemd-update-done run at every boot of a new disk.
        usr_ns=$(stat -c %.9Y "$dir/usr" | tr -d .)
        for unit in etc var; do
                {
                        echo "# This file was created by systemd-update-done. Its only purpose is to hold a"
                        echo "# timestamp of the time this directory was updated. See man:systemd-update-done.service(8)."
                        echo "TIMESTAMP_NSEC=$usr_ns"
                } >"$dir/$unit/.updated"
                touch -r "$dir/usr" "$dir/$unit/.updated"
        done
        rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
                "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*_* \
                "$dir"/var/log/*.log "$dir"/var/log/apt/* "$dir/debootstrap"
}

# vm_debian_bootstrap DIR PACKAGES: debootstraps a minbase root of DEBIAN_CODENAME with PACKAGES (a comma-separated
# list) into DIR from the host's archive (as root; 40 to 70 s)
vm_debian_bootstrap() {
        [ "$(id -u)" == 0 ] || fail "debootstrap needs root (CI runs as root)"
        command -v debootstrap >/dev/null || fail "debootstrap is not installed"
        vm_debian_mirror
        echo "debootstrap of $DEBIAN_CODENAME from $DEBIAN_MIRROR${http_proxy:+ through $http_proxy} into $1"
        # debootstrap runs in a mount namespace of its own, so nothing it mounts in the tree (proc,
        # sys, perhaps the host's /dev) outlives it and rm -rf cannot reach the host through a
        # leftover mount.
        unshare -m --propagation private debootstrap --variant=minbase --include="$2" \
                "$DEBIAN_CODENAME" "$1" "$DEBIAN_MIRROR" >>"$DEBIAN_LOG" 2>&1 || {
                tail -n 20 "$DEBIAN_LOG" "$1/debootstrap/debootstrap.log" >&2 || true
                fail "debootstrap from $DEBIAN_MIRROR failed (see $DEBIAN_LOG)"
        }
}

# vm_debian_copy BASE DIR TARBALL: DIR holds a copy of the root BASE (made first if need be), and
# DEBIAN_ROOT names TARBALL again, the root to be made from it
vm_debian_copy() {
        vm_debian_root "$1"
        mkdir -p "$2"
        tar -C "$2" --numeric-owner --xattrs --xattrs-include='*' -xf "$DEBIAN_ROOT"
        DEBIAN_ROOT=$3
}

# vm_debian_root [NAME]: sets DEBIAN_ROOT to the cached tarball of the Debian root NAME, made
# the first time, and DEBIAN_ROOT_INFO to how long that took and how big the root is. NAME:
# - systemd (the default): minbase with systemd as init (vm_debian_configure; 40 to 70 s);
# - sysvinit: minbase with sysvinit-core, whose sysv-rc runs the LSB scripts of /etc/init.d in the
#   order insserv gives them, as Devuan does (vm_debian_configure_sysvinit; 40 to 70 s), and
#   chrony, enabled by its package, its server the tests' (vm_debian_ntp_server);
# - openrc: a copy of the sysvinit root where OpenRC replaced sysv-rc (vm_debian_openrc; seconds
#   more): one debootstrap serves both, and a debootstrap with openrc fails (it cannot leave
#   sysvinit-core's sysv-rc out);
# - ntp: a copy of the systemd root with the NTP clients of Debian installed, none enabled, and
#   systemd-networkd giving the guest 192.0.2.2/24 via 192.0.2.1 (vm_debian_ntp; 20 to 40 s more).
vm_debian_root() {
        local name=${1:-systemd} prefix recipe package work lock started ms DEBIAN_LOG
        case "$name" in
        systemd) prefix=debian recipe=$DEBIAN_RECIPE package=systemd ;;
        sysvinit) prefix=debian-sysvinit recipe=$DEBIAN_SYSVINIT_RECIPE package=sysvinit-core ;;
        openrc) prefix=debian-openrc recipe="$DEBIAN_SYSVINIT_RECIPE; $DEBIAN_OPENRC_RECIPE" package=openrc ;;
        ntp) prefix=debian-ntp recipe="$DEBIAN_RECIPE; $DEBIAN_NTP_RECIPE" package=chrony ;;
        *) fail "vm_debian_root: no root named $name" ;;
        esac
        DEBIAN_ROOT=$VM_CACHE/$prefix-root.tar
        work=$VM_CACHE/$prefix.work
        mkdir -p "$VM_CACHE"
        # Two tests making the root at once would debootstrap into the same directory.
        exec {lock}>"$VM_CACHE/$prefix.lock"
        flock "$lock"
        if [ -f "$DEBIAN_ROOT" ] && [ "$(head -n 1 "$VM_CACHE/$prefix.ok" 2>/dev/null)" == "$recipe" ]; then
                DEBIAN_ROOT_INFO=$(sed -n 2p "$VM_CACHE/$prefix.ok")
                exec {lock}>&-
                return 0
        fi
        # An earlier run may have stopped anywhere: start again from nothing.
        rm -f "$VM_CACHE/$prefix.ok" "$DEBIAN_ROOT" "$DEBIAN_ROOT.part"
        ! awk -v w="$work" '$5 == w || index($5, w "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo ||
                fail "something is mounted under $work: unmount it"
        rm -rf "$work"
        # What debootstrap, apt and dpkg say while the root is made (the functions called below
        # write there).
        DEBIAN_LOG=$VM_CACHE/$prefix.log
        : >"$DEBIAN_LOG"
        started=$(date +%s%N)
        case "$name" in
        systemd)
                vm_debian_bootstrap "$work" systemd-sysv,udev,iproute2,dbus,e2fsprogs
                vm_debian_configure "$work"
                ;;
        sysvinit)
                vm_debian_bootstrap "$work" sysvinit-core,iproute2,e2fsprogs
                vm_debian_configure_sysvinit "$work"
                # An NTP client as Devuan installs it: chrony, enabled by its package (update-rc.d).
                vm_debian_download "$work" "$work/tmp/debs" chrony
                vm_debian_dpkg "$work" "$work/tmp/debs"
                rm -rf "$work/tmp/debs"
                vm_debian_ntp_server "$work"
                ;;
        openrc)
                vm_debian_copy sysvinit "$work" "$VM_CACHE/$prefix-root.tar"
                vm_debian_openrc "$work"
                ;;
        ntp)
                vm_debian_copy systemd "$work" "$VM_CACHE/$prefix-root.tar"
                vm_debian_ntp "$work"
                ;;
        esac
        ms=$((($(date +%s%N) - started) / 1000000))
        tar -C "$work" --numeric-owner --xattrs --xattrs-include='*' -cf "$DEBIAN_ROOT.part" .
        DEBIAN_ROOT_INFO="$name: made in $ms ms, $package $(dpkg-query --admindir="$work/var/lib/dpkg" -W -f='${Version}' "$package"),"
        DEBIAN_ROOT_INFO+=" $(du -sm "$work" | cut -f1) MB, $(($(stat -c %s "$DEBIAN_ROOT.part") / 1048576)) MB tarball"
        mv "$DEBIAN_ROOT.part" "$DEBIAN_ROOT"
        rm -rf "$work"
        printf '%s\n%s\n' "$recipe" "$DEBIAN_ROOT_INFO" >"$VM_CACHE/$prefix.ok"
        exec {lock}>&-
        echo "Debian root: $DEBIAN_ROOT_INFO"
}

# vm_debian_configure_sysvinit DIR: makes the debootstrapped tree DIR (sysvinit) boot quickly and
# quietly as a guest (hostname, fstab with the root checked at boot, no getty: the console is the
# tests') and drops what no test reads
vm_debian_configure_sysvinit() {
        local dir=$1 script
        # Scripts that only cost time in emulation (about a second each, most of it spent sourcing
        # the LSB functions): the backlight, configfs, the random seed, the boot log.
        for script in brightness mount-configfs urandom bootlogs; do
                chroot "$dir" update-rc.d -f "$script" remove >>"$DEBIAN_LOG" 2>&1 ||
                        fail "update-rc.d -f $script remove failed in the Debian root (see $DEBIAN_LOG)"
        done
        echo clockfix-guest >"$dir/etc/hostname"
        printf '127.0.0.1 localhost\n127.0.1.1 clockfix-guest\n' >"$dir/etc/hosts"
        # Pass 1: checkroot runs fsck on the root, still read-only, then remounts it read-write.
        echo '/dev/vda / ext4 errors=remount-ro 0 1' >"$dir/etc/fstab"
        : >"$dir/etc/resolv.conf"
        sed -i '/^[0-9]*:[0-9]*:respawn:\/sbin\/getty/d' "$dir/etc/inittab"
        rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
                "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*_* \
                "$dir"/var/log/*.log "$dir"/var/log/apt/* "$dir/debootstrap"
}

# vm_debian_openrc DIR: replaces sysv-rc with OpenRC in the sysvinit tree DIR, offline, as Debian's
# openrc package does on a running system: sysv-rc removed (openrc conflicts with it, and
# sysvinit-core depends on either), then openrc and its libraries installed from packages
# downloaded from the host's archive (cached); openrc's postinst adds every service of rcS.d to
# the sysinit runlevel and those of rc2.d to default
vm_debian_openrc() {
        local dir=$1 debs=$VM_CACHE/openrc-debs libs
        if [ ! -f "$debs.ok" ]; then
                rm -rf "$debs"
                mkdir -p "$debs"
                # Its own libraries, as the release names them (librc1, or librc1t64 in Debian 13).
                libs=$(apt-cache depends openrc | sed -n 's/^ *Depends: \(lib\(einfo\|rc\)[^ ]*\)$/\1/p' | tr '\n' ' ')
                # shellcheck disable=SC2086 # a list of names
                (cd "$debs" && apt-get download openrc $libs >/dev/null 2>&1) ||
                        fail "cannot download openrc and its libraries ($libs)"
                touch "$debs.ok"
        fi
        mkdir -p "$dir/tmp/openrc-debs"
        cp "$debs"/*.deb "$dir/tmp/openrc-debs/"
        unshare -m --propagation private chroot "$dir" /bin/sh -c \
                'dpkg --remove --force-depends sysv-rc && dpkg -i /tmp/openrc-debs/*.deb' >>"$DEBIAN_LOG" 2>&1 ||
                { tail -n 20 "$DEBIAN_LOG" >&2; fail "installing openrc in place of sysv-rc failed (see $DEBIAN_LOG)"; }
        rm -rf "$dir/tmp/openrc-debs"
}

# vm_debian_download DIR DEBS PACKAGE...: downloads into the folder DEBS (in the tree DIR) the
# packages PACKAGE... with what they need that DIR lacks: this machine's apt (the same release)
# resolves them against DIR's own dpkg status
vm_debian_download() {
        local dir=$1 debs=$2
        shift 2
        mkdir -p "$debs/partial"
        apt-get install -y -q --download-only --no-install-recommends -o Dir::State::status="$dir/var/lib/dpkg/status" \
                -o Dir::Cache::archives="$debs" "$@" >>"$DEBIAN_LOG" 2>&1 ||
                { tail -n 20 "$DEBIAN_LOG" >&2; fail "cannot download $* for the Debian root (see $DEBIAN_LOG)"; }
        rm -rf "$debs/partial" "$debs/lock"
}

# vm_debian_dpkg DIR DEBS [DPKG-OPTION...]: installs the packages of the folder DEBS (in the tree
# DIR; vm_debian_download) with dpkg in a chroot of DIR, offline, with DPKG-OPTIONs. Nothing may start a service
# there (a policy-rc.d refuses all): a daemon started in the chroot would run on this machine, and
# an NTP client would set its clock.
vm_debian_dpkg() {
        local dir=$1 debs=$2
        shift 2
        printf '#!/bin/sh\n# clockfix tests: no service starts while packages are installed\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
        chmod 755 "$dir/usr/sbin/policy-rc.d"
        # dpkg -i unpacks in the order of the names and leaves out what pre-depends on a package of
        # the same run (python3 on python3-minimal on python3.11-minimal): each run, once those are
        # configured, installs the next.
        unshare -m --propagation private chroot "$dir" /bin/sh -c \
                'for run in 1 2 3; do dpkg -i "$@" "'"${debs#"$dir"}"'"/*.deb && exit 0; done; exit 1' sh "$@" \
                >>"$DEBIAN_LOG" 2>&1 ||
                { tail -n 20 "$DEBIAN_LOG" >&2; fail "installing ${debs##*/} in the Debian root failed (see $DEBIAN_LOG)"; }
        rm -f "$dir/usr/sbin/policy-rc.d"
}

# vm_debian_ntp DIR: installs the NTP clients of Debian (DEBIAN_NTP_CLIENTS) into the systemd
# tree DIR, each as its package has it but for its server, 192.0.2.1, and none enabled: a boot
# enables the one it tries (vm_debian_disk's COMMAND). They conflict (each provides time-daemon)
# and could not be installed side by side by apt: each is installed with what it needs, the later
# ones over the conflict; openntpd's /usr/sbin/ntpd, which ntpsec has too, is diverted to
# /usr/sbin/openntpd.ntpd (openntpd runs as a daemon under any name but ntpctl), and
# openntpd.service runs it from there. systemd-networkd gives the guest's Ethernet card
# 192.0.2.2/24 with a default route via 192.0.2.1, the test's NTP server (tests/vm/ntp.sh).
vm_debian_ntp() {
        local dir=$1 c
        # Each resolved against the root as it is: once one is in, apt sees the others' conflict.
        for c in $DEBIAN_NTP_CLIENTS; do
                vm_debian_download "$dir" "$dir/tmp/debs/$c" "$c"
        done
        vm_debian_dpkg "$dir" "$dir/tmp/debs/systemd-timesyncd"
        vm_debian_dpkg "$dir" "$dir/tmp/debs/chrony" --force-conflicts
        vm_debian_dpkg "$dir" "$dir/tmp/debs/ntpsec" --force-conflicts
        # (a diversion of ntpsec's: every other package's file goes elsewhere; the other files both
        # have, an AppArmor profile and a man page, are openntpd's)
        chroot "$dir" dpkg-divert --quiet --no-rename --package ntpsec --divert /usr/sbin/openntpd.ntpd --add /usr/sbin/ntpd
        vm_debian_dpkg "$dir" "$dir/tmp/debs/openntpd" --force-conflicts --force-overwrite
        rm -rf "$dir/tmp/debs"
        # (and ntpsec's restart on a DHCP lease, which could start it in another client's boot)
        unshare -m --propagation private chroot "$dir" systemctl disable --quiet chrony.service systemd-timesyncd.service \
                ntpsec.service ntpsec-systemd-netif.path openntpd.service >>"$DEBIAN_LOG" 2>&1 ||
                fail "cannot disable the NTP clients in the Debian root (see $DEBIAN_LOG)"
        ! find "$dir/etc/systemd/system" -path '*.wants/*' | grep -E 'chrony|ntpsec|openntpd|timesyncd' | grep -v ntpsec-rotate-stats ||
                fail "an NTP client is still enabled in the Debian root"
        vm_debian_ntp_server "$dir"
        # (and started once the network is up: its -s sets the clock only from replies within its
        # first seconds, and gives up at once while the network is unreachable; its package orders
        # it after network.target alone, and on Debian 13 it then ran before networkd had the
        # address, slewed, and never synchronised)
        mkdir -p "$dir/etc/systemd/system/openntpd.service.d"
        printf '[Unit]\nWants=network-online.target\nAfter=network-online.target\n\n[Service]\nExecStartPre=\nExecStartPre=/usr/sbin/openntpd.ntpd -n $DAEMON_OPTS\nExecStart=\nExecStart=/usr/sbin/openntpd.ntpd $DAEMON_OPTS\n' \
                >"$dir/etc/systemd/system/openntpd.service.d/clockfix-test.conf"
        # The network: the guest's one Ethernet card, its address and route given.
        printf '[Match]\nType=ether\n\n[Network]\nAddress=192.0.2.2/24\nGateway=192.0.2.1\n' \
                >"$dir/etc/systemd/network/50-clockfix-test.network"
        unshare -m --propagation private chroot "$dir" systemctl enable --quiet systemd-networkd.service \
                >>"$DEBIAN_LOG" 2>&1 || fail "cannot enable systemd-networkd in the Debian root"
        rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/var/cache/apt/*.bin "$dir"/var/log/apt/*
}

# vm_debian_ntp_server DIR: the NTP server of the clients installed in the tree DIR: the test's,
# 192.0.2.1 (tests/vm/ntp.sh), in place of the pools of their packages' configuration (chrony's
# stays: its name does not resolve, and a source of its own directory is added to it)
vm_debian_ntp_server() {
        local dir=$1
        if [ -d "$dir/etc/chrony" ]; then
                mkdir -p "$dir/etc/chrony/sources.d"
                echo 'server 192.0.2.1 iburst' >"$dir/etc/chrony/sources.d/clockfix-test.sources"
        fi
        if [ -d "$dir/etc/systemd/timesyncd.conf.d" ] || [ -f "$dir/etc/systemd/timesyncd.conf" ]; then
                mkdir -p "$dir/etc/systemd/timesyncd.conf.d"
                printf '[Time]\nNTP=192.0.2.1\n' >"$dir/etc/systemd/timesyncd.conf.d/clockfix-test.conf"
        fi
        [ ! -f "$dir/etc/ntpsec/ntp.conf" ] ||
                sed -i -e 's/^pool /#pool /' -e '$a server 192.0.2.1 iburst' "$dir/etc/ntpsec/ntp.conf"
        [ ! -f "$dir/etc/openntpd/ntpd.conf" ] ||
                sed -i -e 's/^servers* /#&/' -e '$a server 192.0.2.1' "$dir/etc/openntpd/ntpd.conf"
}

# vm_debian_disk OUT OVERLAY [FAKE_TIME [COMMAND]]: an ext4 image OUT (VM_DEBIAN_DISK_SIZE, sparse)
# of the cached root DEBIAN_ROOT (vm_debian_root; the systemd one unless set) with the tree OVERLAY
# ("" for none) copied on top, made by mke2fs -d without any mount; with FAKE_TIME (seconds, or "")
# the superblock's times (created, last write, last check) and the root and lost+found directories
# are stamped with it (no mount time); COMMAND (sh) is run in a chroot of the tree first (to
# enable a service as a user would); sets DISK_MS
vm_debian_disk() {
        local out=$1 overlay=$2 fake=${3:-} command=${4:-} dir started
        [ -n "${DEBIAN_ROOT:-}" ] || vm_debian_root
        started=$(date +%s%N)
        dir=$(mktemp -d "$TMP/debian-root.XXXXXX")
        tar -C "$dir" --numeric-owner --xattrs --xattrs-include='*' -xf "$DEBIAN_ROOT"
        [ -z "$overlay" ] || cp -a "$overlay/." "$dir/"
        if [ -n "$command" ]; then
                unshare -m --propagation private chroot "$dir" /bin/sh -c "$command" >"$TMP/chroot.log" 2>&1 ||
                        { cat "$TMP/chroot.log" >&2; fail "in a chroot of the Debian root: $command failed"; }
        fi
        rm -f "$out"
        ${fake:+env E2FSPROGS_FAKE_TIME=$fake} mke2fs -q -F -t ext4 -L debian -d "$dir" "$out" "$VM_DEBIAN_DISK_SIZE" >/dev/null ||
                fail "mke2fs -d $dir $out failed"
        rm -rf "$dir"
        DISK_MS=$((($(date +%s%N) - started) / 1000000))
}

# vm_debian_test_unit OVERLAY NAME [UNIT-LINE...] <SCRIPT: adds to the tree OVERLAY a oneshot
# unit NAME.service, enabled in multi-user.target, that runs SCRIPT (/bin/sh, read from stdin)
# with its output on the serial console; each UNIT-LINE (After=..., DefaultDependencies=no, ...)
# goes into its [Unit] section
vm_debian_test_unit() {
        local overlay=$1 name=$2
        shift 2
        mkdir -p "$overlay/usr/local/libexec" "$overlay/etc/systemd/system/multi-user.target.wants"
        cat >"$overlay/usr/local/libexec/$name"
        chmod 755 "$overlay/usr/local/libexec/$name"
        {
                echo "[Unit]"
                echo "Description=clockfix test: $name"
                printf '%s\n' "$@"
                printf '\n[Service]\nType=oneshot\nRemainAfterExit=yes\n'
                printf 'ExecStart=/bin/sh /usr/local/libexec/%s\n' "$name"
                printf 'StandardOutput=tty\nStandardError=inherit\nTTYPath=/dev/console\n'
                printf '\n[Install]\nWantedBy=multi-user.target\n'
        } >"$overlay/etc/systemd/system/$name.service"
        ln -sfn "../$name.service" "$overlay/etc/systemd/system/multi-user.target.wants/$name.service"
}

# vm_debian_initramfs OUT [SOURCE:PATH...]: a busybox initramfs (vm_busybox_initramfs) whose
# /init loads the virtio block and ext4 drivers, mounts root= (/dev/vda) read-only at /root, as
# a distribution's initramfs leaves it for systemd-fsck-root and systemd-remount-fs, and
# switches root to systemd; each SOURCE file of the host goes in at PATH. The read-only mount
# replays a dirty journal (the kernel does, read-only or not) before anything in the root runs.
# rootflags= adds mount options (noload leaves the journal alone, but then the filesystem is
# inconsistent and the remount read-write fails into errors=remount-ro).
# With a static clockfix among the files, at /clockfix ("$CLOCKFIX_STATIC:/clockfix"), /init runs
# it as an initramfs hook does, on the root before the mount (so before any journal replay):
# `clockfix status --boot` then `clockfix set --boot`, their output on the console as lines
# "INITRD ...", then "CLOCKFIX-TEST initrd_set=STATUS" and "CLOCKFIX-TEST initrd_after=SECONDS"
# (the clock after it); with clockfix.test=initrd on the kernel command line the boot ends there
# ("CLOCKFIX-TEST done=1", then a power-off).
vm_debian_initramfs() {
        local out=$1 m extra=()
        shift
        [ -n "${KROOT:-}" ] || vm_kernel
        cat >"$TMP/debian-init" <<'INIT'
#!/bin/busybox sh
# /init of the Debian guest: the drivers, the root read-only at /root, then systemd.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# virtio (from vm_busybox_initramfs), then ext4 with crc32c_generic (crc32c-intel fails under
# emulation: no SSE4.2).
cat /modules /modules.ext4 | while read -r m; do insmod "$m" 2>/dev/null; done
echo "CLOCKFIX-TEST initrd_clock=$(date +%s)"
root=/dev/vda flags=ro
for arg in $(cat /proc/cmdline); do
        case "$arg" in
        root=/dev/*) root=${arg#root=} ;;
        rootflags=*) flags=ro,${arg#rootflags=} ;;
        esac
done
i=0
while [ ! -b "$root" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
if [ -x /clockfix ]; then
        /clockfix status --boot >/tmp/clockfix-status 2>&1
        /clockfix set --boot >/tmp/clockfix-set 2>&1
        echo "CLOCKFIX-TEST initrd_set=$?"
        sed 's/^/INITRD /' /tmp/clockfix-status /tmp/clockfix-set
        echo "CLOCKFIX-TEST initrd_after=$(date +%s)"
        case " $(cat /proc/cmdline) " in
        *" clockfix.test=initrd "*)
                echo "CLOCKFIX-TEST done=1"
                reboot -f
                ;;
        esac
fi
if ! mount -t ext4 -o "$flags" "$root" /root; then
        echo "CLOCKFIX-TEST initrd_error=mount"
        reboot -f
fi
echo "CLOCKFIX-TEST initrd_root=ro"
mount --move /dev /root/dev
mount --move /sys /root/sys
mount --move /proc /root/proc
exec switch_root /root /sbin/init "$@"
INIT
        # (and in a test with a network of its own, tests/vm/ntp.sh, the NIC's driver)
        # shellcheck disable=SC2086 # a list of names
        for m in $(vm_modules ext4 crc32c_generic ${VM_NET_MODULES:-}); do
                echo "/$m"
                extra+=("$KROOT/$m:/$m")
        done >"$TMP/debian-modules.ext4"
        vm_busybox_initramfs "$out" "$TMP/debian-init" "$TMP/debian-modules.ext4:/modules.ext4" "${extra[@]}" "$@"
}

# vm_debian_qemu NAME INITRD DISK APPEND [QEMU-ARGS...]: sets VM_DEBIAN_CMD to the QEMU command
# line of a boot (NAME unused): a PC with 2 CPUs and 512 MiB, DISK as virtio /dev/vda, no network
# (with VM_NETNS, vm_ntp_server: QEMU in that namespace, a virtio NIC on its tap0), the serial
# console on stdout, the RTC dead at 2000-01-01 (unless QEMU-ARGS hold an -rtc of their own), the
# kernel told to mount nothing itself (root=/dev/vda ro) and to give systemd ttyS0, and power-off
# ending QEMU
vm_debian_qemu() {
        local initrd=$2 disk=$3 append=$4 rtc=(-rtc base=2000-01-01T00:00:00,clock=vm) a
        shift 4
        for a in "$@"; do
                [ "$a" != -rtc ] || rtc=()
        done
        [ -n "${KERNEL:-}" ] || vm_kernel
        vm_pc_cmdline
        VM_DEBIAN_CMD=(qemu-system-x86_64 -M pc $VM_PC_CPU -smp 2 -m 512M -nographic $(vm_nic) -no-reboot
                -kernel "$KERNEL" -initrd "$initrd"
                -append "console=ttyS0 panic=-1 reboot=t $VM_PC_CMDLINE root=/dev/vda ro $append"
                -drive "file=$disk,format=raw,if=virtio" "${rtc[@]}" "$@")
        [ -z "${VM_NETNS:-}" ] || VM_DEBIAN_CMD=(ip netns exec "$VM_NETNS" "${VM_DEBIAN_CMD[@]}")
}

# vm_debian_finished NAME: fails, with the end of the console, unless the guest of the boot just
# made said "CLOCKFIX-TEST done=1"
vm_debian_finished() {
        [ "$(marker done)" == 1 ] || { vm_dump "$1"; fail "$1: the guest did not finish (${BOOT_MS:-?} ms)"; }
}

# vm_debian_boot NAME INITRD DISK APPEND [QEMU-ARGS...]: boots the Debian guest until it powers
# off; the serial console goes to $TMP/NAME.console and CONSOLE, the wall time from QEMU's start
# to its end to BOOT_MS. A guest that hangs fails the test (vm_run).
vm_debian_boot() {
        vm_debian_qemu "$@"
        vm_run "$1" "$VM_DEBIAN_TIMEOUT" "$VM_DEBIAN_SILENCE" "" -- "${VM_DEBIAN_CMD[@]}"
}

# vm_debian_boot_cut NAME INITRD DISK APPEND MARKER [QEMU-ARGS...]: boots the Debian guest and
# cuts its power the moment a console line contains MARKER: QEMU is killed with SIGKILL, nothing
# is flushed or unmounted, and DISK holds what a power cut leaves. Sets CONSOLE, BOOT_MS (QEMU's
# start to the cut) and CUT (1 if MARKER came, "" if the guest ended first); a guest that hangs
# fails the test.
vm_debian_boot_cut() {
        vm_debian_qemu "$1" "$2" "$3" "$4" "${@:6}"
        vm_run "$1" "$VM_DEBIAN_TIMEOUT" "$VM_DEBIAN_SILENCE" "$5" -- "${VM_DEBIAN_CMD[@]}"
}

# vm_debian_install OVERLAY: adds to the tree OVERLAY clockfix as a package puts it (`meson
# install` of this build, clockfix.service enabled in sysinit.target; what went to /lib moved to
# /usr/lib, as Debian's root is merged) and /usr/local/libexec/clockfix-test-lib, the shell
# functions of the guest's test scripts (below). Sets CONF to its configuration file's path in the
# guest (/usr/local/etc/clockfix.conf for a /usr/local prefix), and FLOOR to clockfix's floor (its
# build time, in seconds): the disks' times must be later than it, and so later than both the
# dead RTC and the clock systemd starts from (its own build time, 2026-04-27 for Debian 12's 252),
# unless the configuration sets another not-before.
vm_debian_install() {
        local overlay=$1 unit
        FLOOR=$(date -u -d "$("$CLOCKFIX" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
        mkdir -p "$overlay/usr/local/bin" "$overlay/usr/local/libexec"
        DESTDIR=$overlay meson install -C "$BUILDDIR" --no-rebuild --quiet >/dev/null
        unit=$(cd "$overlay" && find . -name clockfix.service -path '*/system/*' | sed 's|^\.||')
        [ -n "$unit" ] || fail "meson install put no clockfix.service in $overlay"
        mkdir -p "$overlay/etc/systemd/system/sysinit.target.wants"
        ln -s "$unit" "$overlay/etc/systemd/system/sysinit.target.wants/clockfix.service"
        [ -d "$overlay/var/lib/clockfix" ] || fail "meson install made no /var/lib/clockfix"
        if [ -d "$overlay/lib" ] && [ ! -L "$overlay/lib" ]; then
                mkdir -p "$overlay/usr/lib"
                cp -a "$overlay/lib/." "$overlay/usr/lib/"
                rm -rf "$overlay/lib"
        fi
        CONF=$("$CLOCKFIX" --help | sed -n 's/.*read settings from FILE instead of \(.*\)$/\1/p')
        [ -f "$overlay$CONF" ] || fail "meson install put no $CONF"
        cat >"$overlay/usr/local/libexec/clockfix-test-lib" <<'SH'
# The shell functions of the test units' scripts (. /usr/local/libexec/clockfix-test-lib).
# say KEY=VALUE...: a marker line for the host
say() { echo "CLOCKFIX-TEST $*"; }
# mono UNIT PROPERTY: a property of a unit (its result, a timestamp in µs since boot)
mono() { systemctl show -P "$2" "$1"; }
# job_result UNIT: the result of this boot's last start job of UNIT (done, failed...), from the
# journal: systemd unloads a unit that nothing refers to once it is inactive, and `systemctl show`
# then shows a new one's defaults (Result=success)
job_result() {
        journalctl -b -q -o cat --output-fields=JOB_RESULT UNIT="$1" JOB_TYPE=start | tail -n 1
}
# wait_daemon [SECONDS]: until clockfix.service no longer runs, at most SECONDS (60; it waits for NTP)
wait_daemon() {
        i=0
        while [ "$(mono clockfix.service SubState)" = running ] && [ $i -lt $((${1:-60} * 2)) ]; do
                sleep 0.5
                i=$((i + 1))
        done
}
# journal UNIT...: this boot's log of the units, as lines "JOURNAL ..."
journal() {
        units=""
        for u in "$@"; do
                units="$units -u $u"
        done
        # (unit names hold no spaces: $units is split into its words)
        journalctl -b -o short-monotonic --no-pager $units | sed 's/^/JOURNAL /'
}
# sync_entry: the CLOCKFIX_ fields of the daemon's structured entry at NTP synchronisation
sync_entry() {
        journalctl -b -o export --no-pager MESSAGE_ID=56e30c5a17be4318aa6b9584b7e12d7e |
                grep -a '^CLOCKFIX_' | sed 's/^/CLOCKFIX-TEST /'
}
SH
}

# vm_debian_clockfix OVERLAY STEP CONDITION: clockfix in the tree OVERLAY (vm_debian_install) with
# a stand-in for an NTP client: its configuration file names clockfix-test-ntp.service as the NTP
# unit to start, that unit (ntp-play STEP: it steps the clock STEP seconds, back when negative,
# and marks the kernel synchronised) runs where the kernel command line matches CONDITION
# (ConditionKernelCommandLine=; it is not enabled: only clockfix starts it), and a test unit
# clockfix-test-net adds a default route 3 s into multi-user. Sets CONF and FLOOR.
vm_debian_clockfix() {
        local overlay=$1 step=$2 condition=$3
        : "${NTP_PLAY:?run through meson test}"
        vm_debian_install "$overlay"
        cp "$NTP_PLAY" "$overlay/usr/local/bin/ntp-play"
        printf 'ntp-unit = clockfix-test-ntp.service\n' >"$overlay$CONF"
        cat >"$overlay/etc/systemd/system/clockfix-test-ntp.service" <<UNIT
[Unit]
Description=clockfix test: an NTP client that steps the clock $step s and marks it synchronised
ConditionKernelCommandLine=$condition
[Service]
Type=oneshot
ExecStart=/usr/local/bin/ntp-play $step
StandardOutput=tty
TTYPath=/dev/console
UNIT
        vm_debian_test_unit "$overlay" clockfix-test-net <<'SH'
sleep 3
echo "CLOCKFIX-TEST route_at=$(cut -d' ' -f1 /proc/uptime)"
ip route add default dev lo
SH
}
