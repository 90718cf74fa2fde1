/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2: the newest plausible commit time of an ext3/4 journal, read through a callback (no I/O here) */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "jbd2.h"
#include "log.h"

/*
 * The on-disk format, big-endian, as Linux fs/jbd2 writes it. Every
 * descriptor, revoke and commit block starts with a 12-byte header: magic,
 * block type, and the sequence number (transaction ID) it belongs to. Data
 * blocks follow their descriptor and never start with the magic: jbd2
 * escapes those that would.
 */
#define JBD2_MAGIC 0xc03b3998u

enum {
        BLOCK_DESCRIPTOR = 1,
        BLOCK_COMMIT = 2,
        BLOCK_SUPERBLOCK_V1 = 3,
        BLOCK_SUPERBLOCK_V2 = 4,
        BLOCK_REVOKE = 5,
};

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
#define JSB_SIZE          1024
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

/*
 * Reads are what cost: on an SD card a read operation takes tens of
 * milliseconds wherever it lands, and a few hundred KiB more in the same read
 * about as much again. So the search reads runs of blocks at once: a probe
 * reads a chunk sized to hold a header (a transaction and a half, as large
 * as those it has seen, CHUNK_MIN to CHUNK_MAX blocks), a scan reads
 * CHUNK_MAX, a probe back PROBE_MAX.
 */
#define CHUNK_MIN 32u
#define PROBE_MAX 64u
#define CHUNK_MAX 256u

/*
 * Where no more than this is left between the run's last header known and
 * where it surely ends, it is read in one go: at SD card speeds a read costs
 * as much as about 160 blocks more in it.
 */
#define TAIL_BLOCKS 128u

/* The blocks read at the start of the run: its first transactions, which tell their size. */
#define START_CHUNK 16u

/*
 * The transaction IDs of one log go up by one from one transaction to the
 * next; across a mount they skip one or two (jbd2 starts a mount at the
 * superblock's s_sequence + 1, one past its last), more only when mounts
 * wrote nothing. Headers further apart are not one history.
 */
#define SEQUENCE_GAP_MAX 4u

/* Reads kept for the halving when the budget cannot read back to a plausible commit. */
#define HALVING_READS 8u

/* Unreadable blocks remembered, so that a block read again is not counted again. */
#define BAD_MAX 64u

struct header {
        uint32_t pos; /* in the log: 0 is its first block */
        uint32_t type;
        uint32_t sequence;
        uint32_t next; /* where the transaction's next header goes: after a descriptor's data blocks */
};

struct walk {
        const struct jbd2_source *src;
        const struct window *window;
        struct jbd2_report *rep;
        uint32_t length; /* blocks in the log: last - first + 1 */
        uint32_t max;    /* the highest sequence number the log can hold */
        bool restarts; /* no head recorded: mounts (before Linux 6.5) restarted the log at its first block */
        bool csum;     /* checksum v2 or v3 */
        uint32_t seed; /* crc32c of the journal's UUID */
        unsigned tag_bytes;
        uint32_t max_tags; /* data blocks one descriptor can list */
        /* The blocks held: held_n of them from log position held_pos, around the end if need be. */
        uint8_t *buf;
        uint8_t *unreadable; /* per block held */
        uint32_t held_pos, held_n;
        /* What the log has shown of the size of its transactions. */
        uint64_t seen_blocks, seen_transactions;
        /* Blocks that could not be read, counted once each in the report. */
        uint32_t bad[BAD_MAX];
        unsigned n_bad;
};

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

/* Sequence numbers wrap at 2^32; compare them the way jbd2 does. */
static bool seq_after(uint32_t a, uint32_t b)
{
        return (int32_t)(a - b) > 0;
}

static bool seq_between(uint32_t x, uint32_t lo, uint32_t hi)
{
        return !seq_after(lo, x) && !seq_after(x, hi);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
        return a < b ? a : b;
}

static uint32_t wrap(const struct walk *w, uint64_t pos)
{
        return (uint32_t)(pos % w->length);
}

/* Blocks from `from` forward to `to`, around the end of the log if need be. */
static uint32_t distance(const struct walk *w, uint32_t from, uint32_t to)
{
        return to >= from ? to - from : w->length - (from - to);
}

static uint32_t block_of(const struct walk *w, uint32_t pos)
{
        return w->rep->first + pos;
}

static bool is_held(const struct walk *w, uint32_t pos)
{
        return w->held_n > 0 && distance(w, w->held_pos, pos) < w->held_n;
}

/* Whether a block held could not be read. */
static bool unreadable_held(const struct walk *w)
{
        return memchr(w->unreadable, 1, w->held_n) != NULL;
}

/* Block pos, if it is held and could be read; else NULL. */
static const uint8_t *held(const struct walk *w, uint32_t pos)
{
        uint32_t i = distance(w, w->held_pos, pos);

        if (w->held_n == 0 || i >= w->held_n || w->unreadable[i])
                return NULL;
        return w->buf + (size_t)i * w->rep->blocksize;
}

/* Whether the budget allows another read; when not, says so in the report. */
static bool may_read(struct walk *w)
{
        if (w->rep->reads < w->rep->budget)
                return true;
        w->rep->budget_exhausted = true;
        return false;
}

/*
 * Reads n blocks from pos (not past the end of the log) in one read; when
 * that fails, each half again, so that the blocks that can be read are, in a
 * few more reads. Blocks that cannot be read, or not within the budget, are
 * marked unreadable.
 */
