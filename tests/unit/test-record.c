/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-record: the record of times in the future: parsing, the update at sync, and the file's I/O */

#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/record.h"
#include "test.h"

#define S(sec) ((usec_t)USEC_PER_SEC * (sec))
#define U1     "753e95e5-e03b-4f9f-a8ca-326f952173ef"
#define U2     "0b9c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f"
#define NOW    1800000000u /* the true time at the sync */

static void parse(const char *text, struct record *r)
{
        check_int(record_parse(text, strlen(text), r), 0);
}

static void test_parse(void)
{
        struct record r;

        parse("# a comment\n\n" RECORD_HEADER "\n" U1
              " superblock:last_check 2115000000000000 2037-01-08T04:00:00Z\r\n"
              "# another\n" U2 " journal:last_commit 2115000003123456\n",
                &r);
        check_int(r.error, 0);
        check_int(r.n, 2);
        check_int(r.bad_lines, 0);
        check_str(r.entries[0].uuid, U1);
        check_str(r.entries[0].source, "superblock:last_check");
        check_u64(r.entries[0].time, 2115000000000000ull);
        check_str(r.entries[1].source, "journal:last_commit");
        check_u64(r.entries[1].time, 2115000003123456ull);
        record_done(&r);

        /* Lines that are not entries are passed over, counted; the good ones kept; duplicates once. */
        parse(RECORD_HEADER "\n" U1 " superblock:last_check 5\n"
                            "not an entry\n" U1 " superblock:last_check\n"                   /* no value */
                            "753E95E5-E03B-4F9F-A8CA-326F952173EF superblock:last_check 5\n" /* upper case */
                U1 " nocolon 5\n" U1 " superblock:last_check 0\n" U1 " superblock:last_check -5\n" U1
                            " superblock:last_check 18446744073709551615\n" /* USEC_INFINITY */
                U1 " superblock:last_check 99999999999999999999999\n" U1
                            " superblock:last_check 5\n", /* again */
                &r);
        check_int(r.error, 0);
        check_int(r.n, 1);
        check_int(r.bad_lines, 8);
        check_int(r.first_bad, 3);
        record_done(&r);

        /* A NUL inside a line: that line is not an entry. */
        static const char nul[] = RECORD_HEADER "\n" U1 " superblock:last_check 5\0x\n" U1
                                                " superblock:last_mount 6\n";
        check_int(record_parse(nul, sizeof(nul) - 1, &r), 0);
        check_int(r.n, 1);
        check_int(r.bad_lines, 1);
        check_str(r.entries[0].source, "superblock:last_mount");
        record_done(&r);

        /* No header, another version, empty: ignored as a whole. */
        parse(U1 " superblock:last_check 5\n", &r);
        check_int(r.error, -EBADMSG);
        check_int(r.n, 0);
        check(r.reason != NULL);
        record_done(&r);
        parse("clockfix-future-times 2\n" U1 " superblock:last_check 5\n", &r);
        check_int(r.error, -EBADMSG);
        record_done(&r);
        parse("# only a comment\n", &r);
        check_int(r.error, -EBADMSG);
        record_done(&r);

        /* More entries than clockfix writes: ignored as a whole. */
        char big[RECORD_MAX_BYTES];
        size_t n = (size_t)snprintf(big, sizeof(big), "%s\n", RECORD_HEADER);
        for (int i = 0; i <= RECORD_MAX_ENTRIES; i++)
                n += (size_t)snprintf(big + n, sizeof(big) - n, U1 " superblock:last_check %d\n", i + 1);
        check_int(record_parse(big, n, &r), 0);
        check_int(r.error, -EBADMSG);
        check_int(r.n, 0);
        record_done(&r);
}

static void test_format(void)
{
        struct record r, again;
        char *text;

        parse(RECORD_HEADER "\n" U1 " superblock:last_check 2115000000000000\n" U2 " file:/etc/x 7\n", &r);
        check_int(record_format(&r, &text), 0);
        check(strstr(text, U1 " superblock:last_check 2115000000000000 2037-01-08T04:00:00Z\n") != NULL);
        check_int(record_parse(text, strlen(text), &again), 0);
        check_int(again.n, 2);
        check_int(again.bad_lines, 0);
        check_str(again.entries[1].source, "file:/etc/x");
        check_u64(again.entries[1].time, 7);
        free(text);
        record_done(&again);
        record_done(&r);
}

