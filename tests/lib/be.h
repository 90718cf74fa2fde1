/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * be: big-endian fields at any address, as jbd2 stores them, read and
 * written through memcpy (no alignment assumed). Header-only, for the C of
 * tests/ and bench/ in every build (the native helpers and the target's
 * programs alike).
 */
#pragma once

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t get_be16(const uint8_t *p)
{
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return be16toh(v);
}

static inline uint32_t get_be32(const uint8_t *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return be32toh(v);
}

static inline uint64_t get_be64(const uint8_t *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return be64toh(v);
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
        v = htobe16(v);
        memcpy(p, &v, sizeof(v));
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
        v = htobe32(v);
        memcpy(p, &v, sizeof(v));
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
        v = htobe64(v);
        memcpy(p, &v, sizeof(v));
}
