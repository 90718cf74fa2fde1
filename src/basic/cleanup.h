/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cleanup: variables that release what they hold when they go out of scope */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * A variable declared with one of these is released on every path out of its
 * block, so a function needs no exit-path bookkeeping:
 *
 *     _cleanup_free_ char *text = NULL;
 *     _cleanup_close_ int fd = -1;
 *
 * Each helper accepts the empty value (NULL, -1). To hand what a variable
 * holds to the caller, take it: *ret = TAKE_PTR(text); return TAKE_FD(fd).
 * The helpers keep errno, so a failure's errno survives the release.
 */

static inline void freep(void *p)
{
        int saved = errno;

        free(*(void **)p);
        errno = saved;
}

static inline void closep(const int *fd)
{
        int saved = errno;

        if (*fd >= 0)
                close(*fd);
        errno = saved;
}

static inline void fclosep(FILE **f)
{
        int saved = errno;

        if (*f)
                fclose(*f);
        errno = saved;
}

#define _cleanup_(f)     __attribute__((cleanup(f)))
#define _cleanup_free_   _cleanup_(freep)
#define _cleanup_close_  _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* The value of a pointer variable, leaving NULL in it so its cleanup does nothing. */
#define TAKE_PTR(p)                                                                                         \
        ({                                                                                                  \
                __typeof__(p) _taken_ = (p);                                                                \
                (p) = NULL;                                                                                 \
                _taken_;                                                                                    \
        })

/* The value of a descriptor variable, leaving -1 in it. */
#define TAKE_FD(fd)                                                                                         \
        ({                                                                                                  \
                int _taken_fd_ = (fd);                                                                      \
                (fd) = -1;                                                                                  \
                _taken_fd_;                                                                                 \
        })
