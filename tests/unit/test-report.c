/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-report: JSON string escaping and the shape of `status --json` */

#include <errno.h>

#include "cli/report.h"
#include "test.h"

/* What is written to f between capture_open() and capture_close(), which returns it (free it). */
struct capture {
        char *buf;
        size_t size;
        FILE *f;
};

static FILE *capture_open(struct capture *c)
{
        *c = (struct capture){ 0 };
        c->f = open_memstream(&c->buf, &c->size);
        return c->f;
}

static char *capture_close(struct capture *c)
{
        fclose(c->f);
        return c->buf;
}

static char *capture_string(const char *s)
{
        struct capture c;

        json_string(capture_open(&c), s);
        return capture_close(&c);
}

static void check_escape(const char *in, const char *out)
{
        char *s = capture_string(in);
        check_str(s, out);
        free(s);
}

/* The policy of these reports: a floor in 2023, not after 2055, the margin given. */
static struct policy policy(usec_t margin)
{
        return (struct policy){
                .floor = 1700000000 * USEC_PER_SEC, .not_after = 2700000000 * USEC_PER_SEC, .margin = margin
        };
}

/* What these reports show: ev decided into d under p, with the clock at 2000-01-01 (an RTC reset). */
static struct status decided(const struct policy *p, const struct evidence *ev, struct decision *d)
{
        check_int(decide(p, 946684800 * USEC_PER_SEC, false, ev->candidates, ev->n_candidates, d), 0);
        return (struct status){ p, "build time", 946684800 * USEC_PER_SEC, 0, ev, d };
}

/* What report_json() or report_text() writes of s (free it). */
static char *render(void (*report)(FILE *f, const struct status *s), const struct status *s)
{
        struct capture c;

        report(capture_open(&c), s);
        return capture_close(&c);
}

