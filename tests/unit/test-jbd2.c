/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-jbd2: the journal walk on journals built block by block, in memory */

#include <errno.h>

#include "jbd2-model.h"
#include "jbd2/jbd2.h"
#include "test.h"

#define T2000 946684800u  /* a reset RTC */
#define T2026 1767225600u /* the floor */
#define T2027 1798761600u
#define T2056 2713910400u /* not after */

static const struct window window = {
        .floor = (usec_t)T2026 * USEC_PER_SEC,
        .not_after = (usec_t)T2056 * USEC_PER_SEC,
};

struct mem {
        const struct jmodel *m;
        long fail_block; /* -1: none */
        long fail_to;    /* past fail_block, the first readable block; 0: fail_block alone */
};

static int mem_read(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        struct mem *x = userdata;

        for (uint32_t i = 0; i < count; i++, block++) {
                if (block >= x->m->maxlen || (long)block == x->fail_block ||
                        ((long)block > x->fail_block && (long)block < x->fail_to))
                        return -EIO;
                jm_render(x->m, (uint32_t)block, (uint8_t *)buf + (size_t)i * x->m->blocksize);
        }
        return 0;
}

/* A search of m with budget, blocks fail_block to fail_to (see struct mem) unreadable. */
static int walk_range(const struct jmodel *m, long fail_block, long fail_to, unsigned budget,
        struct jbd2_report *r, const char **reason)
{
        struct mem x = { m, fail_block, fail_to };
        struct jbd2_source src = {
                .read = mem_read,
                .userdata = &x,
                .sb_block = 0,
                .blocksize = m->blocksize,
                .max_blocks = m->maxlen,
                .fast_commit = m->fc_blocks > 0,
        };
        const char *dummy;

        *r = (struct jbd2_report){ 0 };
        return jbd2_find_commit(&src, &window, budget, r, reason ? reason : &dummy);
}

static int walk_budget(
        const struct jmodel *m, long fail_block, unsigned budget, struct jbd2_report *r, const char **reason)
{
        return walk_range(m, fail_block, 0, budget, r, reason);
}

static int walk(const struct jmodel *m, struct jbd2_report *r)
{
        return walk_budget(m, -1, JBD2_BUDGET_DEFAULT, r, NULL);
}

static usec_t S(uint64_t sec)
{
        return (usec_t)sec * USEC_PER_SEC;
}

/*
 * What a search's reads cost on the seed's card (37 ms a read, 17.6 MB/s) and on a card of today
 * (0.5 ms a read, 80 MB/s), as bench/read-cost models them.
 */
static double seed_card_ms(const struct jbd2_report *r, uint32_t blocksize)
{
        return r->reads * 37.0 + (double)r->blocks_read * blocksize / 17600.0;
}

static double todays_card_ms(const struct jbd2_report *r, uint32_t blocksize)
{
        return r->reads * 0.5 + (double)r->blocks_read * blocksize / 80000.0;
}

/*
 * A dirty log from start (sequence seq) searched with the default budget: its newest commit at
 * last found within it, and the cost printed after label on both cards.
 */
static void search_dirty(struct jmodel *m, uint32_t start, uint32_t seq, uint32_t last, const char *label,
        struct jbd2_report *r)
{
        jm_set_dirty(m, start, seq);
        check_int(walk(m, r), 0);
        check_int(r->best.block, last);
        check(!r->budget_exhausted);
        printf("%s: %u reads, %u blocks, %.0f ms on the seed's card, %.1f ms on today's\n", label, r->reads,
                r->blocks_read, seed_card_ms(r, 4096), todays_card_ms(r, 4096));
}

/* n small transactions (one data block each), a second apart from sec. Returns the last commit's block. */
static uint32_t small_transactions(struct jmodel *m, uint32_t n, uint64_t sec)
{
        uint32_t at = 0;

        for (uint32_t i = 0; i < n; i++)
                at = jm_transaction(m, 1, false, true, sec + i, 0);
        return at;
}

/*
 * A wrong-clock layout whose answer is `good`: within the default budget,
 * which cannot read back every commit to it, found by the gallop (and the
 * report says the budget was spent); with a budget that can, exact.
 */
static void check_wrong_clock(const struct jmodel *m, uint32_t good, const char *what)
{
        struct jbd2_report r;

        check_int(walk(m, &r), 0);
        check(r.best.found);
        check_int(r.best.block, good);
        check(r.budget_exhausted);
        printf("%s: default budget, %u reads, %u blocks\n", what, r.reads, r.blocks_read);
        check_int(walk_budget(m, -1, 1000, &r, NULL), 0);
        check(r.best.found);
        check_int(r.best.block, good);
        check(!r.budget_exhausted);
        printf("%s: every commit back to it read: %u reads, %u blocks\n", what, r.reads, r.blocks_read);
}

static void test_empty(void)
{
        struct jmodel m;
        struct jbd2_report r;

        jm_init(&m, 4096, 1024, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        check_int(walk(&m, &r), 0);
        check(!r.newest.found);
        check(!r.best.found);
        check(!r.dirty);
        check_int(r.first, 1);
        check_int(r.last, 1023);
        check(r.reads <= 2); /* the superblock, and zeros where the log starts */
        jm_free(&m);
}

/* Linux before 6.5: clean, no head; the log starts at the first block. */
static void test_clean_no_head(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last;

        jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 100);
        last = small_transactions(&m, 500, T2027);
        jm_set_clean(&m, m.next_sequence + 1, 0); /* unmount: two past the last */
        check_int(walk(&m, &r), 0);
        check(r.newest.found);
        check_int(r.newest.sequence, 599);
        check_int(r.newest.block, last);
        check_u64(r.newest.time, S(T2027 + 499));
        check(r.best.found && r.best.sequence == 599);
        check(!r.budget_exhausted);
        check(r.reads <= 6); /* interpolation on the sequence numbers */
        jm_free(&m);
}

/* Linux >= 6.5 records the head: the newest commit is the block before it, found in two reads. */
static void test_clean_head(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last;

        jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 7);
        m.pos = 3000;                              /* the log went on from an earlier mount */
        last = small_transactions(&m, 600, T2027); /* wraps */
        check(last < 3000);
        jm_set_clean(&m, m.next_sequence, m.pos); /* remount read-only: one past the last */
        check_int(walk(&m, &r), 0);
        check_int(r.newest.block, last);
        check_int(r.best.sequence, 7 + 599);
        check_u64(r.best.time, S(T2027 + 599));
        check_int(r.reads, 2);
        check_int(r.blocks_read, 2 + 16); /* the superblock's read takes the 16 blocks after it */
        jm_free(&m);
}

/* A dirty log that wraps past the end, with a torn last transaction. */
static void test_dirty_wrapped_torn(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t start, last;

        jm_init(&m, 1024, 2048, JM_INCOMPAT_64BIT, 0, 1);
        m.pos = 1500;
        start = m.pos;
        last = small_transactions(&m, 400, T2027);
        jm_transaction(&m, 3, false, false, 0, 0); /* power went during the commit */
        jm_set_dirty(&m, start, 1);
        check_int(walk(&m, &r), 0);
        check(r.dirty);
        check(r.wrapped);
        check_int(r.newest.sequence, 400);
        check_int(r.newest.block, last);
        check_u64(r.best.time, S(T2027 + 399));
        jm_free(&m);
}

