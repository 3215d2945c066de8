/* test_sets.c - sets files (commands/sets): sections written as mpirun words, KEY=VALUE and
 * placement lines; grid expansion (order, generated names, fixed lines); every mistake of a
 * file reported at once with its file and line; the shipped reference sweep
 * sets/motorbike-72.sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/params.h"
#include "commands/sets.h"
#include "commands/sweep_report.h"
#include "testutil.h"

static ts_sets_t *parse(const char *text)
{
    ts_sets_t *s = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL(ts_sets_open("test.sets", text, &s, &err), TS_OK);
    return s;
}

/* Set i's changes from the defaults, as ts_params_print_changes writes them. */
static char *changes(const ts_sets_t *s, int i)
{
    ts_params_t *p = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    if (ts_params_new(&p) != TS_OK)
        return NULL;
    if (ts_sets_apply(s, i, p, &err) != TS_OK) {
        printf("\n  apply %s: %s", ts_sets_name(s, i), err.msg);
        ts_params_free(p);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    ts_params_print_changes(p, ms);
    fclose(ms);
    ts_params_free(p);
    return buf;
}

static void expect_changes(const ts_sets_t *s, int i, const char *want)
{
    char *got = changes(s, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want) != 0)
        printf("\n  set %s: got '%s', want '%s'", ts_sets_name(s, i), got, want);
    free(got);
}

