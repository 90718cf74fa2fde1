/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-search: the search for the newest plausible commit of a journal, and jbd2_find_commit() */

#include <errno.h>
#include <stdlib.h>

#include <ext2fs/ext2fs.h>

#include "basic/cleanup.h"
#include "basic/log.h"
#include "jbd2/jbd2-internal.h"

/* Reads kept for the halving when the budget cannot read back to a plausible commit. */
#define HALVING_READS 8u

/* Whether a is nearer the newest sequence the log can hold than b: the newer of two commits. */
static bool newer(const struct walk *w, uint32_t a, uint32_t b)
{
        return w->max - a < w->max - b;
}

/* A commit found: the newest and the newest plausible are kept, as the highest sequence numbers. */
static void note_commit(struct walk *w, const struct jbd2_commit *c)
{
        struct jbd2_report *r = w->rep;

        if (seq_after(c->sequence, w->max))
                return;
        if (!r->newest.found || newer(w, c->sequence, r->newest.sequence))
                r->newest = *c;
        if (plausible(w, c->time) && (!r->best.found || newer(w, c->sequence, r->best.sequence)))
                r->best = *c;
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
        int k = jbd2_load(w, pos, 1);

        if (k < 0)
                return k;
        bool found = jbd2_header_at(w, pos, ret);
        log_debug("journal: look at block %u, before the head: %s", block_of(w, pos),
                found ? jbd2_describe(w, ret, buf, sizeof(buf)) : "no header");
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
                int k = jbd2_load(w, pos, min_u32(n, CHUNK_MAX));

                if (k < 0)
                        return k;
                for (uint32_t i = 0; i < (uint32_t)k; i++) {
                        struct header h;

                        if (jbd2_header_at(w, wrap(w, (uint64_t)pos + i), &h) && h.type == BLOCK_COMMIT) {
                                struct jbd2_commit c = jbd2_commit_of(w, &h);
                                note_commit(w, &c);
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
        int k = jbd2_load(w, from, n);

        if (k < 0)
                return k;
        for (uint32_t i = 0; i < (uint32_t)k; i++) {
                struct header h;

                if (!jbd2_header_at(w, wrap(w, (uint64_t)from + i), &h) || h.type != BLOCK_COMMIT ||
                        !seq_after(sequence, h.sequence))
                        continue;
                struct jbd2_commit c = jbd2_commit_of(w, &h);
                uint32_t at = distance(w, h.pos, pos);

                note_commit(w, &c);
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
                int k = jbd2_load(w, pos, START_CHUNK);

                if (k < 0)
                        return k;
                if (!jbd2_first_header(w, pos, (uint32_t)k, ret, &with_data))
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
                int k = jbd2_load(w, from, n);

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
                        else if (!jbd2_header_at(w, p, &h))
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
                        struct jbd2_commit c = jbd2_commit_of(w, &h);
                        note_commit(w, &c);
                        if (plausible(w, c.time)) {
                                if (log_debug_enabled()) {
                                        char buf[128];
                                        log_debug("journal: newest plausible commit: %s",
                                                jbd2_describe(w, &h, buf, sizeof(buf)));
                                }
                                return 0;
                        }
                }
                done += n;
                pos = from;
        }
        return 0;
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
        jbd2_take(w, &older, &h);
        k = jbd2_find_end(w, &older);
        if (older.commit.found)
                note_commit(w, &older.commit);
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

        if (jbd2_affordable(w, w->length))
                return scan_back(w, newest_pos, newest);
        for (uint64_t back = PROBE_MAX; !far && reach > 0; back *= 2) {
                k = probe_back(w, newest_pos, (uint32_t)min_u32((uint32_t)min_u32(back, UINT32_MAX), reach),
                        newest, &near, &far);
                if (k < 0)
                        return k;
                if (back >= reach)
                        break;
        }
        if (far > 0 && jbd2_affordable(w, far))
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
        bool start_unread = false; /* dirty, and the block where it says the log starts cannot be read */
        int k = 0;

        w->restarts = !valid_block(r, r->head);
        if (!r->dirty && valid_block(r, r->head)) {
                k = commit_before_head(w, &h);
                if (k < 0)
                        return k;
                if (k > 0) {
                        struct jbd2_commit c = jbd2_commit_of(w, &h);

                        note_commit(w, &c);
                        return plausible(w, c.time)
                                ? 0
                                : implausible_newest(w, h.pos, h.sequence, w->length - 1);
                }
        }
        if (r->dirty) {
                run.pos0 = r->start - r->first;
                k = jbd2_run_start(w, run.pos0, r->sequence, &h);
                start_unread = k == 0 && !jbd2_held(w, run.pos0);
                if (k == 0)
                        log_debug(
                                "journal: no transaction %u at block %u, where the log starts: looking from "
                                "block %u",
                                r->sequence, r->start, r->first);
        }
        if (k == 0) {
                run.pos0 = 0;
                k = jbd2_run_start(w, 0, 0, &h);
        }
        if (k < 0)
                return k;
        /*
         * Zeros where the log starts: never written; not when its start could not be read (they may
         * be the data of a transaction that came around). Else a log in no order known: read it all.
         */
        if (k == 0)
                return !start_unread && jbd2_held_zeros(w) ? 0 : scan(w, 0, w->length);

        run.seq0 = h.sequence;
        run.target = r->dirty ? 0 : r->sequence - 1;
        jbd2_take(w, &run, &h);
        k = jbd2_find_end(w, &run);
        if (run.commit.found) {
                note_commit(w, &run.commit);
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
        _cleanup_free_ uint8_t *buf = NULL, *unreadable = NULL;
        struct jbd2_report rep = { .budget = budget };
        struct walk w = { .src = src, .window = window, .rep = &rep };
        int r;

        *ret_reason = NULL;
        if (budget == 0) {
                *ret_reason = "the journal budget is 0";
                return -ENOBUFS;
        }
        if (src->blocksize < JSB_SIZE || src->blocksize > EXT2_MAX_BLOCK_SIZE) {
                *ret_reason = "impossible block size";
                return -EUCLEAN;
        }
        buf = malloc((size_t)CHUNK_MAX * src->blocksize);
        unreadable = malloc(CHUNK_MAX);
        if (!buf || !unreadable)
                return -ENOMEM;
        w.buf = buf;
        w.unreadable = unreadable;

        /*
         * The journal superblock and the blocks after it, in one read: where the log starts at its
         * first block (Linux before 6.5 restarts it there at every mount, and a log that has not
         * come around starts there), they are the first the search reads; elsewhere they cost
         * START_CHUNK blocks more in a read made anyway. Not when they could not be read again
         * without the superblock within the budget.
         */
        _Static_assert(JBD2_FIRST_READ == 1 + START_CHUNK, "the first read holds the start chunk");
        uint32_t ahead = budget >= 2 && src->max_blocks > src->sb_block + JBD2_FIRST_READ ? START_CHUNK : 0;

        rep.blocks_read = 1 + ahead;
        rep.reads = 1;
        r = src->read(src->userdata, src->sb_block, 1 + ahead, w.buf);
        if (r < 0 && ahead > 0) {
                ahead = 0;
                rep.blocks_read++;
                rep.reads++;
                r = src->read(src->userdata, src->sb_block, 1, w.buf);
        }
        if (r < 0) {
                *ret_reason = "cannot read the journal superblock";
                return r;
        }
        r = jbd2_parse_superblock(&w, ret_reason);
        if (r < 0)
                return r;
        if (ahead > 0 && rep.first == src->sb_block + 1) {
                w.held_n = min_u32(ahead, w.length);
                memmove(w.buf, w.buf + src->blocksize, (size_t)w.held_n * src->blocksize);
                memset(w.unreadable, 0, w.held_n);
        }

        /* A dirty log holds at most a transaction a block from s_sequence on; within half the numbers. */
        w.max = rep.dirty ? rep.sequence + min_u32(w.length, INT32_MAX) - 1 : rep.sequence - 1;
        /* Out of budget is not an error: what was found stands, and budget_exhausted says so. */
        if (search(&w) == -ENOBUFS)
                rep.budget_exhausted = true;
        *ret = rep;
        return 0;
}