/* Each tag format: checksum v3, v2 (64 and 32 bit), none (64 and 32 bit); descriptors that fill up. */
static void test_tag_formats(void)
{
        for (size_t i = 0; i < JM_TAG_FORMATS; i++) {
                for (uint32_t bs = 1024; bs <= 4096; bs *= 4) {
                        struct jmodel m;
                        struct jbd2_report r;
                        uint32_t per, start, last = 0;

                        jm_init(&m, bs, 65536, jm_tag_formats[i] | JM_INCOMPAT_REVOKE, 0, 50);
                        per = jm_tags_per_descriptor(&m);
                        start = m.pos;
                        /* Transactions of 2.5 descriptors' worth of data, some with a revoke block. */
                        for (uint32_t t = 0; t < 20; t++)
                                last = jm_transaction(
                                        &m, per * 2 + per / 2, t % 3 == 0, true, T2027 + t, 500);
                        jm_set_dirty(&m, start, 50);
                        /* Only large transactions: every probe finds data; this is about tags, not cost. */
                        check_int(walk_budget(&m, -1, 100000, &r, NULL), 0);
                        check_int(r.newest.sequence, 69);
                        check_int(r.newest.block, last);
                        check_u64(r.best.time, S(T2027 + 19));
                        jm_free(&m);
                }
        }
}

/*
 * Commits made while the clock was wrong (a reset RTC, no network): the newest
 * plausible commit wins, not the highest sequence number.
 */
static void test_wrong_clock_same_run(void)
{
        for (uint64_t wrong = T2000; wrong <= (uint64_t)T2056 * 2; wrong += (uint64_t)T2056 * 2 - T2000) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t good;

                jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1000);
                jm_set_dirty(&m, m.pos, 1000);
                good = small_transactions(&m, 3000, T2027);
                small_transactions(&m, 2000, wrong);
                check_int(walk(&m, &r), 0);
                check_int(r.newest.sequence, 1000 + 4999);
                check_u64(r.newest.time, S(wrong + 1999));
                check(r.best.found);
                check_int(r.best.sequence, 1000 + 2999);
                check_int(r.best.block, good);
                check_u64(r.best.time, S(T2027 + 2999));
                check_wrong_clock(&m, good, "one run, the clock wrong after a good stretch");
                jm_free(&m);
        }
}

/*
 * Before Linux 6.5 every mount restarted the log at its first block: a boot
 * with a wrong clock writes its commits over the start of the previous boot's,
 * whose newest ones survive after them.
 */
static void test_wrong_clock_earlier_mount(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t good;

        jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        good = small_transactions(&m, 4000, T2027); /* the last good boot */
        m.pos = m.first;
        jm_set_dirty(&m, m.pos, m.next_sequence);
        small_transactions(&m, 1000, T2000); /* the boot with the clock at 2000-01-01, power cut */
        check_int(walk(&m, &r), 0);
        check_int(r.newest.sequence, 5000);
        check_u64(r.newest.time, S(T2000 + 999));
        check(r.best.found);
        check_int(r.best.sequence, 4000);
        check_int(r.best.block, good);
        check_wrong_clock(&m, good, "Linux before 6.5, the previous boot's commits after the last one's");
        jm_free(&m);
}

/* Linux >= 6.5, clean, the last boot's clock wrong: bisect back past the head shortcut. */
static void test_wrong_clock_head(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t good;

        jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        m.pos = 9000;
        good = small_transactions(&m, 4000, T2027);
        small_transactions(&m, 2500, T2000);
        jm_set_clean(&m, m.next_sequence + 1, m.pos);
        check_int(walk(&m, &r), 0);
        check_int(r.newest.sequence, 6500);
        check(r.best.found);
        check_int(r.best.block, good);
        check_int(r.best.sequence, 4000);
        jm_free(&m);
}

/*
 * Linux >= 6.5 goes on with the log across mounts: the boot before the last
 * one, with a good clock, left its commits just before where the last boot's
 * (all with a wrong clock) start. Dirty and clean, the log not yet come around.
 */
static void test_wrong_clock_cycle(void)
{
        for (int clean = 0; clean <= 1; clean++) {
                struct jmodel m;
                uint32_t good, start;

                jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                good = small_transactions(&m, 3000, T2027);
                start = m.pos; /* the next mount goes on from the head */
                small_transactions(&m, 2000, T2000);
                if (clean)
                        jm_set_clean(&m, m.next_sequence + 1, m.pos);
                else
                        jm_set_dirty(&m, start, 3001);
                check_wrong_clock(&m, good,
                        clean ? "Linux 6.5 log, last boot with a wrong clock, clean"
                              : "Linux 6.5 log, last boot with a wrong clock, dirty");
                jm_free(&m);
        }
}

/*
 * Several boots in one log (Linux >= 6.5), each starting with the clock at
 * 2000-01-01 until NTP set it, the last one never set: the newest plausible
 * commit is the last one the second boot made after NTP.
 */
