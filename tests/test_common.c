/* test_common.c - the small helpers of common/ that every folder shares: whole-string
 * integers (numparse), growing arrays (grow), the time queue (timeq) and output files
 * (outfile: through symbolic links, into FIFOs and devices). */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/jsontext.h"
#include "common/numparse.h"
#include "common/outfile.h"
#include "common/status.h"
#include "common/timeq.h"
#include "common/tmpfiles.h"
#include "testutil.h"

static void test_parse_int(void)
{
    int v = 7;
    CU_ASSERT_EQUAL(ts_parse_int("36", 1, 64, &v), 0);
    CU_ASSERT_EQUAL(v, 36);
    CU_ASSERT_EQUAL(ts_parse_int("-3", -5, 5, &v), 0);
    CU_ASSERT_EQUAL(v, -3);
    /* Each refusal leaves *out as it was. */
    v = 7;
    const char *bad[] = {"", "x", "3x", "3 ", "65", "0", "99999999999999999999", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ts_parse_int(bad[i], 1, 64, &v), -1);
        CU_ASSERT_EQUAL(v, 7);
    }
    CU_ASSERT_EQUAL(ts_parse_int("64", 1, 64, &v), 0); /* bounds are inclusive */
    CU_ASSERT_EQUAL(v, 64);
    CU_ASSERT_EQUAL(ts_parse_int(" 3", 1, 64, &v), 0); /* leading blanks, as strtol reads */
    /* Decimal only: what strtod also reads (hex floats, inf, nan) is no number here. */
    double d = 7;
    static const char *const not_decimal[] = {"0x10", "0X1p3", "0xC.Cp0", "inf", "nan", "-inf"};
    for (size_t i = 0; i < sizeof not_decimal / sizeof not_decimal[0]; i++) {
        CU_ASSERT_EQUAL(ts_parse_double(not_decimal[i], &d), -1);
        char *end = NULL;
        CU_ASSERT_EQUAL(ts_strtod_dec(not_decimal[i], &end), 0.0);
        CU_ASSERT_PTR_EQUAL(end, not_decimal[i]);
    }
    CU_ASSERT_EQUAL(d, 7); /* untouched */
    CU_ASSERT_EQUAL(ts_parse_double("-1.5e3", &d), 0);
    CU_ASSERT_EQUAL(d, -1500);
    CU_ASSERT_EQUAL(ts_parse_double("0", &d), 0);
    CU_ASSERT_EQUAL(d, 0);
    CU_ASSERT_EQUAL(v, 3);
}

static void test_grow(void)
{
    uint32_t *a = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        CU_ASSERT_EQUAL_FATAL(TS_GROW(a, n, cap, 4), 0);
        CU_ASSERT(cap > n);
        a[n++] = i * 3;
    }
    /* 4, 8, ..., 1024: doubling from the first capacity. */
    CU_ASSERT_EQUAL(cap, 1024);
    for (uint32_t i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL(a[i], i * 3);
    /* Room left: nothing moves. */
    uint32_t *before = a;
    CU_ASSERT_EQUAL(TS_GROW(a, n, cap, 4), 0);
    CU_ASSERT_PTR_EQUAL(a, before);
    CU_ASSERT_EQUAL(cap, 1024);
    /* A capacity that cannot be allocated: -1, the array and capacity unchanged. */
    size_t huge = SIZE_MAX / 2 + 1;
    uint32_t *same = a;
    CU_ASSERT_EQUAL(ts_grow(&a, &huge, huge, sizeof *a, 4), -1);
    CU_ASSERT_PTR_EQUAL(a, same);
    CU_ASSERT_EQUAL(huge, SIZE_MAX / 2 + 1);
    free(a);
    /* Strings: each a copy, in order. */
    char **strs = NULL, word[8] = "a";
    size_t ns = 0;
    for (int i = 0; i < 3; i++, word[0]++)
        CU_ASSERT_EQUAL(ts_strs_push(&strs, &ns, word), 0);
    CU_ASSERT_EQUAL_FATAL(ns, 3);
    CU_ASSERT(strcmp(strs[0], "a") == 0 && strcmp(strs[2], "c") == 0);
    for (size_t i = 0; i < ns; i++)
        free(strs[i]);
    free(strs);
}

/* Items come out by time, equal times in the order they went in, whatever the heap's shape;
 * peek shows what pop will return. */
