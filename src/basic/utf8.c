/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* utf8: telling valid UTF-8 (RFC 3629) from other bytes */

#include <stdint.h>

#include "basic/utf8.h"

size_t utf8_sequence(const unsigned char *s)
{
        unsigned char c = s[0];
        size_t n;
        uint32_t cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                n = 2;
                cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
                n = 3;
                cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
                n = 4;
                cp = c & 0x07;
        } else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        /* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}