static void test_wrong_clock_boots(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t good;

        jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        small_transactions(&m, 1000, T2000);
        small_transactions(&m, 2000, T2027);
        small_transactions(&m, 1000, T2000 + 5000);
        good = small_transactions(&m, 2000, T2027 + 10000);
        small_transactions(&m, 2500, T2000 + 10000);
        jm_set_clean(&m, m.next_sequence + 1, m.pos);
        check_int(walk(&m, &r), 0);
        check(r.best.found);
        check_int(r.best.block, good);
        check_u64(r.best.time, S(T2027 + 10000 + 1999));
        check_wrong_clock(&m, good, "Linux 6.5 log, five boots, the last wrong");
        jm_free(&m);

        /* The same log come around, and all of it implausible: none; only reading it all says so. */
        jm_init(&m, 4096, 8192, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        small_transactions(&m, 5000, T2000);
        jm_set_clean(&m, m.next_sequence + 1, m.pos);
        check_int(walk(&m, &r), 0);
        check(r.newest.found);
        check(!r.best.found);
        check(r.budget_exhausted);
        check_int(walk_budget(&m, -1, 1000, &r, NULL), 0);
        check(!r.best.found);
        check(!r.budget_exhausted);
        printf("Linux 6.5 log come around, all implausible: %u reads, %u blocks\n", r.reads, r.blocks_read);
        jm_free(&m);
}

/*
 * Trees copied with no sync between (jbd2's own commits: transactions of 2400 blocks), then
 * fsync()s of a block each, a checkpoint between: the dirty log is 100 small transactions, and
 * past its end lies an older lap of the large ones, where a probe finds a header only at their
 * next descriptor, up to 254 blocks on (bench/read-cost's c128w-dirty). Two probes at most whose
 * first 32 blocks hold only data stop there, read through only if a probe before them lands in
 * the run: 12 reads and 644 blocks, 14 and 1094 without (63 ms on today's card). Then small
 * transactions among the run's own large ones: the probes stopped short are the run's data, and
 * cost 18 reads where 16.
 */
static void test_small_after_large(void)
{
        for (int own = 0; own < 2; own++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t start, seq, last = 0, t = 0;

                jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                for (; m.writes < 60000; t++)
                        jm_transaction(&m, 2400, false, true, T2027 + t, 0);
                start = m.pos;
                seq = m.next_sequence;
                for (uint32_t i = 0; i < 100; i++, t++)
                        last = jm_transaction(&m, 1, false, true, T2027 + t, 0);
                for (uint32_t i = 0; own && i < 8; i++, t++) {
                        jm_transaction(&m, 2400, false, true, T2027 + t, 0);
                        for (uint32_t j = 0; j < 20; j++, t++)
                                last = jm_transaction(&m, 1, false, true, T2027 + t, 0);
                }
                search_dirty(&m, start, seq, last,
                        own ? "Transactions of a block among the run's own of 2400"
                            : "Transactions of a block after an older lap of 2400",
                        &r);
                if (!own)
                        check(r.reads <= 12 && r.blocks_read <= 700);
                else
                        check(r.reads <= 18);
                jm_free(&m);
        }
}

/* Large transactions among small ones: a probe among data blocks finds no header. */
static void test_large_transactions(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t start, last = 0;

        jm_init(&m, 4096, 131072, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        start = m.pos;
        for (uint32_t t = 0; t < 3000; t++)
                last = jm_transaction(&m, t % 97 == 5 ? 900 : 2, false, true, T2027 + t, 0);
        jm_transaction(&m, 30000, false, true, T2027 + 5000, 0); /* a package upgrade */
        for (uint32_t t = 0; t < 200; t++)
                last = jm_transaction(&m, 3, false, true, T2027 + 6000 + t, 0);
        jm_set_dirty(&m, start, 1);
        check_int(walk_budget(&m, -1, 100000, &r, NULL), 0);
        check_int(r.newest.block, last);
        check_u64(r.best.time, S(T2027 + 6199));
        printf("Large transactions: %u reads, %u blocks\n", r.reads, r.blocks_read);
        /* Within a smaller budget: no newer commit than the last, and a flag. */
        check_int(walk_budget(&m, -1, 4, &r, NULL), 0);
        check(r.budget_exhausted);
        check(r.newest.found && r.newest.sequence <= 3201 && m.blocks[r.newest.block].kind == JM_COMMIT);
        jm_free(&m);
}

/*
 * bench/read-cost's c128w, in m (initialised, empty): transactions of thousands of blocks have come
 * around the journal, then the live log, a transaction of 2600 blocks and `small` of one block,
 * ends among the leftovers of one of them. Marks the log dirty from its start; returns the last
 * commit's block. A torn transaction appended after it is then the log's newest.
 */
static uint32_t come_around_log(struct jmodel *m, uint32_t small)
{
        uint32_t start, seq, last = 0;

        for (uint32_t t = 0; t < 8; t++)
                jm_transaction(m, 5000 + 250 * t, false, true, T2027 + t, 0);
        start = m->pos;
        seq = m->next_sequence;
        jm_transaction(m, 2600, false, true, T2027 + 100, 0);
        for (uint32_t t = 0; t < small; t++)
                last = jm_transaction(m, 1, false, true, T2027 + 200 + t, 0);
        jm_set_dirty(m, start, seq);
        return last;
}

/*
 * The log of bench/read-cost's c128w: transactions of thousands of blocks (directory trees
 * copied, the kernel's own commits) have come around the journal, and the live log, a large one
 * and small fsync()s, ends among the leftovers of one of them. The probes that land among its
 * data find its descriptors on their lattice, a block each: 1041 blocks in 13 reads, where a
 * chunk each read 1723 in 11 (on the seed's card, 37 ms a read and 0.23 ms a block: 724 ms
 * where it was 808; on today's, 0.5 ms and 0.05 ms: 60 where it was 94). Probes sized by the
 * largest transaction seen, half read first: 803 blocks in 10 reads (557 ms, 46 ms).
 */
static void test_lattice(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last;

        jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        last = come_around_log(&m, 100);
        check_int(walk(&m, &r), 0);
        check_int(r.best.block, last);
        check_u64(r.best.time, S(T2027 + 299));
        printf("Large transactions come around, the log ending among one: %u reads, %u blocks\n", r.reads,
                r.blocks_read);
        check(r.blocks_read <= 1200 && r.reads <= 14);
        jm_free(&m);
}

/*
 * The log of bench/read-cost's c64: trees copied with a sync after each, transactions of about
 * 210 blocks come around the journal twice, and a sync moved the start of the log just before the
 * last copy: the live log is one large transaction and a small one. The first one's commit, read
 * before any probe, ends the search: 3 reads and 49 blocks (the journal's superblock and the 16
 * blocks after it, the start, the commit and what follows it), where halving the journal with
 * probes of a transaction's size took 9 reads and 1344 blocks. With 40 small transactions after
 * it the search probes on: 11 reads and 800 blocks, where it took 8 and 1092: dearer on the
 * seed's card (593 ms, 550 before), cheaper on today's (47 ms, 60).
 */
static void test_checkpointed_start(void)
{
        static const uint32_t smalls[] = { 1, 2, 40 };

        for (size_t i = 0; i < sizeof(smalls) / sizeof(smalls[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t start, seq, last = 0;

                jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                for (uint32_t t = 0; t < 150; t++)
                        jm_transaction(&m, 205 + t % 7, false, true, T2027 + t, 0);
                start = m.pos;
                seq = m.next_sequence;
                jm_transaction(&m, 211, false, true, T2027 + 200, 0);
                for (uint32_t t = 0; t < smalls[i]; t++)
                        last = jm_transaction(&m, 5, false, true, T2027 + 201 + t, 0);
                jm_set_dirty(&m, start, seq);
                check_int(walk(&m, &r), 0);
                check_int(r.best.block, last);
                check_u64(r.best.time, S(T2027 + 200 + smalls[i]));
                printf("A checkpointed start, one large transaction and %u small: %u reads, %u blocks\n",
                        smalls[i], r.reads, r.blocks_read);
                if (smalls[i] <= 2)
                        check(r.reads <= 3 && r.blocks_read <= 50);
                else
                        check(r.reads <= 12);
                jm_free(&m);
        }
}

/*
 * A large transaction torn by a power cut, the newest, after the log of test_lattice: the probes
 * land on its descriptors, which have no commit; the answer is the commit before its start, which
 * its descriptors' lattice finds a block a read once a chunk read back has not. Reading back to it
 * a chunk a read took 29 reads and 5905 blocks for 5000 blocks (now 17 and 1078), and spent the
 * default budget for 8000. Probes that read half their size first trade reads for blocks: 8000
 * takes 23 reads and 1862 blocks where it took 20 and 2182, a little dearer on the seed's card
 * (1284 ms, 1248 before) and cheaper on today's (107 ms, 122).
 */
static void test_torn_large(void)
{
        static const uint32_t sizes[] = { 300, 1000, 3000, 5000, 8000 };

        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t last;

                jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                last = come_around_log(&m, 100);
                jm_transaction(&m, sizes[i], false, false, 0, 0);
                check_int(walk(&m, &r), 0);
                check_int(r.best.block, last);
                check(!r.budget_exhausted);
                check(seed_card_ms(&r, 4096) <= 1300 && todays_card_ms(&r, 4096) <= 125);
                printf("A torn transaction of %u blocks the newest: %u reads, %u blocks%s\n", sizes[i],
                        r.reads, r.blocks_read, r.budget_exhausted ? ", budget spent" : "");
                jm_free(&m);
        }
}

/*
 * A torn transaction's later descriptor left past the run's end: power went while a large
 * transaction was written, the next mount wrote its own transactions from where the torn one
 * started, over its first descriptor only, and its power went too, with nothing left at the
 * log's start. A probe past the end lands on the leftover descriptor, a transaction older than
 * the run's newest; the newest commit read back before it shows that, and the run is followed on
 * to its real end. Taking the commit before the leftover instead answered a transaction too old,
 * as the newest and, when its time was plausible, as the time.
 */

static void test_torn_leftover(void)
{
        static const uint32_t later[] = { 1, 2, 6 };

        for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t torn, last = 0;

                jm_init(&m, 4096, 5500, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                jm_transaction(&m, 167, false, true, T2027, 0);
                jm_transaction(&m, 96, false, true, T2027 + 10, 0);
                torn = m.pos;
                jm_transaction(&m, 400, false, false, 0, 0);
                m.pos = torn;
                for (uint32_t t = 0; t < later[i]; t++)
                        last = jm_transaction(&m, 9, false, true, T2027 + 20 + t, 0);
                jm_set_dirty(&m, m.pos, m.next_sequence);
                check_int(walk(&m, &r), 0);
                check(r.best.found && r.newest.found);
                check_int(r.best.block, last);
                check_int(r.newest.block, last);
                check_u64(r.best.time, S(T2027 + 19 + later[i]));
                check(!r.budget_exhausted);
                printf("A torn transaction's descriptor past %u transaction(s) written over its start: "
                       "%u reads, %u blocks\n",
                        later[i], r.reads, r.blocks_read);
                jm_free(&m);
        }
}

/*
 * The newest transaction's descriptor cannot be read, and its data are zeros (an emptied bitmap,
 * a file of zeros with data=journal): zeros just past an unreadable header are no sign the run
 * ended there, as the header that would tell is the one that cannot be read. Its commit lies
 * within a descriptor's most tags of it, and the probe past it reads that far.
 */
static void test_unreadable_before_zeros(void)
{
        static const uint32_t sizes[] = { 1, 40, 250 };
        unsigned met = 0;

        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t start, descriptor, last;

                jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                m.pos = 700;
                start = m.pos;
                small_transactions(&m, 100, T2027);
                descriptor = m.pos;
                last = jm_transaction(&m, sizes[i], false, true, T2027 + 200, 0);
                for (uint32_t b = descriptor + 1; b < last; b++)
                        m.blocks[b].kind = JM_ZERO;
                jm_set_dirty(&m, start, 1);
                check_int(walk_budget(&m, (long)descriptor, 100, &r, NULL), 0);
                check_int(r.newest.block, last);
                check(!r.budget_exhausted);
                met += r.read_errors > 0;
                printf("An unreadable descriptor before %u zero blocks, the newest: %u reads, %u blocks, %u "
                       "unreadable\n",
                        sizes[i], r.reads, r.blocks_read, r.read_errors);
                jm_free(&m);
        }
        check(met > 0); /* a search that never reads the descriptor tests nothing here */
}

/*
 * The blocks where the log starts unreadable: a log from the first block, of small transactions
 * or a large one and small ones, its first 16 to 40 blocks unreadable. The search took the blocks
 * it holds from there, none readable, for zeros: a log never written, no commit and no flag. With
 * the budget to read around them block by block, the newest commit; with the default budget, it
 * or a flag that the budget was spent.
 */
static void test_unreadable_start(void)
{
        static const uint32_t spans[] = { 16, 24, 40 };
        unsigned spent = 0;

        for (unsigned large = 0; large < 2; large++)
                for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
                        struct jmodel m;
                        struct jbd2_report r;
                        uint32_t start, last;

                        jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                        start = m.pos;
                        if (large)
                                jm_transaction(&m, 250, false, true, T2027, 0);
                        last = small_transactions(&m, 200, T2027 + 1);
                        jm_set_dirty(&m, start, 1);
                        check_int(walk_range(&m, start, start + spans[i], 200, &r, NULL), 0);
                        check_int(r.newest.block, last);
                        check(!r.budget_exhausted);
                        check_int(r.read_errors, spans[i]);
                        printf("The log's first %u blocks unreadable%s: %u reads, %u blocks\n", spans[i],
                                large ? ", a large transaction" : "", r.reads, r.blocks_read);
                        check_int(walk_range(&m, start, start + spans[i], JBD2_BUDGET_DEFAULT, &r, NULL), 0);
                        check(r.budget_exhausted || r.newest.block == last);
                        spent += r.budget_exhausted;
                        jm_free(&m);
                }
        printf("With the default budget, spent in %u of 6\n", spent);
}

/*
 * From m's position, small transactions up to 10 blocks before the end of the log, then one of
 * 40 data blocks that comes around it, its data zeros (journalled blocks of zeros: at the log's
 * end and from its first block on), and 5 small ones. Returns the last commit's block.
 */
static uint32_t zero_data_around(struct jmodel *m, uint64_t t)
{
        uint32_t d, last = 0;

        while (m->pos < jm_last(m) - 10)
                jm_transaction(m, 1, false, true, t++, 0);
        d = m->pos;
        jm_transaction(m, 40, false, true, t++, 0);
        for (uint32_t b = 1; b < m->maxlen; b++)
                if (m->blocks[b].kind == JM_DATA && (b <= 31 || b > d))
                        m->blocks[b].kind = JM_ZERO;
        for (int i = 0; i < 5; i++)
                last = jm_transaction(m, 1, false, true, t++, 0);
        return last;
}

/*
 * A clean log of a kernel before 6.5, whose last mount came around the end of the log: its
 * first blocks hold the zero data of the transaction that did (journalled blocks of zeros).
 * The search took the zeros where the log starts for a log never written: no commit. With a
 * journal no kernel has used (s_sequence 1, as mke2fs writes it), zeros are taken as such.
 */
static void test_clean_zeros_at_start(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last;

        jm_init(&m, 1024, 2048, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 100);
        last = zero_data_around(&m, T2027);
        jm_set_clean(&m, m.next_sequence + 1, 0);
        check_int(walk(&m, &r), 0);
        check_int(r.newest.block, last);
        check(!r.budget_exhausted);
        printf("A clean log's zero data where it starts: %u reads, %u blocks\n", r.reads, r.blocks_read);
        jm_free(&m);

        /* Never used, and used by a kernel that wrote nothing: one read more, none found. */
        for (uint32_t seq = 1; seq <= 2; seq++) {
                jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, seq);
                check_int(walk(&m, &r), 0);
                check(!r.newest.found);
                check(!r.budget_exhausted);
                check_int(r.reads, seq == 1 ? 1 : 2);
                jm_free(&m);
        }
}

