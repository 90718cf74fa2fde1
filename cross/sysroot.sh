#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cross/sysroot.sh ARCH DIR: the target's libraries and headers for a cross build of clockfix,
# without installing any package of that architecture on this machine.
#
# ARCH is a Debian architecture (armhf, arm64). The -dev packages of libext2fs for two
# architectures cannot be installed side by side (nor beside the machine's own), so each one is
# downloaded with `apt-get download` and unpacked with `dpkg-deb -x` into DIR, with the runtime
# libraries the tests load under qemu-user (the C library, libsystemd's dependencies). Then
# DIR/sysroot.ini names DIR for the cross file:
#
#   cross/sysroot.sh armhf build-cross/sysroot-armhf
#   meson setup --cross-file build-cross/sysroot-armhf/sysroot.ini --cross-file cross/armhf.ini \
#           build-cross/armhf
#
# Needs root the first time only, to add ARCH to dpkg's architectures and update apt's lists.
# A DIR made from the same package list is reused.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 ARCH DIR" >&2; exit 2; }
arch=$1
dir=$(realpath -m "$2")

# The build needs the -dev packages; the tests run the program and libsystemd (the daemon loads it
# with dlopen()) under qemu-user, which finds the target's libraries in DIR.
# (libext2fs2 is libext2fs2t64 from Debian 13 on, where its ABI moved to a 64-bit time_t: below)
packages=(libc6 libgcc-s1
        libext2fs-dev LIBEXT2FS comerr-dev libcom-err2
        libblkid-dev libblkid1 uuid-dev libuuid1
        libsystemd-dev libsystemd0 libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1)

release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
stamp="$arch ${release:-?} ${packages[*]}"
if [ -f "$dir/sysroot.ini" ] && [ "$(cat "$dir/.packages" 2>/dev/null)" == "$stamp" ]; then
        exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx "$arch" && [ "$arch" != "$(dpkg --print-architecture)" ]; then
        [ "$(id -u)" == 0 ] || { echo "$0: dpkg does not know $arch yet: run as root once" >&2; exit 1; }
        dpkg --add-architecture "$arch"
fi
# A Debian mirror may be syncing one suite's index for an architecture ("Mirror sync in progress"):
# apt-get update then fails for it and keeps the rest, which is all the download needs.
if ! apt-cache show "libext2fs-dev:$arch" >/dev/null 2>&1; then
        [ "$(id -u)" == 0 ] || { echo "$0: apt knows no $arch packages: run apt-get update as root" >&2; exit 1; }
        apt-get update >/dev/null 2>&1 || echo "$0: apt-get update reported errors; going on with what it got" >&2
        apt-cache show "libext2fs-dev:$arch" >/dev/null 2>&1 ||
                { echo "$0: no $arch packages in apt's lists: check /etc/apt/sources.list" >&2; exit 1; }
fi

# DIR is emptied first: only if it is a sysroot this script made, or empty.
if [ -d "$dir" ] && [ ! -f "$dir/.packages" ] && [ -n "$(ls -A "$dir")" ]; then
        echo "$0: $dir is not empty and not a sysroot made by this script: name another directory" >&2
        exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/.debs"
if apt-cache show "libext2fs2t64:$arch" >/dev/null 2>&1; then
        packages=("${packages[@]/#LIBEXT2FS/libext2fs2t64}")
else
        packages=("${packages[@]/#LIBEXT2FS/libext2fs2}")
fi
# As root, apt warns that its sandbox user cannot write here, and downloads all the same.
(cd "$dir/.debs" && apt-get download "${packages[@]/%/:$arch}" >/dev/null 2>"$dir/.download.log") ||
        { cat "$dir/.download.log" >&2; echo "$0: apt-get download of the $arch packages failed" >&2; exit 1; }
for deb in "$dir"/.debs/*.deb; do
        dpkg-deb -x "$deb" "$dir"
done
rm -rf "$dir/.debs"

# A merged /usr, as the target's own root has it: Debian 12's packages put the dynamic loader and
# some libraries in /lib, Debian 13's all in /usr/lib, and the programs ask for /lib/ld-linux-*.so.
for d in lib bin sbin; do
        [ -d "$dir/usr/$d" ] || continue
        if [ -d "$dir/$d" ] && [ ! -L "$dir/$d" ]; then
                cp -a --remove-destination "$dir/$d/." "$dir/usr/$d/"
                rm -rf "${dir:?}/$d"
        fi
        [ -e "$dir/$d" ] || ln -s "usr/$d" "$dir/$d"
done

# The packages' absolute symbolic links (libfoo.so -> /lib/...) would point into this machine's
# own /lib: make them relative, inside DIR.
find "$dir" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dir$target")" "$link"
done

# Under qemu-user the target's dynamic loader would read this machine's /etc/ld.so.cache, which
# lists this machine's libraries. An empty cache is no cache: it searches its own directories.
mkdir -p "$dir/etc"
: >"$dir/etc/ld.so.cache"

printf '[constants]\nsysroot = %s\n' "'$dir'" >"$dir/sysroot.ini"
echo "$stamp" >"$dir/.packages"
echo "sysroot for $arch in $dir"
