/* test_params.c - the parameter table and its parsers (params/params.c): every default, each
 * type on good, bad and boundary values, "did you mean", typed reads, copies, listings, ranges,
 * and docs/parameters.md being current. The command-line words are tested in
 * test_params_args.c, `tunesim params` in test_params_cmd.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paramscheck.h"
#include "testutil.h"

#include "commands/params_cmd.h"

/* ---- the table ------------------------------------------------------------------------ */

static void test_every_default_parses(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = ts_param_def((ts_param_id)i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT_EQUAL((int)d->id, i);
        CU_ASSERT(d->name[0] && d->default_text[0] && d->source[0] && d->help[0]);
        CU_ASSERT_EQUAL(ts_param_find(d->name), i);
        ts_error_clear(&err);
        ts_status st = ts_params_set(p, d->name, d->default_text, &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK)
            printf("\n  default of %s: %s", d->name, err.msg);
        CU_ASSERT(ts_params_is_set(p, (ts_param_id)i));
        /* An ENUM's help carries its word list. */
        if (d->type == TS_PT_ENUM)
            CU_ASSERT(strchr(d->help, '{') && strchr(d->help, '}'));
        for (int k = 0; k < i; k++)
            CU_ASSERT(strcmp(ts_param_def((ts_param_id)k)->name, d->name) != 0);
    }
    /* Set to their own defaults, nothing has changed. */
    capture_t c;
    capture_open(&c);
    CU_ASSERT_EQUAL(ts_params_print_changes(p, c.fp), 0);
    free(capture_close(&c));
    CU_ASSERT_PTR_NULL(ts_param_def(TS_P__COUNT));
    CU_ASSERT_PTR_NULL(ts_param_def((ts_param_id)-1));
    ts_params_free(p);
    ts_params_free(NULL);
}

static void test_defaults_read_back(void)
{
    ts_params_t *p = fresh();
    CU_ASSERT_EQUAL(ts_params_tls(p), 0x3ffu); /* all ten transports */
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_RNDV_THRESH, 0), TS_SIZE_AUTO);
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_RNDV_THRESH, 1), TS_SIZE_AUTO);
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_RNDV_SEND_NBR_THRESH, 0), 256 * KB);
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_RC_MAX_SHORT, 0), 2007);
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_CMA_SEG_SIZE, 0), 512 * KB);
    CU_ASSERT(CLOSE(ts_params_bw(p, TS_P_UCX_BCOPY_BW), 7000e6));
    CU_ASSERT(CLOSE(ts_params_bw(p, TS_P_NET_BW), 12254e6));
    CU_ASSERT(CLOSE(ts_params_seconds(p, TS_P_NET_LATENCY), 1.66e-6));
    CU_ASSERT(CLOSE(ts_params_seconds(p, TS_P_UCX_OVH_RTS), 275e-9));
    CU_ASSERT_EQUAL(ts_params_int(p, TS_P_UCX_MAX_RNDV_LANES), 2);
    CU_ASSERT(CLOSE(ts_params_double(p, TS_P_UCX_RNDV_PERF_DIFF), 1.0));
    CU_ASSERT_EQUAL(ts_params_bool(p, TS_P_MCA_COLL_HCOLL_ENABLE), 1);
    CU_ASSERT_EQUAL(ts_params_bool(p, TS_P_MCA_COLL_UCC_ENABLE), 0);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_MCA_PML), "ucx");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_RNDV_SCHEME), "auto");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "all");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_NET_LATENCY), "1.66us");
    for (int i = 0; i < TS_P__COUNT; i++)
        CU_ASSERT_FALSE(ts_params_is_set(p, (ts_param_id)i));
    ts_params_free(p);
}

static void test_find(void)
{
    CU_ASSERT_EQUAL(ts_param_find("UCX_TLS"), TS_P_UCX_TLS);
    CU_ASSERT_EQUAL(ts_param_find("coll_hcoll_enable"), TS_P_MCA_COLL_HCOLL_ENABLE);
    CU_ASSERT_EQUAL(ts_param_find("OMPI_MCA_coll_hcoll_enable"), TS_P_MCA_COLL_HCOLL_ENABLE);
    CU_ASSERT_EQUAL(ts_param_find("OMPI_MCA_pml"), TS_P_MCA_PML);
    CU_ASSERT_EQUAL(ts_param_find("model.net.latency"), TS_P_NET_LATENCY);
    /* UCX is case-sensitive, MCA names exact, and only MCA names take OMPI_MCA_. */
    CU_ASSERT_EQUAL(ts_param_find("ucx_tls"), -1);
    CU_ASSERT_EQUAL(ts_param_find("PML"), -1);
    CU_ASSERT_EQUAL(ts_param_find("ompi_mca_pml"), -1);
    CU_ASSERT_EQUAL(ts_param_find("OMPI_MCA_UCX_TLS"), -1);
    CU_ASSERT_EQUAL(ts_param_find("OMPI_MCA_"), -1);
    CU_ASSERT_EQUAL(ts_param_find(""), -1);
    CU_ASSERT_EQUAL(ts_param_find(NULL), -1);
}

