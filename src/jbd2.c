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
 * A probe of the bisection reads up to as many blocks as a transaction of the
 * log takes on average, as far as the search has seen, within these bounds:
 * in a log of small transactions a header is always that close. A probe that
 * lands among data blocks finds none and is counted as past the end of the
 * run; the walk that follows the bisection corrects that.
 */
#define PROBE_BLOCKS_MIN 2u
#define PROBE_BLOCKS_MAX 64u

/* Where a run must start (after the head, at the first block), a header is looked for this far. */
#define SCAN_BLOCKS 64u

/* Older runs of transactions (earlier laps, earlier mounts) tried when all of a run's commits are
 * implausible. */
#define RUNS_MAX 8

struct header {
        uint32_t block;
        uint32_t type;
        uint32_t sequence;
};

struct walk {
        const struct jbd2_source *src;
        const struct policy *window;
        struct jbd2_report *rep;
        uint8_t *buf;
        bool have_block; /* buf holds block `cached` */
        uint32_t cached;
        uint32_t length; /* blocks in the log: last - first + 1 */
        bool csum;       /* checksum v2 or v3 */
        uint32_t seed;   /* crc32c of the journal's UUID */
        unsigned tag_bytes;
        /* What the log has shown of the size of its transactions, in blocks per sequence number. */
        uint64_t span_blocks, span_transactions; /* the widest stretch the bisection saw */
        uint64_t walked_blocks, walked_transactions;
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

static uint32_t advance(const struct walk *w, uint32_t block, uint64_t n)
{
        const uint32_t first = w->rep->first;
        return first + (uint32_t)(((uint64_t)(block - first) + n) % w->length);
}

/* Blocks from `from` forward to `to`, around the end of the log if need be. */
static uint32_t distance(const struct walk *w, uint32_t from, uint32_t to)
{
        return to >= from ? to - from : w->length - (from - to);
}

static int read_block(struct walk *w, uint32_t block)
{
        int r;

        if (w->have_block && w->cached == block)
                return 0;
        w->have_block = false;
        if (w->rep->blocks_read >= w->rep->budget) {
                w->rep->budget_exhausted = true;
                return -ENOBUFS;
        }
        w->rep->blocks_read++;
        w->rep->reads++;
        r = w->src->read(w->src->userdata, block, 1, w->buf);
        if (r < 0) {
                w->rep->read_errors++;
                return r;
        }
        w->have_block = true;
        w->cached = block;
        return 0;
}

/* Whether the block in buf is a descriptor, commit or revoke block; fills *ret. */
static bool parse_header(const struct walk *w, uint32_t block, struct header *ret)
{
        uint32_t type;

        if (get_be32(w->buf) != JBD2_MAGIC)
                return false;
        type = get_be32(w->buf + 4);
        if (type != BLOCK_DESCRIPTOR && type != BLOCK_COMMIT && type != BLOCK_REVOKE)
                return false;
        *ret = (struct header){ .block = block, .type = type, .sequence = get_be32(w->buf + 8) };
        return true;
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
static bool block_checksum_ok(const struct walk *w, uint32_t type)
{
        const size_t size = w->rep->blocksize;

        if (!w->csum)
                return true;
        return checksum_matches(
                w->buf, w->seed, size, type == BLOCK_COMMIT ? COMMIT_CHECKSUM : size - TAIL_SIZE);
}

/* The data blocks that follow the descriptor block in buf: one per tag. */
static unsigned count_tags(const struct walk *w)
{
        const size_t size = w->rep->blocksize - (w->csum ? TAIL_SIZE : 0);
        size_t at = HEADER_SIZE;
        unsigned n = 0;

        while (at + w->tag_bytes <= size) {
                /* t_flags: 16 bits at offset 6 in every tag format (the low half of tag3's 32 bits). */
                uint16_t flags = get_be16(w->buf + at + 6);

                n++;
                at += w->tag_bytes;
                if (!(flags & TAG_SAME_UUID))
                        at += 16;
                if (flags & TAG_LAST_TAG)
                        break;
        }
        return n;
}

/* The time in the commit block in buf; 0 when it has none (written by jbd, before jbd2). */
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

static void record(struct walk *w, const struct jbd2_commit *c)
{
        struct jbd2_report *r = w->rep;

        if (!r->newest.found || seq_after(c->sequence, r->newest.sequence))
                r->newest = *c;
        if (plausible(w, c->time) && (!r->best.found || seq_after(c->sequence, r->best.sequence)))
                r->best = *c;
}

/*
 * Follows the transaction that header h belongs to, from h to its commit
 * block, reading headers only. Returns 1 with *ret (recorded) and *ret_next,
 * the block after the commit; 0 when the transaction has no valid commit
 * block (power went while it was written, a corrupt or torn block, the end
 * of the log); -ENOBUFS when out of budget.
 */
static int walk_transaction(struct walk *w, struct header h, struct jbd2_commit *ret, uint32_t *ret_next)
{
        uint32_t block = h.block;
        uint64_t covered = 0;

        while (covered < w->length) {
                struct header x;
                int r = read_block(w, block);

                if (r == -ENOBUFS)
                        return r;
                if (r < 0 || !parse_header(w, block, &x) || x.sequence != h.sequence)
                        return log_debug("journal: transaction %u from block %u: no commit (block %u holds "
                                         "none of it)",
                                       h.sequence, h.block, block),
                               0;
                if (!block_checksum_ok(w, x.type)) {
                        w->rep->bad_checksums++;
                        return log_debug("journal: transaction %u: block %u has a wrong checksum",
                                       h.sequence, block),
                               0;
                }
                if (x.type == BLOCK_COMMIT) {
                        w->walked_blocks += covered + 1;
                        w->walked_transactions++;
                        *ret = (struct jbd2_commit){
                                .found = true,
                                .sequence = x.sequence,
                                .block = block,
                                .time = commit_time(w->buf),
                        };
                        record(w, ret);
                        if (log_debug_enabled()) {
                                char a[ISO_TIME_MAX];
                                log_debug("journal: transaction %u from block %u: commit at block %u, %s%s",
                                        h.sequence, h.block, block,
                                        ret->time ? format_iso(a, ret->time) : "no time",
                                        plausible(w, ret->time) ? "" : " (not plausible)");
                        }
                        *ret_next = advance(w, block, 1);
                        return 1;
                }
                uint64_t n = 1 + (x.type == BLOCK_DESCRIPTOR ? count_tags(w) : 0);
                covered += n;
                block = advance(w, block, n);
        }
        return 0;
}

static bool all_zero(const uint8_t *p, size_t size)
{
        return p[0] == 0 && memcmp(p, p + 1, size - 1) == 0;
}

enum probe_result {
        PROBE_EMPTY,  /* a block never written (zeros): the log has not reached it */
        PROBE_HEADER, /* a descriptor, commit or revoke block */
        PROBE_DATA,   /* only data blocks: inside a large transaction, or an older one past the head */
};

/* For -v: what a look at the journal found, "commit block 76, sequence 21, 2026-12-01T11:20:26Z". */
static const char *describe_header(const struct walk *w, const struct header *h, char *buf, size_t size)
{
        char a[ISO_TIME_MAX];
        usec_t t = h->type == BLOCK_COMMIT ? commit_time(w->buf) : 0;

        snprintf(buf, size, "%s block %u, sequence %u%s%s",
                h->type == BLOCK_COMMIT               ? "commit"
                        : h->type == BLOCK_DESCRIPTOR ? "descriptor"
                                                      : "revoke",
                h->block, h->sequence, t ? ", " : "", t ? format_iso(a, t) : "");
        return buf;
}

/* Logs what a probe from block `from` found, having read `n` blocks; returns result. */
static int probed(const struct walk *w, uint32_t from, unsigned n, int result, const struct header *h)
{
        char buf[128];

        if (!log_debug_enabled())
                return result;
        log_debug("journal: probe at block %u: %s (%u block(s) read)", from,
                result == PROBE_HEADER          ? describe_header(w, h, buf, sizeof(buf))
                        : result == PROBE_EMPTY ? "zeros, never written"
                        : result == PROBE_DATA  ? "data blocks only"
                                                : "budget spent",
                n);
        return result;
}

/* Looks for a header in the `limit` blocks from `from`: a probe_result, or -ENOBUFS. */
static int probe(struct walk *w, uint32_t from, uint32_t limit, struct header *ret)
{
        const unsigned before = w->rep->blocks_read;

        for (uint32_t i = 0; i < limit; i++) {
                uint32_t block = advance(w, from, i);
                int r = read_block(w, block);

                if (r == -ENOBUFS)
                        return probed(w, from, w->rep->blocks_read - before, r, ret);
                if (r < 0)
                        continue;
                if (parse_header(w, block, ret))
                        return probed(w, from, w->rep->blocks_read - before, PROBE_HEADER, ret);
                /*
                 * Zeros: never written since the journal was made, so the log
                 * has not reached this block. (A journalled metadata block is
                 * hardly ever all zeros; if one is, the walk that follows the
                 * bisection steps over it.)
                 */
                if (all_zero(w->buf, w->rep->blocksize))
                        return probed(w, from, w->rep->blocks_read - before, PROBE_EMPTY, ret);
        }
        return probed(w, from, w->rep->blocks_read - before, PROBE_DATA, ret);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
        return a < b ? a : b;
}

/* Blocks per transaction on average, as far as the search has seen; 0 when it has seen none. */
static uint32_t transaction_blocks(const struct walk *w)
{
        if (w->span_transactions > 0)
                return (uint32_t)((w->span_blocks + w->span_transactions - 1) / w->span_transactions);
        if (w->walked_transactions > 0)
                return (uint32_t)((w->walked_blocks + w->walked_transactions - 1) / w->walked_transactions);
        return 0;
}

static uint32_t probe_blocks(const struct walk *w)
{
        uint32_t n = transaction_blocks(w);
        return n < PROBE_BLOCKS_MIN ? PROBE_BLOCKS_MIN : n > PROBE_BLOCKS_MAX ? PROBE_BLOCKS_MAX : n;
}

/* Learns the size of transactions from a stretch of the log: `blocks` from a header to one `transactions`
 * on. */
static void learn_span(struct walk *w, uint32_t blocks, uint32_t transactions)
{
        if (transactions > 0 && blocks > w->span_blocks) {
                w->span_blocks = blocks;
                w->span_transactions = transactions;
        }
}

/* Bits needed for n: the halvings a bisection of n blocks takes. */
static unsigned bits(uint32_t n)
{
        unsigned b = 0;

        for (; n; n >>= 1)
                b++;
        return b;
}

/* The header at block, if it has the given sequence number. 1, 0, -ENOBUFS. */
static int header_at(struct walk *w, uint32_t block, uint32_t sequence, struct header *ret)
{
        int r = read_block(w, block);

        if (r == -ENOBUFS)
                return r;
        bool found = r == 0 && parse_header(w, block, ret);
        if (log_debug_enabled()) {
                char buf[128];
                log_debug("journal: look at block %u for sequence %u: %s", block, sequence,
                        found           ? describe_header(w, ret, buf, sizeof(buf))
                                : r < 0 ? "read error"
                                        : "no header");
        }
        return found && ret->sequence == sequence;
}

/* Where a bisection stopped: offsets from the start of the run. */
struct bounds {
        uint32_t end; /* past the last header found: where the bisection stopped */
        uint32_t out; /* surely past the run: zeros, or a header of another run, were found there */
};

/*
 * In the n blocks from the header `run`, the headers with sequence numbers
 * from run's up to max come first, in increasing order, and anything else
 * (older laps, earlier mounts, zeros) after them. Finds the last of them by
 * bisection. A probe that finds only data (inside a large transaction, or
 * past the run) counts as past the run, for the bisection only: b->out says
 * how far the run surely does not reach.
 * Returns 0, or -ENOBUFS with *ret the last header found so far.
 */
static int find_last(
        struct walk *w, struct header run, uint32_t n, uint32_t max, struct header *ret, struct bounds *b)
{
        struct header lo = run, h;
        uint32_t lo_off = 0, hi_off = n, out = n;
        int r = 0;

        while (hi_off - lo_off > 1) {
                uint32_t mid = lo_off + (hi_off - lo_off) / 2;

                r = probe(w, advance(w, run.block, mid), min_u32(probe_blocks(w), hi_off - mid), &h);
                if (r < 0)
                        break;
                if (r == PROBE_HEADER && seq_between(h.sequence, lo.sequence, max)) {
                        lo = h;
                        lo_off = distance(w, run.block, h.block);
                        learn_span(w, lo_off, lo.sequence - run.sequence);
                        continue;
                }
                /*
                 * Never written, or another run's: the run ends before mid. Only
                 * data (a large transaction, or older ones past the run): the same,
                 * for the bisection only, and the walk after it sets that right.
                 */
                if (r != PROBE_DATA)
                        out = mid;
                hi_off = mid;
        }
        *ret = lo;
        *b = (struct bounds){ .end = hi_off, .out = out };
        return r < 0 ? r : 0;
}

/*
 * The newest complete transaction of a run (see find_last()): bisects to its
 * last header, walks from there to the commit block and on through any later
 * transactions, and steps back when the last transaction has no commit.
 * Returns 1 with *ret, 0 when the run holds no commit, or -ENOBUFS when the
 * budget ran out before any was found.
 */
static int newest_in_run(
        struct walk *w, struct header run, uint32_t n, uint32_t max, struct jbd2_commit *ret)
{
        struct jbd2_commit last = { 0 };
        struct header h = run, base = run; /* base: where the current bisection started */
        struct bounds b = { .end = 0, .out = n };
        uint32_t base_off = 0, off = 0;
        unsigned walked = 0;
        int r = 0;

        while (r >= 0) {
                struct jbd2_commit c;
                struct header x;
                uint32_t next, next_off;

                r = walk_transaction(w, h, &c, &next);
                if (r < 0)
                        break;
                if (r == 0) {
                        /* No commit: power went while it was written, or it is torn. The one before it,
                         * then. */
                        if (h.sequence == base.sequence || (last.found && last.sequence + 1 == h.sequence))
                                break;
                        max = h.sequence - 1;
                        r = find_last(w, base, distance(w, base.block, h.block), max, &h, &b);
                        b.end += base_off;
                        b.out += base_off;
                        continue;
                }
                last = c;
                walked++;

                next_off = distance(w, run.block, next);
                if (next_off <= off || next_off >= n)
                        break;
                off = next_off;
                r = header_at(w, next, c.sequence + 1, &x);
                if (r <= 0 || !seq_between(x.sequence, run.sequence, max))
                        break;

                /*
                 * Walk or bisect? Walking costs two reads a transaction; bisecting
                 * the rest costs a probe a halving, and a probe among data blocks
                 * reads about a transaction's worth to find a header. So walk when
                 * transactions are large (size squared times the halvings exceed
                 * twice the rest), and for the first few, which tell their size;
                 * within where the last bisection found headers, walk too.
                 */
                uint32_t rest = (b.out > off ? b.out : n) - off;
                uint64_t size = transaction_blocks(w);
                if (off < b.end || walked < 3 || size * size * bits(rest) > 2 * (uint64_t)rest) {
                        h = x;
                        continue;
                }
                base = x;
                base_off = off;
                r = find_last(w, base, rest, max, &h, &b);
                b.end += base_off;
                b.out += base_off;
        }
        if (!last.found)
                return r < 0 ? r : 0;
        *ret = last;
        return 1;
}

/* The commit of the transaction after the one committed by c. 1 with *ret, 0 when there is none, -ENOBUFS.
 */
static int next_commit(struct walk *w, const struct jbd2_commit *c, struct jbd2_commit *ret)
{
        struct header x;
        uint32_t next;
        int r = header_at(w, advance(w, c->block, 1), c->sequence + 1, &x);

        if (r <= 0)
                return r;
        return walk_transaction(w, x, ret, &next);
}

/*
 * The newest commit of a run is implausible (a boot with a wrong clock): the
 * newest plausible one before it. Gallop back from the newest commit (a
 * commit 1, 2, 4, ... blocks before it) to a plausible one, then bisect
 * between the two for where the times stop being plausible, and walk on from
 * there while they still are. That finds the newest plausible commit when the
 * last boot's commits are all implausible, or became plausible on the way
 * (NTP), whatever earlier boots in the run did. The best is recorded as
 * commits are read. Returns 1 when the run holds a plausible commit, 0 when it
 * seems to hold none, -ENOBUFS.
 */
static int plausible_in_run(struct walk *w, struct header run, const struct jbd2_commit *newest)
{
        struct jbd2_commit lo = { 0 }, c;
        struct header h;
        uint32_t lo_off = 0, hi_off = distance(w, run.block, newest->block), hi_seq = newest->sequence, next;
        uint64_t step = 1;
        int r;

        while (!lo.found) {
                uint32_t at = step < hi_off ? hi_off - (uint32_t)step : 0;

                if (at == 0) {
                        /* Back at the start of the run: its first transaction decides. */
                        r = walk_transaction(w, run, &c, &next);
                        if (r <= 0 || !plausible(w, c.time))
                                return r < 0 ? r : 0;
                        lo = c;
                        break;
                }
                r = probe(w, advance(w, run.block, at), min_u32(probe_blocks(w), hi_off - at), &h);
                if (r < 0)
                        return r;
                if (r == PROBE_HEADER && seq_between(h.sequence, run.sequence, hi_seq - 1)) {
                        r = walk_transaction(w, h, &c, &next);
                        if (r < 0)
                                return r;
                        if (r > 0 && plausible(w, c.time))
                                lo = c;
                        else if (r > 0 && distance(w, run.block, c.block) < hi_off) {
                                hi_off = distance(w, run.block, c.block);
                                hi_seq = c.sequence;
                        }
                }
                step *= 2;
        }

        lo_off = distance(w, run.block, lo.block);
        while (hi_off > lo_off + 1) {
                uint32_t mid = lo_off + (hi_off - lo_off) / 2;

                r = probe(w, advance(w, run.block, mid), min_u32(probe_blocks(w), hi_off - mid), &h);
                if (r < 0)
                        return r;
                if (r == PROBE_HEADER && seq_between(h.sequence, lo.sequence + 1, hi_seq - 1)) {
                        r = walk_transaction(w, h, &c, &next);
                        if (r < 0)
                                return r;
                        if (r > 0 && distance(w, run.block, c.block) < hi_off) {
                                if (plausible(w, c.time)) {
                                        lo = c;
                                        lo_off = distance(w, run.block, c.block);
                                } else
                                        hi_off = mid;
                                continue;
                        }
                }
                hi_off = mid; /* implausible, other, or only data: then the walk below sets it right */
        }

        /* On from there while the commits stay plausible: data may have cut the bisection short. */
        for (;;) {
                r = next_commit(w, &lo, &c);
                if (r <= 0 || !plausible(w, c.time))
                        break;
                lo = c;
        }
        return 1;
}

/* The first header among SCAN_BLOCKS from block, older than run, skipping the torn transaction after newest.
 */
static int older_header(
        struct walk *w, uint32_t block, struct header run, uint32_t newest, struct header *ret)
{
        for (unsigned i = 0; i < 2; i++) {
                struct header h;
                int r = probe(w, block, SCAN_BLOCKS, &h);

                if (r != PROBE_HEADER)
                        return r < 0 ? r : 0;
                if (seq_after(run.sequence, h.sequence)) {
                        *ret = h;
                        return 1;
                }
                if (h.sequence != newest + 1)
                        return 0; /* the run itself: the log has come around, nothing older is left */
                /* The transaction power cut short: step over its blocks. */
                block = advance(w, h.block, 1 + (h.type == BLOCK_DESCRIPTOR ? count_tags(w) : 0));
        }
        return 0;
}

/*
 * The run of transactions older than `run`, when none of run's commits is
 * plausible. Before Linux 6.5 every mount restarted the log at its first
 * block, so the previous boot's newest transactions follow this run's newest
 * (`newest`, or the run's start when it has no commit); from 6.5 the log goes
 * on across mounts, so the previous boot's come before this run, from the
 * oldest block of the log: after the head once the log has come around, else
 * from its first block. Returns 1 with *ret the first header of that run, 0
 * when there is none, -ENOBUFS.
 */
static int older_run(struct walk *w, uint32_t after, struct header run, uint32_t newest, struct header *ret)
{
        int r = older_header(w, after, run, newest, ret);

        if (r != 0 || run.block == w->rep->first)
                return r;
        return older_header(w, w->rep->first, run, newest, ret);
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

/*
 * Where the newest transactions are to be found, and the highest sequence
 * number one may have. A dirty log starts at s_start with s_sequence. A clean
 * one was emptied with s_sequence one or two past its last transaction; Linux
 * >= 6.5 keeps writing the log around across mounts and records in s_head
 * where the next transaction goes, so the newest commit is the block before
 * it and the oldest transactions follow it; older kernels restart the log at
 * s_first at every mount. Returns 1 with *ret, 0 when no header is there,
 * 2 when the newest commit is known and plausible, -ENOBUFS.
 */
static int find_run(struct walk *w, struct header *ret, uint32_t *ret_max)
{
        struct jbd2_report *r = w->rep;
        struct jbd2_commit c;
        struct header h;
        uint32_t next;
        int k;

        if (r->dirty) {
                *ret_max = r->sequence + w->length;
                k = header_at(w, r->start, r->sequence, ret);
                if (k != 0)
                        return k;
                /* The log does not start where the superblock says: look for transactions from the first
                 * block. */
        } else
                *ret_max = r->sequence - 1;

        if (!r->dirty && valid_block(r, r->head)) {
                uint32_t before = advance(w, r->head, w->length - 1);

                k = header_at(w, before, r->sequence - 1, &h);
                if (k == 0)
                        k = header_at(w, before, r->sequence - 2, &h);
                if (k < 0)
                        return k;
                if (k > 0 && h.type == BLOCK_COMMIT) {
                        k = walk_transaction(w, h, &c, &next);
                        if (k < 0)
                                return k;
                        if (k > 0 && plausible(w, c.time))
                                return 2; /* the newest commit, and plausible: nothing more to look for */
                }
                /* The oldest transactions follow the head, unless the log has not come around yet. */
                if (k > 0) {
                        k = probe(w, r->head, SCAN_BLOCKS, ret);
                        if (k < 0 || k == PROBE_HEADER)
                                return k < 0 ? k : 1;
                }
        }
        k = probe(w, r->first, SCAN_BLOCKS, ret);
        return k < 0 ? k : k == PROBE_HEADER;
}

int jbd2_find_commit(const struct jbd2_source *src, const struct policy *window, unsigned budget,
        struct jbd2_report *ret, const char **ret_reason)
{
        struct jbd2_report rep = { .budget = budget };
        struct walk w = { .src = src, .window = window, .rep = &rep };
        const char *reason = NULL;
        struct header run;
        uint32_t max;
        int r;

        *ret_reason = NULL;
        if (budget == 0)
                return *ret_reason = "the journal budget is 0", -ENOBUFS;
        if (src->blocksize < JSB_SIZE || src->blocksize > EXT2_MAX_BLOCK_SIZE)
                return *ret_reason = "impossible block size", -EUCLEAN;
        w.buf = malloc(src->blocksize);
        if (!w.buf)
                return -ENOMEM;

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

        r = find_run(&w, &run, &max);
        if (r != 1) {
                r = r < 0 && r != -ENOBUFS ? r : 0;
                goto finish;
        }

        uint32_t n = w.length;
        for (int i = 0; i < RUNS_MAX; i++) {
                struct jbd2_commit c;
                uint32_t after, newest;
                struct header older;

                r = newest_in_run(&w, run, n, max, &c);
                if (r < 0)
                        break;
                if (r > 0) {
                        if (i == 0)
                                rep.wrapped = c.block < run.block;
                        if (!plausible(&w, c.time)) {
                                r = plausible_in_run(&w, run, &c);
                                if (r < 0)
                                        break;
                        }
                        if (rep.best.found)
                                break;
                        after = advance(&w, c.block, 1);
                        newest = c.sequence;
                } else {
                        after = run.block;
                        newest = run.sequence - 1;
                }

                /* Nothing plausible in this run: the run before it, if the log still holds one. */
                r = older_run(&w, after, run, newest, &older);
                if (r <= 0)
                        break;
                n = distance(&w, older.block, run.block);
                if (n == 0)
                        break;
                max = run.sequence - 1;
                run = older;
        }
        /* Out of budget is not an error: what was found stands, and budget_exhausted says so. */
        r = 0;

finish:
        free(w.buf);
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
