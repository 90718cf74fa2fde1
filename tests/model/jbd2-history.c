/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-history: the journal of a board after a history of boots, written the way Linux writes it */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbd2-history.h"

/*
 * What Linux does, and this file follows (fs/jbd2/journal.c, recovery.c,
 * commit.c, checkpoint.c; fs/ext4/super.c):
 *
 * - Mounting a clean journal (s_start == 0), jbd2_journal_recover() starts
 *   the first transaction at s_sequence + 1, and from 6.5 (ext4 always sets
 *   JBD2_CYCLE_RECORD) puts it at s_head; journal_reset() falls back to
 *   s_first when s_head is 0 or outside the log, and before 6.5 always starts
 *   at s_first. The superblock is not written at mount (JBD2_FLUSHED): it
 *   stays clean until the first commit, which records s_start and s_sequence
 *   of that first transaction before writing it.
 * - Mounting a dirty journal, recovery's PASS_SCAN walks from s_start,
 *   expecting s_sequence, transaction by transaction, to the first block that
 *   is not the next header; end_transaction is one past the last complete
 *   transaction (s_sequence when none) and head_block the block after its
 *   commit (s_start when none). The mount's first transaction is
 *   end_transaction + 1 (++info.end_transaction), at head_block from 6.5, at
 *   s_first before; journal_reset() then writes s_start = that block and
 *   s_sequence = that transaction (the log is dirty and empty).
 * - While mounted, checkpointing moves the tail: s_start and s_sequence name
 *   the oldest transaction not yet checkpointed, or the head and the next
 *   transaction ID when all are (jbd2_journal_get_log_tail()). The superblock
 *   is written before the space behind the tail is reused, so the live part
 *   of the log (s_start to the head) never overlaps itself; a transaction
 *   takes at most a quarter of the log (j_max_transaction_buffers).
 * - Unmount (jbd2_journal_destroy()): j_tail_sequence = ++j_transaction_sequence,
 *   then jbd2_mark_journal_empty(): s_sequence = two past the last commit,
 *   s_start = 0, and from 6.5 s_head = j_head, where the next transaction
 *   would go. A remount read-only (jbd2_journal_flush(), as systemd leaves
 *   the root at shutdown) marks it empty with s_sequence one past the last
 *   commit. Either leaves the superblock alone when it is clean already (a
 *   mount that committed nothing).
 * - A power cut leaves the superblock as the last checkpoint wrote it; the
 *   transaction being written then has no commit block (torn). s_head is
 *   only written when the log is emptied: while dirty it holds what the last
 *   clean unmount left (jbd2_journal_update_sb_log_tail() leaves it alone).
 *
 * Not modelled: e2fsck replaying the journal before the mount (it leaves the
 * log clean, as an unmount does), fast commits, async_commit.
 */

uint64_t jh_seed(uint64_t seed)
{
        uint64_t z = seed + 0x9e3779b97f4a7c15ull;

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return z ? z : 1;
}

uint64_t jh_rand(uint64_t *state)
{
        uint64_t x = *state;

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *state = x;
        return x * 0x2545f4914f6cdd1dull;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
        return n ? (uint32_t)(jh_rand(s) % n) : 0;
}

/* An index drawn with the given weights. */
static unsigned pick(uint64_t *s, const unsigned *weights, unsigned n)
{
        unsigned total = 0, r;

        for (unsigned i = 0; i < n; i++)
                total += weights[i];
        r = below(s, total);
        for (unsigned i = 0; i < n; i++) {
                if (r < weights[i])
                        return i;
                r -= weights[i];
        }
        return n - 1;
}

void jh_geometry(uint64_t seed, uint32_t *ret_maxlen, uint32_t *ret_incompat, uint32_t *ret_fc_blocks)
{
        uint64_t s = jh_seed(seed ^ 0x6a62643267656full);

        *ret_maxlen = below(&s, 16) == 0 ? 32768 : 1024 + below(&s, 8192 - 1024 + 1);
        *ret_incompat = jm_tag_formats[below(&s, JM_TAG_FORMATS)] | JM_INCOMPAT_REVOKE;
        /* A fast-commit area (jm_init() drops it when it would leave fewer than 1024 log blocks). */
        *ret_fc_blocks = below(&s, 6) == 0 ? 64 + below(&s, 256) : 0;
}

/* Blocks a transaction of a size class takes on average, to turn a share of the log into a count. */
static uint32_t mean_blocks(uint8_t size)
{
        static const uint32_t mean[_JH_SIZE_MAX] = { 5, 35, 240, 20 };
        return mean[size];
}

