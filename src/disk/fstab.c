/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fstab: the filesystems a system mounts at boot, as its /etc/fstab lists them */

#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"
#include "disk/fstab.h"
#include "disk/rootdev.h"

bool path_make_canonical(char *path, bool dotdot)
{
        char *w = path;
        const char *r = path;

        if (path[0] != '/')
                return false;
        while (*r) {
                while (*r == '/')
                        r++;
                const char *end = strchrnul(r, '/');
                size_t len = (size_t)(end - r);
                if (len == 0)
                        break;
                if (len == 2 && r[0] == '.' && r[1] == '.') {
                        if (!dotdot)
                                return false;
                        /* Back to the parent of what was written; the parent of / is /. */
                        while (w > path && *--w != '/')
                                ;
                        r = end;
                        continue;
                }
                if (!(len == 1 && r[0] == '.')) {
                        *w++ = '/';
                        memmove(w, r, len);
                        w += len;
                }
                r = end;
        }
        if (w == path)
                *w++ = '/';
        *w = '\0';
        return true;
}

static bool has_option(struct mntent *m, const char *opt)
{
        return hasmntopt(m, opt) != NULL;
}

static int add_entry(struct fstab *t, struct mntent *m, unsigned line)
{
        struct fstab_entry *n, *e;

        if (t->n >= FSTAB_MAX_ENTRIES) {
                t->dropped++;
                return 0;
        }
        n = realloc(t->entries, (t->n + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        t->entries = n;
        e = t->entries + t->n;
        *e = (struct fstab_entry){
                .spec = strdup(m->mnt_fsname),
                .dir = strdup(m->mnt_dir),
                .fstype = strdup(m->mnt_type),
                .line = line,
                .noauto = has_option(m, "noauto"),
                .nofail = has_option(m, "nofail"),
                .bind = has_option(m, "bind") || has_option(m, "rbind"),
                .read_only = has_option(m, "ro"),
                .netdev = has_option(m, "_netdev"),
        };
        t->n++;
        if (!e->spec || !e->dir || !e->fstype)
                return -ENOMEM;
        if (!path_make_canonical(e->dir, false)) {
                free(e->dir);
                e->dir = NULL;
        }
        return 0;
}

static int parse_stream(FILE *f, struct fstab *ret)
{
        struct mntent ent, *m;
        char buf[4096];
        unsigned line = 0;

        /* getmntent_r() skips comments and blank lines, and the rest of a line longer than buf. */
        while ((m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
                int r = add_entry(ret, m, ++line);
                if (r < 0)
                        return r;
        }
        return 0;
}

int fstab_parse(const char *text, size_t size, struct fstab *ret)
{
        _cleanup_free_ char *copy = NULL;
        FILE *f;
        int r;

        *ret = (struct fstab){ 0 };
        if (size > FSTAB_MAX_BYTES)
                size = FSTAB_MAX_BYTES;
        /* A NUL ends the text as it would end what mount(8) reads of the line. */
        size = strnlen(text, size);
        if (size == 0)
                return 0;
        copy = strndup(text, size);
        if (!copy)
                return -ENOMEM;
        f = fmemopen(copy, size, "r");
        if (!f)
                return -ENOMEM;
        r = parse_stream(f, ret);
        fclose(f);
        return r;
}

int fstab_read_file(const char *path, struct fstab *ret)
{
        _cleanup_free_ char *text = NULL;
        int r;

        *ret = (struct fstab){ 0 };
        r = read_small_file(path, &text);
        if (r < 0)
                return r;
        return fstab_parse(text, strlen(text), ret);
}

void fstab_done(struct fstab *f)
{
        for (size_t i = 0; i < f->n; i++) {
                free(f->entries[i].spec);
                free(f->entries[i].dir);
                free(f->entries[i].fstype);
        }
        free(f->entries);
        *f = (struct fstab){ 0 };
}

static bool is_ext(const char *type)
{
        return strcmp(type, "ext2") == 0 || strcmp(type, "ext3") == 0 || strcmp(type, "ext4") == 0;
}

enum fstab_skip fstab_entry_skip(const struct fstab_entry *e)
{
        enum spec_kind kind = spec_classify(e->spec);

        if (!e->dir)
                return FSTAB_NO_DIR;
        if (strcmp(e->dir, "/") == 0)
                return FSTAB_ROOT;
        if (e->noauto)
                return FSTAB_NOAUTO;
        if (e->bind)
                return FSTAB_BIND;
        if (e->netdev || kind == SPEC_NETWORK)
                return FSTAB_NETWORK;
        if (!is_ext(e->fstype))
                return FSTAB_NOT_EXT;
        /* fstab names devices by absolute path or tag, as mount(8) takes them. */
        if (kind != SPEC_TAG && kind != SPEC_PATH)
                return FSTAB_NOT_DEVICE;
        return FSTAB_READ;
}

const struct fstab_entry *fstab_find(const struct fstab *t, const char *dir)
{
        for (size_t i = 0; i < t->n; i++)
                if (t->entries[i].dir && strcmp(t->entries[i].dir, dir) == 0)
                        return t->entries + i;
        return NULL;
}

const char *fstab_skip_to_text(enum fstab_skip s)
{
        static const char *const table[_FSTAB_SKIP_MAX] = {
                [FSTAB_READ] = "read",
                [FSTAB_ROOT] = "the root, read as such",
                [FSTAB_NOAUTO] = "not mounted at boot (noauto)",
                [FSTAB_BIND] = "a bind mount",
                [FSTAB_NETWORK] = "on the network",
                [FSTAB_NOT_EXT] = "not ext2/3/4",
                [FSTAB_NOT_DEVICE] = "names no device by path or tag",
                [FSTAB_NO_DIR] = "its mount point is not an absolute path",
        };
        return (unsigned)s < _FSTAB_SKIP_MAX ? table[s] : "?";
}
