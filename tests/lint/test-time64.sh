#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Nothing in src/ fails or misreads a time after 2038 where time_t has 32 bits (Debian 12 armhf):
# the program keeps the C library's default time_t (libext2fs' structs hold one), so no code may
# call stat(), fstat(), lstat() or fstatat(), which fail with EOVERFLOW for a file dated after
# 2038 there (file_stat() and file_fstat() of src/stat-util.h use statx()), nor hold a time in a
# time_t, but src/clock.c, which is built with a 64-bit one. Comments are not code: each file is
# read with its comments removed by the compiler's own preprocessor, and its strings emptied.
set -euo pipefail
cd "$SRCDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }

# A time_t, or a call that takes or gives one. (A struct timespec of the monotonic clock or of a
# sleep holds small numbers: allowed.)
TIME_T='(^|[^_a-z])(time_t([^_a-z]|$)|(gmtime|localtime|mktime|timegm|ctime|difftime|time|stime)(_r)?[[:space:]]*\()'
bad=
for f in src/*.c src/*.h; do
        code=$(gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null) || fail "$f: cannot be read"
        code=$(sed -E 's/"([^"\\]|\\.)*"/""/g' <<<"$code") # nor are strings
        hits=$(grep -nE '(^|[^_a-z])(f|l)?stat(at)?(64)?[[:space:]]*\(|struct[[:space:]]+stat[[:space:]]' <<<"$code" |
                grep -v -e 'file_stat' -e 'file_fstat' || true)
        [ -z "$hits" ] || bad+="$f: ${hits//$'\n'/; }"$'\n'
        [ "$f" == src/clock.c ] && continue
        hits=$(grep -nE "$TIME_T" <<<"$code" || true)
        [ -z "$hits" ] || bad+="$f: ${hits//$'\n'/; }"$'\n'
done
[ -z "$bad" ] || fail "calls that fail or truncate after 2038 on a 32-bit time_t:"$'\n'"$bad"
# And the check itself finds what it is for.
probe=$(printf 'int f(void) { struct stat st; time_t t = time(NULL); return stat("/", &st) + (int)t; }\n' |
        gcc -fpreprocessed -dD -E -P -x c - 2>/dev/null)
grep -qE '(^|[^_a-z])(f|l)?stat(at)?(64)?[[:space:]]*\(' <<<"$probe" || fail "the stat() pattern finds nothing"
[ "$(grep -cE "$TIME_T" <<<"$probe")" == 1 ] || fail "the time_t pattern finds nothing"
echo ok