/*
 * A dirty log whose start cannot be read, and whose first blocks hold zeros: the data of a
 * transaction that came around the end of the log (journalled blocks of zeros). The search,
 * looking for the run from the log's first block, took those zeros for a log never written: no
 * commit, and no flag.
 */
static void test_unreadable_start_zeros(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t start, last;

        jm_init(&m, 1024, 2048, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 100);
        for (int i = 0; i < 300; i++)
                jm_transaction(&m, 4, false, true, T2027 + i, 0);
        start = m.pos;
        last = zero_data_around(&m, T2027 + 300);
        jm_set_dirty(&m, start, 400);
        check_int(walk_budget(&m, start, 1000, &r, NULL), 0);
        check_int(r.newest.block, last);
        check(!r.budget_exhausted);
        printf("A dirty log's unreadable start, zeros where the log begins: %u reads, %u blocks\n", r.reads,
                r.blocks_read);
        check_int(walk_budget(&m, start, JBD2_BUDGET_DEFAULT, &r, NULL), 0);
        check(r.budget_exhausted || r.newest.block == last);
        jm_free(&m);
}

/*
 * Headers that cannot be read: a large transaction's commit, the small transaction after it and
 * the next one's descriptor, unreadable together. A probe that lands among the large one's data
 * finds no header it can read as far as a header must come from where it landed, and reads on
 * until as many blocks after the last unreadable one: the next large transaction's commit. Taking
 * that distance from where it landed instead took the end of the run for there, answering the
 * commit before it (the probe at a quarter, in the 34th large transaction).
 */