static void read_run(struct walk *w, uint32_t pos, uint32_t n, uint8_t *buf, uint8_t *unreadable)
{
        const size_t size = w->rep->blocksize;

        /* A block known to be unreadable is not read again: what is around it is. */
        for (unsigned i = 0; i < w->n_bad; i++)
                if (w->bad[i] >= pos && w->bad[i] - pos < n) {
                        uint32_t k = w->bad[i] - pos;

                        if (k > 0)
                                read_run(w, pos, k, buf, unreadable);
                        unreadable[k] = 1;
                        if (n - k - 1 > 0)
                                read_run(
                                        w, pos + k + 1, n - k - 1, buf + (k + 1) * size, unreadable + k + 1);
                        return;
                }
        if (!may_read(w)) {
                memset(unreadable, 1, n);
                return;
        }
        w->rep->reads++;
        w->rep->blocks_read += n;
        if (w->src->read(w->src->userdata, block_of(w, pos), n, buf) == 0) {
                memset(unreadable, 0, n);
                return;
        }
        if (n == 1) {
                unreadable[0] = 1;
                for (unsigned i = 0; i < w->n_bad; i++)
                        if (w->bad[i] == pos)
                                return; /* counted already */
                if (w->n_bad < BAD_MAX)
                        w->bad[w->n_bad++] = pos;
                w->rep->read_errors++;
                log_debug("journal: block %u cannot be read", block_of(w, pos));
                return;
        }
        uint32_t half = n / 2;
        read_run(w, pos, half, buf, unreadable);
        read_run(w, pos + half, n - half, buf + half * size, unreadable + half);
}

/*
 * Holds the n blocks from pos (n at most CHUNK_MAX and the log's length),
 * reading what is not held yet in one read (two around the end of the log):
 * blocks that continue those held are read on from them. Returns how many
 * blocks from pos are held (fewer than n when the budget ran out), or
 * -ENOBUFS when none.
 */
