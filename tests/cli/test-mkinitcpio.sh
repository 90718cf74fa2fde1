#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# mkinitcpio's hooks, without Arch's tools: the install hook is sourced by bash with mkinitcpio's
# functions stubbed (what it adds is recorded); the runtime hook is run by busybox's ash in a
# chroot, as mkinitcpio's init runs it, with a stand-in clockfix that records how it was called
# and fails: the hook must call it as intended and still let the boot go on.
. "$SRCDIR/tests/lib/lib.sh"
: "${BUILDDIR:?run through meson test}"

# install/clockfix: build() adds the binary and the runtime hook; help() says what it is.
out=$(env -u CLOCKFIX bash -c 'add_binary() { echo "add_binary $*"; }; add_runscript() { echo add_runscript; }
        add_file() { echo "add_file $*"; }; . "$1"; build; help' sh "$BUILDDIR/initramfs/mkinitcpio/install/clockfix")
assert_match "$out" "^add_binary /.*/sbin/clockfix /usr/bin/clockfix$" "install: binary (the installed one)"
assert_match "$out" "^add_runscript$" "install: runtime hook"
# The table of the filesystems mounted at boot, baked in where the runtime hook passes it.
if [ -f /etc/fstab ]; then
        assert_match "$out" "^add_file /etc/fstab /etc/clockfix/fstab$" "install: a copy of /etc/fstab"
else
        [[ "$out" != *"add_file /etc/fstab"* ]] || fail "install: a copy of an /etc/fstab that is not there"
fi

assert_match "$out" "Sets the clock" "install: help"
out=$(CLOCKFIX=/opt/clockfix bash -c 'add_binary() { echo "add_binary $*"; }; add_runscript() { :; }; add_file() { :; }
        . "$1"; build' sh "$BUILDDIR/initramfs/mkinitcpio/install/clockfix")
assert_eq "$out" "add_binary /opt/clockfix /usr/bin/clockfix" "install: CLOCKFIX overrides"
# libblkid, which a dynamic clockfix loads with dlopen(): added by name; not for a static one.
add() {
        CLOCKFIX=$1 bash -c 'add_binary() { echo "add_binary $*"; }; add_runscript() { :; }; warning() { echo "warning $*"; }
                add_file() { :; }; . "$1"; build' sh "$BUILDDIR/initramfs/mkinitcpio/install/clockfix"
}
# (In a cross build, this machine's ldd cannot read the target's clockfix: a dynamic program of
# this machine stands for it, as the hook is the same shell on every architecture.)
dynamic=$CLOCKFIX_BIN
[ -z "$SYSROOT" ] || dynamic=$FINGERPRINT
assert_match "$(add "$dynamic")" "^add_binary /.*/libblkid\.so\.1$" "install: libblkid for a dynamic clockfix"
# (a static program of its own: under sanitizers this build's clockfix-static is dynamic)
printf 'int main(void) { return 0; }\n' | cc -static -x c -o "$TMP/static" -
assert_eq "$(add "$TMP/static")" "add_binary $TMP/static /usr/bin/clockfix" "install: a static clockfix alone"

# hooks/clockfix: run_hook in busybox ash, in a chroot holding busybox and the stand-in.
root=$TMP/root
mkdir -p "$root/bin" "$root/usr/bin" "$root/hooks" "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$SRCDIR/initramfs/mkinitcpio/hooks/clockfix" "$root/hooks/clockfix"
cat >"$root/usr/bin/clockfix" <<'STUB'
#!/bin/busybox sh
echo "$*" >>/tmp/calls
exit 3
STUB
chmod 755 "$root/usr/bin/clockfix"
[ "$(id -u)" == 0 ] || fail "needs root to chroot (CI runs as root)"
chroot "$root" /bin/busybox sh -c '. /hooks/clockfix; run_hook; echo "hook returned $?"' >"$TMP/out" 2>&1 ||
        fail "the hook failed: $(cat "$TMP/out")"
assert_eq "$(cat "$TMP/out")" "hook returned 0" "runtime: the boot goes on"
assert_eq "$(cat "$root/tmp/calls")" "set --boot --wait 10 --fstab /etc/clockfix/fstab" "runtime: how clockfix is called"
# Without clockfix in the image, the hook does nothing and does not fail.
rm "$root/usr/bin/clockfix"
chroot "$root" /bin/busybox sh -c '. /hooks/clockfix; run_hook; echo "hook returned $?"' >"$TMP/out" 2>&1
assert_eq "$(cat "$TMP/out")" "hook returned 0" "runtime without clockfix"
echo ok
