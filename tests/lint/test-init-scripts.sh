#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The init scripts as this build configured them (openrc/, sysvinit/): shellcheck and checkbashisms
# find nothing (the OpenRC service as sh, with openrc-run's variables declared where they are
# set), and each shell that runs them (dash, busybox sh) parses them; the LSB header is whole. Then
# what meson installs: -Dopenrc=true and -Dsysvinit=true put the files where their directory
# options say (meson install --tags init into a DESTDIR), both in one directory fail at setup, and
# -Dopenrc=auto installs the OpenRC service only where pkg-config finds no systemd.pc and
# -Dsysvinit=true does not ask for the same directory.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"

tmp_dir "$BUILDDIR/test-init-scripts.XXXXXX"
: "${OPENRC_INITD:?run through meson test}" "${SYSVINIT_SCRIPT:?}" "${OPENRC_CONFD:?}"
for p in shellcheck checkbashisms dash busybox; do
        command -v "$p" >/dev/null || fail "$p is not installed (tests/lib/deps.sh)"
done

# The checks can fail: a bashism and a quoting mistake are found.
printf '#!/bin/sh\nf() { local x=$1; [[ -n $x ]] && echo $x; }\n' >"$TMP/bad"
! checkbashisms "$TMP/bad" >/dev/null 2>&1 || fail "checkbashisms found no bashism in $TMP/bad"
! shellcheck "$TMP/bad" >/dev/null 2>&1 || fail "shellcheck found nothing in $TMP/bad"

for f in "$OPENRC_INITD" "$SYSVINIT_SCRIPT" "$OPENRC_CONFD"; do
        [ -f "$f" ] || fail "$f: not configured"
        ! grep -n '@[a-z_]*@' "$f" || fail "$f: a placeholder left unconfigured"
        # -s sh: openrc-run runs the service in its sh; the conf.d file has no #! line.
        shellcheck -s sh "$f" || fail "shellcheck: $f"
        # -f: checked although its #! line is openrc-run's, or missing.
        out=$(checkbashisms -f "$f" 2>&1) || { echo "$out"; fail "checkbashisms: $f"; }
        out=$(grep -v -e 'does not appear to have a #! interpreter line' -e 'you may get strange results' <<<"$out" || true)
        [ -z "$out" ] || { echo "$out"; fail "checkbashisms: $f"; }
        for sh in dash "busybox sh"; do
                $sh -n "$f" || fail "$sh -n $f"
        done
done
echo "shellcheck, checkbashisms, dash -n and busybox sh -n: nothing in the two init scripts and the settings"

# The LSB header insserv and update-rc.d read.
header=$(sed -n '/^### BEGIN INIT INFO$/,/^### END INIT INFO$/p' "$SYSVINIT_SCRIPT")
for field in "Provides: *clockfix" "X-Start-Before: *checkroot" "Default-Start: *S$" "Default-Stop: *0 6$" \
        "Short-Description: "; do
        grep -q "^# $field" <<<"$header" || fail "$SYSVINIT_SCRIPT: no '$field' in its LSB header"
done
grep -qx '        provide clock' "$OPENRC_INITD" || fail "$OPENRC_INITD does not provide clock"

# setup NAME OPTION...: configures $TMP/NAME (no compiler run beyond meson's own checks)
setup() {
        local name=$1
        shift
        meson setup "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1 || { cat "$TMP/$name.log"; fail "$name: setup $* failed"; }
}

# installed NAME: the files meson install --tags init puts into a DESTDIR, one a line, with their modes
installed() {
        meson install -C "$TMP/$1" --no-rebuild --tags init --destdir "$TMP/$1.root" >>"$TMP/$1.log" 2>&1 ||
                { cat "$TMP/$1.log"; fail "$1: meson install --tags init failed"; }
        mkdir -p "$TMP/$1.root"
        (cd "$TMP/$1.root" && find . -type f -printf '%p %m\n' | sed 's|^\.||' | sort)
}

setup both -Dopenrc=true -Dopenrc-initdir=/etc/openrc.d -Dopenrc-confdir=/etc/openrc.conf.d \
        -Dsysvinit=true -Dsysvinit-dir=/etc/rc.d/init.d
assert_eq "$(installed both)" "/etc/openrc.conf.d/clockfix 644
/etc/openrc.d/clockfix 755
/etc/rc.d/init.d/clockfix 755" "-Dopenrc=true -Dsysvinit=true: what meson install put"
cmp "$TMP/both.root/etc/rc.d/init.d/clockfix" "$SYSVINIT_SCRIPT" || fail "the installed sysvinit script differs from the build's"
cmp "$TMP/both.root/etc/openrc.conf.d/clockfix" "$OPENRC_CONFD" || fail "the installed conf.d file differs"
grep -qx "command=\"$(meson introspect --buildoptions "$TMP/both" |
        jq -r '(.[] | select(.name == "prefix") | .value) + "/" + (.[] | select(.name == "sbindir") | .value)')/clockfix\"" \
        "$TMP/both.root/etc/openrc.d/clockfix" || fail "the installed OpenRC service does not name the installed clockfix"

setup_fails() {
        local name=$1 message=$2
        shift 2
        ! meson setup "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1 || fail "$name: setup $* succeeded"
        grep -qF -e "$message" "$TMP/$name.log" || { cat "$TMP/$name.log"; fail "$name: no '$message'"; }
}
setup_fails same "-Dsysvinit=true and the OpenRC service would both install /etc/init.d/clockfix" \
        -Dopenrc=true -Dsysvinit=true
echo "-Dopenrc=true -Dsysvinit=true: installed where their options say; into one directory: setup fails"

# -Dopenrc=auto (the default): not where systemd.pc is found, as here, and installed where it is not.
pkg-config --exists systemd || fail "systemd.pc is not installed: the check below proves nothing"
setup auto-systemd
assert_eq "$(installed auto-systemd)" "" "-Dopenrc=auto with systemd.pc: what meson install put"
mkdir -p "$TMP/pc"
IFS=: read -ra dirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${dirs[@]}"; do
        for f in "$d"/*.pc; do
                [ -e "$f" ] && [ ! -e "$TMP/pc/${f##*/}" ] && [ "${f##*/}" != systemd.pc ] || continue
                ln -s "$f" "$TMP/pc/"
        done
done
PKG_CONFIG_LIBDIR=$TMP/pc setup auto-none
assert_eq "$(installed auto-none | cut -d' ' -f1)" "/etc/conf.d/clockfix
/etc/init.d/clockfix" "-Dopenrc=auto without systemd.pc: what meson install put"
cmp "$TMP/auto-none.root/etc/init.d/clockfix" "$OPENRC_INITD" || fail "-Dopenrc=auto without systemd.pc: not the OpenRC service"
# ... but not in place of the sysvinit script asked for in the same directory.
PKG_CONFIG_LIBDIR=$TMP/pc setup auto-sysvinit -Dsysvinit=true
assert_eq "$(installed auto-sysvinit | cut -d' ' -f1)" /etc/init.d/clockfix \
        "-Dopenrc=auto without systemd.pc, -Dsysvinit=true: what meson install put"
cmp "$TMP/auto-sysvinit.root/etc/init.d/clockfix" "$SYSVINIT_SCRIPT" || fail "-Dsysvinit=true: not the sysvinit script"
echo "-Dopenrc=auto: the OpenRC service installed only where systemd.pc is not found, and the sysvinit script not asked for"
echo ok
