# SPDX-License-Identifier: LGPL-2.1-or-later
# vm/ntp.sh: a real network and a real NTP server for a guest, inside a network namespace of the
# test's own: a tap device with 192.0.2.1/24 on it, chronyd serving this machine's clock there
# (Debian's chrony, unpacked into the cache, never installed; -x: it never touches the clock), and
# QEMU started inside the namespace with a virtio NIC on the tap. Nothing else is in the namespace,
# so no packet of the guest goes anywhere but to the server; the namespace is deleted at the end.
# The server's time is this machine's clock: the truth the guest's clock is judged by. Sourced
# after tests/lib/lib.sh and tests/vm/lib.sh.

# The guest's network: 192.0.2.0/24 (TEST-NET-1, never routed), the server at .1, the guest at .2.
VM_NTP_SERVER=192.0.2.1
VM_NTP_GUEST=192.0.2.2
# The modules of a guest's virtio NIC, for its initramfs.
VM_NET_MODULES="virtio_net"

# vm_chronyd: sets CHRONYD to Debian's chronyd, unpacked into the cache the first time (not
# installed: no chrony.service may start on this machine, nor set its clock)
vm_chronyd() {
        CHRONYD=$VM_CACHE/chrony/usr/sbin/chronyd
        vm_cached chrony vm_deb_unpack chrony "$VM_CACHE/chrony"
        [ -x "$CHRONYD" ] || fail "the chrony package holds no $CHRONYD"
        ! ldd "$CHRONYD" | grep -q 'not found' ||
                fail "chronyd needs libraries this machine lacks: $(ldd "$CHRONYD" | grep 'not found' | tr -s '\n\t' ' ')"
}

# The namespaces made and the servers started, for vm_ntp_kill.
VM_NTP_NETNS=()
VM_NTP_PIDS=()

# vm_ntp_kill: stops the servers and deletes the namespaces (at exit, however the test ends)
vm_ntp_kill() {
        local p
        for p in "${VM_NTP_PIDS[@]}"; do
                kill "$p" 2>/dev/null || true
        done
        for p in "${VM_NTP_NETNS[@]}"; do
                ip netns del "$p" 2>/dev/null || true
        done
}
at_exit vm_ntp_kill

# vm_ntp_server [NAME]: makes a namespace with the tap device tap0 at VM_NTP_SERVER, sets
# VM_NETNS to it, and starts chronyd there as an NTP server of this machine's clock (stratum 8:
# answering from its first request; no drift file, which would make its served time drift from
# the clock). Boots of vm_debian_boot and vm_boot made while VM_NETNS names it run in the
# namespace, with their NIC on tap0: one namespace for each guest that runs at the same time.
vm_ntp_server() {
        local name=${1:-ntp} dir i
        dir=$TMP/chronyd-$name
        vm_chronyd
        mkdir -p "$dir"
        VM_NETNS=clockfix-$$-$name
        ip netns add "$VM_NETNS" || fail "cannot make the network namespace $VM_NETNS"
        VM_NTP_NETNS+=("$VM_NETNS")
        ip netns exec "$VM_NETNS" ip link set lo up
        ip netns exec "$VM_NETNS" ip tuntap add dev tap0 mode tap
        ip netns exec "$VM_NETNS" ip addr add "$VM_NTP_SERVER/24" dev tap0
        ip netns exec "$VM_NETNS" ip link set tap0 up
        cat >"$dir/chrony.conf" <<CONF
# The test's NTP server: this machine's clock, served to the guest, never set (chronyd -x).
bindaddress $VM_NTP_SERVER
allow 192.0.2.0/24
local stratum 8
cmdport 0
pidfile $dir/chronyd.pid
CONF
        # -u root: chrony's user is not on this machine (the package is only unpacked).
        ip netns exec "$VM_NETNS" "$CHRONYD" -x -u root -f "$dir/chrony.conf" -L 0 -l "$dir/chronyd.log" ||
                fail "chronyd did not start: $(cat "$dir/chronyd.log" 2>/dev/null)"
        for i in $(seq 50); do
                [ -s "$dir/chronyd.pid" ] && break
                sleep 0.1
        done
        VM_NTP_PIDS+=("$(cat "$dir/chronyd.pid" 2>/dev/null)") || fail "chronyd wrote no pid file: $(cat "$dir/chronyd.log")"
        # It answers, with this machine's time.
        ip netns exec "$VM_NETNS" "$NTP_PROBE" query "$VM_NTP_SERVER" >"$dir/query" ||
                fail "the NTP server does not answer: $(cat "$dir/chronyd.log")"
        echo "NTP server: chronyd -x at $VM_NTP_SERVER in $VM_NETNS ($("$CHRONYD" --version | head -n 1 | cut -d' ' -f1-4));" \
                "offset from this machine $(sed -n 's/.*ntpq_offset=//p' "$dir/query") s"
}