static void test_unreadable_headers(void)
{
        struct jmodel m;
        uint32_t commits[40], last = 0, met = 0;

        jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        m.pos = 1000;
        for (uint32_t t = 0; t < 40; t++) {
                commits[t] = jm_transaction(&m, 250, false, true, T2027 + 2 * t, 0);
                last = jm_transaction(&m, 1, false, true, T2027 + 2 * t + 1, 0);
        }
        jm_set_dirty(&m, 1000, 1);
        for (uint32_t t = 0; t < 39; t++) {
                struct jbd2_report r;

                check_int(walk_range(&m, commits[t], commits[t] + 5, 1000, &r, NULL), 0);
                check_int(r.newest.block, last);
                met += r.read_errors > 0;
        }
        /* Not every search meets them: most step over them, or probe elsewhere. */
        check(met > 0);
        printf("Five headers that cannot be read, after each of 39 large transactions: %u searches met them\n",
                met);
        jm_free(&m);
}

/*
 * The same logs as Linux before 5.5 wrote them with 32-bit tags: a descriptor closed at 340
 * tags in 4 KiB, not 506 (no checksums) or 404 (checksums v2). The lattice is theirs too:
 * large transactions' descriptors looked at a block a read, a torn one's start halved. The
 * dearest, a torn transaction of 8000 blocks without checksums, takes 25 reads and 2626 blocks
 * (1536 ms on the seed's card, 147 ms on today's), where it took 22 and 2597 (1418, 144); the
 * others fewer reads than they took.
 */
static void test_before_5_5(void)
{
        static const uint32_t formats[] = { 0, JM_INCOMPAT_CSUM_V2 };
        static const uint32_t sizes[] = { 0, 1000, 3000, 5000, 8000 };

        for (size_t f = 0; f < 2; f++)
                for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                        struct jmodel m;
                        struct jbd2_report r;
                        uint32_t last;

                        jm_init(&m, 4096, 32768, formats[f], 0, 1);
                        m.before_5_5 = true;
                        check_int(jm_tags_per_descriptor(&m), 340);
                        last = come_around_log(&m, 100);
                        if (sizes[i])
                                jm_transaction(&m, sizes[i], false, false, 0, 0);
                        check_int(walk(&m, &r), 0);
                        check_int(r.best.block, last);
                        check(!r.budget_exhausted);
                        check(seed_card_ms(&r, 4096) <= 1550 && todays_card_ms(&r, 4096) <= 150);
                        printf("Linux before 5.5, incompat %#x, torn transaction of %u blocks: %u reads, %u blocks\n",
                                formats[f], sizes[i], r.reads, r.blocks_read);
                        jm_free(&m);
                }
}

/*
 * Linux 5.5 and later with 32-bit tags: a transaction whose last descriptor lists 340 tags, as
 * many as the kernels before 5.5 filled one with, is not theirs: the descriptors before it, filled
 * (506 tags, 404 with checksums v2), say so, and the lattice keeps their step. The torn newest
 * transaction's start is found on it; with the step of 341, the search read back a chunk at a
 * time and spent its budget.
 */
static void test_last_descriptor_340(void)
{
        static const uint32_t formats[] = { 0, JM_INCOMPAT_CSUM_V2 };

        for (size_t f = 0; f < 2; f++)
                for (uint32_t j = 0; j <= 20; j += 4) {
                        struct jmodel m;
                        struct jbd2_report r;
                        uint32_t last, full;

                        jm_init(&m, 4096, 32768, formats[f], 0, 1);
                        full = jm_tags_per_descriptor(&m);
                        last = come_around_log(&m, 30);
                        jm_transaction(&m, full * j + 340, false, false, 0, 0);
                        check_int(walk(&m, &r), 0);
                        check_int(r.best.block, last);
                        check(!r.budget_exhausted);
                        jm_free(&m);
                }
}

/*
 * Zeros among a transaction's data: jbd2 journals blocks that are all zeros (a bitmap emptied, a
 * file of zeros with data=journal). Transactions of about 200 blocks (bench/read-cost's c64n: a
 * directory tree copied, a sync after each) in a journal never written around, whose newest
 * holds a run of zeros where a probe lands after others have met the zeros past the log's end:
 * a probe that meets zeros reads a transaction's length of them before it takes them for blocks
 * never written, and the run of zeros is shorter than that.
 */
static void test_zero_data(void)
{
        for (uint32_t live = 2; live <= 12; live += 2)
                for (uint32_t zeros = 40; zeros <= 160; zeros += 40)
                        for (uint32_t at = 10; at + zeros < 205; at += 15) {
                                struct jmodel m;
                                struct jbd2_report r;
                                uint32_t start = 0, seq = 0, last = 0;

                                jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                                for (uint32_t t = 0; t < 30 + live; t++) {
                                        if (t == 30) {
                                                start = m.pos;
                                                seq = m.next_sequence;
                                        }
                                        last = jm_transaction(
                                                &m, 205 + (t * 7) % 11, false, true, T2027 + t, 0);
                                }
                                /* The newest transaction: its descriptor, then its data from last - 205 + 1
                                 * on. */
                                for (uint32_t i = 0; i < zeros; i++)
                                        m.blocks[last - 205 + at + i].kind = JM_ZERO;
                                jm_set_dirty(&m, start, seq);
                                check_int(walk(&m, &r), 0);
                                check_int(r.best.block, last);
                                check(!r.budget_exhausted);
                                jm_free(&m);
                        }
}

