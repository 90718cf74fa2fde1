/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-block: the on-disk format of the journal: its superblock, block headers, tags, checksums */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "basic/log.h"
#include "jbd2/jbd2-internal.h"

/*
 * The on-disk format, big-endian, as Linux fs/jbd2 writes it. Every
 * descriptor, revoke and commit block starts with a 12-byte header: magic,
 * block type, and the sequence number (transaction ID) it belongs to. Data
 * blocks follow their descriptor and never start with the magic: jbd2
 * escapes those that would.
 */
#define JBD2_MAGIC 0xc03b3998u

/* Journal superblock */
#define JSB_BLOCKSIZE     0x0c
#define JSB_MAXLEN        0x10
#define JSB_FIRST         0x14
#define JSB_SEQUENCE      0x18
#define JSB_START         0x1c
#define JSB_COMPAT        0x24
#define JSB_INCOMPAT      0x28
#define JSB_NR_USERS      0x40
#define JSB_CHECKSUM_TYPE 0x50
#define JSB_NUM_FC_BLOCKS 0x54
#define JSB_HEAD          0x58 /* Linux >= 6.5 */
#define JSB_CHECKSUM      0xfc
#define JSB_USERS         0x100
#define JSB_MAX_USERS     48

/* Commit block */
#define COMMIT_CHECKSUM            0x10
#define COMMIT_SEC                 0x30
#define COMMIT_NSEC                0x38

#define HEADER_SIZE                12
#define TAIL_SIZE                  4 /* the checksum at the end of descriptor and revoke blocks */

#define COMPAT_CHECKSUM            0x01u
#define INCOMPAT_REVOKE            0x01u
#define INCOMPAT_64BIT             0x02u
#define INCOMPAT_ASYNC_COMMIT      0x04u
#define INCOMPAT_CSUM_V2           0x08u
#define INCOMPAT_CSUM_V3           0x10u
#define INCOMPAT_FAST_COMMIT       0x20u
#define INCOMPAT_KNOWN             0x3fu

#define CHECKSUM_CRC32C            4

#define TAG_SAME_UUID              0x2u
#define TAG_LAST_TAG               0x8u

#define FAST_COMMIT_DEFAULT_BLOCKS 256u
#define JBD2_MIN_LOG_BLOCKS        1024u

static uint32_t get_be32(const uint8_t *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return be32toh(v);
}

static uint64_t get_be64(const uint8_t *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return be64toh(v);
}

static uint16_t get_be16(const uint8_t *p)
{
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return be16toh(v);
}

/*
 * Whether the crc32c from seed of the first size bytes of buf, with the 4-byte
 * checksum field at `at` taken as zero, is what that field holds.
 */
static bool checksum_matches(const uint8_t *buf, uint32_t seed, size_t size, size_t at)
{
        static const uint8_t zero[4];
        uint32_t crc;

        crc = ext2fs_crc32c_le(seed, buf, at);
        crc = ext2fs_crc32c_le(crc, zero, sizeof(zero));
        crc = ext2fs_crc32c_le(crc, buf + at + 4, size - at - 4);
        return crc == get_be32(buf + at);
}

/* Descriptor and revoke blocks end with their checksum; commit blocks hold it in h_chksum[0]. */
static bool block_checksum_ok(const struct walk *w, const uint8_t *b, uint32_t type)
{
        const size_t size = w->rep->blocksize;

        if (!w->csum)
                return true;
        return checksum_matches(b, w->seed, size, type == BLOCK_COMMIT ? COMMIT_CHECKSUM : size - TAIL_SIZE);
}

/* The data blocks that follow the descriptor block b: one per tag. */
static unsigned count_tags(const struct walk *w, const uint8_t *b)
{
        const size_t size = w->rep->blocksize - (w->csum ? TAIL_SIZE : 0);
        size_t at = HEADER_SIZE;
        unsigned n = 0;

        while (at + w->tag_bytes <= size) {
                /* t_flags: 16 bits at offset 6 in every tag format (the low half of tag3's 32 bits). */
                uint16_t flags = get_be16(b + at + 6);

                n++;
                at += w->tag_bytes;
                if (!(flags & TAG_SAME_UUID))
                        at += 16;
                if (flags & TAG_LAST_TAG)
                        break;
        }
        return n;
}