# vm_first KEY: the value of the first "CLOCKFIX-TEST KEY=VALUE" on the console ("" if none)
vm_first() {
        { grep -ao "CLOCKFIX-TEST $1=[^ ]*" <<<"$CONSOLE" || true; } | head -n 1 | sed "s/^CLOCKFIX-TEST $1=//"
}

# vm_ntp_check NAME WRITTEN: in the boot NAME (its disk's newest time WRITTEN), the daemon's entry
# at NTP's synchronisation says the truth, in time:
# - its correction (CLOCKFIX_CORRECTION_USEC) is what NTP moved the clock, within 50 ms: the sum
#   of the steps ntp-probe watch saw ("watch_step") up to the daemon's time;
# - it is the true offset of the guest's clock from the server's within 50 ms plus what the
#   client had yet to correct when the guest asked the server last (its own error, which it slews
#   away later): the guest's clocks before NTP ("ntp-probe clocks", the first ntpq_ lines) carried
#   forward by its boot time, against the server's time measured by "ntp-probe query" after it
#   (the last ntpq_ lines); and that offset is about the day the disk is behind;
# - it came after the client synchronised the clock, within a second (times the host's load,
#   vm_factor): the client's step as ntp-probe watch saw it (1 s or more), and its sign then or
#   later ("watch_kernel": the maximum error below 16 s, or STA_PLL), to the daemon's time (the
#   step plus CLOCKFIX_SYNC_AFTER_STEP_USEC; the entry's own journal time, "entry_mono", where
#   there is one, no earlier, and later by at most what its reading of the disk took);
# - its wake-ups before and after the step (the "wake" samples of voluntary context switches),
#   per minute, are printed.
# Sets NTP_TRUTH (µs), NTP_STEP_AT, NTP_SYNC_AT and NTP_DELAY (s).
vm_ntp_check() {
        local name=$1 written=$2 corr rt1 bt1 rt2 bt2 off most after mono factor detect moved
        corr=$(marker CLOCKFIX_CORRECTION_USEC) after=$(marker CLOCKFIX_SYNC_AFTER_STEP_USEC)
        [ -n "$corr" ] || { vm_dump "$name"; fail "$name: the daemon logged no synchronisation by NTP"; }
        [ -n "$after" ] || fail "$name: the entry has no CLOCKFIX_SYNC_AFTER_STEP_USEC: the daemon saw no step" \
                "(its correction $corr µs; the clock's steps: $({ grep -ao 'CLOCKFIX-TEST watch_step=[^ ]*' <<<"$CONSOLE" || true; } |
                        sed 's/.*=//' | tr '\n' ' '))"
        factor=$(vm_factor)

        # The client's step, its sign of synchronisation then or after, and the daemon's.
        NTP_STEP_AT=$({ grep -ao 'CLOCKFIX-TEST watch_step=[^ ]*' <<<"$CONSOLE" || true; } | sed 's/.*=//' |
                awk -F, '$2 >= 1 || $2 <= -1 { print $1; exit }')
        [ -n "$NTP_STEP_AT" ] || { vm_dump "$name"; fail "$name: ntp-probe saw no step of the clock"; }
        NTP_SYNC_AT=$({ grep -ao 'CLOCKFIX-TEST watch_kernel=[^ ]*' <<<"$CONSOLE" || true; } | sed 's/.*=//' |
                awk -F, -v s="$NTP_STEP_AT" '$1 >= s && ($2 < 16000000 || $4 == 1) { print $1; exit }')
        [ -n "$NTP_SYNC_AT" ] || {
                vm_dump "$name"
                fail "$name: ntp-probe saw no sign of synchronisation after the step" \
                        "($(grep -ao 'CLOCKFIX-TEST watcher=[a-z]*' <<<"$CONSOLE" || echo "watcher not reported"))"
        }
        detect=$(awk -v s="$NTP_STEP_AT" -v a="$after" 'BEGIN { printf "%.6f", s + a / 1e6 }')
        mono=$(marker entry_mono)
        if [ -n "$mono" ]; then
                awk -v d="$detect" -v m="$mono" -v f="$factor" 'BEGIN { x = m / 1e6 - d; exit !(x > -0.05 && x < f) }' ||
                        fail "$name: the entry was written at $mono µs of boot, not just after the step at $NTP_STEP_AT s plus $after µs"
        fi
        NTP_DELAY=$(awk -v d="$detect" -v y="$NTP_SYNC_AT" 'BEGIN { printf "%.3f", d - y }')
        echo "$name: the client stepped the clock at $NTP_STEP_AT s of boot, said it synchronised at $NTP_SYNC_AT s;" \
                "the daemon's entry $NTP_DELAY s later (signal $(marker CLOCKFIX_SYNC_SIGNAL))"
        awk -v d="$NTP_DELAY" -v f="$factor" 'BEGIN { exit !(d >= -0.1 && d <= f) }' ||
                fail "$name: the daemon took NTP's synchronisation $NTP_DELAY s after the client's sign (at most $factor s)"

        # What NTP moved the clock: the steps up to the daemon's time.
        moved=$({ grep -ao 'CLOCKFIX-TEST watch_step=[^ ]*' <<<"$CONSOLE" || true; } | sed 's/.*=//' |
                awk -F, -v d="$detect" '$1 <= d + 0.05 { t += $2 } END { printf "%.0f", t * 1000000 }')
        echo "$name: NTP corrected the clock by $corr µs; its steps: $moved µs"
        [ $((corr - moved)) -le 50000 ] && [ $((moved - corr)) -le 50000 ] ||
                fail "$name: CLOCKFIX_CORRECTION_USEC=$corr, the steps of the clock $moved µs: more than 50 ms apart"

        # The truth.
        rt1=$(vm_first ntpq_realtime) bt1=$(vm_first ntpq_boottime)
        off=$(marker ntpq_offset) rt2=$(marker ntpq_realtime) bt2=$(marker ntpq_boottime)
        [ -n "$rt1" ] && [ -n "$off" ] && [ "$rt1" != "$rt2" ] ||
                { vm_dump "$name"; fail "$name: the guest did not measure its clock against the server's"; }
        NTP_TRUTH=$(awk -v r1="$rt1" -v b1="$bt1" -v r2="$rt2" -v b2="$bt2" -v o="$off" \
                'BEGIN { printf "%.0f", ((r2 + o) - (r1 + (b2 - b1))) * 1000000 }')
        most=$((($(date +%s) - written) * 1000000))
        [ "$NTP_TRUTH" -gt 86399000000 ] && [ "$NTP_TRUTH" -lt "$most" ] ||
                fail "$name: the guest's clock was $NTP_TRUTH µs behind the server's, not the day of its disk"
        echo "$name: the truth: $NTP_TRUTH µs (the server's clock after NTP $off s ahead of the guest's);" \
                "the correction's difference: $((corr - NTP_TRUTH)) µs"
        awk -v c="$corr" -v t="$NTP_TRUTH" -v o="$off" 'BEGIN { d = c - t; if (d < 0) d = -d; if (o < 0) o = -o; exit !(d <= 50000 + o * 1e6) }' ||
                fail "$name: CLOCKFIX_CORRECTION_USEC=$corr, the true offset $NTP_TRUTH µs: more than 50 ms (plus the client's own $off s) apart"

        # Wake-ups per minute, waiting for NTP before its step and after it.
        { grep -ao 'CLOCKFIX-TEST wake=[^ ]*' <<<"$CONSOLE" || true; } | sed 's/.*=//' | awk -F, -v s="$NTP_STEP_AT" -v n="$name" '
                $2 == "" { next }
                $1 < s { if (b0 == "") { b0 = $1; c0 = $2 } b1 = $1; c1 = $2 }
                $1 >= s { if (a0 == "") { a0 = $1; d0 = $2 } a1 = $1; d1 = $2 }
                function rate(t0, t1, x0, x1) { return t1 > t0 ? sprintf("%.0f/min over %.0f s", (x1 - x0) * 60 / (t1 - t0), t1 - t0) : "not measured" }
                END { print n ": the daemon'"'"'s wake-ups: before the step " rate(b0, b1, c0, c1) ", after it " rate(a0, a1, d0, d1) }'
}