void jh_random(uint64_t seed, const struct jmodel *m, struct jh_history *ret)
{
        static const unsigned clocks[_JH_CLOCK_MAX] = { 40, 30, 10, 20 };
        static const unsigned ends[_JH_END_MAX] = { 35, 25, 25, 15 };
        static const unsigned sizes[_JH_SIZE_MAX] = { 40, 20, 10, 30 };
        /* How much of the log a boot writes, in hundredths: a little, some, about all, laps. */
        static const uint32_t share_lo[] = { 0, 5, 40, 150 }, share_hi[] = { 5, 40, 150, 400 };
        static const unsigned shares[] = { 25, 35, 25, 15 };
        uint64_t s = jh_seed(seed);
        uint32_t length = jm_last(m) - m->first + 1;

        *ret = (struct jh_history){ .seed = seed };
        ret->layout = (uint8_t)below(&s, _JH_LAYOUT_MAX);
        ret->nboots = below(&s, 8) == 0 ? 1 + below(&s, 12) : 1 + below(&s, 6);
        for (uint32_t i = 0; i < ret->nboots; i++) {
                struct jh_boot *b = ret->boots + i;
                unsigned k = pick(&s, shares, 4);
                uint32_t share = share_lo[k] + below(&s, share_hi[k] - share_lo[k] + 1);

                b->clock = (uint8_t)pick(&s, clocks, _JH_CLOCK_MAX);
                b->end = (uint8_t)pick(&s, ends, _JH_END_MAX);
                b->size = (uint8_t)pick(&s, sizes, _JH_SIZE_MAX);
                b->transactions = below(&s, 20) == 0
                        ? 0
                        : 1 + (uint32_t)((uint64_t)length * share / 100 / mean_blocks(b->size));
                b->ntp_after = below(&s, b->transactions + 1);
        }
}

/* A transaction not yet checkpointed: the live part of the log. */
struct live {
        uint32_t start, sequence, blocks;
};

struct player {
        struct jmodel *m;
        struct jh_history *h;
        uint64_t rng;
        uint32_t length;
        struct live *q; /* a ring of the live transactions, oldest first */
        uint32_t q_first, q_n, q_cap, used;
        bool sb_dirty; /* s_start != 0: set by the first commit of a mount, or by mounting a dirty log */
        uint64_t real; /* the real time, seconds */
};

static uint32_t next_block(const struct jmodel *m, uint32_t block)
{
        return block == jm_last(m) ? m->first : block + 1;
}

/* The superblock's tail after a checkpoint: the oldest live transaction, else the head and the next ID. */
static void write_tail(struct player *p)
{
        if (!p->sb_dirty)
                return;
        if (p->q_n > 0) {
                p->m->start = p->q[p->q_first].start;
                p->m->sequence = p->q[p->q_first].sequence;
        } else {
                p->m->start = p->m->pos;
                p->m->sequence = p->m->next_sequence;
        }
}

static void checkpoint(struct player *p, uint32_t n)
{
        for (; n > 0 && p->q_n > 0; n--) {
                p->used -= p->q[p->q_first].blocks;
                p->q_first = (p->q_first + 1) % p->q_cap;
                p->q_n--;
        }
        write_tail(p);
}

/* Checkpoints the oldest transactions until `need` more blocks fit without reaching the tail. */
static void make_room(struct player *p, uint32_t need)
{
        uint32_t before = p->q_n;

        while (p->q_n > 0 && p->used + need > p->length - 1) {
                p->used -= p->q[p->q_first].blocks;
                p->q_first = (p->q_first + 1) % p->q_cap;
                p->q_n--;
        }
        if (p->q_n != before)
                write_tail(p);
}

static void push(struct player *p, uint32_t start, uint32_t sequence, uint32_t blocks)
{
        if (p->q_n == p->q_cap) {
                uint32_t cap = p->q_cap ? 2 * p->q_cap : 256;
                struct live *q = malloc(cap * sizeof(*q));
                if (!q)
                        abort();
                for (uint32_t i = 0; i < p->q_n; i++)
                        q[i] = p->q[(p->q_first + i) % p->q_cap];
                free(p->q);
                p->q = q;
                p->q_first = 0;
                p->q_cap = cap;
        }
        p->q[(p->q_first + p->q_n) % p->q_cap] = (struct live){ start, sequence, blocks };
        p->q_n++;
        p->used += blocks;
}

/*
 * Recovery's PASS_SCAN over the model: from s_start expecting s_sequence, the
 * complete transactions that follow one another. Returns end_transaction
 * (one past the last complete one) and *ret_head, the block after its commit.
 */