/* The time in commit block b; 0 when it has none (written by jbd, before jbd2). */
static usec_t commit_time(const uint8_t *b)
{
        uint64_t sec = get_be64(b + COMMIT_SEC);
        uint32_t nsec = get_be32(b + COMMIT_NSEC);
        usec_t u;

        if (sec == 0)
                return 0;
        if (!sec_to_usec(sec, &u))
                return USEC_INFINITY; /* beyond any window */
        if (nsec < 1000000000u && u <= USEC_INFINITY - nsec / NSEC_PER_USEC)
                u += nsec / NSEC_PER_USEC;
        return u;
}

/*
 * Whether block pos is held and is a descriptor, commit or revoke block whose
 * checksum matches; fills *ret. Data blocks never pass: jbd2 escapes those
 * that start with the magic.
 */
bool jbd2_header_at(struct walk *w, uint32_t pos, struct header *ret)
{
        const uint8_t *b = jbd2_held(w, pos);
        uint32_t type;

        if (!b || get_be32(b) != JBD2_MAGIC)
                return false;
        type = get_be32(b + 4);
        if (type != BLOCK_DESCRIPTOR && type != BLOCK_COMMIT && type != BLOCK_REVOKE)
                return false;
        if (!block_checksum_ok(w, b, type)) {
                w->rep->bad_checksums++;
                log_debug("journal: block %u has a wrong checksum", block_of(w, pos));
                return false;
        }
        unsigned tags = type == BLOCK_DESCRIPTOR ? count_tags(w, b) : 0;
        *ret = (struct header){
                .pos = pos,
                .type = type,
                .sequence = get_be32(b + 8),
                .next = wrap(w, (uint64_t)pos + 1 + tags),
        };
        /*
         * A descriptor of more tags than Linux before 5.5 listed says a newer one wrote the log:
         * one of full_tags_old tags is then a transaction's last, not a filled one.
         */
        if (tags > w->full_tags_old)
                w->after_5_5 = true;
        if (filled(w, tags)) {
                w->lattice = *ret;
                w->stride = tags + 1;
        }
        return true;
}

/* The commit that header h (a commit block, held) is. */
struct jbd2_commit jbd2_commit_of(const struct walk *w, const struct header *h)
{
        return (struct jbd2_commit){
                .found = true,
                .sequence = h->sequence,
                .block = block_of(w, h->pos),
                .time = commit_time(jbd2_held(w, h->pos)),
        };
}

/* For -v: "commit block 76, sequence 21, 2026-12-01T11:20:26Z". */
const char *jbd2_describe(const struct walk *w, const struct header *h, char *buf, size_t size)
{
        char a[ISO_TIME_MAX];
        usec_t t = h->type == BLOCK_COMMIT ? commit_time(jbd2_held(w, h->pos)) : 0;

        snprintf(buf, size, "%s block %u, sequence %u%s%s",
                h->type == BLOCK_COMMIT               ? "commit"
                        : h->type == BLOCK_DESCRIPTOR ? "descriptor"
                                                      : "revoke",
                block_of(w, h->pos), h->sequence, t ? ", " : "", t ? format_iso(a, t) : "");
        return buf;
}

/* The fields of journal superblock b, of that type, into r. */
static void superblock_fields(struct jbd2_report *r, const uint8_t *b, uint32_t type)
{
        r->blocksize = get_be32(b + JSB_BLOCKSIZE);
        r->maxlen = get_be32(b + JSB_MAXLEN);
        r->first = get_be32(b + JSB_FIRST);
        r->sequence = get_be32(b + JSB_SEQUENCE);
        r->start = get_be32(b + JSB_START);
        r->dirty = r->start != 0;
        if (type == BLOCK_SUPERBLOCK_V2) {
                r->feature_compat = get_be32(b + JSB_COMPAT);
                r->feature_incompat = get_be32(b + JSB_INCOMPAT);
                r->head = get_be32(b + JSB_HEAD);
        }
}

