#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Nothing in src/ fails or misreads a time after 2038 where time_t has 32 bits (Debian 12 armhf):
# the program keeps the C library's default time_t (libext2fs' structs hold one), so no code may
# call stat(), fstat(), lstat() or fstatat(), which fail with EOVERFLOW for a file dated after
# 2038 there (file_stat() and file_fstat() of src/basic/stat-util.h use statx()), nor hold a time in a
# time_t, but a file built with a 64-bit one of its own (#define _TIME_BITS 64, as src/basic/clock.c;
# it must not include libext2fs). Comments are not code: each file is read with its comments
# removed by the compiler's own preprocessor, and its strings emptied.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"

# A call of the stat() family (file_stat( is not: a letter or _ before the name).
STAT='(^|[^_a-zA-Z0-9])(f|l)?stat(at)?(64)?[[:space:]]*\(|struct[[:space:]]+stat[[:space:]]'
# A time_t, or a call that takes or gives one. (A struct timespec of the monotonic clock or of a
# sleep holds small numbers: allowed.)
TIME_T='(^|[^_a-zA-Z0-9])(time_t([^_a-zA-Z0-9]|$)|(gmtime|localtime|mktime|timegm|ctime|difftime|time|stime)(_r)?[[:space:]]*\()'

# code FILE: FILE's code without comments, its strings emptied
code() {
        gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | sed -E 's/"([^"\\]|\\.)*"/""/g'
}

mapfile -t sources < <(find src -name '*.[ch]' | sort)
[ ${#sources[@]} -gt 10 ] || fail "found only ${#sources[@]} sources in src/"
bad=
for f in "${sources[@]}"; do
        c=$(code "$f") || fail "$f: cannot be read"
        hits=$(grep -nE "$STAT" <<<"$c" || true)
        [ -z "$hits" ] || bad+="$f: ${hits//$'\n'/; }"$'\n'
        if grep -qE '^#define _TIME_BITS 64$' "$f"; then
                ! grep -q 'ext2fs\.h' "$f" || bad+="$f: a 64-bit time_t of its own, and libext2fs' headers"$'\n'
                continue
        fi
        hits=$(grep -nE "$TIME_T" <<<"$c" || true)
        [ -z "$hits" ] || bad+="$f: ${hits//$'\n'/; }"$'\n'
done
[ -z "$bad" ] || fail "calls that fail or truncate after 2038 on a 32-bit time_t:"$'\n'"$bad"

# And the patterns find what they are for, each form on its own (and not what is allowed).
while IFS= read -r line; do
        [ "$(code <(echo "$line") | grep -cE "$STAT")" == 1 ] || fail "the stat() pattern misses: $line"
done <<'C'
int a = stat("/", &st);
int b = fstat(0, &st);
int c = lstat("/", &st);
int d = fstatat(0, "", &st, 0);
int e = stat64("/", &st);
struct stat st;
int f = file_stat("/", &x) + stat("/", &st);
C
while IFS= read -r line; do
        [ "$(code <(echo "$line") | grep -cE "$TIME_T")" == 1 ] || fail "the time_t pattern misses: $line"
done <<'C'
time_t t;
long a = time(NULL);
struct tm *b = gmtime(&t);
struct tm *c = localtime_r(&t, &tm);
long d = mktime(&tm) + timegm(&tm);
C
for line in 'int a = file_stat("/", &st) + file_fstat(0, &st);' 'usec_t t = clock_now(); /* time(NULL) */' \
        'puts("stat(x) time(0)");' 'struct timespec ts;'; do
        [ "$(code <(echo "$line") | grep -cE "$STAT|$TIME_T")" == 0 ] || fail "a pattern finds what is allowed: $line"
done
echo ok
