/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The floor of a dynamic program that reads a superblock with libext2fs:
 * links libext2fs and libcom_err, opens the filesystem superblock-only and
 * prints its last write time. What any dynamic clockfix costs at least.
 */
#include <ext2fs/ext2fs.h>
#include <stdio.h>

int main(int argc, char **argv)
{
        ext2_filsys fs;
        errcode_t e;

        if (argc != 2)
                return 2;
        e = ext2fs_open(argv[1], EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
        if (e) {
                fprintf(stderr, "%s: %s\n", argv[1], error_message(e));
                return 1;
        }
        printf("%u\n", fs->super->s_wtime);
        ext2fs_close_free(&fs);
        return 0;
}
