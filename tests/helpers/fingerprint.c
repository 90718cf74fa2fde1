/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fingerprint: prints one line that changes if a file is written at all: its
 * size, modification and change times (nanoseconds: any write(2) moves them,
 * even of identical bytes) and a 64-bit FNV-1a hash of its data, walking
 * only the allocated extents (SEEK_DATA/SEEK_HOLE) so that a 1 TiB sparse
 * image takes as long as its few MiB of data (holes and written zeros hash
 * alike).
 *
 * Usage: fingerprint FILE
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
        const unsigned char *b = p;

        for (size_t i = 0; i < n; i++) {
                h ^= b[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

#define CHUNK 4096

static bool all_zero(const unsigned char *b, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (b[i])
                        return false;
        return true;
}

int main(int argc, char *argv[])
{
        static unsigned char buf[CHUNK];
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        struct stat st;
        off_t pos = 0;
        int fd;

        if (argc != 2) {
                fprintf(stderr, "usage: fingerprint FILE\n");
                return 2;
        }
        fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                fprintf(stderr, "fingerprint: %s: %s\n", argv[1], strerror(errno));
                return 1;
        }

        /*
         * Hash the content, not the layout: which ranges are holes changes when
         * the kernel writes back delayed allocations. Walk the data ranges in
         * aligned 4 KiB chunks and hash (offset, chunk) for every chunk that is
         * not all zeros, so a hole and written zeros hash the same.
         */
        off_t next_chunk = 0; /* chunks before this one are done */
        while (S_ISREG(st.st_mode)) {
                off_t data = lseek(fd, pos, SEEK_DATA);
                if (data < 0)
                        break; /* ENXIO: no data after pos */
                off_t hole = lseek(fd, data, SEEK_HOLE);
                if (hole <= data)
                        hole = st.st_size;
                if (hole <= data)
                        break;
                off_t o = data / CHUNK * CHUNK;
                if (o < next_chunk)
                        o = next_chunk;
                for (; o < hole; o += CHUNK) {
                        ssize_t k = pread(fd, buf, CHUNK, o);
                        if (k < 0) {
                                fprintf(stderr, "fingerprint: %s: read failed\n", argv[1]);
                                return 1;
                        }
                        if (k == 0)
                                break;
                        if (!all_zero(buf, (size_t)k)) {
                                h = fnv1a(h, &o, sizeof(o));
                                h = fnv1a(h, buf, (size_t)k);
                        }
                }
                next_chunk = o;
                pos = hole;
        }
        close(fd);

        printf("%jd %jd.%09ld %jd.%09ld %016" PRIx64 "\n", (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
                st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, h);
        return 0;
}