static void test_has(void)
{
        struct record r;

        parse(RECORD_HEADER "\n" U1 " superblock:last_check 2115000000000000\n", &r);
        check(record_has(&r, U1, "superblock:last_check", 2115000000000000ull));
        /* A changed value (fsck rewrote it) counts again. */
        check(!record_has(&r, U1, "superblock:last_check", 2115000000000001ull));
        /* Another filesystem, another source: not it. */
        check(!record_has(&r, U2, "superblock:last_check", 2115000000000000ull));
        check(!record_has(&r, U1, "superblock:last_mount", 2115000000000000ull));
        check(!record_has(&r, NULL, "superblock:last_check", 2115000000000000ull));
        record_done(&r);
}

static void test_applies(void)
{
        /* No journal commit to compare with: any recorded time is passed over. */
        check(record_applies(S(NOW), 0));
        /* Within the slack of the journal's newest commit, or before it: used, recorded or not. */
        check(!record_applies(S(NOW), S(NOW)));
        check(!record_applies(S(NOW) - 1, S(NOW)));
        check(!record_applies(S(NOW) + RECORD_SLACK, S(NOW)));
        check(record_applies(S(NOW) + RECORD_SLACK + 1, S(NOW)));
        check(record_applies(USEC_INFINITY - 1, S(NOW)));
}

static void test_update(void)
{
        struct record old, next;
        size_t added;

        parse(RECORD_HEADER "\n" U1 " superblock:last_check "
                            "2115000000000000\n"                /* still on the disk */
                U1 " superblock:last_mount 2115000100000000\n"  /* rewritten since */
                U2 " superblock:last_check 2115000000000000\n", /* not read now */
                &old);
        struct candidate c[] = {
                { "/dev/vda", "superblock:last_write", S(NOW - 60), U1 },
                { "/dev/vda", "superblock:last_mount", S(NOW - 30), U1 },
                { "/dev/vda", "superblock:last_check", 2115000000000000ull, U1 },
                { "/dev/vda", "journal:last_commit", S(NOW + 7), U1 },          /* past the tolerance: new */
                { "/dev/vda", "file:/var/lib/clockfix/clock", S(NOW + 6), U1 }, /* within it */
                { "/dev/vda", "superblock:created", S(NOW + 3600), NULL },      /* no UUID: never recorded */
        };
        check_int(record_update(&old, c, 6, S(NOW), S(6), &next, &added), 0);
        check_int(added, 1);
        check_int(next.n, 3);
        check(record_has(&next, U1, "superblock:last_check", 2115000000000000ull));
        check(!record_has(&next, U1, "superblock:last_mount", 2115000100000000ull));
        check(record_has(&next, U2, "superblock:last_check", 2115000000000000ull));
        check(record_has(&next, U1, "journal:last_commit", S(NOW + 7)));
        check(!record_has(&next, U1, "file:/var/lib/clockfix/clock", S(NOW + 6)));
        record_done(&next);

        /* Nothing in the future, a value gone: nothing added (the record is then not written). */
        check_int(record_update(&old, c, 2, S(NOW), S(6), &next, &added), 0);
        check_int(added, 0);
        record_done(&next);
        record_done(&old);

        /* Past the limit, the newest are kept. */
        struct record empty = { 0 };
        struct candidate many[RECORD_MAX_ENTRIES + 3];
        char sources[RECORD_MAX_ENTRIES + 3][32];
        for (int i = 0; i < RECORD_MAX_ENTRIES + 3; i++) {
                snprintf(sources[i], sizeof(sources[i]), "file:/f%d", i);
                many[i] = (struct candidate){ "/dev/vda", sources[i], S(NOW + 100 + i), U1 };
        }
        check_int(record_update(&empty, many, RECORD_MAX_ENTRIES + 3, S(NOW), 0, &next, &added), 0);
        check_int(next.n, RECORD_MAX_ENTRIES);
        check_str(next.entries[0].source, "file:/f3");
        record_done(&next);
}

