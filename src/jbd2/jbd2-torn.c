/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-torn: the newest commit when the run ends in a transaction a power cut tore */

#include "basic/log.h"
#include "jbd2/jbd2-internal.h"

/* Whether descriptor k strides back from run->last's, held, is one of the same transaction. */
static bool descriptor_of_last(struct walk *w, const struct run *run, uint32_t pos)
{
        struct header h;

        return jbd2_header_at(w, pos, &h) && h.type == BLOCK_DESCRIPTOR && h.sequence == run->last.sequence;
}

/*
 * Where the transaction of run->last, a descriptor a probe landed on, starts, when a chunk read
 * back from it (held, from held_from) did not reach its start: jbd2 fills every descriptor of a
 * transaction but its last, so its descriptors lie a stride apart back to its first, and a
 * block a stride before that is not one of them. Halving the strides, one block a read, finds
 * the first, where the chunks back to `from` would read every block of the transaction. Only
 * where a filled descriptor was met in the log (its tags give the stride, as the kernel that
 * wrote it filled them), and where the halving costs fewer reads than the chunks back to `from`
 * would at most. 1 with
 * *start, the first descriptor, further back than the chunk (the commit sought lies just before
 * it, past a few revoke blocks); 0 when there is none to find so; or -ENOBUFS.
 */
static int transaction_start(
        struct walk *w, const struct run *run, uint32_t from, uint32_t held_from, uint32_t *start)
{
        if (run->last.type != BLOCK_DESCRIPTOR || w->lattice.type != BLOCK_DESCRIPTOR)
                return 0; /* no stride known */

        const uint32_t to = run->last.pos, stride = w->stride,
                       in_chunk = distance(w, held_from, to) / stride;
        uint32_t good = 0, bad = distance(w, from, to) / stride + 1, halvings = 0;

        /* The strides within the chunk are held. */
        while (good < in_chunk &&
                descriptor_of_last(w, run, wrap(w, (uint64_t)to + w->length - (good + 1) * stride)))
                good++;
        if (good < in_chunk)
                return 0; /* it starts within the chunk */
        while (1u << halvings < bad - good)
                halvings++;
        if (halvings + 1 >= (distance(w, from, held_from) + CHUNK_MAX - 1) / CHUNK_MAX)
                return 0;
        for (uint32_t known = good; bad - good > 1;) {
                uint32_t k = good + (bad - good) / 2;
                uint32_t pos = wrap(w, (uint64_t)to + w->length - (uint64_t)k * stride);
                int n = jbd2_load(w, pos, 1);

                if (n < 0)
                        return n;
                if (descriptor_of_last(w, run, pos))
                        good = k;
                else
                        bad = k;
                if (bad - good <= 1 && good == known)
                        return 0;
        }
        *start = wrap(w, (uint64_t)to + w->length - (uint64_t)good * stride);
        log_debug("journal: transaction %u starts at block %u or just before (its descriptors, %u apart)",
                run->last.sequence, block_of(w, *start), (unsigned)stride);
        return 1;
}

/*
 * Takes the newest commit of the run older than run->last among the n blocks held from pos:
 * 1, or 0 when there is none. 2 when a header newer than run->last comes first, back from it:
 * the run went on there with newer transactions, so run->last, the probe's landing, is an
 * older transaction past the run's end (a torn one, which the next mount wrote over only in
 * part, its later descriptors left); *stale is then the nearest header past the newer one, met
 * on the way back (else as it was), not the run's either.
 */
static int take_commit_held(struct walk *w, struct run *run, uint32_t pos, uint32_t n, uint32_t *stale)
{
        for (uint32_t i = n; i-- > 0;) {
                uint32_t p = wrap(w, (uint64_t)pos + i);
                struct header h;

                if (!jbd2_header_at(w, p, &h))
                        continue;
                if (!seq_after(run->seq0, h.sequence) && seq_after(h.sequence, run->last.sequence) &&
                        !seq_after(h.sequence, w->max))
                        return 2;
                /* Older than the newer header, should one come further back: not the run's then. */
                *stale = p;
                if (seq_after(run->seq0, h.sequence))
                        continue; /* older than the run's first transaction: not the run's */
                if (h.type == BLOCK_COMMIT &&
                        (!run->commit.found || seq_after(h.sequence, run->commit.sequence)) &&
                        seq_after(run->last.sequence, h.sequence)) {
                        jbd2_take(w, run, &h);
                        return 1;
                }
        }
        return 0;
}

/*
 * The landing was not the run's: the run ends before `stale`, the first header after the newer one
 * (it is older: a header the run would have written over), for sure, and goes on from the header
 * following had reached, through blocks now held.
 */
static void unland(struct walk *w, struct run *run, uint32_t stale)
{
        log_debug("journal: transaction %u at block %u lies past the run's end: a newer one is before it",
                run->last.sequence, block_of(w, run->last.pos));
        run->hi = distance(w, run->pos0, stale);
        run->hi_sure = 0;
        run->n_zeros = 0;
        run->hi_cut = false;
        run->last = run->before_landing;
        run->landed = false;
        run->ended = false;
}

/*
 * The commit of the transaction before the one that probe landed on, when
 * that one turned out to have no commit (power went while it was written):
 * it lies between where following had stopped and the landing, read back a
 * chunk at a time, or just before the landed transaction's start where its
 * descriptors tell (transaction_start()). 1 when a newer header lies there:
 * the landing was not the run's (unland()).
 */
int jbd2_commit_before_landing(struct walk *w, struct run *run)
{
        uint32_t from = run->before_landing.next, todo = distance(w, from, run->last.pos), n = CHUNK_MAX;
        uint32_t stale = run->last.pos;
        bool looked = false;

        while (todo > 0) {
                uint32_t pos = wrap(w, (uint64_t)from + todo - min_u32(todo, n)), start;
                int k = jbd2_load(w, pos, min_u32(todo, n));

                if (k < 0)
                        return k;
                k = take_commit_held(w, run, pos, (uint32_t)k, &stale);
                if (k == 2)
                        unland(w, run, stale);
                if (k > 0)
                        return k - 1;
                todo -= min_u32(todo, n);
                n = CHUNK_MAX;
                if (!looked && todo > 0) {
                        looked = true;
                        k = transaction_start(w, run, from, pos, &start);
                        if (k < 0)
                                return k;
                        if (k == 1) {
                                /* Its revoke blocks, few, and the commit before them, first. */
                                todo = distance(w, from, start);
                                stale = start;
                                n = START_CHUNK;
                        }
                }
        }
        return 0;
}
