#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The options that leave a library out configure and build on a system without that library, as
# Buildroot and Yocto systems without systemd are: pkg-config is given a directory of every .pc
# file of this machine but those taken away, and clockfix is configured and compiled (that target
# alone) with the compiler of this build and warnings as errors:
# - -Dstatic=true without libsystemd.pc: a static binary that has no libsystemd in it;
# - a dynamic build without libsystemd.pc nor blkid.pc, -Dblkid=disabled and -Dlibsystemd left
#   at auto: builds, and the binary loads neither library (the daemon then speaks the
#   notification protocol itself, as the static build);
# - -Dlibsystemd=enabled or -Dblkid=enabled without their .pc file, and -Dlibsystemd=enabled with
#   -Dstatic=true: setup fails and names what is missing.
# The build being tested ($CLOCKFIX, with both libraries found) shows the checks can fail.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"

tmp_dir "$BUILDDIR/test-build-options.XXXXXX"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
export CC=$TARGET_CC

# pcdir DIR NAME...: DIR holds a link to each .pc file pkg-config finds here, but NAME.pc
pcdir() {
        local dir=$1 d f
        shift
        mkdir -p "$dir"
        IFS=: read -ra dirs <<<"$(pkg-config --variable pc_path pkg-config)"
        for d in "${dirs[@]}"; do
                for f in "$d"/*.pc; do
                        [ -e "$f" ] && [ ! -e "$dir/${f##*/}" ] || continue
                        ln -s "$f" "$dir/"
                done
        done
        for f in "$@"; do
                rm "$dir/$f.pc"
        done
}
pcdir "$TMP/no-systemd" libsystemd
pcdir "$TMP/no-systemd-blkid" libsystemd blkid
# Found at all without the directories above: the test would then prove nothing.
for m in libsystemd blkid; do
        pkg-config --exists "$m" || fail "$m.pc is not installed: the build being tested must find it"
        ! PKG_CONFIG_LIBDIR=$TMP/no-systemd-blkid pkg-config --exists "$m" || fail "$m.pc not hidden"
done

# build NAME PCDIR OPTION...: configures $TMP/NAME with only PCDIR's .pc files, compiles clockfix
build() {
        local name=$1 pc=$2
        shift 2
        PKG_CONFIG_LIBDIR=$pc meson setup "$TMP/$name" -Dwerror=true -Dbuildtype=plain "$@" \
                >"$TMP/$name.log" 2>&1 || { cat "$TMP/$name.log"; fail "$name: setup $* failed"; }
        meson compile -C "$TMP/$name" clockfix:executable >>"$TMP/$name.log" 2>&1 ||
                { cat "$TMP/$name.log"; fail "$name: compile failed"; }
}

# setup_fails NAME PCDIR MESSAGE OPTION...: setup fails, and its output says MESSAGE
setup_fails() {
        local name=$1 pc=$2 message=$3
        shift 3
        ! PKG_CONFIG_LIBDIR=$pc meson setup "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1 ||
                fail "$name: setup $* succeeded"
        grep -qF -e "$message" "$TMP/$name.log" || { cat "$TMP/$name.log"; fail "$name: no '$message'"; }
}

# loads FILE LIBRARY: FILE names LIBRARY (a file name that the build dlopen()s, or links)
loads() {
        grep -qaF "$2" "$1"
}

# The build being tested found both, and its binary names both libraries it may load.
loads "$CLOCKFIX" libsystemd.so.0 || fail "$CLOCKFIX does not name libsystemd.so.0: the check below proves nothing"
loads "$CLOCKFIX" libblkid.so.1 || fail "$CLOCKFIX does not name libblkid.so.1: the check below proves nothing"

build static "$TMP/no-systemd" -Dstatic=true
bin=$TMP/static/clockfix
grep -qx 'libsystemd *: no.*' <(sed 's/^ *//' "$TMP/static.log") || fail "static: the summary does not say 'libsystemd: no'"
! readelf -l "$bin" | grep -q 'Requesting program interpreter' || fail "static: $bin is not static"
! readelf -d "$bin" | grep -q NEEDED || fail "static: $bin needs a library"
! loads "$bin" libsystemd.so || fail "static: $bin names libsystemd"
"$bin" --version >/dev/null || fail "static: $bin --version failed"
echo "-Dstatic=true without libsystemd.pc: built, a static binary without libsystemd"

build dynamic "$TMP/no-systemd-blkid" -Dblkid=disabled
bin=$TMP/dynamic/clockfix
! loads "$bin" libsystemd.so || fail "dynamic: $bin names libsystemd"
! loads "$bin" libblkid.so || fail "dynamic: $bin names libblkid"
! readelf -d "$bin" | grep -E 'NEEDED.*(libsystemd|libblkid)' || fail "dynamic: $bin links libsystemd or libblkid"
"$bin" --version >/dev/null || fail "dynamic: $bin --version failed"
echo "-Dblkid=disabled without blkid.pc nor libsystemd.pc: built, without either"

setup_fails need-systemd "$TMP/no-systemd" "Dependency \"libsystemd\" not found" -Dlibsystemd=enabled
setup_fails need-blkid "$TMP/no-systemd-blkid" "Dependency \"blkid\" not found" -Dblkid=enabled
setup_fails static-systemd "$TMP/no-systemd" "-Dlibsystemd=enabled: a static build (-Dstatic=true) never uses libsystemd" \
        -Dstatic=true -Dlibsystemd=enabled
echo "-Dlibsystemd=enabled and -Dblkid=enabled without them, -Dlibsystemd=enabled -Dstatic=true: setup fails"
echo ok