/*
 * The newest transaction's data ends in zeros (its last 163 of 240 blocks): a probe among them
 * takes them for the end, and the next, among its data below them, reads only as far as they
 * begin; that is no surer an end than the zeros, and the search, come to its descriptor, reads
 * where its commit goes.
 */
static void test_zero_tail(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last;

        jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 100);
        small_transactions(&m, 23, T2027);
        last = jm_transaction(&m, 240, false, true, T2027 + 5000, 0);
        check_int(m.blocks[70].kind, JM_DESCRIPTOR);
        for (uint32_t b = 71 + 77; b < last; b++)
                m.blocks[b].kind = JM_ZERO;
        jm_set_dirty(&m, 1, 100);
        check_int(walk(&m, &r), 0);
        check_int(r.best.block, last);
        check(!r.budget_exhausted);
        jm_free(&m);
}

/*
 * A run of zeros longer than a probe, in a newest transaction larger than those before it (a file
 * of zeros written with data=journal): the probes that meet it take it for the end, until the
 * search meets the transaction's descriptor, whose next header lies past it.
 */
static void test_long_zero_data(void)
{
        for (uint32_t zeros = 250; zeros <= 1000; zeros += 250)
                for (uint32_t at = 0; at < 2000 - zeros; at += 170) {
                        struct jmodel m;
                        struct jbd2_report r;
                        uint32_t start = 0, seq = 0, last = 0;

                        jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                        for (uint32_t t = 0; t < 36; t++) {
                                if (t == 30) {
                                        start = m.pos;
                                        seq = m.next_sequence;
                                }
                                last = jm_transaction(&m, 205 + (t * 7) % 11, false, true, T2027 + t, 0);
                        }
                        uint32_t first = m.pos;
                        last = jm_transaction(&m, 2000, false, true, T2027 + 100, 0);
                        /* its data: a descriptor every full_tags + 1 blocks from first on */
                        for (uint32_t i = 0, b = first; i < at + zeros; b++)
                                if (m.blocks[b].kind == JM_DATA && i++ >= at)
                                        m.blocks[b].kind = JM_ZERO;
                        jm_set_dirty(&m, start, seq);
                        check_int(walk(&m, &r), 0);
                        check_int(r.best.block, last);
                        check(!r.budget_exhausted);
                        jm_free(&m);
                }
}

/*
 * Trees copied with a sync after each: transactions of about 210 blocks, each followed by one of
 * 5. A dirty log of them that goes on a few transactions past where the search's first probe
 * lands (a quarter of the journal past its start) is walked on from there, a read a pair of
 * transactions, where halving the rest of the journal took 5 or 6 probes of 1.5 reads and 160
 * blocks each (bench/read-cost's c64-dirty: 14 reads and 4.3 MB, 762 ms on the seed's card and
 * 60.7 ms on today's, before the walk). One that goes on further pays for the walk.
 */
static void test_walk_past_first_probe(void)
{
        static const uint32_t past[] = { 1, 3, 4, 6, 14 };

        for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t start, seq, last = 0, t = 0;

                jm_init(&m, 4096, 16384, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                for (; m.writes < 40000; t++) {
                        jm_transaction(&m, 205 + t % 11, false, true, T2027 + t, 0);
                        jm_transaction(&m, 5, false, true, T2027 + t, 0);
                }
                start = m.pos;
                seq = m.next_sequence;
                /* Pairs of about 220 blocks to a quarter of the log, and past[i] more. */
                for (uint64_t from = m.writes, n = 0; n < past[i]; t++) {
                        jm_transaction(&m, 205 + t % 11, false, true, T2027 + t, 0);
                        last = jm_transaction(&m, 5, false, true, T2027 + t, 0);
                        n += m.writes - from >= (16384 - 1) / 4;
                }
                char label[96];

                snprintf(label, sizeof(label),
                        "Pairs of transactions of 210 and 5 blocks, %u past a quarter of the log", past[i]);
                search_dirty(&m, start, seq, last, label, &r);
                /*
                 * The first probe lands about 4260 blocks in: past the end of a log 1 pair past a
                 * quarter, halved as before (12 reads); within 3 to 6 pairs, the walk (4 and 6 pairs
                 * took 13 and 12 reads without it); 14 pairs go on past it and pay for it: 16 reads, 12
                 * without.
                 */
                if (past[i] >= 3 && past[i] <= 6)
                        check(r.reads <= past[i] + 2 && seed_card_ms(&r, 4096) <= 400 &&
                                todays_card_ms(&r, 4096) <= 21);
                else
                        check(r.reads <= (past[i] == 1 ? 12 : 16));
                jm_free(&m);
        }
}

/*
 * Transactions all of one middling size (a busy logger, a package manager): most
 * probes land among data blocks. The default budget must still reach the newest.
 * The log goes on far past the first probe: where its transactions are large enough
 * to walk, the walk is paid for, 8 reads (test_walk_past_first_probe()).
 */
static void test_medium_transactions(void)
{
        static const uint32_t sizes[] = { 4, 8, 20, 50, 100, 250 };

        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t start, last = 0, n = 0;

                jm_init(&m, 4096, 32768, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
                m.pos = 20000;
                start = m.pos;
                while (m.writes + sizes[i] + 4 < 32000) {
                        last = jm_transaction(&m, sizes[i], false, true, T2027 + n, 0);
                        n++;
                }
                jm_transaction(&m, sizes[i], false, false, 0, 0);
                jm_set_dirty(&m, start, 1);
                check_int(walk(&m, &r), 0);
                check_int(r.newest.block, last);
                check_int(r.newest.sequence, n);
                check(!r.budget_exhausted);
                check(r.reads <= (sizes[i] >= 64 ? 22 : 14));
                printf("32768-block log of %u transactions of %u data blocks: %u reads, %u blocks\n", n,
                        sizes[i], r.reads, r.blocks_read);
                jm_free(&m);
        }
}

