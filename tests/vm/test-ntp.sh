#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The daemon's hand-off to the real NTP clients of Debian 12 over a real network, in whole systemd
# boots: systemd-timesyncd, chrony (Debian's configuration, rtcsync), chrony-unit (chrony without
# rtcsync, which leaves STA_UNSYNC set, not enabled but started by the daemon once the network is
# up: ntp-unit = chrony.service), ntpsec (Debian's, with minsane 1 for its one server) and
# openntpd (-s), each enabled as its package does, one boot each from one root that holds them
# all (vm_debian_root ntp). Each guest (QEMU, a dead RTC at
# 2000-01-01) has a virtio NIC on a tap device of a network namespace of the test's own, where
# chronyd -x serves this machine's clock (tests/vm/ntp.sh); systemd-networkd gives it an address
# and a default route. Its disk is a day behind, so clockfix sets the clock a day behind and NTP
# must step it about +86400 s. Asserted for each (vm_ntp_check): the daemon's entry at NTP's
# synchronisation, its correction the true offset within 50 ms (the server's clock is the truth),
# its time within a second after the client synchronised (its step; for chrony and openntpd the
# maximum error it lowers 2 s or minutes later), never before (ntpsec marks the kernel
# synchronised as it starts, seconds before its step); clockfix.service exited 0, and `clockfix
# status` in the guest shows the clock synchronised. openntpd says so 1.5 to 6 minutes after its
# step: its guest runs in the background while the others boot.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
. "$SRCDIR/tests/vm/ntp.sh"
: "${NTP_PROBE:?run through meson test}"

CLIENTS=${VM_NTP_CLIENTS:-openntpd timesyncd chrony chrony-unit ntpsec}
# How long the guests' daemon may wait for NTP: openntpd's synchronisation, 6 minutes at most.
WAIT=480

# unit_of CLIENT: its unit
unit_of() {
        case "$1" in
        timesyncd) echo systemd-timesyncd.service ;;
        chrony | chrony-unit) echo chrony.service ;;
        ntpsec) echo ntpsec.service ;;
        openntpd) echo openntpd.service ;;
        *) fail "no client named $1" ;;
        esac
}

# setup_of CLIENT: what a user does to run it (in a chroot of the guest's root)
setup_of() {
        local conf=:
        case "$1" in
        ntpsec) conf="sed -i 's/^tos minclock 4 minsane 3\$/tos minclock 4 minsane 1/' /etc/ntpsec/ntp.conf" ;;
        openntpd) conf="sed -i 's|^DAEMON_OPTS=\"|&-s |' /etc/default/openntpd" ;;
        chrony-unit)
                echo "echo 'ntp-unit = chrony.service' >>$CONF && sed -i 's/^rtcsync/#&/' /etc/chrony/chrony.conf"
                return
                ;;
        esac
        echo "$conf && systemctl enable $(unit_of "$1")"
}

vm_kernel
vm_debian_root ntp
vm_debian_initramfs "$TMP/initrd.gz"

overlay=$TMP/overlay
vm_debian_install "$overlay"
guest_clockfix=$(cd "$overlay" && find . -name clockfix -path '*bin/*' -type f | sed 's|^\.||' | head -n 1)
written=$(($(date +%s) - 86400))
# The disk's times are a day old, older than clockfix's build: the floor a day before them.
printf 'not-before = @%s\n' $((written - 86400)) >"$overlay$CONF"
cp "$NTP_PROBE" "$overlay/usr/local/bin/ntp-probe"
vm_ntp_guest_units "$overlay"

vm_debian_test_unit "$overlay" clockfix-test-report "After=$(for c in $CLIENTS; do unit_of "$c"; done | tr '\n' ' ')" <<SH
. /usr/local/libexec/clockfix-test-lib
# Until the daemon is done with NTP, a line every 30 s: the host takes a silent console for a hung
# guest, and openntpd takes minutes.
i=0
while [ "\$(mono clockfix.service SubState)" = running ] && [ \$i -lt $((WAIT * 2)) ]; do
        sleep 0.5
        i=\$((i + 1))
        [ \$((i % 60)) -ne 0 ] || say waiting=\$((i / 2))
