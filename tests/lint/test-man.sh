#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The man pages render without a warning (man --warnings, groff -ww), and say everything the
# program has: every option of `clockfix --help` in clockfix(8), every key of the shipped
# clockfix.conf in clockfix.conf(5), every exit code main() documents in clockfix(8).
. "$SRCDIR/tests/lib/lib.sh"
cd "$SRCDIR"

for page in man/clockfix.8 man/clockfix.conf.5; do
        err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "$page: man failed: $err"
        [ -z "$err" ] || fail "$page: man --warnings: $err"
        err=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "$page: groff failed: $err"
        [ -z "$err" ] || fail "$page: groff -ww: $err"
done

text8=$(LC_ALL=C MANWIDTH=200 man -l man/clockfix.8 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g')
text5=$(LC_ALL=C MANWIDTH=200 man -l man/clockfix.conf.5 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g')
mapfile -t options < <("$CLOCKFIX" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ ${#options[@]} -gt 15 ] || fail "found only ${#options[@]} options in --help"
for o in "${options[@]}"; do
        grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$text8" || fail "clockfix(8) does not document $o"
done
for c in status set daemon stamp; do
        grep -qE "^ +$c( |$)" <<<"$text8" || fail "clockfix(8) has no entry for the command $c"
done
mapfile -t keys < <(sed -n 's/^#\([a-z-]*\) =.*/\1/p' systemd/clockfix.conf | sort -u)
[ ${#keys[@]} -ge 10 ] || fail "found only ${#keys[@]} keys in systemd/clockfix.conf"
for k in "${keys[@]}"; do
        grep -qE "^ +$k(=| |$)" <<<"$text5" || fail "clockfix.conf(5) has no entry for $k"
done
for code in 0 1 2 3 4; do
        grep -qE "^ +$code +[A-Z]" <<<"$text8" || fail "clockfix(8) does not document exit status $code"
done
echo "ok: ${#options[@]} options, ${#keys[@]} keys"