/* 1 GiB of 4 KiB blocks full of the smallest transactions: a few dozen reads. */
static void test_one_gib(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t last = 0, n = 0;

        jm_init(&m, 4096, 262144, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        m.pos = 100000;
        jm_set_dirty(&m, m.pos, 1);
        while (m.writes + 3 < 262143) {
                last = jm_transaction(&m, 1, false, true, T2027 + n, 0);
                n++;
        }
        check_int(walk(&m, &r), 0);
        check_int(r.newest.sequence, n);
        check_int(r.newest.block, last);
        check(r.wrapped);
        check(r.reads <= 20);
        printf("1 GiB journal, %u transactions, dirty: %u reads, %u blocks\n", n, r.reads, r.blocks_read);

        /* The same, clean, as Linux before 6.5 leaves it: no head recorded, the log from the first block. */
        jm_set_clean(&m, n + 2, 0);
        check_int(walk(&m, &r), 0);
        check_int(r.newest.block, last);
        check(r.reads <= 8);
        printf("1 GiB journal, clean without head: %u reads, %u blocks\n", r.reads, r.blocks_read);
        jm_free(&m);
}

/* A journal whose superblock claims nearly 2^32 blocks, read as zeros past what was written. */
struct huge {
        struct jmodel *m;
        uint32_t claimed, real;
};

static int huge_read(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        struct huge *x = userdata;

        for (uint32_t i = 0; i < count; i++, block++) {
                uint8_t *b = (uint8_t *)buf + (size_t)i * x->m->blocksize;

                if (block >= x->claimed)
                        return -EIO;
                if (block == 0) {
                        x->m->maxlen = x->claimed;
                        jm_render(x->m, 0, b);
                        x->m->maxlen = x->real;
                } else if (block < x->real)
                        jm_render(x->m, (uint32_t)block, b);
                else
                        memset(b, 0, x->m->blocksize);
        }
        return 0;
}

/*
 * s_maxlen close to 2^32, s_sequence close to 2^32 too: the highest sequence
 * a dirty log can hold (s_sequence plus a transaction a block) must not wrap
 * around below s_sequence, or no transaction would be the log's.
 */
static void test_huge_maxlen(void)
{
        struct jmodel m;
        struct jbd2_report r;
        const char *reason;
        uint32_t last;

        jm_init(&m, 1024, 4096, JM_INCOMPAT_64BIT, 0, 0xfffffff0u);
        jm_set_dirty(&m, m.pos, 0xfffffff0u);
        last = small_transactions(&m, 40, T2027); /* the sequence wraps past 2^32 */
        {
                struct huge x = { &m, 0xfffff000u, m.maxlen };
                struct jbd2_source src = {
                        .read = huge_read, .userdata = &x, .blocksize = 1024, .max_blocks = 0xfffff000u
                };
                check_int(jbd2_find_commit(&src, &window, 64, &r, &reason), 0);
        }
        check_int(r.maxlen, 0xfffff000u);
        check(r.newest.found);
        check_int(r.newest.sequence, 0xfffffff0u + 39);
        check_int(r.newest.block, last);
        check(!r.budget_exhausted);
        printf("s_maxlen 2^32 - 4096, the sequence wrapping: %u reads, %u blocks\n", r.reads, r.blocks_read);
        jm_free(&m);
}

static void test_fast_commit(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t start, last;

        /* 256 fast-commit blocks at the end; the log wraps before them. */
        jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 256, 1);
        check_int(jm_last(&m), 4096 - 256 - 1);
        m.pos = 3500;
        start = m.pos;
        last = small_transactions(&m, 300, T2027);
        jm_set_dirty(&m, start, 1);
        check_int(walk(&m, &r), 0);
        check_int(r.last, 4096 - 256 - 1);
        check_int(r.newest.block, last);
        check(r.wrapped);
        /* Clean: the journal superblock no longer says fast_commit; the filesystem does. */
        jm_set_clean(&m, m.next_sequence, 0);
        check_int(walk(&m, &r), 0);
        check_int(r.last, 4096 - 256 - 1);
        jm_free(&m);
}

static void test_damage(void)
{
        struct jmodel m;
        struct jbd2_report r;
        const char *reason;
        uint32_t start, before, last;

        jm_init(&m, 4096, 4096, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT, 0, 1);
        start = m.pos;
        small_transactions(&m, 200, T2027);
        before = small_transactions(&m, 1, T2027 + 500);
        last = small_transactions(&m, 1, T2027 + 600);
        jm_set_dirty(&m, start, 1);

        /* The newest commit block torn (checksum): the one before it. */
        m.blocks[last].damage = JM_BAD_CHECKSUM;
        check_int(walk(&m, &r), 0);
        check_int(r.newest.block, before);
        check(r.bad_checksums >= 1);
        m.blocks[last].damage = 0;

        /* The newest commit unreadable. */
        check_int(walk_budget(&m, last, JBD2_BUDGET_DEFAULT, &r, NULL), 0);
        check_int(r.newest.block, before);
        check(r.read_errors >= 1);

        /*
         * Its descriptor corrupt: the walk stops there, but a probe may land on the
         * commit, as genuine (its own checksum matches): either is right.
         */
        m.blocks[last - 2].damage = JM_BAD_MAGIC;
        check_int(walk(&m, &r), 0);
        check(r.newest.block == before || r.newest.block == last);
        m.blocks[last - 2].damage = 0;

        /* Garbage after the log, and in the middle of it: the walk ends there with what it has. */
        for (uint32_t b = last + 1; b < last + 40; b++)
                m.blocks[b].kind = JM_GARBAGE;
        check_int(walk(&m, &r), 0);
        check_int(r.newest.block, last);
        m.blocks[100].kind = JM_GARBAGE;
        check_int(walk(&m, &r), 0);
        check(r.newest.found);
        check(r.newest.block < 100 || r.newest.block == last);

        /* A budget too small: what was found so far, and a flag. */
        check_int(walk_budget(&m, -1, 3, &r, NULL), 0);
        check(r.budget_exhausted);
        check_int(r.reads, 3);
        check_int(walk_budget(&m, -1, 0, &r, &reason), -ENOBUFS);

        /* The superblock: bad checksum, bad magic, unknown features, wrong block size, too long. */
        m.sb_bad_checksum = true;
        check_int(walk_budget(&m, -1, 100, &r, &reason), -EUCLEAN);
        check_str(reason, "journal superblock checksum does not match");
        m.sb_bad_checksum = false;
        m.incompat |= 0x100;
        check_int(walk_budget(&m, -1, 100, &r, &reason), -EOPNOTSUPP);
        m.incompat &= ~0x100u;
        m.first = 0;
        check_int(walk_budget(&m, -1, 100, &r, &reason), -EUCLEAN);
        m.first = 1;
        m.start = 5000;
        check_int(walk_budget(&m, -1, 100, &r, &reason), -EUCLEAN);
        m.start = start;
        check_int(walk_budget(&m, 0, 100, &r, &reason), -EIO);
        check(reason != NULL);
        jm_free(&m);

        jm_init(&m, 1024, 2048, 0, 0, 1);
        m.maxlen = 4096; /* claims more than the inode holds */
        {
                struct mem x = { &m, -1 };
                struct jbd2_source src = {
                        .read = mem_read, .userdata = &x, .blocksize = 1024, .max_blocks = 2048
                };
                check_int(jbd2_find_commit(&src, &window, 100, &r, &reason), -EUCLEAN);
                src.max_blocks = 4096;
                src.blocksize = 4096; /* the callback fills 1 KiB of the 4 KiB buffer */
                check_int(jbd2_find_commit(&src, &window, 100, &r, &reason), -EUCLEAN);
                check_str(reason, "journal block size differs from the filesystem's");
        }
        m.maxlen = 2048;
        jm_free(&m);
}

/* A version 1 superblock (no features) and commits without a time. */
static void test_v1_untimed(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t start;

        jm_init(&m, 1024, 1024, 0, 0, 1);
        m.v1 = true;
        start = m.pos;
        for (int i = 0; i < 50; i++)
                jm_transaction(&m, 1, false, true, 0, 0);
        jm_set_dirty(&m, start, 1);
        check_int(walk(&m, &r), 0);
        check(r.newest.found);
        check_u64(r.newest.time, 0);
        check(!r.best.found);
        jm_free(&m);
}

