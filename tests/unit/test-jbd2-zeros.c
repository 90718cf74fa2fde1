/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-jbd2-zeros: the search against the oracle on logs whose transactions hold runs of zero
 * blocks. jbd2 journals blocks that are all zeros (an emptied bitmap, a file of zeros written with
 * data=journal), and a torn transaction's tail may never have reached the disk; the search takes
 * zeros for the end of the log until it sees the run go past them, and these logs are where it
 * must. The generated boot histories of test-jbd2-property hold no zero data blocks.
 *
 * Each log is random from its seed: 1 or 4 KiB blocks, every tag format, 1100 to 40000 blocks, an
 * older lap or none, dirty or clean without a head (the log restarted at its first block), small,
 * middling, large or mixed transactions (at most a quarter of the log, as jbd2 writes them), at
 * times a large newest one and a torn one (its tail zeros or not), one to four runs of zeros among
 * the data of random transactions (most often the newest few), at times a block that cannot be
 * read, and at times clocks at 2000. With the whole log's budget and with the default one, the
 * answer must be the oracle's wherever the search does not report its budget spent.
 * JBD2_ZEROS_SEED and JBD2_ZEROS_COUNT choose the logs (1 and 2000); JBD2_ZEROS_VERBOSE=1
 * prints each log's layout and the search's debug log.
 */

#include <errno.h>
#include <syslog.h>

#include "basic/log.h"
#include "jbd2-model.h"
#include "jbd2-oracle.h"
#include "jbd2/jbd2.h"
#include "test.h"

#define T2000 946684800ull
#define T2026 1767225600ull
#define T2027 1798761600ull
#define T2056 2713910400ull

static const struct window window = {
        .floor = (usec_t)T2026 * USEC_PER_SEC,
        .not_after = (usec_t)T2056 * USEC_PER_SEC,
};

static uint64_t rng;

