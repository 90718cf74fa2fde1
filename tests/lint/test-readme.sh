#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's two commands exist, and CI runs exactly the README's test command.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"

grep -qx '    bash tests/demo.sh' README.md || fail "README.md does not give 'bash tests/demo.sh'"
grep -qx '    bash tests/run.sh' README.md || fail "README.md does not give 'bash tests/run.sh'"
[ -x tests/demo.sh ] && [ -x tests/run.sh ] && [ -x .ci/run ] || fail "a script is not executable"
# The last command .ci/run runs is the README's test command.
last=$(grep -v -e '^#' -e '^set ' -e '^cd ' -e '^$' .ci/run | tail -n 1)
[ "$last" == "bash tests/run.sh" ] || fail ".ci/run runs '$last', not the README's 'bash tests/run.sh'"
# What run.sh installs covers every program the tests call.
. tests/lib/deps.sh
for p in meson clang libext2fs-dev libblkid-dev libsystemd-dev e2fsprogs dosfstools fdisk jq strace systemd clang-format iproute2 debootstrap; do
        [[ " ${BUILD_PACKAGES[*]} ${TEST_PACKAGES[*]} " == *" $p "* ]] || fail "tests/lib/deps.sh does not install $p"
done
# The design the code cites is the repository's own (docs/design.md), not notes that are not shipped.
cited=$(grep -rlE 'DESIGN\.md|\.\./shared/' src tests initramfs systemd bench cross docs man debian meson.build \
        README.md CONTRIBUTING.md | grep -v '^tests/lint/test-readme\.sh$' || true)
[ -z "$cited" ] || fail "these cite design notes that are not in the repository (cite docs/design.md): $cited"
[ -f docs/design.md ] || fail "no docs/design.md"
# Nor a tracker's numbers, in the documents or the code, which say nothing to a reader of the repository
# ("issue 16", "#6").
issues=$(grep -rnIiE '\b(issue|bug|ticket|pr)s? #?[0-9]+|(^|[ (])#[0-9]+\b' README.md CONTRIBUTING.md docs man \
        initramfs src tests bench systemd openrc sysvinit debian cross meson.build meson_options.txt .ci |
        grep -vE '^tests/(fuzz/(corpus|regressions)/|lint/test-readme\.sh:)' || true)
[ -z "$issues" ] || fail "these cite a tracker's numbers (say what the change was instead): $issues"
# The README is a front door (16 KiB at most), and every relative link of the documents resolves: to a
# file of the repository and, with #anchor, to one of its headings (GitHub's slugs).
size=$(wc -c <README.md)
[ "$size" -le 16384 ] || fail "README.md is $size bytes: move reference material to man/ or docs/ (16384 at most)"
slugs() {
        sed -n 's/^#\{1,6\} //p' "$1" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}
links=0
for doc in README.md CONTRIBUTING.md docs/*.md initramfs/README.md; do
        dir=$(dirname "$doc")
        while read -r link; do
                links=$((links + 1))
                file=${link%%#*} anchor=
                [[ "$link" == *#* ]] && anchor=${link#*#}
                target=$doc
                [ -z "$file" ] || target=$dir/$file
                [ -e "$target" ] || fail "$doc: link to $link: no file $target"
                [ -z "$anchor" ] || slugs "$target" | grep -qx -- "$anchor" ||
                        fail "$doc: link to $link: no heading #$anchor in $target"
        done < <(grep -o '\](\([^)]*\))' "$doc" | sed 's/^](\(.*\))$/\1/' | grep -v -e '^[a-z]*:' -e '^mailto:')
done
[ "$links" -gt 20 ] || fail "only $links relative links found: the link check read nothing"
echo ok
