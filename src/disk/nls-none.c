/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nls-none: linked into the static builds only, in place of libext2fs' own
 * ext2fs_load_nls_table(), so that its Unicode tables (66 KiB, for the names
 * in case-folded directories) stay out of the binary. libext2fs asks for them
 * in ext2fs_open2() alone, and then only keeps the pointer: a case-folded
 * filesystem opens all the same, and clockfix looks up the stamp files by
 * their exact names.
 */

#include <ext2fs/ext2fs.h>

const struct ext2fs_nls_table *ext2fs_load_nls_table(int encoding)
{
        (void)encoding;
        return NULL;
}