/*
 * Checks the block size, the features and the checksum of journal superblock
 * b, and fills what w needs to read the log's blocks: whether they carry
 * checksums, the seed, the size of tags. 0, or -errno with *reason.
 */
static int parse_features(struct walk *w, const uint8_t *b, const char **reason)
{
        const struct jbd2_report *r = w->rep;

        if (r->blocksize != w->src->blocksize) {
                *reason = "journal block size differs from the filesystem's";
                return -EUCLEAN;
        }
        if (r->feature_incompat & ~INCOMPAT_KNOWN) {
                *reason = "journal uses features this clockfix does not know";
                return -EOPNOTSUPP;
        }
        if ((r->feature_incompat & INCOMPAT_CSUM_V2) && (r->feature_incompat & INCOMPAT_CSUM_V3)) {
                *reason = "journal superblock claims checksums of versions 2 and 3";
                return -EUCLEAN;
        }

        w->csum = r->feature_incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3);
        if (w->csum) {
                if (b[JSB_CHECKSUM_TYPE] != CHECKSUM_CRC32C) {
                        *reason = "journal checksum type is not crc32c";
                        return -EUCLEAN;
                }
                /* The superblock's own: over its 1 KiB, seeded with ~0, not with the UUID. */
                if (!checksum_matches(b, ~0u, JSB_SIZE, JSB_CHECKSUM)) {
                        *reason = "journal superblock checksum does not match";
                        return -EUCLEAN;
                }
                w->seed = ext2fs_crc32c_le(~0u, b + 0x30, 16);
        }
        if (w->csum && (r->feature_incompat & INCOMPAT_CSUM_V3))
                w->tag_bytes = 16;
        else
                w->tag_bytes = 12 + (w->csum ? 2 : 0) - ((r->feature_incompat & INCOMPAT_64BIT) ? 0 : 4);
        /* The first tag carries the UUID, the others say it is the same. */
        w->max_tags = (uint32_t)((r->blocksize - HEADER_SIZE - 16) / w->tag_bytes + 1);
        /*
         * The tags jbd2 writes in a descriptor before it starts the next: it closes one when
         * what is left of the block would not hold another tag with a UUID and the checksum
         * tail (jbd2_journal_commit_transaction()): 253 of 16 bytes in 4 KiB, one short of what fits.
         */
        size_t left = r->blocksize - HEADER_SIZE - w->tag_bytes - 16;
        w->full_tags = 1;
        while (left >= w->tag_bytes + 16 + (w->csum ? TAIL_SIZE : 0)) {
                left -= w->tag_bytes;
                w->full_tags++;
        }
        /*
         * Before 5.5 jbd2 also closed one when its array of blocks to write, as many as 12-byte
         * tags fit in a block, the descriptor's own among them, was full: 340 tags in 4 KiB, fewer
         * than 32-bit tags fill.
         */
        w->full_tags_old = min_u32(w->full_tags, r->blocksize / 12 - 1);
        return 0;
}

/*
 * The blocks of the fast-commit area, which takes the end of the journal.
 * jbd2 clears its flag in the superblock whenever it empties the log, so the
 * filesystem's own feature says whether the area is there.
 */