# vm_busybox_ntpd: sets BUSYBOX_NTPD to a static busybox of this machine with the ntpd applet, as
# Buildroot, OpenWrt and Alpine images have it (Debian's busybox and busybox-static leave ntpd
# out): built once into the cache from Debian's own busybox source package (apt-get source, from
# the Debian archive of this machine's apt sources, with Debian's patches), with only ntpd, a
# shell and the few applets a hook script needs. About 15 s.
vm_busybox_ntpd() {
        BUSYBOX_NTPD=$VM_CACHE/busybox-ntpd/busybox
        vm_cached busybox-ntpd vm_busybox_ntpd_build
        [ -x "$BUSYBOX_NTPD" ] || fail "no $BUSYBOX_NTPD"
}
vm_busybox_ntpd_build() {
        local dir=$VM_CACHE/busybox-ntpd work=$VM_CACHE/busybox-ntpd.work apt src s
        rm -rf "$work"
        mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/src" "$dir"
        vm_debian_mirror
        # A source list of its own, for the archive the guests come from: nothing of this machine's
        # apt configuration changes.
        echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $DEBIAN_CODENAME main" >"$work/sources.list"
        apt=(apt-get -q -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                -o Dir::State::Lists="$work/lists" -o Dir::Cache::archives="$work/archives")
        { "${apt[@]}" update && (cd "$work/src" && "${apt[@]}" source --download-only busybox); } >"$work/apt.log" 2>&1 ||
                { tail -n 20 "$work/apt.log" >&2; fail "cannot download busybox's source from $DEBIAN_MIRROR (see $work/apt.log)"; }
        # (dpkg-source applies Debian's patches, debian/patches)
        (cd "$work/src" && dpkg-source -x busybox_*.dsc busybox) >>"$work/apt.log" 2>&1 ||
                { tail -n 20 "$work/apt.log" >&2; fail "cannot unpack busybox's source (see $work/apt.log)"; }
        src=$work/src/busybox
        # A configuration of nothing but what the tests run: ntpd (its server side too), ash with echo, printf and test, adjtimex, date,
        # sleep, cat, env.
        (cd "$src" && make -s allnoconfig) >>"$work/build.log" 2>&1 || fail "busybox: make allnoconfig failed (see $work/build.log)"
        for s in STATIC BUSYBOX SHOW_USAGE NTPD FEATURE_NTPD_SERVER ASH ASH_ECHO ASH_PRINTF ASH_TEST ADJTIMEX \
                DATE SLEEP CAT ENV; do
                sed -i "s/^# CONFIG_$s is not set\$/CONFIG_$s=y/" "$src/.config"
        done
        # (the new options' defaults, at each of make's passes of the configuration)
        (cd "$src" && { yes "" || true; } | make -s -j"$(nproc)" busybox) >>"$work/build.log" 2>&1 ||
                { tail -n 20 "$work/build.log" >&2; fail "building busybox with ntpd failed (see $work/build.log)"; }
        "$src/busybox" --list | grep -qx ntpd || fail "the busybox built has no ntpd applet"
        cp "$src/busybox" "$BUSYBOX_NTPD"
        echo "busybox with ntpd: $("$BUSYBOX_NTPD" 2>&1 | head -n 1), $(stat -c %s "$BUSYBOX_NTPD") bytes," \
                "applets: $("$BUSYBOX_NTPD" --list | tr '\n' ' ')"
        rm -rf "$work"
}