static void test_escape(void)
{
        check_escape(NULL, "null");
        check_escape("", "\"\"");
        check_escape("/dev/mmcblk0p2", "\"/dev/mmcblk0p2\"");
        check_escape("a\"b\\c", "\"a\\\"b\\\\c\"");
        check_escape("tab\there\nnl\x7f", "\"tab\\u0009here\\u000anl\\u007f\"");
        check_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x95\x92",
                "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x95\x92\"");
        /* Invalid UTF-8 (a label is 16 arbitrary bytes): each bad byte becomes U+FFFD. */
        check_escape("\xff\xfe", "\"\\ufffd\\ufffd\"");
        check_escape("\xc3", "\"\\ufffd\"");                                  /* truncated sequence */
        check_escape("\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
        check_escape("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* UTF-16 surrogate */
        check_escape("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* beyond U+10FFFF */
}

static void test_json(void)
{
        struct device_report dev = {
                .origin = ORIGIN_CMDLINE,
                .spec = (char *)"LABEL=root",
                .path = (char *)"/dev/vda",
                .have_sb = true,
                .sb = { .uuid = "0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55", .label = "root", .type = "ext4" },
        };
        struct candidate c[] = {
                { "/dev/vda", "superblock:last_write", 1800000000 * USEC_PER_SEC },
                { "/dev/vda", "superblock:created", 1000000000 * USEC_PER_SEC },
        };
        struct evidence ev = { .devices = &dev, .n_devices = 1, .candidates = c, .n_candidates = 2 };
        struct policy p = policy(USEC_PER_SEC);
        struct decision d;
        char *buf;

        struct status s = decided(&p, &ev, &d);
        buf = render(report_json, &s);

        check_str(buf,
                "{\"now\":946684800,\"estimate\":1800000000,\"source\":\"superblock:last_write\","
                "\"device\":\"/dev/vda\",\"target\":1800000001,\"action\":\"set\",\"evidence\":true,"
                "\"clock_implausible\":false,"
                "\"clock_synchronized\":false,"
                "\"floor\":1700000000,\"floor_source\":\"build time\",\"not_after\":2700000000,"
                "\"margin_usec\":1000000,\"ntp_synchronized\":false,\"mounts_from\":null,\"deployment\":null,\"read_only\":false,"
                "\"devices\":[{\"device\":\"/dev/vda\",\"spec\":\"LABEL=root\",\"origin\":\"cmdline\","
                "\"mount_dir\":null,\"read_only\":false,\"readable\":true,\"error\":null,\"fstype\":\"ext4\","
                "\"uuid\":\"0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55\",\"label\":\"root\",\"checksum_bad\":false,"
                "\"unknown_features\":false,\"needs_recovery\":false,\"truncated\":false,\"fs_bytes\":0,\"device_bytes\":0,\"journal\":null,"
                "\"stamps_skipped\":\"not asked for (--no-stamps)\",\"future_record\":null}],"
                "\"sources\":[{\"device\":\"/dev/vda\",\"source\":\"superblock:last_write\",\"time\":1800000000,"
                "\"time_usec\":1800000000000000,\"plausible\":true,\"verdict\":\"plausible\",\"winner\":true},"
                "{\"device\":\"/dev/vda\",\"source\":\"superblock:created\",\"time\":1000000000,"
                "\"time_usec\":1000000000000000,\"plausible\":false,\"verdict\":\"before_floor\","
                "\"winner\":false}]}\n");
        free(buf);

        /* Unavailable: estimate, source and target are null. */
        ev.n_candidates = 0;
        check_int(decide(&p, 0, false, c, 0, &d), 0);
        buf = render(report_json, &s);
        check(strstr(buf,
                      "\"estimate\":null,\"source\":null,\"device\":null,\"target\":null,"
                      "\"action\":\"unavailable\",\"evidence\":false") != NULL);
        free(buf);

        /* No evidence, the clock before the floor, the floor the last resort: set to the floor, from the
         * build. */
        p.floor_fallback = true;
        check_int(decide(&p, 0, false, c, 0, &d), 0);
        buf = render(report_json, &s);
        check(strstr(buf,
                      "\"estimate\":1700000000,\"source\":\"build\",\"device\":null,\"target\":1700000000,"
                      "\"action\":\"set\",\"evidence\":false") != NULL);
        free(buf);
        buf = render(report_text, &s);
        check(strstr(buf,
                      "Estimate:   2023-11-14T22:13:20Z, the floor (build time): no device gave a usable time\n") !=
                NULL);
        check(strstr(buf, "Action:     set: `clockfix set` would move the clock forward to the floor") !=
                NULL);
        free(buf);
}

/* Every number within 2^53, what JSON readers take exactly; beyond it null, never rounded or refused. */
static void test_json_limits(void)
{
        struct device_report dev = {
                .origin = ORIGIN_OPTION,
                .spec = (char *)"big.img",
                .path = (char *)"big.img",
                .have_sb = true,
                .sb = { .type = "ext4", .fs_bytes = UINT64_C(1) << 60, .device_bytes = UINT64_C(1) << 53 },
                .have_stamps = true,
                .stamps = {
                        [STAMP_TIMESYNCD] = { .error = -EIO, .reason = "cannot look it up (corrupt directory?)" },
                        [STAMP_FAKE_HWCLOCK] = { .error = -ENOENT },
                        [STAMP_CLOCKFIX] = { .inode = 12, .time = 1800000000 * USEC_PER_SEC },
                },
        };
        struct candidate c[] = {
                { "big.img", "journal:last_commit", USEC_INFINITY },                  /* 2^63 s, saturated */
                { "big.img", "superblock:last_mount", 1099511627775 * USEC_PER_SEC }, /* 2^40 - 1 s */
                { "big.img", "superblock:last_write", 9007199254 * USEC_PER_SEC },    /* 2^53 us, nearly */
        };
        struct evidence ev = { .devices = &dev, .n_devices = 1, .candidates = c, .n_candidates = 3 };
        struct policy p = policy(UINT64_C(1) << 54);
        struct decision d;
        char *buf;

        struct status s = decided(&p, &ev, &d);
        buf = render(report_json, &s);

        check(strstr(buf, "\"margin_usec\":null,") != NULL);
        check(strstr(buf, "\"fs_bytes\":null,\"device_bytes\":9007199254740992,") != NULL);
        check(strstr(buf,
                      "\"source\":\"journal:last_commit\",\"time\":null,\"time_usec\":null,"
                      "\"plausible\":false,\"verdict\":\"after_not_after\"") != NULL);
        check(strstr(buf,
                      "\"source\":\"superblock:last_mount\",\"time\":1099511627775,\"time_usec\":null,"
                      "\"plausible\":false,\"verdict\":\"after_not_after\"") != NULL);
        check(strstr(buf, "\"time\":9007199254,\"time_usec\":9007199254000000,") != NULL);
        /* Stamp files: found only when read; an error or nothing otherwise, never both. */
        check(strstr(buf,
                      "{\"path\":\"/var/lib/systemd/timesync/clock\",\"found\":false,"
                      "\"error\":\"cannot look it up (corrupt directory?)\",\"inode\":null,\"blocks\":0,"
                      "\"budget\":1024,\"budget_exhausted\":false,\"live\":false,"
                      "\"time\":null}") != NULL);
        check(strstr(buf,
                      "{\"path\":\"/etc/fake-hwclock.data\",\"found\":false,\"error\":null,"
                      "\"inode\":null,\"blocks\":0,\"budget\":1024,\"budget_exhausted\":false,"
                      "\"live\":false,\"time\":null}") != NULL);
        check(strstr(buf,
                      "{\"path\":\"/var/lib/clockfix/clock\",\"found\":true,\"error\":null,"
                      "\"inode\":12,\"blocks\":0,\"budget\":1024,\"budget_exhausted\":false,"
                      "\"live\":false,\"time\":1800000000}") != NULL);
        /* No digit run of more than 16 digits anywhere: 2^53 has 16. */
        for (const char *q = buf; *q;) {
                size_t n = strspn(q, "0123456789");
                check(n <= 16);
                q += n ? n : 1;
        }
        free(buf);
}

/* Stamp files the journal made needless: not read, no "files", and the report says why, with the commit's
 * time. */
static void test_stamps_skipped(void)
{
        struct device_report dev = {
                .origin = ORIGIN_OPTION,
                .spec = (char *)"root.img",
                .path = (char *)"root.img",
                .have_sb = true,
                .sb = { .type = "ext4" },
                .have_journal = true,
                .journal = { .location = JOURNAL_INODE,
                        .inode = 8,
                        .jbd2 = { .newest = { .found = true,
                                          .sequence = 50,
                                          .block = 150,
                                          .time = 1796200049 * USEC_PER_SEC },
                                .best = { .found = true,
                                        .sequence = 50,
                                        .block = 150,
                                        .time = 1796200049 * USEC_PER_SEC } } },
                .stamps_why = STAMPS_JOURNAL_NEWER,
        };
        struct candidate c[] = { { "root.img", "journal:last_commit", 1796200049 * USEC_PER_SEC } };
        struct evidence ev = { .devices = &dev, .n_devices = 1, .candidates = c, .n_candidates = 1 };
        struct policy p = policy(USEC_PER_SEC);
        struct decision d;
        char *buf;
        const char *why =
                "no stamp file can be newer than the journal's newest commit (2026-12-02T08:27:29Z)";

        struct status s = decided(&p, &ev, &d);
        buf = render(report_json, &s);
        char *expect = NULL;
        check(asprintf(&expect, "\"stamps_skipped\":\"%s\",\"future_record\":null}]", why) > 0);
        check(strstr(buf, expect) != NULL);
        check(strstr(buf, "\"files\"") == NULL);
        free(buf);
        free(expect);

        buf = render(report_text, &s);
        check(asprintf(&expect, "\n  Stamp files: not read: %s\n", why) > 0);
        check(strstr(buf, expect) != NULL);
        free(buf);
        free(expect);

        /* Read: no line about them, and null. */
        dev.have_stamps = true;
        dev.stamps_why = STAMPS_NO_COMMIT;
        buf = render(report_json, &s);
        check(strstr(buf, "\"stamps_skipped\":null,\"files\":[") != NULL);
        free(buf);
        buf = render(report_text, &s);
        check(strstr(buf, "Stamp files") == NULL);
        free(buf);
}

int main(void)
{
        test_escape();
        test_json();
        test_json_limits();
        test_stamps_skipped();
        test_end();
}
