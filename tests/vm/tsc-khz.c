/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tsc-khz: prints the frequency of this machine's time stamp counter in kHz,
 * measured against CLOCK_MONOTONIC_RAW over 200 ms. In software emulation
 * (TCG) QEMU gives an x86 guest the host's TSC as its own (its rdtsc reads the
 * host's counter), so this is also the frequency of a guest's TSC: the microvm
 * guests are told it with tsc_early_khz= (tests/vm/lib.sh) instead of
 * calibrating it against the PIT. Each end of the interval is taken between two
 * reads of the TSC, the closest pair of several: a preemption on a loaded
 * machine cannot stretch an end, only make that try lose.
 */

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

/* A TSC value and CLOCK_MONOTONIC_RAW (ns) of the same moment. */
static void sample(uint64_t *ret_tsc, uint64_t *ret_ns)
{
        uint64_t best = UINT64_MAX;

        for (int i = 0; i < 50; i++) {
                struct timespec ts;
                uint64_t a, b;

                a = __rdtsc();
                clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
                b = __rdtsc();
                if (b - a < best) {
                        best = b - a;
                        *ret_tsc = a + (b - a) / 2;
                        *ret_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
                }
        }
}

int main(void)
{
        const struct timespec pause = { .tv_nsec = 200 * 1000 * 1000 };
        uint64_t tsc0, ns0, tsc1, ns1;

        sample(&tsc0, &ns0);
        nanosleep(&pause, NULL);
        sample(&tsc1, &ns1);
        if (ns1 <= ns0 || tsc1 <= tsc0) {
                fprintf(stderr, "tsc-khz: the TSC or the clock did not advance\n");
                return 1;
        }
        printf("%llu\n", (unsigned long long)((tsc1 - tsc0) * 1000000 / (ns1 - ns0)));
        return 0;
}
