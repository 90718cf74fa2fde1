# SPDX-License-Identifier: LGPL-2.1-or-later
# stages.sh: what tests/run.sh and tests/release.sh share: stages that run whatever became of the
# ones before, a summary of their results and times, and fresh meson build directories. Sourced;
# STAGES_STARTED is when the first began.

STAGES_STARTED=$(date +%s)
STAGE_RESULTS=()
STAGES_FAILED=0
FAILED_TESTS=()

# The processes of a `meson test` that boots no PC guest: twice the CPUs. Much of the cli suite's
# time is waiting, not computing (a child's 30 s limit, writes the kernel commits once a second, a
# daemon watched for seconds): on 2 CPUs the ASan build's suites took 244 s two at a time and 189 s
# four at a time (`meson test -C build-asan --no-suite vm --no-suite lint --num-processes N`);
# tests/cross.sh armhf 255 s in all, where 335 s (its ARM guests' boots then take 13 to 24 s, far
# inside their limit of 120 s times the load). The PC guests of the vm suite keep a CPU busy each
# for minutes: the stage that boots them runs as many tests at a time as there are CPUs, the others
# filling in beside the guests.
WAITING_JOBS=$((2 * $(nproc)))

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
                failed_tests "$name" "$begun"
        fi
        echo "== $name: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)") in $took s; $(($(date +%s) - STAGES_STARTED)) s since the start"
}

# failed_tests STAGE SINCE: the tests that failed in the meson logs the stage wrote (those of this
# directory's builds changed since SINCE, in seconds), each with the end of its output, kept for the
# summary: a long run's output is often seen only by its end. The end of stderr, where the tests
# say what failed (fail in tests/lib/lib.sh) and show a guest's console (vm_dump); of stdout when
# stderr is empty.
failed_tests() {
        local log
        while read -r log; do
                [ -n "$log" ] || continue
                FAILED_TESTS+=("$(jq -r --arg stage "$1" --arg log "$log" \
                        'select(.result != "OK" and .result != "SKIP" and .result != "EXPECTEDFAIL") |
                         "-- \($stage): \(.name): \(.result) after \(.duration | floor) s (\($log))\n" +
                         ((if (.stderr // "") != "" then .stderr else (.stdout // "") end) | rtrimstr("\n") |
                          split("\n") | .[-60:] | map("   | " + .) | join("\n"))' "$log" 2>/dev/null)")
        done <<<"$(find . -maxdepth 4 -path '*/meson-logs/testlog.json' -newermt "@$2" 2>/dev/null)"
}

# summary [TITLE]: each stage's result and time, and how many failed; then the failed tests' ends
summary() {
        local t
        for t in "${FAILED_TESTS[@]}"; do
                [ -n "$t" ] && printf '%s\n' "$t"
        done
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