static void test_sections(void)
{
    ts_sets_t *s = parse("# a comment\n"
                         "\n"
                         "[asis]\n"
                         "[t0]   # trailing comment\n"
                         "-x UCX_TLS=self,sm,rc -x UCX_ZCOPY_THRESH=128kb\n"
                         "  --mca coll_hcoll_enable 0\n"
                         "UCX_RNDV_THRESH = intra:16kb,inter:128kb\n"
                         "nps = 2\n"
                         "--map-by cyclic --nodes 2\n"
                         "ppn 1\n"
                         "-x WM_PROJECT_DIR=/usr/share/openfoam\n"
                         "[later-wins]\n"
                         "UCX_TLS=all\n"
                         "--set UCX_TLS=self,sm,ud\n"
                         "nps=1\n"
                         "nps=2\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 0);
    for (int i = 0; i < ts_sets_nerrors(s); i++)
        printf("\n  unexpected: %s", ts_sets_error(s, i));
    CU_ASSERT_EQUAL_FATAL(ts_sets_count(s), 3);
    CU_ASSERT_STRING_EQUAL(ts_sets_name(s, 0), "asis");
    CU_ASSERT_STRING_EQUAL(ts_sets_name(s, 1), "t0");
    CU_ASSERT_EQUAL(ts_sets_line(s, 1), 4);
    CU_ASSERT_EQUAL(ts_sets_find(s, "later-wins"), 2);
    CU_ASSERT_EQUAL(ts_sets_find(s, "nope"), -1);
    expect_changes(s, 0, "");
    const ts_set_place_t *p0 = ts_sets_place(s, 0);
    CU_ASSERT(p0->nodes == 0 && p0->ppn == 0 && p0->nps == 0 && p0->map_by == NULL);
    /* Table order, values as written; the application's own -x variable is not a setting. */
    expect_changes(s, 1,
                   "UCX_TLS=self,sm,rc\nUCX_RNDV_THRESH=intra:16kb,inter:128kb\n"
                   "UCX_ZCOPY_THRESH=128kb\ncoll_hcoll_enable=0\n");
    const ts_set_place_t *p1 = ts_sets_place(s, 1);
    CU_ASSERT(p1->nodes == 2 && p1->ppn == 1 && p1->nps == 2);
    CU_ASSERT(p1->map_by && strcmp(p1->map_by, "cyclic") == 0);
    expect_changes(s, 2, "UCX_TLS=self,sm,ud\n");
    CU_ASSERT_EQUAL(ts_sets_place(s, 2)->nps, 2);
    ts_sets_free(s);

    /* A placement line's value may hold '=' (Open MPI's PE=n), in each spelling. */
    static const char *const pe[] = {"map-by core:PE=2", "map_by core:PE=2", "map-by = core:PE=2",
                                     "map-by=core:PE=2", "--map-by core:PE=2"};
    for (size_t k = 0; k < sizeof pe / sizeof pe[0]; k++) {
        char text[128];
        snprintf(text, sizeof text, "[a]\n%s\n", pe[k]);
        s = parse(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL(ts_sets_nerrors(s), 0);
        const ts_set_place_t *pp = ts_sets_place(s, 0);
        CU_ASSERT(pp->map_by && strcmp(pp->map_by, "core:PE=2") == 0);
        ts_sets_free(s);
    }
}

/* The what-ifs (docs/what-if.md) as option words and as parameters, in a grid too. */
static void test_whatif_words(void)
{
    ts_sets_t *s = parse("[fdr]\n--link-speed FDR\n"
                         "[more]\n--memory-bandwidth 256GB/s --cpu-clock 3.6 --balance 50%\n"
                         "[grid g]\nmodel.net.link_speed = EDR | 56Gbps\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 0);
    CU_ASSERT_EQUAL_FATAL(ts_sets_count(s), 4);
    expect_changes(s, 0, "model.net.link_speed=FDR\n");
    expect_changes(s, 1,
                   "model.cpu.memory_bandwidth=256GB/s\nmodel.cpu.clock=3.6\n"
                   "model.cpu.balance=0.5\n");
    expect_changes(s, 2, "model.net.link_speed=EDR\n");
    expect_changes(s, 3, "model.net.link_speed=56Gbps\n");
    ts_sets_free(s);
    s = parse("[bad]\n--link-speed warp9\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 1);
    CU_ASSERT(ts_sets_nerrors(s) == 1 && strstr(ts_sets_error(s, 0), "warp9") != NULL);
    ts_sets_free(s);
}

static void test_grid(void)
{
    ts_sets_t *s = parse("[base]\n"
                         "[grid g]\n"
                         "UCX_TLS = all | self,sm,rc\n"
                         "-x UCX_ZCOPY_THRESH=128kb\n"
                         "UCX_RNDV_THRESH = auto | 16kb | intra:64kb,inter:128kb\n"
                         "nps = 1 | 2\n"
                         "map-by = cyclic\n"
                         "[after]\n"
                         "-x UCX_TLS=tcp,self\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 0);
    CU_ASSERT_EQUAL_FATAL(ts_sets_count(s), 1 + 2 * 3 * 2 + 1);
    /* File order; in a grid the last axis varies fastest; names carry 1-based positions. */
    static const char *const names[] = {"base",    "g-1-1-1", "g-1-1-2", "g-1-2-1", "g-1-2-2",
                                        "g-1-3-1", "g-1-3-2", "g-2-1-1", "g-2-1-2", "g-2-2-1",
                                        "g-2-2-2", "g-2-3-1", "g-2-3-2", "after"};
    for (int i = 0; i < ts_sets_count(s); i++)
        CU_ASSERT_STRING_EQUAL(ts_sets_name(s, i), names[i]);
    expect_changes(s, 1, "UCX_ZCOPY_THRESH=128kb\n"); /* all and auto are the defaults */
    expect_changes(s, 10, "UCX_TLS=self,sm,rc\nUCX_RNDV_THRESH=16kb\nUCX_ZCOPY_THRESH=128kb\n");
    expect_changes(s, 12,
                   "UCX_TLS=self,sm,rc\nUCX_RNDV_THRESH=intra:64kb,inter:128kb\n"
                   "UCX_ZCOPY_THRESH=128kb\n");
    for (int i = 1; i <= 12; i++) {
        const ts_set_place_t *p = ts_sets_place(s, i);
        CU_ASSERT_EQUAL(p->nps, (i - 1) % 2 + 1);
        CU_ASSERT(p->map_by && strcmp(p->map_by, "cyclic") == 0);
        CU_ASSERT_EQUAL(ts_sets_line(s, i), 2);
    }
    expect_changes(s, 13, "UCX_TLS=tcp,self\n");
    ts_sets_free(s);

    /* A grid without axes is one set under the grid's name. */
    s = parse("[grid only]\n-x UCX_TLS=self,sm,rc\n");
    CU_ASSERT_EQUAL(ts_sets_count(s), 1);
    CU_ASSERT_STRING_EQUAL(ts_sets_name(s, 0), "only");
    ts_sets_free(s);
}

/* Every error names the file and its line, one line each, and all come at once. */
static void test_all_errors_at_once(void)
{
    ts_sets_t *s = parse("-x UCX_TLS=rc\n"             /* 1: before a section */
                         "[ok]\n"                      /* 2 */
                         "[bad1]\n"                    /* 3 */
                         "-x UCX_RNDV_TRESH=8kb\n"     /* 4: did you mean */
                         "[bad2]\n"                    /* 5 */
                         "UCX_ZCOPY_THRESH = 12qb\n"   /* 6: bad value */
                         "nps = 3x\n"                  /* 7: bad count */
                         "[bad name]\n"                /* 8: bad name */
                         "[grid g]\n"                  /* 9 */
                         "UCX_TLS = all | bogus\n"     /* 10: one bad value */
                         "map-by = block | diagonal\n" /* 11: bad placement */
                         "[plain]\n"                   /* 12 */
                         "UCX_TLS = all | self\n"      /* 13: not a grid */
                         "--frob 1\n"                  /* 14: unknown word */
                         "-x UCX_TLS\n"                /* 15: environment */
                         "just words\n"                /* 16: no KEY=VALUE */
                         "-x 'UCX_TLS=rc\n"            /* 17: open quote */
                         "[ok]\n"                      /* 18: duplicate */
                         "[unclosed\n");               /* 19 */
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    static const char *const want[] = {
        "test.sets:1: a setting before any [NAME] section",
        "test.sets:4: [bad1] unknown parameter 'UCX_RNDV_TRESH' (did you mean UCX_RNDV_THRESH",
        "test.sets:6: [bad2] UCX_ZCOPY_THRESH",
        "test.sets:7: [bad2] nps expects a whole number",
        "test.sets:8: set name 'bad name'",
        "test.sets:10: [g] UCX_TLS",
        "test.sets:11: [g] map-by 'diagonal'",
        "test.sets:13: [plain] alternatives",
        "test.sets:14: [plain] unexpected '--frob'",
        "test.sets:15: [plain] expected -x KEY=VALUE",
        "test.sets:16: [plain] expected KEY=VALUE",
        "test.sets:17: [plain] unterminated quote",
        "test.sets:19: expected a section header",
        "test.sets:18: set name 'ok' is already used at line 2",
    };
    int n = (int)(sizeof want / sizeof want[0]);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), n);
    for (int i = 0; i < ts_sets_nerrors(s); i++) {
        const char *e = ts_sets_error(s, i);
        CU_ASSERT_PTR_NULL(strchr(e, '\n'));
        if (i < n && strncmp(e, want[i], strlen(want[i])) != 0) {
            printf("\n  error %d: got '%s', want '%s...'", i, e, want[i]);
            CU_FAIL("error text");
        }
    }
    ts_sets_free(s);

    /* an empty alternative is a missing value between bars, not after '=' */
    s = parse("[grid g]\nUCX_TLS = all || self\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 1);
    CU_ASSERT(ts_sets_nerrors(s) == 1 &&
              strstr(ts_sets_error(s, 0), "test.sets:2: [g] UCX_TLS: expected a value between "
                                          "each two bars ('A | B')"));
    ts_sets_free(s);

    s = parse("# nothing but comments\n");
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(ts_sets_error(s, 0), "no sets"));
    ts_sets_free(s);

    /* A typo that would sweep for days: 10^6 sets is over the limit, refused before anything. */
    s = parse("[grid huge]\nnps = 1|2|3|4|5|6|7|8|9|10\nUCX_TLS = all|rc|ud|dc|tcp|self,sm,rc|"
              "self,sm,ud|self,sm,dc|self,sm,tcp|sm,rc\n"
              "UCX_RNDV_THRESH = 1|2|3|4|5|6|7|8|9|10\nUCX_ZCOPY_THRESH = 1|2|3|4|5|6|7|8|9|10\n"
              "UCX_BCOPY_THRESH = 1|2|3|4|5|6|7|8|9|10\nnodes = 1|2|3|4|5|6|7|8|9|10\n");
    int found = 0;
    for (int i = 0; i < ts_sets_nerrors(s); i++)
        found |= strstr(ts_sets_error(s, i), "more than the limit") != NULL;
    CU_ASSERT(found);
    ts_sets_free(s);
    /* Grids within the limit that together pass it: said once, as the file's total. */
    char three[1536] = "";
    for (int g = 0; g < 3; g++) {
        size_t l = strlen(three);
        snprintf(three + l, sizeof three - l,
                 "[grid g%d]\nUCX_RNDV_THRESH = 1|2|3|4|5|6|7|8|9|10\nUCX_ZCOPY_THRESH = "
                 "1|2|3|4|5|6|7|8|9|10\nUCX_BCOPY_THRESH = 1|2|3|4|5|6|7|8|9|10\n"
                 "nps = 1|2\nnodes = 1|2|3|4|5|6|7|8|9|10|11|12|13|14|15|16|17|18|19|20|21|"
                 "22|23|24|25\n",
                 g);
    }
    s = parse(three);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 1);
    CU_ASSERT(ts_sets_nerrors(s) == 1 &&
              strstr(ts_sets_error(s, 0), "test.sets:13: [grid g2] would make the file's sets "
                                          "150000, more than the limit of 100000"));
    ts_sets_free(s);

    /* A file that cannot be read is an I/O error, not a list of mistakes. */
    ts_sets_t *none = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL(ts_sets_open("/nonexistent/x.sets", NULL, &none, &err), TS_ENOENT);
    CU_ASSERT_PTR_NULL(none);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.sets"));
}

/* Issue 12, defect 1: a set name far over the limit (100 characters, then 1 MB, plain and as a
 * grid) is one error quoting at most the limit, never written into a buffer sized for it. */
static void test_long_names(void)
{
    static const size_t lens[] = {100, 1 << 20};
    for (int g = 0; g < 2; g++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            size_t n = lens[k];
            char *text = malloc(n + 64);
            CU_ASSERT_PTR_NOT_NULL_FATAL(text);
            size_t at = (size_t)sprintf(text, "[%s", g ? "grid " : "");
            memset(text + at, 'a', n);
            sprintf(text + at + n, "]\nnps = %s\n[ok]\n", g ? "1 | 2" : "2");
            ts_sets_t *s = parse(text);
            free(text);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            CU_ASSERT_EQUAL(ts_sets_nerrors(s), 1);
            const char *e = ts_sets_nerrors(s) ? ts_sets_error(s, 0) : "";
            CU_ASSERT_PTR_NOT_NULL(strstr(e, "test.sets:1: set name 'aaaa"));
            CU_ASSERT_PTR_NOT_NULL(strstr(e, "...': expected 1-64 characters"));
            CU_ASSERT(strlen(e) < 200);
            /* The bad section makes no sets; the good one is still there. */
            CU_ASSERT_EQUAL(ts_sets_count(s), 1);
            CU_ASSERT_EQUAL(ts_sets_find(s, "ok"), 0);
            ts_sets_free(s);
        }
}

/* The reference sweep of shared/reference/simplefoam-motorbike-72.md, as shipped. */
static void test_reference_sets(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sets/motorbike-72.sets", TS_SOURCE_DIR);
    ts_sets_t *s = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(ts_sets_open(path, NULL, &s, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_sets_nerrors(s), 0);
    static const char *const names[] = {"asis", "t0", "c1", "c2", "c3",
                                        "c4",   "c5", "c6", "c7", "c8"};
    CU_ASSERT_EQUAL_FATAL(ts_sets_count(s), 10);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_STRING_EQUAL(ts_sets_name(s, i), names[i]);
    expect_changes(s, 0, "");
    CU_ASSERT_EQUAL(ts_sets_place(s, 0)->nps, 0);
    expect_changes(s, 1,
                   "UCX_TLS=self,sm,rc\nUCX_RNDV_THRESH=intra:128kb,inter:128kb\n"
                   "UCX_ZCOPY_THRESH=128kb\n");
    CU_ASSERT_EQUAL(ts_sets_place(s, 1)->nps, 1);
    expect_changes(s, 4,
                   "UCX_TLS=self,sm,ud\nUCX_RNDV_THRESH=intra:16kb,inter:128kb\n"
                   "UCX_ZCOPY_THRESH=128kb\n");
    expect_changes(s, 9,
                   "UCX_TLS=self,sm,ud\nUCX_RNDV_THRESH=intra:64kb,inter:128kb\n"
                   "UCX_ZCOPY_THRESH=128kb\ncoll_hcoll_enable=0\ncoll_ucc_enable=1\n");
    for (int i = 2; i < 10; i++)
        CU_ASSERT_EQUAL(ts_sets_place(s, i)->nps, 2);
    ts_sets_free(s);
}

/* A grid's key set twice (an axis and another line, in any spelling) or an axis value given
 * twice made sets alike under different names: refused at the line. */
static void test_grid_keys_once(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[grid g]\nUCX_TLS = all | tcp\nUCX_TLS = rc | tcp\n",
         "test.sets:3: [grid g] UCX_TLS is an axis at line 2"},
        {"[grid g]\nUCX_TLS = all | tcp\n-x UCX_TLS=rc\n",
         "test.sets:3: [grid g] UCX_TLS is an axis at line 2"},
        {"[grid g]\n--mca btl_vader_eager_limit 4096\nbtl_vader_eager_limit = 1024 | 8192\n",
         "test.sets:2: [grid g] btl_vader_eager_limit is an axis at line 3"},
        {"[grid g]\nnps = 1 | 2\nnps = 2\n", "test.sets:3: [grid g] nps is an axis at line 2"},
        {"[grid g]\nmodel.net.link_speed = FDR | EDR\n--link-speed HDR\n",
         "test.sets:3: [grid g] model.net.link_speed is an axis at line 2"},
        {"[grid g]\nUCX_TLS = tcp | rc | tcp\n",
         "test.sets:2: [grid g] a value repeated in the axis"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ts_sets_t *s = parse(bad[i].text);
        CU_ASSERT(s && ts_sets_nerrors(s) == 1 && strstr(ts_sets_error(s, 0), bad[i].want));
        if (s && ts_sets_nerrors(s) >= 1 && !strstr(ts_sets_error(s, 0), bad[i].want))
            printf("\n  %s", ts_sets_error(s, 0));
        ts_sets_free(s);
    }
    /* different keys, and the same key in two sections: fine */
    ts_sets_t *s = parse("[grid g]\nUCX_TLS = all | tcp\n-x UCX_RNDV_THRESH=8kb\n[h]\n"
                         "UCX_TLS = rc\n");
    CU_ASSERT(s && ts_sets_nerrors(s) == 0 && ts_sets_count(s) == 3);
    ts_sets_free(s);
}

/* The sweep's table (commands/sweep_report.h) from two hand-made results. Set a, the
 * baseline: 2 s predicted, 30 s for the full run; b: 3 s and 20 s, so that the full run
 * ranks b first (gain of b: (2 - 3) / 2 = -50 %). The hot-spot columns are a's three most
 * costly functions, most first: Allreduce 0.5 s, Waitall 0.3 s, Recv 0.1 s (not Send, 0.05 s).
 * a's messages: 991 x/p, 6 y/q, 3 z/r of 1,000: 99.1 % shows as 99 %, 0.6 % as 1 % (only
 * below 0.5 % is it "<1 %"), 0.3 % as <1 %; three pairs are all shown, no "...". */
static void test_sweep_table(void)
{
    const char *doc[2] = {
        "{\"predicted_time_s\":2,\"full_time_s\":30,\"rank0_elapsed_s\":1.9,\"nodes\":2,"
        "\"ppn\":1,\"nps\":1,\"map_by\":\"block\",\"functions\":{"
        "\"MPI_Send\":{\"time_s\":0.05},\"MPI_Recv\":{\"time_s\":0.1},"
        "\"MPI_Allreduce\":{\"time_s\":0.5},\"MPI_Waitall\":{\"time_s\":0.3}},"
        "\"protocols\":{\"z\":{\"r\":{\"messages\":3}},\"x\":{\"p\":{\"messages\":991}},"
        "\"y\":{\"q\":{\"messages\":6}}}}",
        "{\"predicted_time_s\":3,\"full_time_s\":20,\"rank0_elapsed_s\":2.9,\"nodes\":2,"
        "\"ppn\":1,\"nps\":1,\"map_by\":\"block\",\"functions\":{"
        "\"MPI_Send\":{\"time_s\":0.01}},\"protocols\":{}}"};
    json_object *res[2], *settings = json_object_new_array();
    for (int i = 0; i < 2; i++) {
        res[i] = json_tokener_parse(doc[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(res[i]);
    }
    ts_sweep_entry_t e[2] = {{"a", settings, res[0], NULL}, {"b", settings, res[1], NULL}};
    ts_sweep_report_t r = {"t.tss", "p", "a", 2, e};
    char *out = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&out, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    ts_sweep_print_table(&r, fp);
    fclose(fp);
    const char *hot[3] = {strstr(out, " MPI_Allreduce[s]"), strstr(out, " MPI_Waitall[s]"),
                          strstr(out, " MPI_Recv[s]")};
    CU_ASSERT(hot[0] && hot[1] && hot[2] && hot[0] < hot[1] && hot[1] < hot[2]);
    CU_ASSERT_PTR_NULL(strstr(out, "MPI_Send[s]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ranked by the full run"));
    const char *b = strstr(out, "\n   1  b "), *a = strstr(out, "\n   2  a ");
    CU_ASSERT(a && b && b < a);
    const char *minus = b ? strstr(b, "-50.00") : NULL, *eol = b ? strchr(b + 1, '\n') : NULL;
    CU_ASSERT(minus && (!eol || minus < eol)); /* on b's own row */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  x/p 99%, y/q 1%, z/r <1%\n"));
    if (!strstr(out, "  x/p 99%, y/q 1%, z/r <1%\n") || !(a && b && b < a))
        printf("\n%s", out);
    free(out);
    for (int i = 0; i < 2; i++)
        json_object_put(res[i]);
    json_object_put(settings);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("sets", NULL, NULL);
    CU_add_test(s, "sections, mpirun words, KEY=VALUE, placement", test_sections);
    CU_add_test(s, "grid expansion", test_grid);
    CU_add_test(s, "what-if words and parameters", test_whatif_words);
    CU_add_test(s, "every mistake at once, with file and line", test_all_errors_at_once);
    CU_add_test(s, "issue 12 defect 1: long set names", test_long_names);
    CU_add_test(s, "the reference sweep sets/motorbike-72.sets", test_reference_sets);
    CU_add_test(s, "a grid sets each key once", test_grid_keys_once);
    CU_add_test(s, "the sweep's table from hand-made results", test_sweep_table);
    return tu_run_all();
}