/* ---- value parsers -------------------------------------------------------------------- */

static void test_size(void)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } good[] = {
        {"0", 0},
        {"8192", 8192},
        {"2007b", 2007},
        {"16kb", 16 * KB},
        {"16k", 16 * KB},
        {"16KB", 16 * KB},
        {"16Kb", 16 * KB},
        {"128kb", 128 * KB},
        {"1mb", MB},
        {"1M", MB},
        {"2gb", 2 * GB},
        {"1g", GB},
        {"3G", 3 * GB},
        {"inf", TS_SIZE_INF},
        {"INF", TS_SIZE_INF},
        {"infinity", TS_SIZE_INF},
        {"auto", TS_SIZE_AUTO},
        {"AUTO", TS_SIZE_AUTO},
        {"18446744073709551613", TS_SIZE_INF - 1}, /* the largest real size */
        {"17179869183gb", 17179869183ull * GB},
    };
    static const char *const bad[] = {
        "",
        "12qb",
        "-1",
        "+1",
        "1.5kb",
        " 1",
        "1 kb",
        "1kb ",
        "kb",
        "1kbb",
        "1tb",
        "0x10",
        "18446744073709551614", /* = inf */
        "18446744073709551616",
        "17179869184gb",
        "99999999999999999999999",
        "autox",
        "in",
    };
    ts_params_t *p = fresh();
    ts_error_t err;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        ts_status st = try_set(&p, "UCX_ZCOPY_THRESH", good[k].text, &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK)
            printf("\n  '%s': %s", good[k].text, err.msg);
        CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_ZCOPY_THRESH, 0), good[k].bytes);
        CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_ZCOPY_THRESH, 1), good[k].bytes);
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ts_status st = try_set(&p, "UCX_ZCOPY_THRESH", bad[k], &err);
        CU_ASSERT_EQUAL(st, TS_EARG);
        if (st != TS_EARG)
            printf("\n  '%s' was accepted", bad[k]);
        CU_ASSERT(tu_one_line(err.msg));
        /* A failed set keeps the old value. */
        CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_ZCOPY_THRESH, 0), TS_SIZE_AUTO);
        CU_ASSERT_FALSE(ts_params_is_set(p, TS_P_UCX_ZCOPY_THRESH));
    }
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_THRESH", "12qb", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "UCX_RNDV_THRESH: bad value '12qb' (expected a size (8192, "
                                    "16kb, 1mb, inf or auto) or intra:SIZE,inter:SIZE)");
    CU_ASSERT_EQUAL(try_set(&p, "UCX_ZCOPY_THRESH", "12qb", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "UCX_ZCOPY_THRESH: bad value '12qb' (expected a size: 8192, "
                                    "16kb, 1mb, inf or auto)");
    ts_params_free(p);
}

static void test_size2(void)
{
    static const struct {
        const char *text;
        uint64_t intra, inter;
    } good[] = {
        {"intra:16kb,inter:128kb", 16 * KB, 128 * KB},   /* candidates c1, c3, c5, c7 */
        {"intra:64kb,inter:128kb", 64 * KB, 128 * KB},   /* c2, c4, c6, c8 */
        {"intra:128kb,inter:128kb", 128 * KB, 128 * KB}, /* t0 */
        {"inter:128kb,intra:16kb", 16 * KB, 128 * KB},
        {"intra:64kb", 64 * KB, TS_SIZE_AUTO},
        {"inter:128kb", TS_SIZE_AUTO, 128 * KB},
        {"INTRA:1k,Inter:2K", KB, 2 * KB},
        {"inter:128kb,16kb", 16 * KB, 128 * KB},
        {"16kb,intra:1kb", KB, 16 * KB},
        {"16kb", 16 * KB, 16 * KB},
        {"0", 0, 0},
        {"auto", TS_SIZE_AUTO, TS_SIZE_AUTO},
        {"inf", TS_SIZE_INF, TS_SIZE_INF},
        {"intra:inf,inter:auto", TS_SIZE_INF, TS_SIZE_AUTO},
    };
    static const char *const bad[] = {
        "",
        "intra:16kb,intra:32kb",
        "foo:1",
        "intra:",
        "intra:16kb,",
        ",",
        "16kb,32kb",
        "intra=16kb",
        "intra:12qb",
        ":16kb",
        "intra:1:2",
        "intra:16kb, inter:1kb",
        "intra:16kb;inter:1kb",
    };
    ts_params_t *p = fresh();
    ts_error_t err;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        ts_status st = try_set(&p, "UCX_RNDV_THRESH", good[k].text, &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK)
            printf("\n  '%s': %s", good[k].text, err.msg);
        CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_RNDV_THRESH, 0), good[k].intra);
        CU_ASSERT_EQUAL(ts_params_size(p, TS_P_UCX_RNDV_THRESH, 1), good[k].inter);
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_THRESH", bad[k], &err), TS_EARG);
        CU_ASSERT(strstr(err.msg, "UCX_RNDV_THRESH: bad value") == err.msg);
    }
    ts_params_free(p);
}

