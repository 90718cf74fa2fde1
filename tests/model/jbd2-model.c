/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-model: a journal described block by block, rendered to the bytes jbd2 writes */

#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "be.h"
#include "jbd2-model.h"

#define MAGIC 0xc03b3998u

const uint32_t jm_tag_formats[JM_TAG_FORMATS] = {
        JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT,
        JM_INCOMPAT_CSUM_V3,
        JM_INCOMPAT_CSUM_V2 | JM_INCOMPAT_64BIT,
        JM_INCOMPAT_CSUM_V2,
        JM_INCOMPAT_64BIT,
        0,
};

static bool csum(const struct jmodel *m)
{
        return m->incompat & (JM_INCOMPAT_CSUM_V2 | JM_INCOMPAT_CSUM_V3);
}

static uint32_t tag_bytes(const struct jmodel *m)
{
        if (m->incompat & JM_INCOMPAT_CSUM_V3)
                return 16;
        return 12 + (csum(m) ? 2 : 0) - ((m->incompat & JM_INCOMPAT_64BIT) ? 0 : 4);
}

void jm_init(struct jmodel *m, uint32_t blocksize, uint32_t maxlen, uint32_t incompat, uint32_t fc_blocks,
        uint32_t sequence)
{
        /* jbd2 turns fast commits off rather than leave a log under 1024 blocks. */
        if (fc_blocks >= maxlen || maxlen - fc_blocks < 1024)
                fc_blocks = 0;
        *m = (struct jmodel){
                .blocksize = blocksize,
                .maxlen = maxlen,
                .first = 1,
                .fc_blocks = fc_blocks,
                .incompat = incompat | (fc_blocks ? JM_INCOMPAT_FAST_COMMIT : 0),
                .uuid = { 0x6a, 0x62, 0x64, 0x32, 0x2d, 0x6d, 0x6f, 0x64, 0x65, 0x6c, 1, 2, 3, 4, 5, 6 },
                .sequence = sequence,
                .pos = 1,
                .next_sequence = sequence,
        };
        m->blocks = calloc(maxlen, sizeof(*m->blocks));
        if (!m->blocks)
                abort();
}

void jm_free(struct jmodel *m)
{
        free(m->blocks);
        m->blocks = NULL;
}

uint32_t jm_last(const struct jmodel *m)
{
        return m->maxlen - m->fc_blocks - 1;
}

uint32_t jm_tags_per_descriptor(const struct jmodel *m)
{
        /*
         * As Linux fills one: the first tag carries the journal's UUID, the others say
         * SAME_UUID, and the descriptor is closed once what is left would not hold a tag with a
         * UUID and the checksum tail (one short of what fits, with 16-byte tags).
         */
        uint32_t tag = tag_bytes(m), left = m->blocksize - 12 - tag - 16, n = 1;

        for (; left >= tag + 16 + (csum(m) ? 4 : 0); left -= tag)
                n++;
        /* Linux before 5.5 wrote at most as many blocks at once as 12-byte tags fit in one. */
        if (m->before_5_5 && n > m->blocksize / 12 - 1)
                n = m->blocksize / 12 - 1;
        return n;
}

uint32_t jm_transaction_blocks(const struct jmodel *m, uint32_t ndata, bool revoke, bool commit)
{
        uint32_t per = jm_tags_per_descriptor(m);

        return (revoke ? 1 : 0) + ndata + (ndata + per - 1) / per + (commit ? 1 : 0);
}

static uint32_t put(struct jmodel *m, struct jm_block b)
{
        uint32_t at = m->pos;

        m->blocks[at] = b;
        m->pos = at == jm_last(m) ? m->first : at + 1;
        m->writes++;
        return at;
}

uint32_t jm_transaction(
        struct jmodel *m, uint32_t ndata, bool revoke, bool commit, uint64_t sec, uint32_t nsec)
{
        uint32_t seq = m->next_sequence++, at = m->pos, per = jm_tags_per_descriptor(m);

        if (revoke)
                at = put(m, (struct jm_block){ .kind = JM_REVOKE, .sequence = seq });
        while (ndata > 0) {
                uint32_t n = ndata < per ? ndata : per;

                at = put(m, (struct jm_block){ .kind = JM_DESCRIPTOR, .sequence = seq, .ntags = n });
                for (uint32_t i = 0; i < n; i++)
                        at = put(m, (struct jm_block){ .kind = JM_DATA, .sequence = seq });
                ndata -= n;
        }
        if (commit)
                at = put(m,
                        (struct jm_block){ .kind = JM_COMMIT, .sequence = seq, .sec = sec, .nsec = nsec });
        return at;
}