# vm_ntp_guest_units OVERLAY: adds to the systemd tree OVERLAY (with ntp-probe at
# /usr/local/bin) the units that watch NTP for vm_ntp_check, from just after clockfix.service set
# the clock (its own step is not NTP's) and before the network: clockfix-test-watch (the guest's
# clocks, then ntp-probe watch: the steps, the kernel's NTP state) and clockfix-test-wake (every
# 2 s while the daemon runs, its voluntary context switches: each return from its poll()), both
# into files of /run (the console mixes the kernel's messages into lines), which the test's
# report prints at the end with vm_ntp_lines
vm_ntp_guest_units() {
        local overlay=$1 dir=$1/etc/systemd/system
        mkdir -p "$dir/sysinit.target.wants"
        cat >"$dir/clockfix-test-watch.service" <<'UNIT'
[Unit]
Description=clockfix test: the clock's steps and the kernel's NTP state as they happen
DefaultDependencies=no
After=clockfix.service
Before=sysinit.target network-pre.target shutdown.target
Conflicts=shutdown.target
[Service]
ExecStart=/bin/sh -c '/usr/local/bin/ntp-probe clocks >/run/ntp-watch; exec /usr/local/bin/ntp-probe watch >>/run/ntp-watch'
UNIT
        cat >"$dir/clockfix-test-wake.service" <<'UNIT'
[Unit]
Description=clockfix test: the daemon's wake-ups while it waits
DefaultDependencies=no
After=clockfix.service
Before=sysinit.target shutdown.target
Conflicts=shutdown.target
[Service]
ExecStart=/bin/sh -c 'p=$(systemctl show -P MainPID clockfix.service); while [ -r /proc/$p/status ]; do echo "CLOCKFIX-TEST wake=$(cut -d" " -f1 /proc/uptime),$(sed -n "s/^voluntary_ctxt_switches:[^0-9]*//p" /proc/$p/status)"; sleep 2; done >/run/ntp-wake'
UNIT
        ln -sf ../clockfix-test-watch.service ../clockfix-test-wake.service "$dir/sysinit.target.wants/"
}

# vm_ntp_lines: the guest's shell commands that print what ntp-probe and the sampling of
# wake-ups wrote (/run/ntp-watch, /run/ntp-wake), for the host, before the last "ntp-probe query"
# (vm_ntp_check takes the first clocks it reads as those before NTP, the last as the query's).
# They wait first, 10 s at most, for ntp-probe to have written a sign of synchronisation after a
# step (the daemon may be done before the watcher, a process like another, ran again), and say
# whether it still runs.
vm_ntp_lines() {
        cat <<'SH'
i=0
while [ $i -lt 20 ] && ! awk -F'[=,]' '/watch_step=/ { s = 1 }
        s && /watch_kernel=/ && ($3 < 16000000 || $5 == 1) { f = 1 } END { exit !f }' /run/ntp-watch; do
        sleep 0.5
        i=$((i + 1))
done
echo "CLOCKFIX-TEST watcher=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -qx ntp-probe && echo running || echo gone)"
cat /run/ntp-watch /run/ntp-wake 2>/dev/null
SH
}