/*
 * Linux before 6.5, clean (no head): one boot came around the log, and a
 * transaction of several descriptors straddles its end. The run found from
 * the first block starts at that transaction's descriptor after the end; a
 * probe near the end of the log lands on an earlier descriptor of the same
 * transaction, and the commit before that landing (of the transaction before
 * it, outside the run) must not be taken for the run's newest.
 */
static void test_straddling_first_transaction(void)
{
        struct jmodel m;
        struct jbd2_report r;
        uint32_t split = 244, lastc = 0;
        uint64_t t = T2027;

        jm_init(&m, 1024, 1457, JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT | JM_INCOMPAT_REVOKE, 0, 1000);
        /* Transactions of 3 blocks (and revoke-only ones of 2) up to split blocks before the end. */
        while ((jm_last(&m) + 1 - split) - m.pos >= 3 && (jm_last(&m) + 1 - split) - m.pos != 4)
                jm_transaction(&m, 1, false, true, t++, 0);
        while (m.pos < jm_last(&m) + 1 - split)
                jm_transaction(&m, 0, true, true, t++, 0);
        check_int(m.pos, 1213);
        jm_transaction(&m, 303, false, true, t++, 0); /* 5 descriptors, to block 65 past the end */
        check_int(m.pos, 66);
        for (uint32_t i = 0; i < 23; i++)
                lastc = jm_transaction(&m, 1, false, true, t++, 0);
        jm_set_clean(&m, m.next_sequence + 1, 0);
        check_int(walk_budget(&m, -1, 1000, &r, NULL), 0);
        check(r.newest.found);
        check_int(r.newest.block, lastc);
        check_int(r.newest.sequence, m.next_sequence - 1);
        check(!r.budget_exhausted);
        jm_free(&m);
}

static bool seq_after32(uint32_t a, uint32_t b)
{
        return (int32_t)(a - b) > 0;
}

static uint32_t rnd(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return (uint32_t)(*s >> 11);
}

/*
 * Random journals, each the last boot of a board: some earlier boots, a last
 * one with a good clock, and the way it ended. The newest commit must be
 * found whatever the layout, and the best must be the last commit written.
 */
static void test_random(void)
{
        uint64_t seed = 0x9e3779b97f4a7c15ull;
        unsigned worst = 0, exhausted = 0;

        for (int round = 0; round < 400; round++) {
                struct jmodel m;
                struct jbd2_report r;
                uint32_t bs = rnd(&seed) % 2 ? 4096 : 1024;
                uint32_t maxlen = 1024 + rnd(&seed) % 30000;
                uint32_t features = (uint32_t[]){ JM_INCOMPAT_CSUM_V3 | JM_INCOMPAT_64BIT,
                        JM_INCOMPAT_CSUM_V2, JM_INCOMPAT_64BIT, 0 }[rnd(&seed) % 4];
                uint32_t fc = rnd(&seed) % 4 == 0 ? 64 + rnd(&seed) % 200 : 0;
                bool cycle = rnd(&seed) % 2;
                uint32_t boots = 1 + rnd(&seed) % 4;
                uint32_t last_commit = 0, last_seq = 0, tail = 0, tail_seq = 0;
                uint64_t t = T2027;

                jm_init(&m, bs, maxlen, features | JM_INCOMPAT_REVOKE, fc, 1 + rnd(&seed));
                for (uint32_t b = 0; b < boots; b++) {
                        uint32_t n = 1 + rnd(&seed) % (jm_last(&m) / 2);
                        uint64_t written_at_start = m.writes;

                        if (!cycle)
                                m.pos = m.first;
                        for (uint32_t i = 0; i < n && m.writes - written_at_start < n; i++) {
                                uint32_t big = jm_last(&m) / 8 < 300 ? jm_last(&m) / 8 : 300;
                                uint32_t size = rnd(&seed) % 20 == 0 ? rnd(&seed) % big : rnd(&seed) % 4;
                                /* The tail of the log: some transaction of the last boot, not yet
                                 * checkpointed. */
                                if (b + 1 == boots && (i == 0 || rnd(&seed) % 64 == 0) &&
                                        m.writes - written_at_start < n / 2) {
                                        tail = m.pos;
                                        tail_seq = m.next_sequence;
                                }
                                last_seq = m.next_sequence;
                                last_commit = jm_transaction(&m, size, rnd(&seed) % 8 == 0, true, t, 0);
                                t += 1 + rnd(&seed) % 30;
                        }
                }
                switch (rnd(&seed) % 3) {
                case 0: /* power cut, maybe during a commit */
                        if (rnd(&seed) % 2)
                                jm_transaction(&m, 1 + rnd(&seed) % 5, false, false, 0, 0);
                        jm_set_dirty(&m, tail, tail_seq);
                        break;
                case 1: /* unmount */
                        jm_set_clean(&m, m.next_sequence + 1, cycle ? m.pos : 0);
                        break;
                default: /* remount read-only */
                        jm_set_clean(&m, m.next_sequence, cycle ? m.pos : 0);
                        break;
                }

                check_int(walk(&m, &r), 0);
                if (r.budget_exhausted) {
                        /* What was found must be there, in the order of the log, and no newer than the last.
                         */
                        exhausted++;
                        check(!r.newest.found ||
                                (m.blocks[r.newest.block].kind == JM_COMMIT &&
                                        m.blocks[r.newest.block].sequence == r.newest.sequence &&
                                        !seq_after32(r.newest.sequence, last_seq)));
                } else if (!r.newest.found || r.newest.block != last_commit ||
                        r.newest.sequence != last_seq || !r.best.found || r.best.block != last_commit) {
                        fprintf(stderr,
                                "round %d: bs %u maxlen %u fc %u features %#x cycle %d boots %u dirty %d: "
                                "newest %d seq %u block %u, expected seq %u block %u; read %u\n",
                                round, bs, maxlen, fc, features, cycle, boots, r.dirty, r.newest.found,
                                r.newest.sequence, r.newest.block, last_seq, last_commit, r.blocks_read);
                        test_failures++;
                }
                worst = r.blocks_read > worst ? r.blocks_read : worst;
                jm_free(&m);
        }
        printf("400 random journals: at most %u blocks read, %u out of budget\n", worst, exhausted);
        check(exhausted <= 20);
}

int main(void)
{
        test_empty();
        test_clean_no_head();
        test_clean_head();
        test_dirty_wrapped_torn();
        test_tag_formats();
        test_wrong_clock_same_run();
        test_wrong_clock_earlier_mount();
        test_wrong_clock_head();
        test_wrong_clock_cycle();
        test_wrong_clock_boots();
        test_large_transactions();
        test_small_after_large();
        test_lattice();
        test_checkpointed_start();
        test_torn_large();
        test_torn_leftover();
        test_unreadable_headers();
        test_unreadable_before_zeros();
        test_unreadable_start();
        test_unreadable_start_zeros();
        test_clean_zeros_at_start();
        test_before_5_5();
        test_last_descriptor_340();
        test_zero_data();
        test_long_zero_data();
        test_zero_tail();
        test_medium_transactions();
        test_walk_past_first_probe();
        test_one_gib();
        test_huge_maxlen();
        test_fast_commit();
        test_damage();
        test_v1_untimed();
        test_straddling_first_transaction();
        test_random();
        test_end();
}
