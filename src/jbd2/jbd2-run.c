/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-run: the run of transactions that holds the newest commit: following it, probing it, its end */

#include <errno.h>

#include "basic/log.h"
#include "jbd2/jbd2-internal.h"

/*
 * The size of a probe: a transaction as large as the log has shown them, and its commit and the
 * next one's first header: one of them is in it where transactions are no larger. Where one is,
 * the probe reads on (probe()): cheaper than reading half a transaction more on every probe.
 */
static uint32_t probe_blocks(const struct walk *w)
{
        uint64_t n = START_CHUNK;

        if (w->seen_transactions > 0) {
                uint64_t size = (w->seen_blocks + w->seen_transactions - 1) / w->seen_transactions;
                n = (size > w->largest ? size : w->largest) + 2;
        }
        return n < CHUNK_MIN ? CHUNK_MIN : n > CHUNK_MAX ? CHUNK_MAX : (uint32_t)n;
}

/*
 * What a probe of span blocks reads first; it reads on where that holds data and no header. Half
 * its size: a header lies anywhere in it, as likely in either half, and on today's cards the
 * bytes of the other half cost more than a read, on the seed's card about as much. Once a probe
 * has met zeros, the log was likely never written past its end: a small chunk says so at that
 * cost (jbd2_find_end() makes sure of it if the run turns out to go past it). And what the probe
 * would leave, were the run to go on past it, is read with it: one read where a probe and then
 * the rest of the gap would be two (on the seed's card a read costs more than TAIL_BLOCKS blocks).
 */
static uint32_t first_read(const struct walk *w, uint32_t span)
{
        uint32_t whole = probe_blocks(w), n;

        if (w->zeros_met)
                return min_u32(min_u32(CHUNK_MIN, whole), span);
        n = min_u32(whole / 2 < CHUNK_MIN ? whole : whole / 2, span);
        return span - n <= TAIL_BLOCKS ? span : n;
}

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