static int load(struct walk *w, uint32_t pos, uint32_t n)
{
        struct jbd2_report *r = w->rep;
        const size_t size = r->blocksize;
        uint32_t keep = 0;

        n = min_u32(min_u32(n, CHUNK_MAX), w->length);
        if (is_held(w, pos)) {
                uint32_t i = distance(w, w->held_pos, pos);

                keep = w->held_n - i;
                if (keep >= n)
                        return (int)n;
                memmove(w->buf, w->buf + i * size, keep * size);
                memmove(w->unreadable, w->unreadable + i, keep);
        }
        w->held_pos = pos;
        w->held_n = keep;
        while (w->held_n < n && may_read(w)) {
                uint32_t at = wrap(w, (uint64_t)pos + w->held_n);
                uint32_t run = min_u32(n - w->held_n, w->length - at);

                read_run(w, at, run, w->buf + w->held_n * size, w->unreadable + w->held_n);
                w->held_n += run;
        }
        return w->held_n > 0 ? (int)w->held_n : -ENOBUFS;
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

static bool plausible(const struct walk *w, usec_t t)
{
        return t != 0 && t >= w->window->floor && t <= w->window->not_after;
}

static bool all_zero(const uint8_t *p, size_t size)
{
        return p[0] == 0 && memcmp(p, p + 1, size - 1) == 0;
}

/*
 * Whether block pos is held and is a descriptor, commit or revoke block whose
 * checksum matches; fills *ret. Data blocks never pass: jbd2 escapes those
 * that start with the magic.
 */
static bool header_at(struct walk *w, uint32_t pos, struct header *ret)
{
        const uint8_t *b = held(w, pos);
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
        *ret = (struct header){
                .pos = pos,
                .type = type,
                .sequence = get_be32(b + 8),
                .next = wrap(w, (uint64_t)pos + 1 + (type == BLOCK_DESCRIPTOR ? count_tags(w, b) : 0)),
        };
        return true;
}

/* The commit that header h (a commit block, held) is. */
static struct jbd2_commit commit_of(const struct walk *w, const struct header *h)
{
        return (struct jbd2_commit){
                .found = true,
                .sequence = h->sequence,
                .block = block_of(w, h->pos),
                .time = commit_time(held(w, h->pos)),
        };
}

/* For -v: "commit block 76, sequence 21, 2026-12-01T11:20:26Z". */
static const char *describe(const struct walk *w, const struct header *h, char *buf, size_t size)
{
        char a[ISO_TIME_MAX];
        usec_t t = h->type == BLOCK_COMMIT ? commit_time(held(w, h->pos)) : 0;

        snprintf(buf, size, "%s block %u, sequence %u%s%s",
                h->type == BLOCK_COMMIT               ? "commit"
                        : h->type == BLOCK_DESCRIPTOR ? "descriptor"
                                                      : "revoke",
                block_of(w, h->pos), h->sequence, t ? ", " : "", t ? format_iso(a, t) : "");
        return buf;
}

/* Whether a is nearer the newest sequence the log can hold than b: the newer of two commits. */
static bool newer(const struct walk *w, uint32_t a, uint32_t b)
{
        return w->max - a < w->max - b;
}

/* A commit found: the newest and the newest plausible are kept, as the highest sequence numbers. */
static void record(struct walk *w, const struct jbd2_commit *c)
{
        struct jbd2_report *r = w->rep;

        if (seq_after(c->sequence, w->max))
                return;
        if (!r->newest.found || newer(w, c->sequence, r->newest.sequence))
                r->newest = *c;
        if (plausible(w, c->time) && (!r->best.found || newer(w, c->sequence, r->best.sequence)))
                r->best = *c;
}

/* The size of a probe: a transaction and a half, as far as the log has shown them: a header is in it. */
static uint32_t probe_blocks(const struct walk *w)
{
        uint64_t n = START_CHUNK;

        if (w->seen_transactions > 0) {
                uint64_t size = (w->seen_blocks + w->seen_transactions - 1) / w->seen_transactions;
                n = size + size / 2 + 2;
        }
        return n < CHUNK_MIN ? CHUNK_MIN : n > CHUNK_MAX ? CHUNK_MAX : (uint32_t)n;
}

/*
 * The run of transactions that holds the newest commit: from its first header
 * (pos0, seq0) on, each header followed by the next, up to where the log was
 * last written. Positions are offsets from pos0.
 */
struct run {
        uint32_t pos0, seq0;
        uint32_t
                target; /* the sequence number of the newest transaction, when the superblock says; else 0 */
        struct header last;        /* the furthest header of the run known */
        uint32_t hi;               /* the run ends before this offset */
        bool ended;                /* last is the run's last header */
        struct jbd2_commit commit; /* the newest commit of the run known */
        uint32_t commit_pos;
        bool landed; /* last was found by a probe, not by following: the commit before it is unknown */
        uint32_t landed_from; /* then: where following had stopped */
};

static uint32_t offset(const struct walk *w, const struct run *run, uint32_t pos)
{
        return distance(w, run->pos0, pos);
}

/* Whether header h, in the block where the run's next header goes, continues the run. */
static bool continues(const struct walk *w, const struct run *run, const struct header *h)
{
        const struct header *last = &run->last;

        if (last->type != BLOCK_COMMIT)
                return h->sequence == last->sequence; /* the same transaction goes on */
        return seq_between(h->sequence, last->sequence + 1,
                seq_after(last->sequence + SEQUENCE_GAP_MAX, w->max) ? w->max
                                                                     : last->sequence + SEQUENCE_GAP_MAX);
}

static void take(struct walk *w, struct run *run, const struct header *h)
{
        run->last = *h;
        if (h->type == BLOCK_DESCRIPTOR && w->seen_transactions == 0) {
                /* Until a commit tells: a transaction as large as this descriptor's. */
                w->seen_blocks = distance(w, h->pos, h->next) + 1;
                w->seen_transactions = 1;
        }
        if (h->type != BLOCK_COMMIT)
                return;
        run->commit = commit_of(w, h);
        run->commit_pos = h->pos;
        run->landed = false;
        if (h->sequence != run->seq0) {
                w->seen_blocks = offset(w, run, h->pos) + 1;
                w->seen_transactions = h->sequence - run->seq0 + 1;
        }
        if (log_debug_enabled()) {
                char buf[128];
                log_debug("journal: transaction %u: %s%s", h->sequence, describe(w, h, buf, sizeof(buf)),
                        plausible(w, run->commit.time) ? "" : " (not plausible)");
        }
}

/*
 * Follows the run from its last header while the blocks are held: each
 * header names where the next one goes. A block there that is not a header
 * of the run (zeros, data, an older transaction, a torn one) ends it.
 * An unreadable block stops the walk without ending the run.
 */
static void follow(struct walk *w, struct run *run)
{
        while (!run->ended) {
                uint32_t next = run->last.next, off = offset(w, run, next);
                struct header h;

                if (off <= offset(w, run, run->last.pos) || off >= run->hi) {
                        run->ended = true; /* the end of what the run can hold, or around the log */
                        return;
                }
                if (!is_held(w, next) || !held(w, next))
                        return;
                if (!header_at(w, next, &h) || !continues(w, run, &h)) {
                        run->ended = true;
                        return;
                }
                take(w, run, &h);
        }
}

/*
 * The first header among the blocks held from pos; with_data is set when a
 * block there is neither a header nor zeros, or could not be read.
 */
static bool first_header(struct walk *w, uint32_t pos, uint32_t n, struct header *ret, bool *with_data)
{
        *with_data = false;
        for (uint32_t i = 0; i < n; i++) {
                uint32_t p = wrap(w, (uint64_t)pos + i);
                const uint8_t *b = held(w, p);

                if (!b) {
                        *with_data = true; /* unreadable: it says nothing of where the log ends */
                        continue;
                }
                if (header_at(w, p, ret))
                        return true;
                if (!all_zero(b, w->rep->blocksize))
                        *with_data = true;
        }
        return false;
}

/*
 * Probes the run at offset d: reads a chunk there and takes the first header
 * it holds. One of the run's, newer than its last: the run goes on there.
 * Another (an older lap, a torn transaction's leftovers), or nothing but
 * zeros: the run's commits all lie before d. Only data: read on as far as a
 * header must come within the run (a descriptor lists at most max_tags data
 * blocks); none there either: before d too.
 */
static int probe(struct walk *w, struct run *run, uint32_t d)
{
        uint32_t pos = wrap(w, (uint64_t)run->pos0 + d), span = run->hi - d;
        uint32_t n = min_u32(probe_blocks(w), span), read = 0, at = pos;
        struct header h;
        bool found = false, with_data = false;
        char buf[128];

        for (;;) {
                bool data;
                int k = load(w, at, n);

                if (k < 0)
                        return k;
                found = first_header(w, at, (uint32_t)k, &h, &data);
                with_data |= data;
                read += (uint32_t)k;
                if ((uint32_t)k < n && !found)
                        return -ENOBUFS; /* not all of it read: no conclusion */
                if (found || !with_data || read >= span)
                        break;
                /* Past where a header must come, unless blocks could not be read: read on past them. */
                if (read >= w->max_tags + 2 && !unreadable_held(w))
                        break;
                at = wrap(w, (uint64_t)at + (uint32_t)k);
                n = min_u32(read < w->max_tags + 2 ? w->max_tags + 2 - read : probe_blocks(w), CHUNK_MAX);
                n = min_u32(n, span - read);
        }
        log_debug("journal: probe at block %u, %u block(s): %s", block_of(w, pos), (unsigned)read,
                found               ? describe(w, &h, buf, sizeof(buf))
                        : with_data ? "data blocks only"
                                    : "zeros, never written");
        /*
         * A header of the run: newer than its last, or of the same transaction further on, within
         * what one transaction can span (jbd2 holds one to a quarter of the journal): further,
         * it is the same transaction's start, come around the end of the log before the run.
         */
        bool same = found && h.sequence == run->last.sequence && run->last.type != BLOCK_COMMIT &&
                distance(w, run->last.pos, h.pos) <= w->length / 4 + w->max_tags + 2;
        if (found && (seq_after(h.sequence, run->last.sequence) || same) && !seq_after(h.sequence, w->max)) {
                if (!run->landed)
                        run->landed_from = run->last.next;
                take(w, run, &h);
                run->landed = h.type != BLOCK_COMMIT;
                return 0;
        }
        run->hi = d;
        return 0;
}

/* Where to probe next, between the next header of the run and where it surely ends. */
static uint32_t next_probe(const struct walk *w, const struct run *run, bool bisect)
{
        uint32_t lo = offset(w, run, run->last.next), hi = run->hi;
        uint32_t d = lo + (hi - lo) / 2;

        /*
         * When the superblock gives the newest transaction's number, the
         * transactions seen so far tell about where it is: probe a little
         * before that, so that the chunk holds it.
         */
        if (!bisect && run->target && w->seen_transactions > 0) {
                uint64_t last_off = offset(w, run, run->last.pos);
                uint64_t ahead = (uint64_t)(run->target - run->last.sequence) * w->seen_blocks /
                        w->seen_transactions;
                uint64_t half = probe_blocks(w) / 2;
                uint64_t est = last_off + (ahead > half ? ahead - half : 0);

                d = est <= lo ? lo + 1 : est >= hi ? hi - 1 : (uint32_t)est;
        }
        return d;
}

/*
 * The commit of the transaction before the one that probe landed on, when
 * that one turned out to have no commit (power went while it was written):
 * it lies between where following had stopped and the landing.
 */
static int commit_before_landing(struct walk *w, struct run *run)
{
        uint32_t from = run->landed_from, to = run->last.pos;
        uint32_t todo = distance(w, from, to);

        while (todo > 0) {
                uint32_t n = min_u32(todo, CHUNK_MAX), pos = wrap(w, (uint64_t)from + todo - n);
                int k = load(w, pos, n);

                if (k < 0)
                        return k;
                for (uint32_t i = (uint32_t)k; i-- > 0;) {
                        struct header h;

                        if (header_at(w, wrap(w, (uint64_t)pos + i), &h) && h.type == BLOCK_COMMIT &&
                                (!run->commit.found || seq_after(h.sequence, run->commit.sequence)) &&
                                seq_after(run->last.sequence, h.sequence) &&
                                /* the run's: not older than its first transaction */
                                !seq_after(run->seq0, h.sequence)) {
                                take(w, run, &h);
                                return 0;
                        }
                }
                todo -= n;
        }
        return 0;
}

/*
 * Finds the end of the run: follows it where that costs a read or so, and
 * elsewhere probes between the last header known and where the run surely
 * ends, by interpolation on sequence numbers when the newest one is known,
 * else by halving; each probe is one read. 0 (the end found, or the budget
 * spent: run->commit is the newest commit known either way), or -ENOBUFS.
 */
static int find_end(struct walk *w, struct run *run)
{
        unsigned interpolated = 0;
        uint32_t width = run->hi;
        int k;

        for (;;) {
                follow(w, run);
                if (run->ended)
                        break;
                uint32_t nk = offset(w, run, run->last.next), gap = run->hi - nk;
                uint32_t chunk = probe_blocks(w);

                if (is_held(w, run->last.next)) {
                        /* Unreadable: look for the run beyond it. */
                        k = nk + 1 < run->hi ? probe(w, run, nk + 1) : (run->ended = true, 0);
                } else if (gap <= 2 * chunk || gap <= TAIL_BLOCKS) {
                        k = load(w, run->last.next, gap);
                } else {
                        /* Interpolation while it narrows the span by half, halving when it does not. */
                        bool bisect = interpolated > 0 && run->hi - nk > width / 2;
                        uint32_t d = next_probe(w, run, bisect);

                        /*
                         * A dirty log: jbd2 moves the start of the log on the disk when that frees
                         * a quarter of the journal, so unless writing outran the flushing, the log
                         * ends within a quarter or so of it. Look there first.
                         */
                        if (!run->target && width == run->hi && width == w->length)
                                d = nk + (run->hi - nk) / 4;

                        width = run->hi - nk;
                        interpolated = bisect ? 0 : interpolated + 1;
                        k = d - nk < chunk ? load(w, run->last.next, chunk) : probe(w, run, d);
                }
                if (k < 0)
                        return k;
        }
        if (run->landed)
                return commit_before_landing(w, run);
        return 0;
}

/*
 * The first header of the run at pos: the one there when it is expected
 * there (sequence, when not 0), else the first in the chunk read from pos.
 * 1 with *ret, 0 when there is none, -ENOBUFS.
 */
static int run_start(struct walk *w, uint32_t pos, uint32_t sequence, struct header *ret)
{
        bool with_data;
        int k = load(w, pos, START_CHUNK);

        if (k < 0)
                return k;
        if (sequence)
                return header_at(w, pos, ret) && ret->sequence == sequence;
        if (first_header(w, pos, (uint32_t)k, ret, &with_data))
                return !seq_after(ret->sequence, w->max);
        return 0;
}

/*
 * Linux >= 6.5 records in a clean superblock where the next transaction
 * goes: the newest commit is the block before it, numbered s_sequence - 1
 * (or a few less after mounts that wrote nothing). 1 with *ret, 0, -ENOBUFS.
 */
static int commit_before_head(struct walk *w, struct header *ret)
{
        const struct jbd2_report *r = w->rep;
        uint32_t pos = wrap(w, (uint64_t)(r->head - r->first) + w->length - 1);
        char buf[128];
        int k = load(w, pos, 1);

        if (k < 0)
                return k;
        bool found = header_at(w, pos, ret);
        log_debug("journal: look at block %u, before the head: %s", block_of(w, pos),
                found ? describe(w, ret, buf, sizeof(buf)) : "no header");
        /* One under s_sequence; two or more after mounts that wrote nothing. */
        return found && ret->type == BLOCK_COMMIT &&
                seq_between(ret->sequence, r->sequence - 1 - SEQUENCE_GAP_MAX, r->sequence - 1);
}

/*
 * Every commit the blocks from pos on hold, n of them, read CHUNK_MAX at a
 * time: what an exhaustive reading of the log finds there. 0, or -ENOBUFS.
 */
static int scan(struct walk *w, uint32_t pos, uint32_t n)
{
        while (n > 0) {
                int k = load(w, pos, min_u32(n, CHUNK_MAX));

                if (k < 0)
                        return k;
                for (uint32_t i = 0; i < (uint32_t)k; i++) {
                        struct header h;

                        if (header_at(w, wrap(w, (uint64_t)pos + i), &h) && h.type == BLOCK_COMMIT) {
                                struct jbd2_commit c = commit_of(w, &h);
                                record(w, &c);
                        }
                }
                pos = wrap(w, (uint64_t)pos + (uint32_t)k);
                n -= (uint32_t)k;
        }
        return 0;
}

/*
 * Probes back at distance `back` from the newest commit (at pos, numbered
 * sequence): records the older commits in a chunk there, and narrows *near
 * (the furthest implausible one seen nearer than *far) and *far (the
 * nearest plausible one seen), distances back from pos. 1 when the chunk
 * held a commit, 0 when not, -ENOBUFS.
 */
static int probe_back(
        struct walk *w, uint32_t pos, uint32_t back, uint32_t sequence, uint32_t *near, uint32_t *far)
{
        uint32_t from = wrap(w, (uint64_t)pos + w->length - back), n = min_u32(PROBE_MAX, back);
        unsigned commits = 0;
        int k = load(w, from, n);

        if (k < 0)
                return k;
        for (uint32_t i = 0; i < (uint32_t)k; i++) {
                struct header h;

                if (!header_at(w, wrap(w, (uint64_t)from + i), &h) || h.type != BLOCK_COMMIT ||
                        !seq_after(sequence, h.sequence))
                        continue;
                struct jbd2_commit c = commit_of(w, &h);
                uint32_t at = distance(w, h.pos, pos);

                record(w, &c);
                commits++;
                if (plausible(w, c.time)) {
                        if (*far == 0 || at < *far)
                                *far = at;
                } else if (at > *near && (*far == 0 || at < *far))
                        *near = at;
        }
        log_debug("journal: probe back at block %u, %u block(s): %u older commit(s); plausible %u blocks "
                  "back, implausible %u",
                block_of(w, from), (unsigned)k, commits, *far, *near);
        return commits > 0;
}

/*
 * The run of transactions that follows the newest commit (at newest_pos,
 * numbered newest), stepping over the transaction power cut short right
 * after it: before Linux 6.5 every mount restarted the log at its first
 * block, and the previous boot's newest transactions survive after this
 * boot's. 1 with *ret its first header, 0 when there is none, -ENOBUFS.
 */
static int older_run(struct walk *w, uint32_t newest_pos, uint32_t newest, struct header *ret)
{
        uint32_t pos = wrap(w, (uint64_t)newest_pos + 1);

        for (unsigned i = 0; i < 2; i++) {
                bool with_data;
                int k = load(w, pos, START_CHUNK);

                if (k < 0)
                        return k;
                if (!first_header(w, pos, (uint32_t)k, ret, &with_data))
                        return 0;
                if (seq_after(newest, ret->sequence))
                        return 1;
                if (ret->sequence != newest + 1)
                        return 0;
                pos = ret->next; /* the torn transaction: past its descriptor's blocks */
        }
        return 0;
}

/*
 * The newest commit (at newest_pos) is implausible: a boot with a wrong
 * clock. Plausibility then says nothing about where the answer is (boots
 * with right and wrong clocks may alternate), so every commit newer than the
 * answer must be read. Reads back from the newest commit, CHUNK_MAX blocks
 * at a time, while the headers go down one transaction at a time, as one
 * history does: the first plausible commit met is the answer, since what is
 * not read yet is older. Headers that break that order are the leftovers of
 * older laps (before Linux 6.5 every mount restarts the log at its first
 * block), in no order: the rest of the log is then read whole, from after the
 * newest commit on. 0, or -ENOBUFS.
 */
static int scan_back(struct walk *w, uint32_t newest_pos, uint32_t newest_sequence)
{
        uint32_t prev = newest_sequence, next = newest_pos, done = 1, pos = newest_pos;

        while (done < w->length) {
                uint32_t n = min_u32(CHUNK_MAX, w->length - done),
                         from = wrap(w, (uint64_t)pos + w->length - n);
                int k = load(w, from, n);

                if (k < 0)
                        return k;
                if ((uint32_t)k < n)
                        return -ENOBUFS;
                for (uint32_t i = n; i-- > 0;) {
                        uint32_t p = wrap(w, (uint64_t)from + i);
                        struct header h;
                        bool in_order;

                        if (p == w->length - 1 && w->restarts)
                                in_order = false; /* back past the first block, where every mount started */
                        else if (!header_at(w, p, &h))
                                continue;
                        else
                                /*
                                 * Going back, each header is the one before the last met: its
                                 * transaction's next header, or the next transaction's first, is
                                 * where that one is; and the sequence goes down by one at a time,
                                 * a few across a mount. A header of a transaction whose commit was
                                 * not met before it was cut short, or goes on around the end of the
                                 * log.
                                 */
                                in_order = h.next == next && !seq_after(h.sequence, prev) &&
                                        prev - h.sequence <= SEQUENCE_GAP_MAX &&
                                        (h.type == BLOCK_COMMIT || h.sequence == prev);
                        if (!in_order) {
                                log_debug("journal: block %u is not of the history before block %u: reading "
                                          "the rest of the log",
                                        block_of(w, p), block_of(w, next));
                                return scan(w, wrap(w, (uint64_t)newest_pos + 1),
                                        distance(w, newest_pos, p) + 1);
                        }
                        prev = h.sequence;
                        next = p;
                        if (h.type != BLOCK_COMMIT)
                                continue;
                        struct jbd2_commit c = commit_of(w, &h);
                        record(w, &c);
                        if (plausible(w, c.time)) {
                                if (log_debug_enabled()) {
                                        char buf[128];
                                        log_debug("journal: newest plausible commit: %s",
                                                describe(w, &h, buf, sizeof(buf)));
                                }
                                return 0;
                        }
                }
                done += n;
                pos = from;
        }
        return 0;
}

/* Whether the reads left can read n blocks, a chunk a read (and one more around the end of the log). */
static bool affordable(const struct walk *w, uint64_t n)
{
        const struct jbd2_report *r = w->rep;
        uint64_t left = r->budget > r->reads ? r->budget - r->reads : 0;

        return left >= 2 && (left - 2) * CHUNK_MAX >= n;
}

/*
 * The newest commit of the run after the newest commit (at newest_pos,
 * numbered newest): before Linux 6.5 every mount restarted the log at its
 * first block, and the previous boot's newest transactions survive after
 * this boot's. Recorded. 0, or -ENOBUFS.
 */
static int previous_boot(struct walk *w, uint32_t newest_pos, uint32_t newest)
{
        struct run older;
        struct header h;
        int k = older_run(w, newest_pos, newest, &h);

        if (k <= 0)
                return k;
        older = (struct run){ .pos0 = h.pos, .seq0 = h.sequence, .hi = distance(w, h.pos, newest_pos) };
        log_debug("journal: the run after the newest commit, from block %u", block_of(w, h.pos));
        take(w, &older, &h);
        k = find_end(w, &older);
        if (older.commit.found)
                record(w, &older.commit);
        return k;
}

/*
 * The newest commit (at newest_pos, numbered newest) has an implausible
 * time. When the budget can read the whole log, scan_back() gives the
 * answer. Else a gallop back from the newest commit, probing at doubling
 * distances up to `reach`, looks for a plausible commit: when the budget can
 * read back to it, scan_back() again. When it cannot, the answer is found as
 * one boot's clock behaves (wrong from its start, right once set:
 * plausibility changes once along it), halving the distance between the
 * plausible commit and the nearest implausible one; when the gallop found
 * none, in the run after the newest commit (previous_boot()). That is a
 * commit that is there, but a newer plausible one may lie where the search
 * did not read: the report says the budget was spent. 0, or -ENOBUFS.
 */
static int implausible_newest(struct walk *w, uint32_t newest_pos, uint32_t newest, uint32_t reach)
{
        uint32_t near = 0,
                 far = 0; /* distances back from the newest: an implausible commit, a plausible one */
        int k;

        if (affordable(w, w->length))
                return scan_back(w, newest_pos, newest);
        for (uint64_t back = PROBE_MAX; !far && reach > 0; back *= 2) {
                k = probe_back(w, newest_pos, (uint32_t)min_u32((uint32_t)min_u32(back, UINT32_MAX), reach),
                        newest, &near, &far);
                if (k < 0)
                        return k;
                if (back >= reach)
                        break;
        }
        if (far > 0 && affordable(w, far))
                return scan_back(w, newest_pos, newest);
        if (far > 0 && w->rep->budget > w->rep->reads + HALVING_READS + 2) {
                /*
                 * The gallop may have stepped over the answer, nearer than that plausible
                 * commit: read back as far as the budget allows, keeping enough to halve.
                 */
                unsigned budget = w->rep->budget;

                w->rep->budget = budget - HALVING_READS;
                k = scan_back(w, newest_pos, newest);
                w->rep->budget = budget;
                if (k == 0) {
                        w->rep->budget_exhausted = false;
                        return 0;
                }
        }

        w->rep->budget_exhausted = true;
        log_debug("journal: the budget cannot read back to the newest plausible commit: looking for one by "
                  "halving");
        if (far == 0)
                return previous_boot(w, newest_pos, newest);
        while (far > near && far - near > PROBE_MAX) {
                uint32_t mid = near + (far - near) / 2, was_near = near, was_far = far;

                k = probe_back(w, newest_pos, mid, newest, &near, &far);
                if (k < 0)
                        return k;
                if (k == 0)
                        far = mid; /* no commit there: nearer the plausible one */
                else if (near == was_near && far == was_far)
                        near = mid; /* none between the nearer implausible one and mid: further back */
        }
        if (far > near) /* what is left between them, in one read */
                return probe_back(w, newest_pos, far, newest, &near, &far) < 0 ? -ENOBUFS : 0;
        return 0;
}

static bool valid_block(const struct jbd2_report *r, uint32_t block)
{
        return block >= r->first && block <= r->last;
}

/* Checks the journal superblock in w->buf and fills w and the geometry of w->rep. 0, or -errno with *reason.
 */
static int parse_superblock(struct walk *w, const char **reason)
{
        const struct jbd2_source *src = w->src;
        struct jbd2_report *r = w->rep;
        const uint8_t *b = w->buf;
        uint32_t type = get_be32(b + 4), fc_blocks = 0;

        if (get_be32(b) != JBD2_MAGIC || (type != BLOCK_SUPERBLOCK_V1 && type != BLOCK_SUPERBLOCK_V2))
                return *reason = "no journal superblock (bad magic number)", -EMEDIUMTYPE;

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

        if (r->blocksize != src->blocksize)
                return *reason = "journal block size differs from the filesystem's", -EUCLEAN;
        if (r->feature_incompat & ~INCOMPAT_KNOWN)
                return *reason = "journal uses features this clockfix does not know", -EOPNOTSUPP;
        if ((r->feature_incompat & INCOMPAT_CSUM_V2) && (r->feature_incompat & INCOMPAT_CSUM_V3))
                return *reason = "journal superblock claims checksums of versions 2 and 3", -EUCLEAN;

        w->csum = r->feature_incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3);
        if (w->csum) {
                if (b[JSB_CHECKSUM_TYPE] != CHECKSUM_CRC32C)
                        return *reason = "journal checksum type is not crc32c", -EUCLEAN;
                /* The superblock's own: over its 1 KiB, seeded with ~0, not with the UUID. */
                if (!checksum_matches(b, ~0u, JSB_SIZE, JSB_CHECKSUM))
                        return *reason = "journal superblock checksum does not match", -EUCLEAN;
                w->seed = ext2fs_crc32c_le(~0u, b + 0x30, 16);
        }
        if (w->csum && (r->feature_incompat & INCOMPAT_CSUM_V3))
                w->tag_bytes = 16;
        else
                w->tag_bytes = 12 + (w->csum ? 2 : 0) - ((r->feature_incompat & INCOMPAT_64BIT) ? 0 : 4);
        /* The first tag carries the UUID, the others say it is the same. */
        w->max_tags = (uint32_t)((r->blocksize - HEADER_SIZE - 16) / w->tag_bytes + 1);

        /*
         * The fast-commit area takes the end of the journal. jbd2 clears its
         * flag in the superblock whenever it empties the log, so the
         * filesystem's own feature says whether the area is there.
         */
        if ((r->feature_incompat & INCOMPAT_FAST_COMMIT) || src->fast_commit) {
                fc_blocks = type == BLOCK_SUPERBLOCK_V2 ? get_be32(b + JSB_NUM_FC_BLOCKS) : 0;
                if (fc_blocks == 0)
                        fc_blocks = FAST_COMMIT_DEFAULT_BLOCKS;
                /* jbd2 turns fast commits off rather than leave a log under its minimum. */
                if (fc_blocks >= r->maxlen || r->maxlen - fc_blocks < JBD2_MIN_LOG_BLOCKS)
                        fc_blocks = 0;
        }

        if (r->maxlen > src->max_blocks)
                return *reason = "journal superblock claims more blocks than the journal has", -EUCLEAN;
        if (r->first <= src->sb_block || r->first >= r->maxlen || fc_blocks >= r->maxlen - r->first ||
                r->maxlen - fc_blocks - r->first < 2)
                return *reason = "journal superblock gives a log of impossible size", -EUCLEAN;
        r->last = r->maxlen - fc_blocks - 1;
        w->length = r->last - r->first + 1;
        if (r->dirty && !valid_block(r, r->start))
                return *reason = "journal superblock puts the start of the log outside it", -EUCLEAN;

        if (src->fs_uuid) {
                uint32_t users = type == BLOCK_SUPERBLOCK_V2 ? get_be32(b + JSB_NR_USERS) : 0;
                bool listed = false;

                for (uint32_t i = 0; i < users && i < JSB_MAX_USERS && !listed; i++)
                        listed = memcmp(b + JSB_USERS + 16 * i, src->fs_uuid, 16) == 0;
                if (!listed)
                        return *reason = "journal device does not list this filesystem as a user", -EUCLEAN;
        }
        return 0;
}