done
$(vm_ntp_lines)
/usr/local/bin/ntp-probe query $VM_NTP_SERVER
say clockfix_result=\$(mono clockfix.service Result)
say clockfix_status=\$(mono clockfix.service ExecMainStatus)
say clockfix_state=\$(mono clockfix.service ActiveState)
$guest_clockfix status 2>&1 | sed 's/^/STATUS /'
journal clockfix.service $(for c in $CLIENTS; do unit_of "$c"; done | tr '\n' ' ')
sync_entry
journalctl -b -o export MESSAGE_ID=56e30c5a17be4318aa6b9584b7e12d7e | sed -n 's/^__MONOTONIC_TIMESTAMP=/CLOCKFIX-TEST entry_mono=/p'
say done=1
systemctl --no-block poweroff
SH

# check CLIENT: the boot of CLIENT just made ($TMP/CLIENT.console, CONSOLE)
check() {
        local client=$1
        vm_debian_finished "$client"
        echo "$client boot: $BOOT_MS ms"
        grep -a '^JOURNAL \|CLOCKFIX-TEST watch_' <<<"$CONSOLE" | sed 's/^JOURNAL //; s/^/  | /'
        vm_ntp_check "$client" "$written"
        assert_eq "$(marker clockfix_state) $(marker clockfix_result) $(marker clockfix_status)" "inactive success 0" \
                "$client: clockfix.service exited 0"
        assert_match "$(grep -a '^STATUS Clock now:' <<<"$CONSOLE")" "\(synchronized by NTP\)" \
                "$client: clockfix status in the guest"
        if [ "$client" == chrony-unit ]; then
                assert_match "$CONSOLE" "clockfix\[[0-9]+\]: Started chrony.service" "$client: the daemon started chrony"
                # Synchronised with STA_UNSYNC (0x40) set: the kernel's maximum error is the sign.
                local maxerror status unsync=""
                while IFS=, read -r _ maxerror status _; do
                        [ "$maxerror" -lt 16000000 ] && ((status & 0x40)) && unsync=1
                done < <({ grep -ao 'CLOCKFIX-TEST watch_kernel=[^ ]*' <<<"$CONSOLE" || true; } | sed 's/.*=//')
                [ -n "$unsync" ] || fail "$client: chrony without rtcsync did not leave STA_UNSYNC set"
        fi
        ! grep -aq "nothing stepped it since the daemon started" <<<"$CONSOLE" ||
                echo "$client: the daemon passed over a sign of synchronisation that came with no step"
}

# Each client's disk and network, then its boot; openntpd's in the background from the start.
bg=""
for c in $CLIENTS; do
        vm_debian_disk "$TMP/$c.img" "$overlay" "$written" "$(setup_of "$c")"
        vm_ntp_server "$c"
        if [ "$c" == openntpd ]; then
                (VM_PID_FILE=$TMP/vm-pids VM_DEBIAN_TIMEOUT=$((VM_DEBIAN_TIMEOUT + WAIT)) \
                        vm_debian_boot "$c" "$TMP/initrd.gz" "$TMP/$c.img" "" && echo "$BOOT_MS" >"$TMP/$c.ms") &
                bg=$!
                # (ended before its QEMU and the test's directory, should the test fail first)
                at_exit '[ -z "$bg" ] || { kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; }'
                continue
        fi
        vm_debian_boot "$c" "$TMP/initrd.gz" "$TMP/$c.img" ""
        check "$c"
done
if [ -n "$bg" ]; then
        rc=0
        wait "$bg" || rc=$?
        bg=""
        [ "$rc" -eq 0 ] || fail "openntpd: the boot failed"
        CONSOLE=$(tr -d '\r' <"$TMP/openntpd.console") BOOT_MS=$(cat "$TMP/openntpd.ms")
        check openntpd
fi
echo ok