static void test_timeq(void)
{
    ts_timeq_t *q = ts_timeq_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_PTR_NULL(ts_timeq_pop(q));
    CU_ASSERT_PTR_NULL(ts_timeq_peek(q));
    /* 1000 items at times 9, 8, ..., 0, 9, 8, ...: item i at time 9 - i % 10. */
    static int items[1000];
    for (int i = 0; i < 1000; i++) {
        items[i] = i;
        CU_ASSERT_EQUAL_FATAL(ts_timeq_push(q, 9 - i % 10, &items[i]), 0);
    }
    CU_ASSERT_EQUAL(ts_timeq_size(q), 1000);
    int prev = -1;
    double prev_t = -1;
    for (int k = 0; k < 1000; k++) {
        double t = ts_timeq_first(q);
        int *peek = ts_timeq_peek(q), *it = ts_timeq_pop(q);
        CU_ASSERT_PTR_EQUAL(peek, it);
        CU_ASSERT_EQUAL(t, 9 - *it % 10);
        CU_ASSERT(t >= prev_t);
        if (t == prev_t)
            CU_ASSERT(*it > prev); /* first in, first out */
        prev_t = t;
        prev = *it;
    }
    /* Time 0 first: items 9, 19, 29, ...; the last out is 990 at time 9. */
    CU_ASSERT_EQUAL(prev, 990);
    CU_ASSERT_EQUAL(ts_timeq_size(q), 0);
    /* Pushes between pops keep the order. */
    ts_timeq_push(q, 2.5, &items[1]);
    ts_timeq_push(q, 1.5, &items[2]);
    CU_ASSERT_PTR_EQUAL(ts_timeq_pop(q), &items[2]);
    ts_timeq_push(q, 2.5, &items[3]);
    ts_timeq_push(q, 0.5, &items[4]);
    CU_ASSERT_PTR_EQUAL(ts_timeq_pop(q), &items[4]);
    CU_ASSERT_PTR_EQUAL(ts_timeq_pop(q), &items[1]);
    CU_ASSERT_PTR_EQUAL(ts_timeq_pop(q), &items[3]);
    ts_timeq_free(q);
}

/* Pushes and pops interleaved, half of the pushes at the time last popped (the queue's
 * first-in first-out lane), some at earlier times, some later, against a plain list searched
 * for its least (time, push number) at each pop: the same item every time. */
