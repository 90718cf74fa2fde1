/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* utf8: telling valid UTF-8 (RFC 3629) from other bytes */
#pragma once

#include <stddef.h>

/*
 * The length of the character at s: 1 for an ASCII byte, 2 to 4 for a valid
 * UTF-8 sequence; 0 when the bytes there are not one (a stray continuation
 * byte, a sequence cut short, an overlong form, a UTF-16 surrogate, a code
 * point past U+10FFFF). Reads no further than the first byte that does not fit,
 * so a NUL ends the look.
 */
size_t utf8_sequence(const unsigned char *s);