static uint32_t fast_commit_blocks(const struct walk *w, const uint8_t *b, uint32_t type)
{
        const struct jbd2_report *r = w->rep;
        uint32_t fc_blocks = 0;

        if ((r->feature_incompat & INCOMPAT_FAST_COMMIT) || w->src->fast_commit) {
                fc_blocks = type == BLOCK_SUPERBLOCK_V2 ? get_be32(b + JSB_NUM_FC_BLOCKS) : 0;
                if (fc_blocks == 0)
                        fc_blocks = FAST_COMMIT_DEFAULT_BLOCKS;
                /* jbd2 turns fast commits off rather than leave a log under its minimum. */
                if (fc_blocks >= r->maxlen || r->maxlen - fc_blocks < JBD2_MIN_LOG_BLOCKS)
                        fc_blocks = 0;
        }
        return fc_blocks;
}

/* Checks where the log lies and fills its end and w->length. 0, or -EUCLEAN with *reason. */
static int parse_geometry(struct walk *w, uint32_t fc_blocks, const char **reason)
{
        const struct jbd2_source *src = w->src;
        struct jbd2_report *r = w->rep;

        if (r->maxlen > src->max_blocks) {
                *reason = "journal superblock claims more blocks than the journal has";
                return -EUCLEAN;
        }
        if (r->first <= src->sb_block || r->first >= r->maxlen || fc_blocks >= r->maxlen - r->first ||
                r->maxlen - fc_blocks - r->first < 2) {
                *reason = "journal superblock gives a log of impossible size";
                return -EUCLEAN;
        }
        r->last = r->maxlen - fc_blocks - 1;
        w->length = r->last - r->first + 1;
        if (r->dirty && !valid_block(r, r->start)) {
                *reason = "journal superblock puts the start of the log outside it";
                return -EUCLEAN;
        }
        return 0;
}

/* An external journal must list the filesystem among its users. 0, or -EUCLEAN with *reason. */
static int check_users(const struct walk *w, const uint8_t *b, uint32_t type, const char **reason)
{
        uint32_t users;
        bool listed = false;

        if (!w->src->fs_uuid)
                return 0;
        users = type == BLOCK_SUPERBLOCK_V2 ? get_be32(b + JSB_NR_USERS) : 0;
        for (uint32_t i = 0; i < users && i < JSB_MAX_USERS && !listed; i++)
                listed = memcmp(b + JSB_USERS + 16 * i, w->src->fs_uuid, 16) == 0;
        if (!listed) {
                *reason = "journal device does not list this filesystem as a user";
                return -EUCLEAN;
        }
        return 0;
}

/* Checks the journal superblock in w->buf and fills w and the geometry of w->rep. 0, or -errno with *reason.
 */
int jbd2_parse_superblock(struct walk *w, const char **reason)
{
        const uint8_t *b = w->buf;
        uint32_t type = get_be32(b + 4);
        int r;

        if (get_be32(b) != JBD2_MAGIC || (type != BLOCK_SUPERBLOCK_V1 && type != BLOCK_SUPERBLOCK_V2)) {
                *reason = "no journal superblock (bad magic number)";
                return -EMEDIUMTYPE;
        }
        superblock_fields(w->rep, b, type);
        r = parse_features(w, b, reason);
        if (r < 0)
                return r;
        r = parse_geometry(w, fast_commit_blocks(w, b, type), reason);
        if (r < 0)
                return r;
        return check_users(w, b, type, reason);
}

char *jbd2_features(const struct jbd2_report *r, char *buf, size_t size)
{
        static const struct {
                bool incompat;
                uint32_t bit;
                const char *name;
        } table[] = {
                { false, COMPAT_CHECKSUM, "checksum_v1" },
                { true, INCOMPAT_REVOKE, "revoke" },
                { true, INCOMPAT_64BIT, "64bit" },
                { true, INCOMPAT_ASYNC_COMMIT, "async_commit" },
                { true, INCOMPAT_CSUM_V2, "checksum_v2" },
                { true, INCOMPAT_CSUM_V3, "checksum_v3" },
                { true, INCOMPAT_FAST_COMMIT, "fast_commit" },
        };
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && n < size; i++)
                if ((table[i].incompat ? r->feature_incompat : r->feature_compat) & table[i].bit)
                        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", table[i].name);
        return buf;
}