static uint64_t next_random(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

/* A number from lo to hi, both included. */
static uint32_t between(uint32_t lo, uint32_t hi)
{
        return lo + (uint32_t)(next_random() % ((uint64_t)hi - lo + 1));
}

struct log {
        struct jmodel m;
        long unreadable; /* a block reads fail on, or -1 */
};

static int read_blocks(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        const struct log *l = userdata;

        for (uint32_t i = 0; i < count; i++, block++) {
                if (block >= l->m.maxlen || (long)block == l->unreadable)
                        return -EIO;
                jm_render(&l->m, (uint32_t)block, (uint8_t *)buf + (size_t)i * l->m.blocksize);
        }
        return 0;
}

static int read_block(void *userdata, uint64_t block, void *buf)
{
        return read_blocks(userdata, block, 1, buf);
}

/* A transaction written: the block of its first descriptor and its blocks from there, data included. */
struct written {
        uint32_t first, blocks;
};

enum { SMALL, MIDDLING, LARGE, MIXED, _SIZES };

/* Data blocks of a transaction of a size class, per data blocks a descriptor lists, at most cap. */
static uint32_t transaction_size(int size, uint32_t per, uint32_t cap)
{
        uint32_t n, x;

        switch (size) {
        case SMALL:
                n = between(1, 4);
                break;
        case MIDDLING:
                n = between(5, 60);
                break;
        case LARGE:
                n = between(60, 3 * per + 10);
                break;
        default:
                x = between(0, 99);
                n = x < 70 ? between(1, 4) : x < 90 ? between(5, 60) : between(60, 6 * per);
        }
        return n < cap ? n : cap;
}

static uint32_t wrap_block(const struct jmodel *m, uint32_t b)
{
        return b > jm_last(m) ? b - jm_last(m) - 1 + m->first : b;
}

/* Appends a transaction of n data blocks at m->pos and records where it lies. */
static void append(struct jmodel *m, struct written *w, unsigned *n_written, uint32_t n, bool revoke,
        bool commit, uint64_t sec)
{
        uint32_t at = revoke ? wrap_block(m, m->pos + 1) : m->pos;

        jm_transaction(m, n, revoke, commit, sec, 0);
        w[(*n_written)++] = (struct written){ at, jm_transaction_blocks(m, n, false, false) };
}

/* Makes the log of seed; the number of transactions written in its live part (0: none). */
static unsigned make_log(struct log *l, struct written *w)
{
        struct jmodel *m = &l->m;
        unsigned n_written = 0;

        jm_init(m, between(0, 3) ? 1024 : 4096, between(0, 2) ? between(1100, 6000) : between(6000, 40000),
                jm_tag_formats[between(0, JM_TAG_FORMATS - 1)] | JM_INCOMPAT_REVOKE, 0,
                between(1, 4000000000u));

        uint32_t per = jm_tags_per_descriptor(m), length = jm_last(m) - m->first + 1;
        uint32_t cap = length / 4 - length / 4 / (per + 1) - 3; /* a transaction takes at most a quarter */
        int size = (int)between(0, _SIZES);
        bool clean = between(0, 3) == 0;

        if (between(0, 2) == 0) {
                /* An older lap, its sequence numbers lower. */
                uint32_t blocks = between(length / 4, length * 2);

                m->pos = clean ? m->first : between(m->first, jm_last(m));
                while (m->writes < blocks)
                        jm_transaction(m, transaction_size(size, per, cap), between(0, 5) == 0, true,
                                T2027 + m->writes, 0);
                m->next_sequence += between(1, 2);
        }
        uint64_t lap = m->writes;

        if (clean)
                m->pos = m->first;
        else if (between(0, 1))
                m->pos = between(m->first, jm_last(m));

        uint32_t start = m->pos, sequence = m->next_sequence, live = between(50, length - 50);
        int live_size = between(0, 2) ? size : (int)between(0, _SIZES - 1);
        uint64_t clock = between(0, 4) == 0 ? T2000 : T2027;

        for (;;) {
                uint32_t n = transaction_size(live_size, per, cap);
                bool revoke = between(0, 5) == 0;

                if (m->writes - lap + jm_transaction_blocks(m, n, revoke, true) + 2 >= live)
                        break;
                append(m, w, &n_written, n, revoke, true, (between(0, 9) ? clock : T2027) + m->writes);
        }
        if (between(0, 1)) {
                /* A large newest transaction. */
                uint32_t n = between(100, 8 * per);

                n = n < cap ? n : cap;
                if (m->writes - lap + jm_transaction_blocks(m, n, false, true) + 2 < length - 2)
                        append(m, w, &n_written, n, false, true, T2027 + m->writes);
        }
        if (between(0, 3) == 0) {
                /* Torn by a power cut: no commit, and at times its tail never written. */
                uint32_t n = transaction_size(between(0, 1) ? LARGE : live_size, per, cap);
                bool tail_lost = between(0, 1);

                if (m->writes - lap + jm_transaction_blocks(m, n, false, false) + 2 < length - 2) {
                        append(m, w, &n_written, n, false, false, 0);
                        if (tail_lost)
                                for (uint32_t i = between(1, w[n_written - 1].blocks);
                                        i < w[n_written - 1].blocks; i++)
                                        m->blocks[wrap_block(m, w[n_written - 1].first + i)].kind = JM_ZERO;
                }
        }
        if (n_written == 0)
                return 0;
        /* Runs of zeros among the data of transactions, most often of the newest few. */
        for (unsigned z = between(1, 4); z > 0; z--) {
                unsigned t = between(0, 2)
                        ? n_written - 1 - between(0, n_written - 1 < 3 ? n_written - 1 : 3)
                        : between(0, n_written - 1);
                uint32_t from = between(0, w[t].blocks - 1),
                         n = between(0, 2) ? between(1, w[t].blocks) : between(30, 300);

                for (uint32_t i = from; i < from + n && i < w[t].blocks; i++) {
                        struct jm_block *b = &m->blocks[wrap_block(m, w[t].first + i)];

                        if (b->kind == JM_DATA)
                                b->kind = JM_ZERO;
                }
        }
        if (clean)
                jm_set_clean(m, m->next_sequence + between(0, 1), 0);
        else
                jm_set_dirty(m, start, sequence);
        l->unreadable = -1;
        if (between(0, 5) == 0) {
                uint32_t b = between(m->first, jm_last(m));

                if (m->blocks[b].kind == JM_DATA || m->blocks[b].kind == JM_ZERO)
                        l->unreadable = b;
        }
        return n_written;
}

static void print_layout(const struct jmodel *m)
{
        static const char *names[] = {
                [JM_DESCRIPTOR] = "descriptor", [JM_COMMIT] = "commit", [JM_REVOKE] = "revoke"
        };

        for (uint32_t i = m->first, j; i <= jm_last(m); i = j + 1) {
                const struct jm_block *b = &m->blocks[i];

                j = i;
                if (b->kind == JM_DATA || b->kind == JM_ZERO) {
                        while (j + 1 <= jm_last(m) && m->blocks[j + 1].kind == b->kind)
                                j++;
                        printf("  %u-%u %s\n", i, j, b->kind == JM_DATA ? "data" : "zeros");
                } else
                        printf("  %u %s, sequence %u, %u tags\n", i, names[b->kind] ? names[b->kind] : "?",
                                b->sequence, b->ntags);
        }
        printf("  superblock: start %u, sequence %u\n", m->start, m->sequence);
}

static unsigned searches, spent;

static void check_log(uint64_t seed, bool verbose)
{
        static struct written w[20000];
        struct log l;
        struct jo_result o;

        rng = seed * 0x9e3779b97f4a7c15ull + 12345;
        for (int i = 0; i < 5; i++)
                next_random();
        if (make_log(&l, w) == 0) {
                jm_free(&l.m);
                return;
        }
        long unreadable = l.unreadable;
        uint32_t length = jm_last(&l.m) - l.m.first + 1;
        const unsigned budgets[] = { 2 * (length / 256 + 2) + 64, JBD2_BUDGET_DEFAULT };

        if (verbose) {
                printf("seed %llu, unreadable block %ld:\n", (unsigned long long)seed, unreadable);
                print_layout(&l.m);
                log_set_max_level(LOG_DEBUG);
        }
        l.unreadable = -1;
        check_int(jo_scan(read_block, &l, l.m.blocksize, 0, l.m.maxlen, false, window.floor,
                          window.not_after, &o),
                0);
        l.unreadable = unreadable;
        for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
                struct jbd2_source src = {
                        .read = read_blocks,
                        .userdata = &l,
                        .sb_block = 0,
                        .blocksize = l.m.blocksize,
                        .max_blocks = l.m.maxlen,
                };
                struct jbd2_report r = { 0 };
                const char *reason;

                check_int(jbd2_find_commit(&src, &window, budgets[i], &r, &reason), 0);
                searches++;
                if (r.budget_exhausted) {
                        spent++; /* a commit that is there, and said to be maybe not the newest */
                        continue;
                }
                if (r.best.found != o.best.found ||
                        (o.best.found &&
                                (r.best.sequence != o.best.sequence || r.best.block != o.best.block))) {
                        fprintf(stderr,
                                "seed %llu, budget %u: commit %u (block %u) found, the oracle's is %u (block %u)%s; "
                                "JBD2_ZEROS_SEED=%llu JBD2_ZEROS_COUNT=1 JBD2_ZEROS_VERBOSE=1 shows it\n",
                                (unsigned long long)seed, budgets[i], r.best.found ? r.best.sequence : 0,
                                r.best.block, o.best.found ? o.best.sequence : 0, o.best.block,
                                o.best.found ? "" : ", none", (unsigned long long)seed);
                        test_failures++;
                }
        }
        if (verbose)
                log_set_max_level(LOG_INFO);
        jo_result_free(&o);
        jm_free(&l.m);
}

int main(void)
{
        const char *s = getenv("JBD2_ZEROS_SEED"), *c = getenv("JBD2_ZEROS_COUNT"),
                   *v = getenv("JBD2_ZEROS_VERBOSE");
        uint64_t seed = s ? strtoull(s, NULL, 0) : 1;
        unsigned count = c ? (unsigned)strtoul(c, NULL, 0) : 2000;

        for (unsigned i = 0; i < count; i++)
                check_log(seed + i, v && *v == '1');
        printf("%u searches of logs with zeros among their data, %u with the budget spent\n", searches,
                spent);
        check(searches > count); /* most seeds make a log, searched with two budgets */
        test_end();
}
