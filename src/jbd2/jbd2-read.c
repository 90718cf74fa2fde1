/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-read: the journal blocks held, read in runs through the callback within the budget */

#include <errno.h>
#include <string.h>

#include "basic/log.h"
#include "jbd2/jbd2-internal.h"

/* Whether block pos is among the blocks held, read or not. */
bool jbd2_is_held(const struct walk *w, uint32_t pos)
{
        return w->held_n > 0 && distance(w, w->held_pos, pos) < w->held_n;
}

/* Whether a block held could not be read. */
bool jbd2_unreadable_held(const struct walk *w)
{
        return memchr(w->unreadable, 1, w->held_n) != NULL;
}

/* Of the n blocks held from pos, those after the last one that could not be read: n when each could. */
uint32_t jbd2_readable_after(const struct walk *w, uint32_t pos, uint32_t n)
{
        uint32_t i = distance(w, w->held_pos, pos), k = 0;

        while (k < n && !w->unreadable[i + n - 1 - k])
                k++;
        return k;
}

/* Block pos, if it is held and could be read; else NULL. */
const uint8_t *jbd2_held(const struct walk *w, uint32_t pos)
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
int jbd2_load(struct walk *w, uint32_t pos, uint32_t n)
{
        struct jbd2_report *r = w->rep;
        const size_t size = r->blocksize;
        uint32_t keep = 0;

        n = min_u32(min_u32(n, CHUNK_MAX), w->length);
        if (jbd2_is_held(w, pos)) {
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

/* Whether the blocks held are all zeros: never written. One that could not be read may not be. */
bool jbd2_held_zeros(const struct walk *w)
{
        for (uint32_t i = 0; i < w->held_n; i++) {
                const uint8_t *b = jbd2_held(w, wrap(w, (uint64_t)w->held_pos + i));
                if (!b || !all_zero(b, w->rep->blocksize))
                        return false;
        }
        return true;
}

/* Whether the reads left can read n blocks, a chunk a read (and one more around the end of the log). */
bool jbd2_affordable(const struct walk *w, uint64_t n)
{
        const struct jbd2_report *r = w->rep;
        uint64_t left = r->budget > r->reads ? r->budget - r->reads : 0;

        return left >= 2 && (left - 2) * CHUNK_MAX >= n;
}