static void test_io(void)
{
        struct record r, back;
        char fix[256];

        test_dir_make("test-record");
        parse(RECORD_HEADER "\n" U1 " superblock:last_check 2115000000000000\n", &r);
        check_int(record_write(test_path("future-times"), &r), 0);
        check(access(test_path("future-times.new"), F_OK) < 0);
        check_int(record_read_file(test_path("future-times"), 0, &back), 0);
        check_int(back.error, 0);
        check(back.live);
        check_int(back.n, 1);
        record_done(&back);
        /* Written again: replaced whole. */
        record_done(&r);
        parse(RECORD_HEADER "\n", &r);
        check_int(record_write(test_path("future-times"), &r), 0);
        check_int(record_read_file(test_path("future-times"), 0, &back), 0);
        check_int(back.error, 0);
        check_int(back.n, 0);
        record_done(&back);
        record_done(&r);

        /* None, too large, not a file, a directory that is not there. */
        check_int(record_read_file(test_path("none"), 0, &back), 0);
        check_int(back.error, -ENOENT);
        char big[RECORD_MAX_BYTES + 2];
        memset(big, '#', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        check_int(record_read_file(write_file("big", big), 0, &back), 0);
        check_int(back.error, -EFBIG);
        check(mkdir(test_path("dir"), 0755) == 0);
        check_int(record_read_file(test_path("dir"), 0, &back), 0);
        check_int(back.error, -EISDIR);
        /* Asked for on one filesystem (that of /proc), found on another: not used. */
        struct stat proc;
        check(stat("/proc", &proc) == 0);
        check_int(record_read_file(write_file("elsewhere", RECORD_HEADER "\n"), proc.st_dev, &back), 0);
        check_int(back.error, -EXDEV);
        check_int(back.n, 0);
        check_int(record_write(test_path("nodir/future-times"), &back), -ENOENT);

        /* Two writers at once (the daemon and clockfix-learn.service): each write whole, none failing. */
        parse(RECORD_HEADER "\n" U1 " superblock:last_check 2115000000000000\n", &r);
        pid_t pids[2];
        for (int i = 0; i < 2; i++) {
                pids[i] = fork();
                check(pids[i] >= 0);
                if (pids[i] == 0) {
                        for (int k = 0; k < 40; k++)
                                if (record_write(test_path("future-times"), &r) != 0)
                                        _exit(1);
                        _exit(0);
                }
        }
        for (int i = 0; i < 2; i++) {
                int status;
                check(waitpid(pids[i], &status, 0) == pids[i]);
                check(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        check_int(record_read_file(test_path("future-times"), 0, &back), 0);
        check_int(back.error, 0);
        check_int(back.n, 1);
        record_done(&back);

        /*
         * A writer that holds the lock and does not go on (stopped at a terminal): the others wait
         * as long as they were told, then give up; at once when told not to wait.
         */
        int hold = record_lock(test_path("future-times"), 0);
        check(hold >= 0);
        pid_t waiter = fork();
        check(waiter >= 0);
        if (waiter == 0) {
                usec_t t0 = now_monotonic();
                if (record_lock(test_path("future-times"), 0) != -EWOULDBLOCK)
                        _exit(1);
                if (record_lock(test_path("future-times"), 300000) != -EWOULDBLOCK)
                        _exit(2);
                if (now_monotonic() - t0 < 300000)
                        _exit(3);
                _exit(0);
        }
        int status;
        check(waitpid(waiter, &status, 0) == waiter);
        check(WIFEXITED(status));
        check_int(WEXITSTATUS(status), 0);
        close(hold);
        check_int(record_write(test_path("future-times"), &r), 0);
        record_done(&r);
        sh("rm -rf '%s'", test_dir);

        check_str(record_fix("superblock:last_check", "/dev/vda", fix, sizeof(fix)),
                "run tune2fs -T now /dev/vda");
        check(strstr(record_fix("superblock:last_mount", "/dev/vda", fix, sizeof(fix)), "mount") != NULL);
        check_str(record_fix("file:/etc/fake-hwclock.data", "/dev/vda", fix, sizeof(fix)),
                "run fake-hwclock save force");
}

int main(void)
{
        test_parse();
        test_format();
        test_has();
        test_applies();
        test_update();
        test_io();
        test_end();
}