static void test_time(void)
{
    static const struct {
        const char *text;
        double s;
    } good[] = {
        {"5ns", 5e-9},    {"1.66us", 1.66e-6}, {"275NS", 275e-9}, {"2ms", 2e-3},
        {"3s", 3},        {"0.5", 0.5},        {"0", 0},          {"1e-6", 1e-6},
        {".5us", 0.5e-6}, {"0.01ns", 0.01e-9}, {"2E3us", 2e-3},
    };
    static const char *const bad[] = {"",    "-1us",  "1 us", "us",    "1h",  "nan",
                                      "inf", "0x1p3", "1e",   "1.2.3", "+1s", "1e999"};
    ts_params_t *p = fresh();
    ts_error_t err;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "model.net.latency", good[k].text, &err), TS_OK);
        CU_ASSERT(CLOSE(ts_params_seconds(p, TS_P_NET_LATENCY), good[k].s));
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "model.net.latency", bad[k], &err), TS_EARG);
        if (strcmp(bad[k], "") != 0)
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected a time"));
    }
    /* What a person writes must say its unit: a bare number is seconds (the code's own
     * values above), which no one means for a latency; 0 needs none. */
    static const char *const bare[] = {"1", "0.5", "1e-6", ".5", "2."};
    CU_ASSERT_EQUAL(ts_params_set_user(p, "model.net.latency", "1us", &err), TS_OK);
    for (size_t k = 0; k < sizeof bare / sizeof bare[0]; k++) {
        CU_ASSERT_EQUAL(ts_params_set_user(p, "model.net.latency", bare[k], &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a time needs its unit"));
        CU_ASSERT_TRUE(CLOSE(ts_params_seconds(p, TS_P_NET_LATENCY), 1e-6)); /* unchanged */
    }
    static const char *const user_good[] = {"0", "0.0", "2us", "1.5ms", "0s"};
    for (size_t k = 0; k < sizeof user_good / sizeof user_good[0]; k++)
        CU_ASSERT_EQUAL(ts_params_set_user(p, "model.net.latency", user_good[k], &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_set_user(p, "model.net.latency", "abc", &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected a time"));
    CU_ASSERT_EQUAL(ts_params_set_user(p, "model.coll.datatype_size", "4", &err), TS_OK);
    ts_params_free(p);
}

static void test_bandwidth(void)
{
    static const struct {
        const char *text;
        double bps;
    } good[] = {
        {"7000MB/s", 7000e6},
        {"12254MB/s", 12254e6},
        {"1GB/s", 1e9},
        {"12.5GB/s", 12.5e9},
        {"100Gbps", 12.5e9},
        {"100Gb/s", 12.5e9},
        {"5MBps", 5e6},
        {"1KB/s", 1e3},
        {"1kB/s", 1e3},
        {"1KiB/s", 1024},
        {"2MiB/s", 2 * 1048576.0},
        {"8b/s", 1},
        {"1000B/s", 1000},
        {"1000", 1000},
        {"1Mbps", 125e3},
        {"auto", 0},
        {"AUTO", 0},
    };
    static const char *const bad[] = {"",      "0",       "0MB/s",    "-1MB/s",    "1MB",
                                      "1XB/s", "MB/s",    "1e400B/s", "1 MB/s",    "1MB/S/",
                                      "1iB/s", "1MiBps2", "1Mib",     "1e-400MB/s"};
    ts_params_t *p = fresh();
    ts_error_t err;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        ts_status st = try_set(&p, "UCX_BCOPY_BW", good[k].text, &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK)
            printf("\n  '%s': %s", good[k].text, err.msg);
        CU_ASSERT(CLOSE(ts_params_bw(p, TS_P_UCX_BCOPY_BW), good[k].bps));
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ts_status st = try_set(&p, "UCX_BCOPY_BW", bad[k], &err);
        CU_ASSERT_EQUAL(st, TS_EARG);
        if (st != TS_EARG)
            printf("\n  '%s' was accepted", bad[k]);
    }
    CU_ASSERT_EQUAL(try_set(&p, "model.net.bandwidth", "1MB", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "model.net.bandwidth: bad value '1MB' (expected a bandwidth: "
                                    "12254MB/s, 12.5GB/s, 100Gbps or auto)");
    ts_params_free(p);
}

static void test_int_double_bool(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    static const struct {
        const char *text;
        int64_t v;
    } ints[] = {{"16", 16}, {"+3", 3}, {"1", 1}, {"100000", 100000}};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "model.net.nodes_per_leaf", ints[k].text, &err), TS_OK);
        CU_ASSERT_EQUAL(ts_params_int(p, TS_P_NET_NODES_PER_LEAF), ints[k].v);
    }
    /* Integers that parse, then fall outside the parameter's range (1 .. 100000). */
    static const char *const far_ints[] = {"-2", "0", "100001", "9223372036854775807",
                                           "-9223372036854775808"};
    for (size_t k = 0; k < sizeof far_ints / sizeof far_ints[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "model.net.nodes_per_leaf", far_ints[k], &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range (expected 1 .. 100000)"));
    }
    static const char *const bad_ints[] = {
        "9223372036854775808", "-9223372036854775809", "1.5", "", "1k", "--1", "+", "0x10", " 1"};
    for (size_t k = 0; k < sizeof bad_ints / sizeof bad_ints[0]; k++)
        CU_ASSERT_EQUAL(try_set(&p, "model.net.nodes_per_leaf", bad_ints[k], &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "model.net.nodes_per_leaf: bad value ' 1' (expected an integer)");

    static const struct {
        const char *text;
        double v;
    } dbls[] = {{"1", 1}, {"0.5", 0.5}, {"2e-3", 2e-3}, {"+7", 7}, {".25", 0.25}};
    for (size_t k = 0; k < sizeof dbls / sizeof dbls[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "model.cpu.speed_ratio", dbls[k].text, &err), TS_OK);
        CU_ASSERT(CLOSE(ts_params_double(p, TS_P_CPU_SPEED_RATIO), dbls[k].v));
    }
    static const char *const bad_dbls[] = {"", "1x", "nan", "inf", "1e999", "-", "1,5", "-0.5"};
    for (size_t k = 0; k < sizeof bad_dbls / sizeof bad_dbls[0]; k++)
        CU_ASSERT_EQUAL(try_set(&p, "model.cpu.speed_ratio", bad_dbls[k], &err), TS_EARG);

    static const char *const yes[] = {"1", "y", "Y", "yes", "YES", "true", "True", "on", "ON"};
    static const char *const no[] = {"0", "n", "N", "no", "No", "false", "FALSE", "off", "Off"};
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "coll_ucc_enable", yes[k], &err), TS_OK);
        CU_ASSERT_EQUAL(ts_params_bool(p, TS_P_MCA_COLL_UCC_ENABLE), 1);
        CU_ASSERT_EQUAL(try_set(&p, "coll_hcoll_enable", no[k], &err), TS_OK);
        CU_ASSERT_EQUAL(ts_params_bool(p, TS_P_MCA_COLL_HCOLL_ENABLE), 0);
    }
    static const char *const bad_bools[] = {"", "2", "yess", "-1", "enable", "t"};
    for (size_t k = 0; k < sizeof bad_bools / sizeof bad_bools[0]; k++)
        CU_ASSERT_EQUAL(try_set(&p, "coll_ucc_enable", bad_bools[k], &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "coll_ucc_enable: bad value 't' (expected a boolean: 1/0, "
                                    "y/n, yes/no, true/false or on/off)");
    ts_params_free(p);
}

