/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jbd2-history: the journal of a board after a history of boots, written into
 * a jbd2-model the way Linux writes it: boots whose clock was right, at
 * 2000-01-01, far in the future, or stepped by NTP on the way; transactions
 * of one to hundreds of blocks; each boot ended by an unmount, a remount
 * read-only, or a power cut; the log restarted at every mount (Linux before
 * 6.5) or continued across mounts (6.5 on). A history is a script of boots
 * (jh_random() draws one from a seed) that jh_write() plays.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jbd2-model.h"

#define JH_T2000     946684800ull  /* a reset RTC */
#define JH_T2026     1767225600ull /* the floor the tests use */
#define JH_T2027     1798761600ull
#define JH_T2056     2713910400ull /* not-after: the floor + 30 years */
#define JH_FUTURE    5711817600ull /* 2151: an RTC reset to garbage, after not-after */
#define JH_BOOTS_MAX 16

enum jh_layout {
        JH_BEFORE_6_5, /* every mount restarts the log at s_first; s_head is never written */
        JH_FROM_6_5,   /* the log goes on at s_head (clean) or after the last recovered commit (dirty) */
        _JH_LAYOUT_MAX,
};

enum jh_clock {
        JH_RIGHT, /* the real time */
        JH_Y2000, /* 2000-01-01 plus the uptime: before the floor */
        JH_FAR,   /* 2151 plus the uptime: after not-after */
        JH_NTP,   /* 2000-01-01 plus the uptime until NTP steps it, then the real time */
        _JH_CLOCK_MAX,
};

enum jh_end {
        JH_UNMOUNT,    /* umount: s_sequence two past the last commit, s_start 0 */
        JH_REMOUNT_RO, /* remount read-only (a root at shutdown), then reboot: one past the last */
        JH_POWER_CUT,  /* s_start the oldest transaction not yet checkpointed */
        JH_TORN,       /* a power cut while a transaction was written: it has no commit block */
        _JH_END_MAX,
};

enum jh_size {
        JH_SMALL,  /* 1-4 data blocks: a logger, timestamps */
        JH_MEDIUM, /* 5-60 */
        JH_LARGE,  /* 60 to hundreds: a package upgrade; several descriptors */
        JH_MIXED,  /* mostly small, now and then medium or large */
        _JH_SIZE_MAX,
};

struct jh_boot {
        /* The script. */
        uint8_t clock, end, size;
        uint32_t transactions;
        uint32_t ntp_after; /* JH_NTP: transactions before the step */
        /* What playing it did. */
        uint32_t first_sequence;            /* the first transaction ID of the mount */
        uint32_t start_block;               /* where its first transaction went */
        uint32_t blocks;                    /* blocks it wrote */
        bool committed;                     /* at least one commit */
        uint32_t last_sequence, last_block; /* its last commit */
        uint64_t last_sec;
        bool plausible; /* at least one of its commits is plausible in [JH_T2026, JH_T2056] */
        uint32_t last_plausible_sequence, last_plausible_block;
};

struct jh_history {
        uint64_t seed; /* for the sizes, times and checkpoints while playing */
        uint8_t layout;
        uint32_t nboots;
        struct jh_boot boots[JH_BOOTS_MAX];
        /* What playing it did. */
        bool wrapped;     /* the log came around past its end at least once */
        uint32_t largest; /* data blocks in the largest transaction */
        uint64_t written; /* log blocks written */
};

/* A seeded pseudo-random generator (xorshift64*), the same everywhere. */
uint64_t jh_rand(uint64_t *state);
uint64_t jh_seed(uint64_t seed); /* a well-mixed start from any seed (splitmix64) */

/*
 * The geometry of the journal for a seed: blocksize 1024, maxlen from 1024 to
 * 8192 (now and then 32768), checksums none/v2/v3, 32 or 64 bit, a fast-commit
 * area sometimes. For jm_init().
 */
void jh_geometry(uint64_t seed, uint32_t *ret_maxlen, uint32_t *ret_incompat, uint32_t *ret_fc_blocks);

/* Draws a history for the journal m (its geometry only) from seed. */
void jh_random(uint64_t seed, const struct jmodel *m, struct jh_history *ret);

/*
 * Plays h into m, a journal fresh from jm_init() (or as mke2fs left it: empty
 * and clean): every boot's transactions, the mounts between them, and the
 * superblock the last boot left. Fills the outcome fields of h.
 */
void jh_write(struct jmodel *m, struct jh_history *h);

/* "6.5 wrapped 1024/v3/64: R14u W230d! N40(12)p ..." for a failure message. */
size_t jh_describe(const struct jh_history *h, const struct jmodel *m, char *buf, size_t size);

/* The kind of history, for statistics: "all-right", "wrong-last", "wrong/right/wrong", ... */
const char *jh_kind(const struct jh_history *h);
const char *jh_layout_name(uint8_t layout);