void jm_set_dirty(struct jmodel *m, uint32_t start, uint32_t sequence)
{
        m->start = start;
        m->sequence = sequence;
        m->head = 0;
}

void jm_set_clean(struct jmodel *m, uint32_t sequence, uint32_t head)
{
        m->start = 0;
        m->sequence = sequence;
        m->head = head;
}

static uint32_t crc(const struct jmodel *m, const uint8_t *buf, size_t size)
{
        uint32_t seed = ext2fs_crc32c_le(~0u, m->uuid, sizeof(m->uuid));
        return ext2fs_crc32c_le(seed, buf, size);
}

static void render_superblock(const struct jmodel *m, uint8_t *buf)
{
        put_be32(buf, MAGIC);
        put_be32(buf + 4, m->v1 ? 3 : 4);
        put_be32(buf + 0x0c, m->blocksize);
        put_be32(buf + 0x10, m->maxlen);
        put_be32(buf + 0x14, m->first);
        put_be32(buf + 0x18, m->sequence);
        put_be32(buf + 0x1c, m->start);
        if (m->v1)
                return;
        put_be32(buf + 0x24, m->compat);
        /* jbd2 drops the fast-commit flag whenever it empties the log. */
        put_be32(buf + 0x28, m->start ? m->incompat : m->incompat & ~JM_INCOMPAT_FAST_COMMIT);
        memcpy(buf + 0x30, m->uuid, 16);
        put_be32(buf + 0x40, 1);
        memset(buf + 0x100, 0x55, 16); /* the filesystem's UUID */
        if (csum(m))
                buf[0x50] = 4; /* crc32c */
        put_be32(buf + 0x54, m->fc_blocks);
        put_be32(buf + 0x58, m->head);
        if (csum(m)) {
                uint32_t c = ext2fs_crc32c_le(~0u, buf, 1024);
                put_be32(buf + 0xfc, m->sb_bad_checksum ? ~c : c);
        }
}

void jm_render(const struct jmodel *m, uint32_t block, uint8_t *buf)
{
        const struct jm_block *b = m->blocks + block;
        const size_t size = m->blocksize;

        memset(buf, 0, size);
        if (block == 0) {
                render_superblock(m, buf);
                return;
        }
        switch (b->kind) {
        case JM_ZERO:
                return;
        case JM_DATA:
                /* A journalled block whose first word was the magic is stored escaped: zero there. */
                memset(buf + 4, 0xa5, size - 4);
                put_be32(buf + 4, block);
                return;
        case JM_GARBAGE: {
                uint32_t x = block * 2654435761u + 1;
                for (size_t i = 0; i < size; i++) {
                        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                        buf[i] = (uint8_t)x;
                }
                return;
        }
        default:
                break;
        }

        put_be32(buf, MAGIC);
        put_be32(buf + 4, b->kind == JM_DESCRIPTOR ? 1 : b->kind == JM_COMMIT ? 2 : 5);
        put_be32(buf + 8, b->sequence);
        if (b->kind == JM_DESCRIPTOR) {
                size_t at = 12;
                for (uint32_t i = 0; i < b->ntags; i++) {
                        uint16_t flags = (i ? 0x2 : 0) | (i + 1 == b->ntags ? 0x8 : 0);
                        put_be32(buf + at, 1000 + i); /* the filesystem block it belongs at */
                        put_be16(buf + at + 6, flags);
                        at += tag_bytes(m);
                        if (i == 0) {
                                memcpy(buf + at, m->uuid, 16);
                                at += 16;
                        }
                }
        } else if (b->kind == JM_REVOKE)
                put_be32(buf + 12, 16 + (m->incompat & JM_INCOMPAT_64BIT ? 8 : 4));
        else {
                put_be64(buf + 0x30, b->sec);
                put_be32(buf + 0x38, b->nsec);
        }

        if (csum(m)) {
                size_t at = b->kind == JM_COMMIT ? 0x10 : size - 4;
                uint32_t c = crc(m, buf, size);
                put_be32(buf + at, b->damage & JM_BAD_CHECKSUM ? c ^ 1 : c);
        }
        if (b->damage & JM_BAD_MAGIC)
                buf[3] ^= 0x10;
}