static void test_enum_and_string(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    static const char *const schemes[] = {"auto", "get_zcopy", "put_zcopy", "rkey_ptr", "am"};
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
        CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_SCHEME", schemes[k], &err), TS_OK);
        CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_RNDV_SCHEME), schemes[k]);
    }
    /* Any case; read back in the table's spelling, printed as the user wrote it. */
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_SCHEME", "GET_ZCOPY", &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_RNDV_SCHEME), "get_zcopy");
    capture_t c;
    capture_open(&c);
    ts_params_print_changes(p, c.fp);
    char *out = capture_close(&c);
    CU_ASSERT_STRING_EQUAL(out, "UCX_RNDV_SCHEME=GET_ZCOPY\n");
    free(out);
    CU_ASSERT_EQUAL(try_set(&p, "pml", "ob1", &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_MCA_PML), "ob1");
    static const char *const bad[] = {"", "get", "get_zcopyx", "zcopy", "auto|am", "{auto"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_SCHEME", bad[k], &err), TS_EARG);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_SCHEME", "get", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "UCX_RNDV_SCHEME: bad value 'get' (expected one of auto, "
                                    "get_zcopy, put_zcopy, rkey_ptr or am)");
    CU_ASSERT_EQUAL(try_set(&p, "pml", "cm", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "pml: bad value 'cm' (expected one of ucx, ob1 or yalla)");

    /* STRING: anything printable, as written. */
    CU_ASSERT_EQUAL(try_set(&p, "UCX_NET_DEVICES", "mlx5_2:1", &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "mlx5_2:1");
    CU_ASSERT_EQUAL(try_set(&p, "UCX_NET_DEVICES", "", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_NET_DEVICES", "a b, c=d 'e'", &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "a b, c=d 'e'");
    CU_ASSERT_EQUAL(try_set(&p, "UCX_NET_DEVICES", "a\nb", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "UCX_NET_DEVICES: bad value 'a?b' (control characters)");
    ts_params_free(p);
}

static void test_tls(void)
{
    const unsigned sm = TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA;
    const unsigned all = TS_TL_SELF | sm | TS_TL_RC | TS_TL_UD | TS_TL_DC | TS_TL_TCP;
    static const struct {
        const char *text;
        unsigned bits;
    } good[] = {
        {"all", 0x3ff},
        {"sm", TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA},
        {"shm", TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA},
        {"mm", TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM},
        {"rc", TS_TL_RC},
        {"rc_mlx5", TS_TL_RC},
        {"rc_verbs,rc_mlx5", TS_TL_RC},
        {"ud", TS_TL_UD},
        {"ud_verbs", TS_TL_UD},
        {"dc_mlx5", TS_TL_DC},
        {"tcp", TS_TL_TCP},
        {"self", TS_TL_SELF},
        {"self,sm,rc",
         TS_TL_SELF | TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA | TS_TL_RC},
        {"self,sm,ud",
         TS_TL_SELF | TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA | TS_TL_UD},
        {"posix,xpmem", TS_TL_POSIX | TS_TL_XPMEM},
        {"cma,knem,sysv", TS_TL_CMA | TS_TL_KNEM | TS_TL_SYSV},
        {"^tcp", 0x3ff & ~(unsigned)TS_TL_TCP},
        {"^sm,tcp", TS_TL_SELF | TS_TL_RC | TS_TL_UD | TS_TL_DC},
        {"SELF,RC", TS_TL_SELF | TS_TL_RC},
        {"rc,all", 0x3ff},
    };
    ts_params_t *p = fresh();
    ts_error_t err;
    CU_ASSERT_EQUAL(all, 0x3ffu);
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        ts_status st = try_set(&p, "UCX_TLS", good[k].text, &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK)
            printf("\n  '%s': %s", good[k].text, err.msg);
        CU_ASSERT_EQUAL(ts_params_tls(p), good[k].bits);
    }
    static const char *const bad[] = {
        "",       ",",     "rc,", ",rc",    "^",         "^all", "^sm,self,rc,ud,dc,tcp",
        "rc,,ud", "^^tcp", "rc^", "rc_mlx", "cuda_copy", "rc ud"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ts_status st = try_set(&p, "UCX_TLS", bad[k], &err);
        CU_ASSERT_EQUAL(st, TS_EARG);
        if (st != TS_EARG)
            printf("\n  '%s' was accepted", bad[k]);
        CU_ASSERT_EQUAL(ts_params_tls(p), 0x3ffu);
    }
    CU_ASSERT_EQUAL(try_set(&p, "UCX_TLS", "self,sm,foo", &err), TS_EARG);
    CU_ASSERT(strstr(err.msg, "UCX_TLS: unknown transport 'foo' in 'self,sm,foo' (expected all, "
                              "self, sm, shm") == err.msg);
    CU_ASSERT(tu_one_line(err.msg));
    CU_ASSERT_EQUAL(try_set(&p, "UCX_TLS", "^all", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "UCX_TLS: bad value '^all' (leaves no transport)");
    ts_params_free(p);
}

/* ---- names ------------------------------------------------------------------------------ */

static void test_did_you_mean(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    static const struct {
        const char *key, *msg;
    } cases[] = {
        {"UCX_RNDV_TRESH", "unknown parameter 'UCX_RNDV_TRESH' (did you mean UCX_RNDV_THRESH?)"},
        {"ucx_tls", "unknown parameter 'ucx_tls' (did you mean UCX_TLS?)"},
        {"RNDV_THRESH", "unknown parameter 'RNDV_THRESH' (did you mean UCX_RNDV_THRESH or "
                        "MXM_RNDV_THRESH?)"},
        {"UCX_ZCOPY_THRES", "unknown parameter 'UCX_ZCOPY_THRES' (did you mean UCX_ZCOPY_THRESH or "
                            "UCX_BCOPY_THRESH?)"},
        {"coll_hcol_enable",
         "unknown parameter 'coll_hcol_enable' (did you mean coll_hcoll_enable?)"},
        {"OMPI_MCA_coll_ucc_enabled", "unknown parameter 'OMPI_MCA_coll_ucc_enabled' (did you mean "
                                      "OMPI_MCA_coll_ucc_enable?)"},
        {"model.net.latncy",
         "unknown parameter 'model.net.latncy' (did you mean model.net.latency?)"},
        {"net.bandwidth", "unknown parameter 'net.bandwidth' (did you mean model.net.bandwidth?)"},
        {"FOO_BAR_BAZ", "unknown parameter 'FOO_BAR_BAZ'"},
        {"x", "unknown parameter 'x'"},
        {"", "unknown parameter ''"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ts_error_clear(&err);
        CU_ASSERT_EQUAL(ts_params_set(p, cases[k].key, "1", &err), TS_EARG);
        CU_ASSERT_STRING_EQUAL(err.msg, cases[k].msg);
        if (strcmp(err.msg, cases[k].msg) != 0)
            printf("\n  got: %s", err.msg);
    }
    /* At most three suggestions, each once. */
    CU_ASSERT_EQUAL(ts_params_set(p, "model.shm.latenc", "1", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown parameter 'model.shm.latenc' (did you mean "
                                    "model.shm.latency?)");
    CU_ASSERT_EQUAL(ts_params_set(p, "model.xx.max_short", "1", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown parameter 'model.xx.max_short' (did you mean "
                                    "model.rc.max_short, model.ud.max_short or "
                                    "model.dc.max_short?)");
    /* Long and odd keys stay one short line. */
    char key[600];
    memset(key, 'A', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    key[3] = '\n';
    CU_ASSERT_EQUAL(ts_params_set(p, key, "1", &err), TS_EARG);
    CU_ASSERT(tu_one_line(err.msg));
    CU_ASSERT(strlen(err.msg) < 120);
    ts_params_free(p);
}

/* ---- reads, copies, listings ---------------------------------------------------------- */

static void test_typed_reads(void)
{
    ts_params_t *p = fresh();
    /* A read of the wrong type, or an id out of range, reads as 0 / NULL. */
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_NET_LATENCY, 0), 0);
    CU_ASSERT_EQUAL(ts_params_seconds(p, TS_P_UCX_ZCOPY_THRESH), 0);
    CU_ASSERT_EQUAL(ts_params_bw(p, TS_P_NET_LATENCY), 0);
    CU_ASSERT_EQUAL(ts_params_int(p, TS_P_CPU_SPEED_RATIO), 0);
    CU_ASSERT_EQUAL(ts_params_double(p, TS_P_UCX_MAX_RNDV_LANES), 0);
    CU_ASSERT_EQUAL(ts_params_bool(p, TS_P_UCX_TLS), 0);
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P__COUNT, 0), 0);
    CU_ASSERT_PTR_NULL(ts_params_str(p, TS_P__COUNT));
    CU_ASSERT_EQUAL(ts_params_size(NULL, TS_P_UCX_ZCOPY_THRESH, 0), 0);
    CU_ASSERT_EQUAL(ts_params_tls(NULL), 0);
    CU_ASSERT_FALSE(ts_params_is_set(NULL, TS_P_UCX_TLS));
    CU_ASSERT_FALSE(ts_params_is_set(p, TS_P__COUNT));
    /* SIZE ignores inter; every type reads as text. */
    CU_ASSERT_EQUAL(ts_params_size(p, TS_P_SHM_SEG_SIZE, 1), 8248);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_SHM_SEG_SIZE), "8248b");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_TLS), "all");
    /* The checked macros read the same values. */
    CU_ASSERT_EQUAL(TS_PARAM_SIZE(p, SHM_SEG_SIZE), 8248);
    CU_ASSERT(CLOSE(TS_PARAM_BW(p, SHM_BW), 12179e6));
    CU_ASSERT(CLOSE(TS_PARAM_DOUBLE(p, CPU_SPEED_RATIO), 1.0));
    CU_ASSERT_EQUAL(TS_PARAM_INT(p, NET_NODES_PER_LEAF), 16);
    /* TS_PARAM_SIZE(p, NET_LATENCY) would not compile. */
    ts_params_free(p);
}

static void test_copy_and_changes(void)
{
    ts_params_t *p = fresh(), *q = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL(ts_params_set(p, "model.net.latency", "2us", &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_set(p, "UCX_TLS", "all", &err), TS_OK); /* = default */
    CU_ASSERT_EQUAL(ts_params_set(p, "UCX_NET_DEVICES", "mlx5_2:1", &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_set(p, "UCX_BCOPY_BW", "7GB/s", &err), TS_OK); /* = default */
    CU_ASSERT_EQUAL_FATAL(ts_params_copy(p, &q), TS_OK);
    /* Independent: changing the copy leaves the original. */
    CU_ASSERT_EQUAL(ts_params_set(q, "UCX_NET_DEVICES", "mlx5_0:1", &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "mlx5_2:1");
    CU_ASSERT_STRING_EQUAL(ts_params_str(q, TS_P_UCX_NET_DEVICES), "mlx5_0:1");
    CU_ASSERT(ts_params_is_set(q, TS_P_UCX_TLS));
    CU_ASSERT(CLOSE(ts_params_seconds(q, TS_P_NET_LATENCY), 2e-6));
    /* Table order (UCX_NET_DEVICES comes before model.*), defaults' values left out. */
    capture_t c;
    capture_open(&c);
    CU_ASSERT_EQUAL(ts_params_print_changes(p, c.fp), 2);
    char *out = capture_close(&c);
    CU_ASSERT_STRING_EQUAL(out, "UCX_NET_DEVICES=mlx5_2:1\nmodel.net.latency=2us\n");
    free(out);
    ts_params_free(q);
    ts_params_free(p);
}

static void test_table_listing(void)
{
    capture_t c;
    capture_open(&c);
    ts_params_print_table(c.fp, 0);
    char *text = capture_close(&c);
    capture_open(&c);
    ts_params_print_table(c.fp, 0);
    char *again = capture_close(&c);
    CU_ASSERT_STRING_EQUAL(text, again);
    /* A header, then one line per parameter, its name first. */
    int lines = 0;
    for (const char *s = text; *s; s++)
        lines += *s == '\n';
    CU_ASSERT_EQUAL(lines, TS_P__COUNT + 1);
    CU_ASSERT(strncmp(text, "name ", 5) == 0);
    const char *line = strchr(text, '\n') + 1;
    CU_ASSERT(strncmp(line, "UCX_TLS ", 8) == 0);
    /* Columns are aligned: every line has "default" column text at the same offset. */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nUCX_RNDV_THRESH "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "model.net.latency"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "reference/bm-optimized3.36.md (IMB PingPong 0 B, same "
                                        "leaf)\n"));
    free(text);
    free(again);

    capture_open(&c);
    ts_params_print_table(c.fp, 1);
    char *md = capture_close(&c);
    CU_ASSERT(strncmp(md, "<!-- Generated by `tunesim params --markdown`", 45) == 0);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(md, "| `UCX_RNDV_THRESH` | size2 | `auto` | 0b .. inf | bytes |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "| `UCX_TLS` | transports | `all` | - |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "{auto\\|get_zcopy\\|put_zcopy\\|rkey_ptr\\|am}"));
    free(md);
}

/* Issue 12, defect 8: every numeric row of the table has a valid range (params_range.h), so a
 * row added later without one fails here; every default lies inside its range. */
static void test_every_numeric_param_has_range(void)
{
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = ts_param_def((ts_param_id)i);
        double lo = 0, hi = 0;
        int has = ts_param_range((ts_param_id)i, &lo, &hi);
        int exempt = d->type == TS_PT_ENUM || d->type == TS_PT_TLS || d->type == TS_PT_BOOL ||
                     d->type == TS_PT_STRING;
        if (has == exempt || (has && !(lo <= hi))) {
            printf("\n  %s: %s (add R(id, min, max) to params/params_range.h)", d->name,
                   exempt ? "a range for a type without one" : "no valid range, or min > max");
            CU_FAIL("range table");
        }
    }
    /* ts_params_new parses every default with the range checks on. */
    ts_params_t *p = fresh();
    ts_params_free(p);
}

/* Issue 12, defect 8: the values the hostile sweep got accepted are refused with the range. */
static void test_out_of_range_refused(void)
{
    static const struct {
        const char *name, *value, *range;
    } bad[] = {
        {"model.cpu.speed_ratio", "-1", "(expected 0.001 .. 1000)"},
        {"model.cpu.speed_ratio", "0", "(expected 0.001 .. 1000)"},
        {"UCX_MAX_RNDV_LANES", "-3", "(expected 1 .. 16)"},
        {"UCX_MAX_EAGER_LANES", "-1", "(expected 1 .. 16)"},
        {"UCX_RNDV_PERF_DIFF", "-100", "(expected 0 .. 100)"},
        {"model.net.seg_size", "0", "(expected 1b .. 1gb)"},
        {"model.net.nodes_per_leaf", "0", "(expected 1 .. 100000)"},
        {"model.net.latency", "1e20s", "(expected 0s .. 60s)"},
        {"model.net.latency", "1e308s", "(expected 0s .. 60s)"},
        {"model.net.bandwidth", "1e-310MB/s", "(expected 1B/s .. 100TB/s)"},
        {"model.han.segment", "2gb", "(expected 0b .. 1gb)"},
        {"coll_tuned_bcast_algorithm", "10", "(expected 0 .. 9)"},
    };
    ts_params_t *p = NULL;
    ts_error_t err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(try_set(&p, bad[i].name, bad[i].value, &err), TS_EARG);
        char want[256];
        snprintf(want, sizeof want, "%s: value '%s' out of range %s", bad[i].name, bad[i].value,
                 bad[i].range);
        if (strcmp(err.msg, want) != 0) {
            printf("\n  got '%s', want '%s'", err.msg, want);
            CU_FAIL("range message");
        }
    }
    /* The bounds themselves and the special values. */
    CU_ASSERT_EQUAL(try_set(&p, "UCX_MAX_RNDV_LANES", "16", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "model.net.latency", "60s", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "model.net.latency", "0", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_THRESH", "inf", &err), TS_OK);
    /* "inf" is allowed whatever the range where the model reads it (model.han.segment's is
     * 0b .. 1gb: unsegmented); "auto" only for UCX's and MXM's own sizes; Open MPI's MCA sizes
     * and the model's other constants take neither (2^64 - 1 bytes of header or segment). */
    CU_ASSERT_EQUAL(try_set(&p, "model.han.segment", "inf", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "model.han.segment", "auto", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "model.han.segment: bad value 'auto' (expected a size, 0b .. "
                                    "1gb: it has no auto)");
    CU_ASSERT_EQUAL(try_set(&p, "model.ob1.match_header", "inf", &err), TS_EARG);
    CU_ASSERT_EQUAL(try_set(&p, "model.ob1.match_header", "12qb", &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "model.ob1.match_header: bad value '12qb' (expected a size: "
                                    "8192, 16kb, 1mb)");
    CU_ASSERT_EQUAL(try_set(&p, "model.han.segment", "12qb", &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(expected a size: 8192, 16kb, 1mb or inf)"));
    CU_ASSERT_EQUAL(try_set(&p, "btl_vader_eager_limit", "auto", &err), TS_EARG);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_SEND_NBR_THRESH", "auto", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_RNDV_THRESH", "intra:16kb,inter:auto", &err), TS_OK);
    CU_ASSERT_EQUAL(try_set(&p, "UCX_BCOPY_BW", "auto", &err), TS_OK);
    ts_params_free(p);
}

/* docs/parameters.md is the Markdown listing, byte for byte: it cannot go stale. */
static void test_docs_current(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/parameters.md", TS_SOURCE_DIR);
    size_t size = 0;
    char *file = tu_read_file(path, &size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(file);
    capture_t c;
    capture_open(&c);
    ts_params_print_table(c.fp, 1);
    char *md = capture_close(&c);
    int same = size == strlen(md) && memcmp(file, md, size) == 0;
    CU_ASSERT(same);
    if (!same)
        printf("\n  docs/parameters.md is stale: regenerate it with "
               "'build/tunesim params --markdown > docs/parameters.md'");
    free(md);
    free(file);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("params", NULL, NULL);
    CU_add_test(s, "every default parses", test_every_default_parses);
    CU_add_test(s, "defaults read back", test_defaults_read_back);
    CU_add_test(s, "find by name", test_find);
    CU_add_test(s, "size", test_size);
    CU_add_test(s, "size2 (intra/inter)", test_size2);
    CU_add_test(s, "time", test_time);
    CU_add_test(s, "bandwidth", test_bandwidth);
    CU_add_test(s, "int, double, bool", test_int_double_bool);
    CU_add_test(s, "enum and string", test_enum_and_string);
    CU_add_test(s, "UCX_TLS", test_tls);
    CU_add_test(s, "did you mean", test_did_you_mean);
    CU_add_test(s, "typed reads", test_typed_reads);
    CU_add_test(s, "copy and changes", test_copy_and_changes);
    CU_add_test(s, "table listing", test_table_listing);
    CU_add_test(s, "issue 12 defect 8: every numeric parameter has a range",
                test_every_numeric_param_has_range);
    CU_add_test(s, "issue 12 defect 8: out-of-range values refused", test_out_of_range_refused);
    CU_add_test(s, "docs/parameters.md is current", test_docs_current);
    return tu_run_all();
}
