/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* macro: the attributes the code declares its functions with */
#pragma once

/*
 * On a function whose result says whether it did what was asked (a negative errno, or a value the
 * caller must look at): a caller that drops it gets a warning, an error under -Dwerror=true. For
 * the calls that set the clock, write to the disk of the running system, read what the decision
 * rests on, or free what they hand over.
 */
#define _must_check_ __attribute__((warn_unused_result))
