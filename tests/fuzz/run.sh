#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/fuzz/run.sh [SECONDS] [TARGET...]: builds the fuzz targets for libFuzzer (clang, with
# AddressSanitizer and UndefinedBehaviorSanitizer) in build-fuzz/ and fuzzes each for SECONDS
# (default 60), as many at once as there are CPUs, starting from its seed corpus (corpus/TARGET/)
# and the inputs of crashes once found (regressions/TARGET/). The corpus grows in
# build-fuzz/corpus/, not in the source tree.
# A crash, a leak, undefined behaviour or a broken FUZZ_CHECK fails the run; the input is then in
# build-fuzz/: copy it to regressions/TARGET/ once fixed, and the unit suite replays it always.
# The target jbd2-property is not libFuzzer's: the journal search against the oracle on many more
# generated histories than the unit suite's (tests/unit/test-jbd2-property.c, the meson test
# jbd2-property-long of the fuzz suite), and on many more logs with zeros among their data
# (tests/unit/test-jbd2-zeros.c, jbd2-zeros-long), under the same sanitizers; a failure names the
# seed to replay.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jbd2-property jbd2 cmdline conf time decide record lookup parttable)

if [ ! -f build-fuzz/build.ninja ]; then
        CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
compile=()
for t in "${targets[@]}"; do
        if [ "$t" == jbd2-property ]; then
                compile+=(tests/test-jbd2-property tests/test-jbd2-zeros)
        else
                compile+=("tests/fuzz/fuzz-$t")
        fi
done
# The build files first: meson compile looks a target up in them as they were (a target added since
# would not be found).
ninja -C build-fuzz build.ninja >/dev/null
meson compile -C build-fuzz "${compile[@]}" >/dev/null

# fuzz_one TARGET: fuzzes TARGET (or runs the long property test), its output in
# build-fuzz/fuzz-TARGET.log, what to show of it in .summary, why it failed in .failed
fuzz_one() {
        local t=$1 out=build-fuzz/fuzz-$1
        rm -f "$out.summary" "$out.failed"
        if [ "$t" == jbd2-property ]; then
                echo "jbd2-property: the search against the oracle, many histories and logs with zeros" >"$out.summary"
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson test -C build-fuzz --no-rebuild \
                        --suite fuzz jbd2-property-long jbd2-zeros-long >"$out.log" 2>&1 ||
                        echo "FAIL: jbd2-property: build-fuzz/meson-logs/testlog.txt" >"$out.failed"
                grep -E '^([0-9]+ histories|  (pre-6.5|6.5\+) |  by the|generated histories|FAIL \(|[0-9]+ searches of logs|seed [0-9]+, budget)' \
                        build-fuzz/meson-logs/testlog.txt | head -n 20 | sed 's/^/  /' >>"$out.summary"
                return 0
        fi
        mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
        echo "fuzz-$t: $seconds s" >"$out.summary"
        if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "build-fuzz/tests/fuzz/fuzz-$t" \
                -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
                -artifact_prefix="build-fuzz/crashes/$t/" "build-fuzz/corpus/$t" \
                "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" >"$out.log" 2>&1; then
                { echo "FAIL: fuzz-$t: $(grep -m1 -E 'ERROR|does not hold|runtime error' "$out.log" || tail -n 1 "$out.log")"
                        ls "build-fuzz/crashes/$t"; } >"$out.failed"
        fi
        grep -E '^stat::(number_of_executed_units|new_units_added)|cov: ' "$out.log" | tail -n 3 | sed 's/^/  /' >>"$out.summary"
}

# As many targets at once as there are CPUs (each fuzzer is one process), each for its SECONDS.
running=0
for t in "${targets[@]}"; do
        if [ $running -ge "$(nproc)" ]; then
                wait -n || true
                running=$((running - 1))
        fi
        fuzz_one "$t" &
        running=$((running + 1))
done
wait
status=0
for t in "${targets[@]}"; do
        cat "build-fuzz/fuzz-$t.summary" 2>/dev/null || echo "fuzz-$t: no summary"
        if [ -f "build-fuzz/fuzz-$t.failed" ] || [ ! -f "build-fuzz/fuzz-$t.summary" ]; then
                cat "build-fuzz/fuzz-$t.failed" >&2 2>/dev/null || echo "FAIL: fuzz-$t did not run to its end" >&2
                status=1
        fi
done
exit $status