/* Whether the blocks held are all zeros: never written. */
static bool held_zeros(const struct walk *w)
{
        for (uint32_t i = 0; i < w->held_n; i++) {
                const uint8_t *b = held(w, wrap(w, (uint64_t)w->held_pos + i));
                if (b && !all_zero(b, w->rep->blocksize))
                        return false;
        }
        return true;
}

/*
 * Finds the newest commit of the log, and when its time is not plausible the
 * newest that is. Where the newest transactions are: a dirty log starts at
 * s_start with s_sequence; a clean one was emptied with s_sequence one past
 * its last transaction. Linux >= 6.5 keeps writing the log around across
 * mounts and records in s_head where the next transaction goes, so the newest
 * commit is the block before it; older kernels restart the log at s_first at
 * every mount. 0, or -ENOBUFS (what was found stands).
 */
static int search(struct walk *w)
{
        struct jbd2_report *r = w->rep;
        struct run run = { .hi = w->length };
        struct header h;
        int k = 0;

        w->restarts = !valid_block(r, r->head);
        if (!r->dirty && valid_block(r, r->head)) {
                k = commit_before_head(w, &h);
                if (k < 0)
                        return k;
                if (k > 0) {
                        struct jbd2_commit c = commit_of(w, &h);

                        record(w, &c);
                        return plausible(w, c.time)
                                ? 0
                                : implausible_newest(w, h.pos, h.sequence, w->length - 1);
                }
        }
        if (r->dirty) {
                run.pos0 = r->start - r->first;
                k = run_start(w, run.pos0, r->sequence, &h);
                if (k == 0)
                        log_debug(
                                "journal: no transaction %u at block %u, where the log starts: looking from "
                                "block %u",
                                r->sequence, r->start, r->first);
        }
        if (k == 0) {
                run.pos0 = 0;
                k = run_start(w, 0, 0, &h);
        }
        if (k < 0)
                return k;
        if (k == 0)
                /* Zeros where the log starts: never written. Else a log in no order known: read it all. */
                return held_zeros(w) ? 0 : scan(w, 0, w->length);

        run.seq0 = h.sequence;
        run.target = r->dirty ? 0 : r->sequence - 1;
        take(w, &run, &h);
        k = find_end(w, &run);
        if (run.commit.found) {
                record(w, &run.commit);
                r->wrapped = run.commit_pos < run.pos0;
        }
        if (k < 0)
                return k;
        if (!run.commit.found) /* no complete transaction where the log goes on: read it all */
                return scan(w, run.pos0, w->length);
        if (plausible(w, run.commit.time))
                return 0;
        /*
         * Galloping back reaches the whole log; not when the run starts at the first block (older
         * kernels), whose previous boot lies after it, not before.
         */
        return implausible_newest(
                w, run.commit_pos, run.commit.sequence, run.pos0 == 0 ? run.commit_pos : w->length - 1);
}