static void test_timeq_interleaved(void)
{
    enum { OPS = 20000 };
    ts_timeq_t *q = ts_timeq_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    static struct {
        double t;
        int seq;
    } ref[OPS];
    static int ids[OPS];
    int nref = 0, pushed = 0, mismatches = 0, lane_like = 0;
    double last = 0;
    unsigned rng = 12345;
    for (int op = 0; op < OPS; op++) {
        rng = rng * 1103515245u + 12345u;
        unsigned r = (rng >> 8) % 100;
        if (r < 55 || nref == 0) {
            double t = r < 30 ? last : r < 40 ? last - 1 : last + (double)(r % 7);
            lane_like += t == last;
            ids[pushed] = pushed;
            CU_ASSERT_EQUAL_FATAL(ts_timeq_push(q, t, &ids[pushed]), 0);
            ref[nref].t = t;
            ref[nref].seq = pushed++;
            nref++;
        } else {
            int best = 0;
            for (int i = 1; i < nref; i++)
                if (ref[i].t < ref[best].t ||
                    (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq))
                    best = i;
            double t = ts_timeq_first(q);
            int *it = ts_timeq_pop(q);
            mismatches += !it || *it != ref[best].seq || t != ref[best].t;
            last = ref[best].t;
            ref[best] = ref[--nref];
        }
        CU_ASSERT_EQUAL(ts_timeq_size(q), (size_t)nref);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT(lane_like > OPS / 5); /* the lane was used a lot */
    ts_timeq_free(q);
}

static ts_status write_text(const char *path, const char *text, ts_error_t *err)
{
    ts_outfile_t *f;
    ts_status st = ts_outfile_open(path, &f, err);
    if (st != TS_OK)
        return st;
    fputs(text, ts_outfile_stream(f));
    return ts_outfile_commit(f, err);
}

/* Outputs through a symbolic link replace the file it names and leave the link; a FIFO or a
 * device is written, not replaced; a FIFO nobody reads and a directory are refused. */
static void test_outfile_targets(void)
{
    const char *d = tu_tmpdir();
    char target[512], link[512], link2[512], fifo[512], loop[512];
    ts_error_t err;
    snprintf(target, sizeof target, "%s/t.json", d);
    snprintf(link, sizeof link, "%s/o.json", d);
    snprintf(link2, sizeof link2, "%s/o2.json", d);
    FILE *fp = fopen(target, "w");
    fputs("stale\n", fp);
    fclose(fp);
    CU_ASSERT_FATAL(symlink("t.json", link) == 0); /* relative, as ln -s writes it */
    CU_ASSERT_FATAL(symlink(link, link2) == 0);    /* a link to the link */
    CU_ASSERT_EQUAL(write_text(link2, "fresh\n", &err), TS_OK);
    char *text = tu_read_file(target, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "fresh\n");
    free(text);
    struct stat sb;
    CU_ASSERT(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    CU_ASSERT(lstat(link2, &sb) == 0 && S_ISLNK(sb.st_mode));
    /* A dangling link names the file to create. */
    char dangling[512], made[512];
    snprintf(dangling, sizeof dangling, "%s/d.json", d);
    snprintf(made, sizeof made, "%s/new.json", d);
    CU_ASSERT_FATAL(symlink("new.json", dangling) == 0);
    CU_ASSERT_EQUAL(write_text(dangling, "x\n", &err), TS_OK);
    CU_ASSERT(lstat(dangling, &sb) == 0 && S_ISLNK(sb.st_mode));
    CU_ASSERT(stat(made, &sb) == 0 && S_ISREG(sb.st_mode));
    /* A loop: refused, one line. */
    snprintf(loop, sizeof loop, "%s/loop", d);
    CU_ASSERT_FATAL(symlink("loop", loop) == 0);
    CU_ASSERT_EQUAL(write_text(loop, "x\n", &err), TS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "symbolic link loop"));
    /* /dev/null stays a device. */
    CU_ASSERT_EQUAL(write_text("/dev/null", "x\n", &err), TS_OK);
    CU_ASSERT(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
    /* A FIFO: refused at once without a reader, written through with one. */
    snprintf(fifo, sizeof fifo, "%s/fifo", d);
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    CU_ASSERT_EQUAL(write_text(fifo, "x\n", &err), TS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a FIFO with no reader"));
    int pfd[2];
    CU_ASSERT_FATAL(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) { /* the reader: what arrives goes back through the pipe */
        close(pfd[0]);
        int fd = open(fifo, O_RDONLY);
        char buf[64];
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (n > 0 && write(pfd[1], buf, (size_t)n) != n)
            _exit(2);
        _exit(n > 0 ? 0 : 1);
    }
    close(pfd[1]);
    ts_status st = TS_EIO;
    for (int tries = 0; tries < 200 && st != TS_OK; tries++) { /* until the reader is there */
        st = write_text(fifo, "through\n", &err);
        if (st != TS_OK)
            usleep(10000);
    }
    CU_ASSERT_EQUAL(st, TS_OK);
    char got[64] = "";
    ssize_t n = read(pfd[0], got, sizeof got - 1);
    got[n > 0 ? n : 0] = '\0';
    close(pfd[0]);
    waitpid(pid, NULL, 0);
    CU_ASSERT_STRING_EQUAL(got, "through\n");
    CU_ASSERT(lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));
    /* A directory: refused. */
    CU_ASSERT_EQUAL(write_text(d, "x\n", &err), TS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is a directory"));
}

/* Issue 30 item 11: a message longer than the record keeps its end (what was expected) and
 * the file's name: the middle of the long path gives way, not the end of the line. */
static void test_long_error(void)
{
    char path[1600];
    int k = snprintf(path, sizeof path, "/scratch/run");
    while (k < 1500)
        k += snprintf(path + k, sizeof path - (size_t)k, "/level%d", k);
    snprintf(path + k, sizeof path - (size_t)k, "/osu_latency.txt");
    ts_error_t err;
    CU_ASSERT_EQUAL(ts_error_set(&err, TS_ECORRUPT, "%s:12: expected a time (us), got 'x'", path),
                    TS_ECORRUPT);
    size_t n = strlen(err.msg);
    const char *tail = "/osu_latency.txt:12: expected a time (us), got 'x'";
    CU_ASSERT(n < sizeof err.msg);
    CU_ASSERT(n >= sizeof err.msg - 8); /* as much as fits */
    CU_ASSERT(n > strlen(tail) && strcmp(err.msg + n - strlen(tail), tail) == 0);
    CU_ASSERT(strncmp(err.msg, "/scratch/run/level", 18) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "..."));
    printf("\n  %s\n", err.msg);

    /* Many short words: the message's own middle goes, its end stays. */
    char words[2000] = "";
    for (int i = 0; i < 200; i++)
        strcat(words, "word ");
    ts_error_set(&err, TS_EARG, "%sexpected the end", words);
    n = strlen(err.msg);
    CU_ASSERT(n < sizeof err.msg && strcmp(err.msg + n - 16, "expected the end") == 0);

    /* A message made from the record's own text (callers prefix context that way). */
    ts_error_set(&err, TS_EIO, "inner");
    ts_error_set(&err, TS_EIO, "outer: %s", err.msg);
    CU_ASSERT_STRING_EQUAL(err.msg, "outer: inner");
    ts_error_set(&err, TS_EIO, "short %d", 1);
    CU_ASSERT_STRING_EQUAL(err.msg, "short 1");
}

/* Issue 30 item 11: JSON text stays valid UTF-8 whatever the bytes of a path in it. */
static void test_json_utf8(void)
{
    static const struct {
        const char *in;
        size_t len;
    } seqs[] = {
        {"a", 1},
        {"\xc3\xa9", 2},
        {"\xe2\x82\xac", 3},
        {"\xf0\x9f\x98\x80", 4},
        {"\xe9", 0},
        {"\xc0\xaf", 0},
        {"\xe0\x80\xaf", 0}, /* overlong */
        {"\xed\xa0\x80", 0},
        /* a surrogate */ {"\xf4\x90\x80\x80", 0}, /* > U+10FFFF */
        {"\xe2\x82", 0},                           /* cut short by the string's end */
    };
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        CU_ASSERT_EQUAL(ts_utf8_seq_len((const unsigned char *)seqs[i].in), seqs[i].len);
    char buf[128] = "";
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(ts_json_fputs("{\"trace\": \"caf\xe9/caf\xc3\xa9\"}", fp), 0);
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, "{\"trace\": \"caf\\ufffd/caf\xc3\xa9\"}");
}

/* Messages stay one line of valid UTF-8: C0 and C1 controls and bytes of no UTF-8 sequence
 * become '?', valid sequences stay, and a cut never splits a sequence. */
static void test_one_line(void)
{
    static const struct {
        const char *in, *want;
    } CASES[] = {
        {"plain", "plain"},
        {"a\nb\x1b[31m", "a?b?[31m"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"},
        {"caf\xe9.tss", "caf?.tss"}, /* Latin-1 */
        {"x\xc2\x9b"
         "31m",
         "x?31m"},                        /* U+009B, a C1 CSI */
        {"\xc2\xa0nbsp", "\xc2\xa0nbsp"}, /* U+00A0 is text */
        {"\xe2\x82", "??"},               /* cut short */
        {"\x7f", "?"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", CASES[i].in);
        CU_ASSERT_STRING_EQUAL(ts_one_line(buf), CASES[i].want);
        char shown[64];
        CU_ASSERT_STRING_EQUAL(ts_shown(CASES[i].in, shown, sizeof shown), CASES[i].want);
    }
    /* A cut falls before a sequence, not inside it (room for 4 bytes and "..."). */
    char small[8];
    CU_ASSERT_STRING_EQUAL(ts_shown("aaa\xe2\x82\xac\xe2\x82\xac", small, sizeof small), "aaa...");
    CU_ASSERT_STRING_EQUAL(ts_shown("aaaa\xe2\x82\xac"
                                    "b",
                                    small, sizeof small),
                           "aaaa...");
}

/* Issue 30 item 11: an empty TMPDIR means /tmp, not the root directory. */
static void test_tmp_dir_empty(void)
{
    const char *old = getenv("TMPDIR");
    char *keep = old ? strdup(old) : NULL;
    setenv("TMPDIR", "", 1);
    CU_ASSERT_STRING_EQUAL(ts_tmp_dir(), "/tmp");
    setenv("TMPDIR", "/var/tmp", 1);
    CU_ASSERT_STRING_EQUAL(ts_tmp_dir(), "/var/tmp");
    if (keep)
        setenv("TMPDIR", keep, 1);
    else
        unsetenv("TMPDIR");
    free(keep);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("common helpers", NULL, NULL);
    CU_add_test(s, "whole-string integers", test_parse_int);
    CU_add_test(s, "growing arrays", test_grow);
    CU_add_test(s, "time queue", test_timeq);
    CU_add_test(s, "time queue, pushes between pops", test_timeq_interleaved);
    CU_add_test(s, "output files: links, FIFOs, devices", test_outfile_targets);
    CU_add_test(s, "JSON text as valid UTF-8", test_json_utf8);
    CU_add_test(s, "messages: one line of valid UTF-8", test_one_line);
    CU_add_test(s, "an empty TMPDIR means /tmp", test_tmp_dir_empty);
    CU_add_test(s, "issue 30 item 11: a long message keeps its end", test_long_error);
    return tu_run_all();
}
