/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jbd2-internal: what the pieces of the journal search share, for them alone.
 * Each piece stands on those above it here:
 *   jbd2-read.c    the blocks held, read in runs within the budget;
 *   jbd2-block.c   the on-disk format: superblock, block headers, tags, checksums;
 *   jbd2-run.c     the run of transactions that holds the newest commit, and where it ends;
 *   jbd2-torn.c    the commit before a transaction a power cut tore, where the run ends in one;
 *   jbd2-search.c  the search, and jbd2_find_commit() of jbd2.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jbd2/jbd2.h"

/* The block types in the header of descriptor, commit and revoke blocks and of the journal superblock. */
enum {
        BLOCK_DESCRIPTOR = 1,
        BLOCK_COMMIT = 2,
        BLOCK_SUPERBLOCK_V1 = 3,
        BLOCK_SUPERBLOCK_V2 = 4,
        BLOCK_REVOKE = 5,
};

/* The journal superblock's size: a block is at least that. */
#define JSB_SIZE 1024

/*
 * Reads are what cost: on an SD card a read operation takes tens of
 * milliseconds wherever it lands, and a few hundred KiB more in the same read
 * about as much again. So the search reads runs of blocks at once: a probe
 * reads a chunk sized to hold a header (a transaction as large as those it
 * has seen and two blocks, CHUNK_MIN to CHUNK_MAX blocks), a scan reads
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

/* Probes of zeros remembered while the run may yet go past them (a halving each: 32 at most). */
#define ZEROS_MAX 32u

/* Unreadable blocks remembered, so that a block read again is not counted again. */
#define BAD_MAX 64u

/* The header of a descriptor, commit or revoke block of the log. */
struct header {
        uint32_t pos; /* in the log: 0 is its first block */
        uint32_t type;
        uint32_t sequence;
        uint32_t next; /* where the transaction's next header goes: after a descriptor's data blocks */
};

/* One search of one journal: what it reads from, what it has read, what it has found. */
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
        uint32_t max_tags;      /* data blocks one descriptor can list */
        uint32_t full_tags;     /* those jbd2 lists in a descriptor before it starts the next */
        uint32_t full_tags_old; /* those Linux before 5.5 listed: at most blocksize / 12 - 1 */
        bool after_5_5;         /* a descriptor of more tags than that was met */
        /*
         * The last descriptor met that jbd2 filled (full_tags or full_tags_old tags): in a
         * transaction that goes on, the next is stride blocks on, its tags and itself (jbd2-run.c's
         * lattice). Its type is 0 until there is one.
         */
        struct header lattice;
        uint32_t stride;
        /* The blocks held: held_n of them from log position held_pos, around the end if need be. */
        uint8_t *buf;
        uint8_t *unreadable; /* per block held */
        uint32_t held_pos, held_n;
        /* What the log has shown of the size of its transactions. */
        uint64_t seen_blocks, seen_transactions;
        uint32_t largest; /* the largest transaction the run has shown whole, in blocks */
        bool zeros_met;   /* a probe found nothing but zeros: the log was never written there */
        /* Blocks that could not be read, counted once each in the report. */
        uint32_t bad[BAD_MAX];
        unsigned n_bad;
};

/*
 * The run of transactions that holds the newest commit: from its first header
 * (pos0, seq0) on, each header followed by the next, up to where the log was
 * last written. Positions are offsets from pos0.
 */