int jbd2_find_commit(const struct jbd2_source *src, const struct window *window, unsigned budget,
        struct jbd2_report *ret, const char **ret_reason)
{
        struct jbd2_report rep = { .budget = budget };
        struct walk w = { .src = src, .window = window, .rep = &rep };
        const char *reason = NULL;
        int r;

        *ret_reason = NULL;
        if (budget == 0)
                return *ret_reason = "the journal budget is 0", -ENOBUFS;
        if (src->blocksize < JSB_SIZE || src->blocksize > EXT2_MAX_BLOCK_SIZE)
                return *ret_reason = "impossible block size", -EUCLEAN;
        w.buf = malloc((size_t)CHUNK_MAX * src->blocksize);
        w.unreadable = malloc(CHUNK_MAX);
        if (!w.buf || !w.unreadable) {
                r = -ENOMEM;
                goto finish;
        }

        rep.blocks_read = 1;
        rep.reads = 1;
        r = src->read(src->userdata, src->sb_block, 1, w.buf);
        if (r < 0) {
                reason = "cannot read the journal superblock";
                goto finish;
        }
        r = parse_superblock(&w, &reason);
        if (r < 0)
                goto finish;

        /* A dirty log holds at most a transaction a block from s_sequence on; within half the numbers. */
        w.max = rep.dirty ? rep.sequence + min_u32(w.length, INT32_MAX) - 1 : rep.sequence - 1;
        /* Out of budget is not an error: what was found stands, and budget_exhausted says so. */
        r = search(&w);
        if (r == -ENOBUFS)
                rep.budget_exhausted = true;
        r = 0;

finish:
        free(w.buf);
        free(w.unreadable);
        if (r < 0 && r != -ENOMEM && !reason)
                reason = "cannot read the journal";
        *ret_reason = reason;
        if (r >= 0)
                *ret = rep;
        return r < 0 ? r : 0;
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