static uint32_t scan_recovery(const struct jmodel *m, uint32_t length, uint32_t *ret_head)
{
        uint32_t next = m->sequence, block = m->start, head = m->start;

        for (uint64_t steps = 0; steps < 2 * (uint64_t)length; steps++) {
                const struct jm_block *b = m->blocks + block;

                if ((b->kind != JM_DESCRIPTOR && b->kind != JM_COMMIT && b->kind != JM_REVOKE) ||
                        b->damage || b->sequence != next)
                        break;
                block = next_block(m, block);
                if (b->kind == JM_DESCRIPTOR)
                        for (uint32_t i = 0; i < b->ntags; i++)
                                block = next_block(m, block);
                else if (b->kind == JM_COMMIT) {
                        next++;
                        head = block;
                }
        }
        *ret_head = head;
        return next;
}

static void mount(struct player *p, struct jh_boot *b)
{
        struct jmodel *m = p->m;
        uint32_t head, tid;

        if (m->start == 0) {
                tid = m->sequence + 1;
                head = p->h->layout == JH_FROM_6_5 && m->head >= m->first && m->head <= jm_last(m)
                        ? m->head
                        : m->first;
                p->sb_dirty = false;
        } else {
                uint32_t head_block, end = scan_recovery(m, p->length, &head_block);

                tid = end + 1;
                head = p->h->layout == JH_FROM_6_5 ? head_block : m->first;
                m->start = head;
                m->sequence = tid;
                p->sb_dirty = true;
        }
        m->pos = head;
        m->next_sequence = tid;
        p->q_first = p->q_n = p->used = 0;
        b->first_sequence = tid;
        b->start_block = head;
}

static uint32_t draw_size(struct player *p, uint8_t size)
{
        switch (size) {
        case JH_SMALL:
                return 1 + below(&p->rng, 4);
        case JH_MEDIUM:
                return 5 + below(&p->rng, 56);
        case JH_LARGE:
                return 60 + below(&p->rng, 341);
        default: {
                uint32_t r = below(&p->rng, 20);
                return draw_size(p, r == 0 ? JH_LARGE : r < 4 ? JH_MEDIUM : JH_SMALL);
        }
        }
}

/* The data blocks of a transaction, and whether it starts with a revoke block; within a quarter of the log.
 */
static uint32_t transaction_size(struct player *p, uint8_t size, bool *ret_revoke)
{
        uint32_t n = draw_size(p, size);
        bool revoke = below(&p->rng, 8) == 0;

        if (revoke && below(&p->rng, 4) == 0)
                n = 0; /* only revoke records */
        while (n > 1 && jm_transaction_blocks(p->m, n, revoke, true) > p->length / 4)
                n /= 2;
        *ret_revoke = revoke;
        return n;
}

static void play_boot(struct player *p, struct jh_boot *b)
{
        struct jmodel *m = p->m;
        uint64_t uptime = 5 + below(&p->rng, 60);
        bool revoke;
        uint32_t n;

        mount(p, b);
        for (uint32_t i = 0; i < b->transactions; i++) {
                uint32_t start, seq, need, at;
                uint64_t dt = 1 + below(&p->rng, 30), sec;
                uint32_t nsec = below(&p->rng, 1000000000u);

                uptime += dt;
                p->real += dt;
                switch (b->clock) {
                case JH_RIGHT:
                        sec = p->real;
                        break;
                case JH_Y2000:
                        sec = JH_T2000 + uptime;
                        break;
                case JH_FAR:
                        sec = JH_FUTURE + uptime;
                        break;
                default:
                        sec = i < b->ntp_after ? JH_T2000 + uptime : p->real;
                        break;
                }
                n = transaction_size(p, b->size, &revoke);
                need = jm_transaction_blocks(m, n, revoke, true);
                make_room(p, need);
                start = m->pos;
                seq = m->next_sequence;
                at = jm_transaction(m, n, revoke, true, sec, nsec);
                if (m->pos <= start)
                        p->h->wrapped = true;
                if (!p->sb_dirty) {
                        /* The first commit since a clean mount records the tail before it writes. */
                        p->sb_dirty = true;
                        m->start = start;
                        m->sequence = seq;
                }
                push(p, start, seq, need);
                b->blocks += need;
                p->h->written += need;
                p->h->largest = n > p->h->largest ? n : p->h->largest;
                b->committed = true;
                b->last_sequence = seq;
                b->last_block = at;
                b->last_sec = sec;
                if (sec >= JH_T2026 && sec < JH_T2056) {
                        b->plausible = true;
                        b->last_plausible_sequence = seq;
                        b->last_plausible_block = at;
                }
                /* Checkpoints now and then: the tail moves on. */
                if (below(&p->rng, 8) == 0)
                        checkpoint(p, 1 + below(&p->rng, p->q_n));
        }

        switch (b->end) {
        case JH_UNMOUNT:
        case JH_REMOUNT_RO:
                if (p->sb_dirty) {
                        m->start = 0;
                        m->sequence = m->next_sequence + (b->end == JH_UNMOUNT ? 1 : 0);
                        m->head = p->h->layout == JH_FROM_6_5 ? m->pos : 0;
                }
                break;
        case JH_TORN:
                n = transaction_size(p, b->size, &revoke);
                if (n == 0)
                        n = 1;
                make_room(p, jm_transaction_blocks(m, n, revoke, true));
                if (!p->sb_dirty) {
                        p->sb_dirty = true;
                        m->start = m->pos;
                        m->sequence = m->next_sequence;
                }
                jm_transaction(m, n, revoke, false, 0, 0);
                break;
        default:
                break;
        }
        p->real += 30 + below(&p->rng, 3 * 86400);
}

