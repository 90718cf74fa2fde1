# SPDX-License-Identifier: LGPL-2.1-or-later
# stages.sh: what tests/run.sh and tests/release.sh share: stages that run whatever became of the
# ones before, a summary of their results and times, and fresh meson build directories. Sourced;
# STAGES_STARTED is when the first began.

STAGES_STARTED=$(date +%s)
STAGE_RESULTS=()
STAGES_FAILED=0

# stage NAME COMMAND...: runs one stage, whatever became of the others, and keeps its result and
# time for the summary at the end
stage() {
        local name=$1 begun rc=0
        shift
        begun=$(date +%s)
        echo "== $name"
        "$@" || rc=$?
        local took=$(($(date +%s) - begun))
        if [ "$rc" -eq 0 ]; then
                STAGE_RESULTS+=("$(printf '%-36s passed  %5d s' "$name" "$took")")
        else
                STAGE_RESULTS+=("$(printf '%-36s FAILED  %5d s  (exit %d)' "$name" "$took" "$rc")")
                STAGES_FAILED=$((STAGES_FAILED + 1))
        fi
        echo "== $name: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)") in $took s; $(($(date +%s) - STAGES_STARTED)) s since the start"
}

# summary [TITLE]: each stage's result and time, and how many failed
summary() {
        echo "== ${1:-summary}"
        printf '%s\n' "${STAGE_RESULTS[@]}"
        echo "total: $(($(date +%s) - STAGES_STARTED)) s, $STAGES_FAILED stage(s) failed"
}

# setup DIR OPTION...: a fresh meson build directory, warnings as errors
setup() {
        local dir=$1
        shift
        if [ -d "$dir" ]; then
                meson setup --wipe "$dir" -Dwerror=true "$@"
        else
                meson setup "$dir" -Dwerror=true "$@"
        fi
}