void jbd2_take(struct walk *w, struct run *run, const struct header *h)
{
        run->last = *h;
        if (h->type == BLOCK_DESCRIPTOR && w->seen_transactions == 0) {
                /* Until a commit tells: a transaction as large as this descriptor's. */
                w->seen_blocks = distance(w, h->pos, h->next) + 1;
                w->seen_transactions = 1;
        }
        if (h->type != BLOCK_COMMIT)
                return;
        uint32_t size = h->sequence == run->seq0 ? offset(w, run, h->pos) + 1
                : run->commit.found && h->sequence == run->commit.sequence + 1
                ? distance(w, run->commit_pos, h->pos)
                : 0;
        if (size > w->largest)
                w->largest = size;
        run->commit = jbd2_commit_of(w, h);
        run->commit_pos = h->pos;
        run->landed = false;
        if (h->sequence != run->seq0) {
                w->seen_blocks = offset(w, run, h->pos) + 1;
                w->seen_transactions = h->sequence - run->seq0 + 1;
        }
        if (log_debug_enabled()) {
                char buf[128];
                log_debug("journal: transaction %u: %s%s", h->sequence,
                        jbd2_describe(w, h, buf, sizeof(buf)),
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
                if (!jbd2_is_held(w, next) || !jbd2_held(w, next))
                        return;
                if (!jbd2_header_at(w, next, &h) || !continues(w, run, &h)) {
                        run->ended = true;
                        return;
                }
                jbd2_take(w, run, &h);
        }
}

/*
 * The first header among the blocks held from pos; with_data is set when a
 * block there is neither a header nor zeros, or could not be read.
 */
bool jbd2_first_header(struct walk *w, uint32_t pos, uint32_t n, struct header *ret, bool *with_data)
{
        *with_data = false;
        for (uint32_t i = 0; i < n; i++) {
                uint32_t p = wrap(w, (uint64_t)pos + i);
                const uint8_t *b = jbd2_held(w, p);

                if (!b) {
                        *with_data = true; /* unreadable: it says nothing of where the log ends */
                        continue;
                }
                if (jbd2_header_at(w, p, ret))
                        return true;
                if (!all_zero(b, w->rep->blocksize))
                        *with_data = true;
        }
        return false;
}

/*
 * How far from a full descriptor the lattice is looked at, in strides: a look that misses costs
 * a read more, one that lands saves a probe's first read. On bench/read-cost's disks (directory
 * trees copied in transactions of 10 to 40 descriptors) 16 paid best while probes read their
 * whole size first; with half of it first, 8 (c128w-dirty: 11 reads where 12; 4 read more
 * blocks), and fewer reads on the generated logs of the unit tests (test-jbd2-zeros: 11.3 a
 * search, 11.6 with 16).
 */
#define LATTICE_STRIDES 8

/*
 * The block of the lattice nearest offset d, strictly between lo and hi: jbd2 fills every
 * descriptor of a transaction but its last with full_tags tags (full_tags_old before Linux 5.5),
 * so while a transaction goes on its descriptors lie a stride apart, on either side of a full
 * one (w->lattice). UINT32_MAX when there is none within LATTICE_STRIDES.
 */
static uint32_t on_lattice(const struct walk *w, const struct run *run, uint32_t d, uint32_t lo, uint32_t hi)
{
        int64_t stride = w->stride, reach = stride * LATTICE_STRIDES;
        int64_t a, k, q;

        if (w->lattice.type != BLOCK_DESCRIPTOR)
                return UINT32_MAX;
        a = offset(w, run, w->lattice.pos);
        k = ((int64_t)d - a + (d >= a ? stride / 2 : -(stride / 2))) / stride;
        q = a + k * stride;
        if (q <= lo)
                q += stride;
        if (q >= hi)
                q -= stride;
        if (q <= lo || q >= hi || q == a || (q > a ? q - a : a - q) > reach)
                return UINT32_MAX;
        return (uint32_t)q;
}

/*
 * A large transaction met before may go on near offset *d: its descriptor's block alone, read
 * first, is the header a probe looks for (one block, not a transaction's length). 1 with *h when
 * there is a header there, and *d moved to it; 0 when there is none (anything else there says
 * nothing: the probe reads on from it) or no lattice near; or -ENOBUFS.
 */
static int look_on_lattice(struct walk *w, const struct run *run, uint32_t *d, struct header *h)
{
        uint32_t q = on_lattice(w, run, *d, offset(w, run, run->last.next), run->hi),
                 seq = w->lattice.sequence;
        char buf[128];

        if (q == UINT32_MAX)
                return 0;
        /* A transaction of the run that the run has gone past does not go on beyond it. */
        if (!seq_after(run->seq0, seq) &&
                (seq_after(run->last.sequence, seq) ||
                        (seq == run->last.sequence && run->last.type == BLOCK_COMMIT)))
                return 0;
        uint32_t qpos = wrap(w, (uint64_t)run->pos0 + q), anchor = w->lattice.pos;
        int k = jbd2_load(w, qpos, 1);

        if (k < 0)
                return k;
        *d = q;
        bool found = jbd2_header_at(w, qpos, h);
        log_debug("journal: look at block %u, on the lattice of descriptor block %u: %s", block_of(w, qpos),
                block_of(w, anchor), found ? jbd2_describe(w, h, buf, sizeof(buf)) : "no header");
        return found;
}

/*
 * Whether a probe whose first read holds only data stops there, an end as unsure as zeros are,
 * where it would read on as far as a header must come (max_tags blocks): where the run has shown
 * only small transactions (its probes are CHUNK_MIN blocks, a header in each), the data is likely
 * an older lap's large transaction past the run's end, whose next header can be 250 blocks on
 * (c128w-dirty's logs of fsyncs: 1 MiB a probe). Not in a clean log whose newest transaction's
 * number places the probes (next to a bound), not for more than CUTS_MAX probes of a run, and
 * no more once one was not the end (resume_cut()): in logs of small and large transactions mixed,
 * where probes land among the run's own data, each costs a probe more.
 */
#define CUTS_MAX 2u

static bool may_cut(const struct walk *w, const struct run *run, uint32_t whole)
{
        return whole <= CHUNK_MIN && w->seen_transactions > 0 && !run->target && !run->no_cuts &&
                run->cuts < CUTS_MAX && !jbd2_unreadable_held(w);
}

/*
 * Probes the run at offset d: reads a chunk there and takes the first header
 * it holds. One of the run's, newer than its last: the run goes on there.
 * Another (an older lap, a torn transaction's leftovers), or nothing but
 * zeros: the run's commits all lie before d. Only data: read on as far as a
 * header must come within the run (a descriptor lists at most max_tags data
 * blocks); none there either: before d too. Past a run of small transactions,
 * a probe may stop after its first read instead (may_cut()). Just past a
 * header that cannot be read (past_unreadable), zeros are no sign of the end
 * (they may be the transaction's data, which that header lists) and count as
 * data, and the probe is not cut.
 */
static int probe(struct walk *w, struct run *run, uint32_t d, bool past_unreadable)
{
        struct header h;
        bool found, with_data = past_unreadable, cut = false;
        char buf[128];
        int r = look_on_lattice(w, run, &d, &h);

        if (r < 0)
                return r;
        found = r == 1;

        uint32_t pos = wrap(w, (uint64_t)run->pos0 + d), span = run->hi - d, whole = probe_blocks(w);
        uint32_t n = first_read(w, span), read = 0, clean = 0, at = pos; /* clean: readable, in a row */

        while (!found) {
                bool data;
                int k = jbd2_load(w, at, n);

                if (k < 0)
                        return k;
                found = jbd2_first_header(w, at, (uint32_t)k, &h, &data);
                with_data |= data;
                read += (uint32_t)k;
                uint32_t tail = jbd2_readable_after(w, at, (uint32_t)k);
                clean = tail == (uint32_t)k ? clean + tail : tail;
                if ((uint32_t)k < n && !found)
                        return -ENOBUFS; /* not all of it read: no conclusion */
                /* A header, zeros, the bound, or data as far as a header must come past the unreadable. */
                if (found || !with_data || read >= span || clean >= w->max_tags + 2)
                        break;
                if (!past_unreadable && may_cut(w, run, whole)) {
                        cut = true;
                        run->cuts++;
                        break;
                }
                at = wrap(w, (uint64_t)at + (uint32_t)k);
                n = min_u32(read < whole                  ? whole - read
                                : clean < w->max_tags + 2 ? w->max_tags + 2 - clean
                                                          : whole,
                        CHUNK_MAX);
                n = min_u32(n, span - read);
        }
        w->zeros_met |= !found && !with_data;
        if (read > 0)
                log_debug("journal: probe at block %u, %u block(s): %s", block_of(w, pos), (unsigned)read,
                        found               ? jbd2_describe(w, &h, buf, sizeof(buf))
                                : with_data ? (cut ? "data blocks only, cut short" : "data blocks only")
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
                        run->before_landing = run->last;
                jbd2_take(w, run, &h);
                run->landed = h.type != BLOCK_COMMIT;
                return 0;
        }
        /*
         * Zeros: the end, unless the run is seen to go past them (goes_on_past_zeros()); and so is
         * data read only as far as such an end, short of where a header must come: the run's
         * data before those same zeros, and a probe cut short (may_cut()). A header not the run's,
         * or data as far as a header must come, is the end for sure.
         */
        if (!found && (!with_data || cut || (clean < w->max_tags + 2 && run->hi_sure))) {
                if (!run->hi_sure) {
                        run->hi_sure = run->hi;
                        run->n_zeros = 0;
                } else if (run->n_zeros < ZEROS_MAX)
                        run->zeros[run->n_zeros++] = run->hi; /* an earlier probe of zeros, or cut short */
        } else
                run->hi_sure = 0;
        run->hi = d;
        run->hi_cut = cut;
        return 0;
}

/* run->hi, an unsure end, is not the end: the next bound past it holds, unsure or sure. */
static void drop_bound(struct run *run)
{
        run->hi_cut = false;
        if (run->n_zeros > 0)
                run->hi = run->zeros[--run->n_zeros];
        else {
                run->hi = run->hi_sure;
                run->hi_sure = 0;
        }
}

/*
 * A probe landed in the run before run->hi, where a probe was cut short (may_cut()): the run may
 * go on past there, the data a large transaction of its own. The probe there is made again and
 * read through, the bound before it restored; where the run goes on past it, no probe is cut again.
 * 0, or -ENOBUFS.
 */
static int resume_cut(struct walk *w, struct run *run)
{
        uint32_t d = run->hi, was = run->last.pos;
        int k;

        drop_bound(run);
        run->no_cuts = true;
        log_debug("journal: reading through the probe cut short at offset %u", d);
        k = probe(w, run, d, false);
        run->no_cuts = run->last.pos != was;
        return k;
}

/*
 * Whether the run goes on past where a probe of zeros (or cut short) said it ended: its last header is a
 * descriptor whose next header lies past there, so the zeros were that transaction's data (jbd2
 * journals zeroed blocks: an emptied bitmap, a file of zeros with data=journal), or it was torn by
 * a power cut. The block where that next header goes tells which: a header of the run there
 * (1), and the run is followed on as far as it surely may; one that cannot be read (1), and the
 * run is looked for past it; else it ended (0); or -ENOBUFS.
 */
static int goes_on_past_zeros(struct walk *w, struct run *run)
{
        uint32_t off = offset(w, run, run->last.next);
        struct header h;

        if (!run->hi_sure || run->last.type == BLOCK_COMMIT || off < run->hi || off >= run->hi_sure ||
                off <= offset(w, run, run->last.pos))
                return 0;
        int k = jbd2_load(w, run->last.next, 1);

        if (k < 0)
                return k;
        if (!jbd2_held(w, run->last.next))
                /* Unreadable: it may be the header; looked past as any unreadable one is. */
                log_debug("journal: the run may go on past the zeros at offset %u: block %u cannot be read",
                        (unsigned)run->hi, block_of(w, run->last.next));
        else if (!jbd2_header_at(w, run->last.next, &h) || !continues(w, run, &h))
                return 0;
        else
                log_debug("journal: the run goes on past the zeros at offset %u: %s", (unsigned)run->hi,
                        jbd2_describe(w, &h, (char[128]){ 0 }, 128));
        /* The probes of zeros further on still bound it, as unsure as before; past them, the sure one. */
        while (run->n_zeros > 0 && run->zeros[run->n_zeros - 1] <= off)
                run->n_zeros--;
        run->no_cuts |= run->hi_cut;
        drop_bound(run);
        run->ended = false;
        return 1;
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
 * Whether the run's next header is a large transaction's commit, to be read before probing: its
 * last header is the transaction's last descriptor (one jbd2 did not fill) and lists more data
 * blocks than the smallest probe reads. A dirty log starts where jbd2 last checkpointed (a sync,
 * the log running short), and the transactions committed since are often the one there and one
 * or two more: the commit and the blocks after it, one small read, then end the search, where
 * each probe halving the journal would read a transaction's length.
 */
static bool step_to_commit(const struct walk *w, const struct run *run)
{
        uint32_t tags = distance(w, run->last.pos, run->last.next) - 1;

        return run->last.type == BLOCK_DESCRIPTOR && tags > CHUNK_MIN && !filled(w, tags);
}

/*
 * The steps a search walks, at most, once its first probe landed in the run: each reads
 * START_CHUNK blocks where the run's next header goes (a large transaction's commit, the few small
 * transactions jbd2 often commits between two large ones, the next one's descriptor). That probe
 * was placed where a dirty log likely ends (a quarter of the journal past its start), and a log
 * that goes on past it often ends a few transactions on. Where transactions are large (WALK_MEAN
 * blocks and more on average; copied trees: 100 to 250), a step costs a read and passes one; a
 * probe costs 1.5 reads and 0.75 of a transaction, and halves what is left. 6 steps cost about one
 * probe of 200 blocks on today's cards (a read costs as much as 10 blocks), 2.6 on the seed's (160
 * blocks): a log that ends within them is found without the 5 or 6 probes that halve the rest of
 * the journal down to it; one that goes on pays for them. Not from a filled descriptor (lattice
 * looks step through a large transaction), only where the newest transaction, if known, is within
 * the steps left, and only where the budget keeps reads enough to halve what the walk does not
 * reach.
 */
#define WALK_STEPS 6u
#define WALK_MEAN  (4 * START_CHUNK)

static bool walk_on(const struct walk *w, const struct run *run, bool landed)
{
        if (!landed || run->steps >= WALK_STEPS || w->seen_transactions == 0 ||
                w->seen_blocks / w->seen_transactions < WALK_MEAN ||
                w->rep->budget <= w->rep->reads + 2 * WALK_STEPS)
                return false;
        if (run->last.type == BLOCK_DESCRIPTOR && filled(w, distance(w, run->last.pos, run->last.next) - 1))
                return false;
        return !run->target || run->target - run->last.sequence <= WALK_STEPS - run->steps;
}

/*
 * Finds the end of the run: follows it where that costs a read or so, and
 * elsewhere probes between the last header known and where the run surely
 * ends, by interpolation on sequence numbers when the newest one is known,
 * else by halving; each probe is one read. 0 (the end found, or the budget
 * spent: run->commit is the newest commit known either way), or -ENOBUFS.
 */
int jbd2_find_end(struct walk *w, struct run *run)
{
        unsigned interpolated = 0;
        uint32_t width = run->hi;
        bool stepped = false, landed = false, probed = false; /* landed: the first probe, in the run */
        int k;

        for (;;) {
                follow(w, run);
                if (run->ended) {
                        k = goes_on_past_zeros(w, run);
                        /* Landed on a transaction without a commit: 1 when it was not the run's. */
                        if (k == 0 && run->landed)
                                k = jbd2_commit_before_landing(w, run);
                        if (k < 0)
                                return k;
                        if (k == 0)
                                break;
                        continue;
                }
                uint32_t nk = offset(w, run, run->last.next), gap = run->hi - nk;
                /*
                 * What is left is read in one go when it is about two probes' worth; once zeros
                 * were met probes read a small chunk first, and halving costs fewer blocks.
                 */
                uint32_t chunk = probe_blocks(w),
                         tail = w->zeros_met || 2 * chunk < TAIL_BLOCKS ? TAIL_BLOCKS : 2 * chunk;

                if (jbd2_is_held(w, run->last.next)) {
                        /*
                         * Unreadable: look for the run beyond it, past the ends other probes left
                         * unsure (zeros, a probe cut short): the header that would tell them from
                         * the run's own blocks is what cannot be read. Once: the probe from there
                         * stands.
                         */
                        while (run->unread_at != nk + 1 && run->hi_sure)
                                drop_bound(run);
                        run->unread_at = nk + 1;
                        k = 0;
                        if (nk + 1 < run->hi)
                                k = probe(w, run, nk + 1, true);
                        else
                                run->ended = true;
                } else if (step_to_commit(w, run) && (!stepped || gap <= tail)) {
                        stepped = true;
                        k = jbd2_load(w, run->last.next, START_CHUNK);
                } else if (gap <= tail) {
                        k = jbd2_load(w, run->last.next, gap);
                } else if (walk_on(w, run, landed)) {
                        run->steps++;
                        log_debug("journal: step %u from block %u", run->steps, block_of(w, run->last.next));
                        k = jbd2_load(w, run->last.next, START_CHUNK);
                } else {
                        /* Interpolation while it narrows the span by half, halving when it does not. */
                        bool bisect = interpolated > 0 && run->hi - nk > width / 2;
                        uint32_t d = next_probe(w, run, bisect), was = run->last.pos;

                        /*
                         * A dirty log: jbd2 moves the start of the log on the disk when that frees
                         * a quarter of the journal, so unless writing outran the flushing, the log
                         * ends within a quarter or so of it. Look there first.
                         */
                        if (!run->target && width == run->hi && width == w->length)
                                d = nk + (run->hi - nk) / 4;

                        width = run->hi - nk;
                        interpolated = bisect ? 0 : interpolated + 1;
                        k = d - nk < first_read(w, UINT32_MAX) ? jbd2_load(w, run->last.next, chunk)
                                                               : probe(w, run, d, false);
                        landed = run->last.pos != was && !probed;
                        if (k >= 0 && run->last.pos != was && run->hi_cut)
                                k = resume_cut(w, run);
                        probed = true;
                }
                if (k < 0)
                        return k;
        }
        return 0;
}

/*
 * The first header of the run at pos: the one there when it is expected
 * there (sequence, when not 0), else the first in the chunk read from pos.
 * Zeros there may be the data of a transaction that came around the end of
 * the log (journalled blocks of zeros), not a log never written, once a
 * kernel has used the journal (mke2fs writes s_sequence 1; a mount numbers
 * its transactions from one past it): then it reads on as far as a header
 * must come. 1 with *ret, 0 when there is none, -ENOBUFS.
 */
int jbd2_run_start(struct walk *w, uint32_t pos, uint32_t sequence, struct header *ret)
{
        bool with_data = false;
        int k = jbd2_load(w, pos, START_CHUNK);

        if (k < 0)
                return k;
        if (sequence)
                return jbd2_header_at(w, pos, ret) && ret->sequence == sequence;
        uint32_t reach = w->rep->sequence == 1 ? (uint32_t)k : w->max_tags + 1;

        for (uint32_t n = 0; !with_data && n < reach && n < w->length; n += (uint32_t)k) {
                uint32_t at = wrap(w, (uint64_t)pos + n);

                if (n > 0 && (k = jbd2_load(w, at, min_u32(reach - n, CHUNK_MAX))) < 0)
                        return k;
                if (jbd2_first_header(w, at, (uint32_t)k, ret, &with_data))
                        return !seq_after(ret->sequence, w->max);
        }
        return 0;
}
