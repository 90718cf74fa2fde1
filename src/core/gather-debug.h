/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-debug: what -v says of each device read, each time with what the window makes of it */
#pragma once

#include "core/decide.h"
#include "core/evidence.h"

void gather_debug_superblock(const struct policy *window, const struct device_report *d);
void gather_debug_journal(const struct policy *window, const struct device_report *d);
void gather_debug_stamps(const struct policy *window, const struct device_report *d);
void gather_debug_record(const struct device_report *d);