struct run {
        uint32_t pos0, seq0;
        uint32_t
                target; /* the sequence number of the newest transaction, when the superblock says; else 0 */
        struct header last; /* the furthest header of the run known */
        uint32_t hi;        /* the run ends before this offset */
        uint32_t hi_sure;   /* 0, or where it surely ends when a probe of zeros (or cut short) set hi */
        /* The other such probes between hi and hi_sure, the nearest last: bounds as unsure. */
        uint32_t zeros[ZEROS_MAX];
        unsigned n_zeros;
        /*
         * hi is where a probe was cut short (jbd2-run.c's may_cut()), read through when a probe
         * lands before it; one under another bound since is taken as zeros are.
         */
        bool hi_cut;
        unsigned cuts;             /* the probes cut short */
        bool no_cuts;              /* one was not the end: the run went on past it */
        unsigned steps;            /* the steps walked from the first probe, landed in the run */
        uint32_t unread_at;        /* 0, or 1 + where an unreadable header had unsure ends dropped */
        bool ended;                /* last is the run's last header */
        struct jbd2_commit commit; /* the newest commit of the run known */
        uint32_t commit_pos;
        bool landed; /* last was found by a probe, not by following: the commit before it is unknown */
        struct header before_landing; /* then: the last header following had reached */
};

/* Sequence numbers wrap at 2^32; compare them the way jbd2 does. */
static inline bool seq_after(uint32_t a, uint32_t b)
{
        return (int32_t)(a - b) > 0;
}

static inline bool seq_between(uint32_t x, uint32_t lo, uint32_t hi)
{
        return !seq_after(lo, x) && !seq_after(x, hi);
}

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
        return a < b ? a : b;
}

static inline uint32_t wrap(const struct walk *w, uint64_t pos)
{
        return (uint32_t)(pos % w->length);
}

/* Blocks from `from` forward to `to`, around the end of the log if need be. */
static inline uint32_t distance(const struct walk *w, uint32_t from, uint32_t to)
{
        return to >= from ? to - from : w->length - (from - to);
}

static inline uint32_t block_of(const struct walk *w, uint32_t pos)
{
        return w->rep->first + pos;
}

static inline bool plausible(const struct walk *w, usec_t t)
{
        return t != 0 && t >= w->window->floor && t <= w->window->not_after;
}

static inline bool all_zero(const uint8_t *p, size_t size)
{
        return p[0] == 0 && memcmp(p, p + 1, size - 1) == 0;
}

/* Whether a descriptor of this many tags is one jbd2 filled: not its transaction's last. */
static inline bool filled(const struct walk *w, uint32_t tags)
{
        return tags == w->full_tags || (tags == w->full_tags_old && !w->after_5_5);
}

static inline bool valid_block(const struct jbd2_report *r, uint32_t block)
{
        return block >= r->first && block <= r->last;
}

/* jbd2-read.c: the blocks held, read within the budget. */
bool jbd2_is_held(const struct walk *w, uint32_t pos);
bool jbd2_unreadable_held(const struct walk *w);
uint32_t jbd2_readable_after(const struct walk *w, uint32_t pos, uint32_t n);
const uint8_t *jbd2_held(const struct walk *w, uint32_t pos);
int jbd2_load(struct walk *w, uint32_t pos, uint32_t n);
bool jbd2_held_zeros(const struct walk *w);
bool jbd2_affordable(const struct walk *w, uint64_t n);

/* jbd2-block.c: the on-disk format. */
int jbd2_parse_superblock(struct walk *w, const char **reason);
bool jbd2_header_at(struct walk *w, uint32_t pos, struct header *ret);
struct jbd2_commit jbd2_commit_of(const struct walk *w, const struct header *h);
const char *jbd2_describe(const struct walk *w, const struct header *h, char *buf, size_t size);

/* jbd2-run.c: the run of transactions that holds the newest commit, and where it ends. */
void jbd2_take(struct walk *w, struct run *run, const struct header *h);
bool jbd2_first_header(struct walk *w, uint32_t pos, uint32_t n, struct header *ret, bool *with_data);
int jbd2_find_end(struct walk *w, struct run *run);
int jbd2_run_start(struct walk *w, uint32_t pos, uint32_t sequence, struct header *ret);

/*
 * jbd2-torn.c: the commit before the transaction a probe landed on, which has none. 0, 1 when
 * the landing was not the run's (the run is taken back to before it, to be followed on), or
 * -ENOBUFS.
 */
int jbd2_commit_before_landing(struct walk *w, struct run *run);
