/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* window: the plausibility window, the times a timestamp read from a disk may take */
#pragma once

#include "basic/time-util.h"

struct window {
        usec_t floor;     /* the real time is never earlier: the build epoch or --not-before */
        usec_t not_after; /* anything later is implausible: floor + 30 years or --not-after */
};