void jh_write(struct jmodel *m, struct jh_history *h)
{
        struct player p = {
                .m = m,
                .h = h,
                .rng = jh_seed(h->seed ^ 0x706c6179ull),
                .length = jm_last(m) - m->first + 1,
        };

        p.real = JH_T2027 + below(&p.rng, 365 * 86400);
        h->wrapped = false;
        h->largest = 0;
        h->written = 0;
        for (uint32_t i = 0; i < h->nboots; i++) {
                struct jh_boot *b = h->boots + i;

                b->blocks = 0;
                b->committed = b->plausible = false;
                play_boot(&p, b);
        }
        free(p.q);
}

const char *jh_layout_name(uint8_t layout)
{
        return layout == JH_FROM_6_5 ? "6.5+" : "pre-6.5";
}

const char *jh_kind(const struct jh_history *h)
{
        bool any = false, wrong_before_right = false, seen_wrong = false;
        const struct jh_boot *last = NULL;

        for (uint32_t i = 0; i < h->nboots; i++) {
                const struct jh_boot *b = h->boots + i;

                if (!b->committed)
                        continue;
                if (b->plausible) {
                        any = true;
                        wrong_before_right |= seen_wrong;
                } else
                        seen_wrong = true;
                last = b;
        }
        if (!any)
                return "none-plausible";
        if (last->plausible && last->last_plausible_sequence == last->last_sequence)
                return wrong_before_right ? "wrong..right-last" : "right-last";
        if (last->plausible)
                return "ntp-never-stepped"; /* unreachable: an NTP boot ends right once plausible */
        return wrong_before_right ? "wrong/right/wrong" : "right/wrong";
}

size_t jh_describe(const struct jh_history *h, const struct jmodel *m, char *buf, size_t size)
{
        static const char clocks[] = "RWFN", ends[] = "urpt", sizes[] = "smlx";
        size_t n = 0;

#define ADD(...)                                                                                            \
        do {                                                                                                \
                if (n < size)                                                                               \
                        n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                              \
        } while (0)
        ADD("seed %llu %s log %u..%u%s%s%s fc %u %s: ", (unsigned long long)h->seed,
                jh_layout_name(h->layout), m->first, jm_last(m),
                m->incompat & JM_INCOMPAT_CSUM_V3           ? " csum-v3"
                        : m->incompat & JM_INCOMPAT_CSUM_V2 ? " csum-v2"
                                                            : "",
                m->incompat & JM_INCOMPAT_64BIT ? " 64bit" : "", h->wrapped ? " wrapped" : "", m->fc_blocks,
                jh_kind(h));
        for (uint32_t i = 0; i < h->nboots; i++) {
                const struct jh_boot *b = h->boots + i;

                ADD("%c%c%u", clocks[b->clock], sizes[b->size], b->transactions);
                if (b->clock == JH_NTP)
                        ADD("(ntp@%u)", b->ntp_after);
                ADD("[tid %u@%u", b->first_sequence, b->start_block);
                if (b->committed)
                        ADD("..%u@%u", b->last_sequence, b->last_block);
                ADD(" %ub]%c ", b->blocks, ends[b->end]);
        }
        ADD("| sb seq %u start %u head %u", m->sequence, m->start, m->head);
#undef ADD
        return n;
}
