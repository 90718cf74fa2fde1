/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jbd2-model: a journal described block by block, rendered to the bytes jbd2
 * writes (headers, tags, checksums, commit times) on demand. The unit tests
 * read it in memory; jbd2-write puts it into the journal of an image.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum jm_kind {
        JM_ZERO,       /* never written */
        JM_DESCRIPTOR, /* followed by ntags data blocks */
        JM_COMMIT,
        JM_REVOKE,
        JM_DATA,    /* a journalled metadata block: anything but the magic */
        JM_GARBAGE, /* random bytes */
};

/* Damage done to a block as it is rendered. */
enum {
        JM_BAD_CHECKSUM = 1u << 0, /* a checksum that does not match */
        JM_BAD_MAGIC = 1u << 1,    /* one bit of the magic flipped */
};

struct jm_block {
        uint8_t kind;
        uint8_t damage;
        uint32_t sequence;
        uint32_t ntags; /* descriptor: data blocks that follow */
        uint64_t sec;   /* commit */
        uint32_t nsec;
};

struct jmodel {
        uint32_t blocksize, maxlen, first;
        uint32_t fc_blocks; /* the fast-commit area at the end (0: none) */
        uint32_t compat, incompat;
        uint8_t uuid[16];
        bool v1; /* a version 1 superblock (no features) */
        bool sb_bad_checksum;
        bool before_5_5; /* descriptors filled as Linux before 5.5 did */
        /* The superblock's state. */
        uint32_t sequence, start, head;
        /* The log, and where the next transaction goes. */
        struct jm_block *blocks; /* maxlen of them; [0] is the superblock */
        uint32_t pos, next_sequence;
        uint64_t writes; /* blocks written since jm_init() */
};

#define JM_INCOMPAT_REVOKE      0x01u
#define JM_INCOMPAT_64BIT       0x02u
#define JM_INCOMPAT_CSUM_V2     0x08u
#define JM_INCOMPAT_CSUM_V3     0x10u
#define JM_INCOMPAT_FAST_COMMIT 0x20u

/* Each tag format jbd2 writes, as the incompatible features that choose it: checksums v3, v2 and none,
 * each with 64-bit block numbers and without. */
#define JM_TAG_FORMATS 6
extern const uint32_t jm_tag_formats[JM_TAG_FORMATS];

/* An empty journal: superblock at block 0, log from block 1, clean, next sequence `sequence`. */
void jm_init(struct jmodel *m, uint32_t blocksize, uint32_t maxlen, uint32_t incompat, uint32_t fc_blocks,
        uint32_t sequence);
void jm_free(struct jmodel *m);

/* The last block of the log (before the fast-commit area). */
uint32_t jm_last(const struct jmodel *m);

/* Data blocks one descriptor can list. */
uint32_t jm_tags_per_descriptor(const struct jmodel *m);

/* Log blocks a transaction of ndata data blocks takes: revoke block, descriptors, data, commit. */
uint32_t jm_transaction_blocks(const struct jmodel *m, uint32_t ndata, bool revoke, bool commit);

/*
 * Appends a transaction at m->pos (wrapping at the end of the log) with ndata
 * data blocks, and a revoke block first when revoke is set; with commit false
 * it stops before the commit block, as when power goes while it is written.
 * Returns the block of its commit (or of its last block).
 */
uint32_t jm_transaction(
        struct jmodel *m, uint32_t ndata, bool revoke, bool commit, uint64_t sec, uint32_t nsec);

/* Marks the superblock dirty with the log starting at block start with sequence. */
void jm_set_dirty(struct jmodel *m, uint32_t start, uint32_t sequence);
/* Marks it clean: next sequence, and head (0 for a kernel before 6.5). */
void jm_set_clean(struct jmodel *m, uint32_t sequence, uint32_t head);

/* Renders block `block` (0: the superblock) into buf of blocksize bytes. */
void jm_render(const struct jmodel *m, uint32_t block, uint8_t *buf);
