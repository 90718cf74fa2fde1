# SPDX-License-Identifier: LGPL-2.1-or-later
# lib-base.sh: the part of the shell tests' library (tests/lib/lib.sh) that needs neither meson test nor
# root: strict mode, UTC and the C locale, fail and the checks, waiting, what runs at exit, and a
# cross build's exe wrapper. tests/lib/lib.sh sources it first; scripts that need nothing more (the
# lint tests, tests/deb.sh, the fuzz corpus replay, bench/boot-cost and bench/accuracy) source it
# alone. Sourced; sets an EXIT trap: add to it with at_exit, never with a trap of your own.
# shellcheck shell=bash disable=SC2034 # TMP and SYSROOT are for the scripts that source it

set -euo pipefail
export TZ=UTC LC_ALL=C

# at_exit COMMAND: COMMAND (a string, run with eval) runs when the script exits, however it exits;
# the last one given runs first. One that fails does not keep the others from running.
EXIT_HOOKS=()
at_exit() {
        EXIT_HOOKS+=("$1")
}

run_exit_hooks() {
        local i
        for ((i = ${#EXIT_HOOKS[@]} - 1; i >= 0; i--)); do
                eval "${EXIT_HOOKS[i]}" || true
        done
        EXIT_HOOKS=()
}
trap run_exit_hooks EXIT

# tmp_dir TEMPLATE: sets TMP to a new directory made from TEMPLATE (mktemp -d), removed with all
# it holds at exit
tmp_dir() {
        TMP=$(mktemp -d "$1")
        at_exit 'rm -rf "$TMP"'
}

# sq WORD: WORD quoted for /bin/sh (single quotes; bash's printf %q may write $'...', which dash
# does not read)
sq() {
        printf "'%s'" "${1//\'/\'\\\'\'}"
}

# A cross build (cross/*.ini): meson names the exe wrapper that runs the target's programs
# (qemu-user with the target's sysroot) in MESON_EXE_WRAPPER, shell-quoted. EXE_WRAPPER holds its
# words (none natively), SYSROOT the wrapper's -L directory ("" for none).
EXE_WRAPPER=()
SYSROOT=
if [ -n "${MESON_EXE_WRAPPER:-}" ]; then
        eval "EXE_WRAPPER=($MESON_EXE_WRAPPER)"
        for ((i = 1; i < ${#EXE_WRAPPER[@]}; i++)); do
                [ "${EXE_WRAPPER[i - 1]}" != -L ] || SYSROOT=${EXE_WRAPPER[i]}
        done
fi

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
        [ "$1" == "$2" ] || fail "$3: got '$1', expected '$2'"
}

# assert_match TEXT REGEX WHAT
assert_match() {
        grep -qE -- "$2" <<<"$1" || fail "$3: '$1' does not match /$2/"
}

# between NAME VALUE LO HI: LO <= VALUE <= HI (a time taken between two readings of the clock: no
# assumption on how long what came between took)
between() {
        [ -n "$2" ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || fail "$1: '$2' is not between $3 and $4"
}

# close_to WHAT VALUE EXPECTED SLACK: VALUE within SLACK seconds of EXPECTED
close_to() {
        [ -n "$2" ] && [ "$2" -ge $(($3 - $4)) ] && [ "$2" -le $(($3 + $4)) ] ||
                fail "$1: '$2' is not within $4 s of $3"
}

# wait_until SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds; 1 if it has not after
# SECONDS
wait_until() {
        local i n=$(($1 * 10))
        shift
        for ((i = 0; i < n; i++)); do
                "$@" && return 0
                sleep 0.1
        done
        return 1
}

# lines_at_least FILE REGEX N: whether N lines of FILE match REGEX (extended); not if FILE is not
# there (yet)
lines_at_least() {
        local n
        n=$(grep -cE -- "$2" "$1" 2>/dev/null) || true
        [ "${n:-0}" -ge "$3" ]
}

# wait_count FILE REGEX N SECONDS: waits until N lines of FILE match REGEX (extended); 1 if they
# never do (FILE may not be there yet)
wait_count() {
        wait_until "$4" lines_at_least "$1" "$2" "$3"
}

# wait_for FILE REGEX SECONDS: until FILE has a line matching REGEX; 1 if it never does
wait_for() {
        wait_count "$1" "$2" 1 "$3"
}

# gone PID: whether the process PID has ended
gone() {
        ! kill -0 "$1" 2>/dev/null
}

# wait_exit PID SECONDS: the exit status of PID, or fail if it runs longer
wait_exit() {
        wait_until "$2" gone "$1" || fail "$1 still running after $2 s"
        wait "$1" && return 0 || return $?
}

# kernel_at_least MAJOR MINOR: whether the running kernel is that version or newer
kernel_at_least() {
        local v
        v=$(uname -r)
        v=${v%%-*}
        [ "$(printf '%s\n%s\n' "$1.$2" "$(cut -d. -f1,2 <<<"$v")" | sort -V | head -n 1)" == "$1.$2" ]
}
