/* test_params.c - the parameter table and its parsers: every default, each type on good,
 * bad and boundary values, "did you mean", -x / --mca / --set words, pasted mpirun lines
 * (the reference runs' and the tuning candidates'), typed reads, listings, `tunesim params`,
 * and docs/parameters.md being current. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "params/params.h"
#include "params/params_args.h"
#include "commands/params_cmd.h"

#define KB 1024ull
#define MB (1024ull * 1024)
#define GB (1024ull * 1024 * 1024)

/* The tests compare doubles that went through one multiplication: allow rounding. */
#define CLOSE(a, b) ((a) == (b) || ((a) - (b)) * ((a) - (b)) <= 1e-24 * (b) * (b))

static ts_params_t *fresh(void)
{
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

/* Set name=value on a fresh set; returns the status and leaves the message in err. */
static ts_status try_set(ts_params_t **p, const char *name, const char *value, ts_error_t *err)
{
    ts_params_free(*p);
    *p = fresh();
    ts_error_clear(err);
    return ts_params_set(*p, name, value, err);
}

/* Everything fp received, malloc'ed, via open_memstream. */
typedef struct {
    FILE *fp;
    char *buf;
    size_t size;
} capture_t;

static void capture_open(capture_t *c)
{
    c->buf = NULL;
    c->size = 0;
    c->fp = open_memstream(&c->buf, &c->size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->fp);
}

static char *capture_close(capture_t *c)
{
    fclose(c->fp);
    return c->buf;
}

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
    static const char *const bad[] = {"",      "0",       "0MB/s",    "-1MB/s", "1MB",
                                      "1XB/s", "MB/s",    "1e400B/s", "1 MB/s", "1MB/S/",
                                      "1iB/s", "1MiBps2", "1Mib"};
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

/* ---- command-line words --------------------------------------------------------------- */

static void test_candidate_settings(void)
{
    /* Candidate c5 of reference/simplefoam-motorbike-72.md, as mpirun words. */
    char *argv[] = {"-x",
                    "UCX_TLS=self,sm,rc",
                    "-x",
                    "UCX_RNDV_THRESH=intra:16kb,inter:128kb",
                    "-x",
                    "UCX_ZCOPY_THRESH=128kb",
                    "--mca",
                    "coll_hcoll_enable",
                    "0",
                    "--mca",
                    "coll_ucc_enable",
                    "1"};
    int argc = (int)(sizeof argv / sizeof argv[0]);
    ts_params_t *p = fresh();
    ts_error_t err;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(ts_params_parse_args(p, argc, argv, NULL, &err), TS_OK);
    const unsigned sm = TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA;
    CU_ASSERT_EQUAL(ts_params_tls(p), TS_TL_SELF | sm | TS_TL_RC);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 0), 16 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 1), 128 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE(p, UCX_ZCOPY_THRESH), 128 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_BOOL(p, MCA_COLL_HCOLL_ENABLE), 0);
    CU_ASSERT_EQUAL(TS_PARAM_BOOL(p, MCA_COLL_UCC_ENABLE), 1);
    capture_t c;
    capture_open(&c);
    CU_ASSERT_EQUAL(ts_params_print_changes(p, c.fp), 5);
    char *out = capture_close(&c);
    CU_ASSERT_STRING_EQUAL(out, "UCX_TLS=self,sm,rc\n"
                                "UCX_RNDV_THRESH=intra:16kb,inter:128kb\n"
                                "UCX_ZCOPY_THRESH=128kb\n"
                                "coll_hcoll_enable=0\n"
                                "coll_ucc_enable=1\n");
    free(out);

    /* The same set written in another order and form prints the same bytes. */
    char *argv2[] = {"-mca",
                     "coll_ucc_enable",
                     "1",
                     "-x",
                     "OMPI_MCA_coll_hcoll_enable=0",
                     "--set",
                     "UCX_ZCOPY_THRESH=128kb",
                     "-x",
                     "UCX_TLS=self,sm,rc",
                     "-x",
                     "UCX_RNDV_THRESH=intra:16kb,inter:128kb"};
    ts_params_t *q = fresh();
    CU_ASSERT_EQUAL(
        ts_params_parse_args(q, (int)(sizeof argv2 / sizeof argv2[0]), argv2, NULL, &err), TS_OK);
    capture_open(&c);
    ts_params_print_changes(q, c.fp);
    char *out2 = capture_close(&c);
    capture_open(&c);
    ts_params_print_changes(p, c.fp);
    out = capture_close(&c);
    CU_ASSERT_STRING_EQUAL(out, out2);
    free(out);
    free(out2);
    ts_params_free(q);
    ts_params_free(p);
}

static void test_parse_args(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    /* Mixed with the caller's own words: only ours are marked. */
    char *argv[] = {"trace.otf2",
                    "-x",
                    "UCX_TLS=rc",
                    "--out",
                    "x.json",
                    "--set",
                    "model.net.latency=2us",
                    "--mca",
                    "pml",
                    "ob1",
                    "-x",
                    "WM_PROJECT_DIR=/opt",
                    "last"};
    int argc = (int)(sizeof argv / sizeof argv[0]);
    unsigned char used[sizeof argv / sizeof argv[0]] = {0};
    CU_ASSERT_EQUAL(ts_params_parse_args(p, argc, argv, used, &err), TS_OK);
    static const unsigned char want[] = {0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0};
    CU_ASSERT_EQUAL(memcmp(used, want, sizeof want), 0);
    CU_ASSERT_EQUAL(ts_params_tls(p), TS_TL_RC);
    CU_ASSERT(CLOSE(TS_PARAM_SECONDS(p, NET_LATENCY), 2e-6));
    CU_ASSERT_STRING_EQUAL(TS_PARAM_ENUM(p, MCA_PML), "ob1");

    /* Without consumed, a word that is no setting is a usage error, and p is unchanged. */
    ts_params_t *q = fresh();
    ts_error_clear(&err);
    CU_ASSERT_EQUAL(ts_params_parse_args(q, argc, argv, NULL, &err), TS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "unexpected argument 'trace.otf2' (expected -x KEY=VALUE, "
                                    "--mca KEY VALUE or --set KEY=VALUE)");
    CU_ASSERT_FALSE(ts_params_is_set(q, TS_P_UCX_TLS));

    /* A failure part-way leaves every earlier setting undone. */
    char *half[] = {"-x", "UCX_TLS=rc", "-x", "UCX_ZCOPY_THRESH=12qb"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 4, half, NULL, &err), TS_EARG);
    CU_ASSERT_FALSE(ts_params_is_set(q, TS_P_UCX_TLS));
    CU_ASSERT_EQUAL(ts_params_tls(q), 0x3ffu);

    /* Later settings win. */
    char *twice[] = {"-x", "UCX_TLS=rc", "-x", "UCX_TLS=ud"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 4, twice, NULL, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_tls(q), TS_TL_UD);

    /* -x KEY takes KEY from the environment. */
    setenv("UCX_MAX_RNDV_LANES", "4", 1);
    unsetenv("UCX_MAX_EAGER_LANES");
    char *env[] = {"-x", "UCX_MAX_RNDV_LANES"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, env, NULL, &err), TS_OK);
    CU_ASSERT_EQUAL(TS_PARAM_INT(q, UCX_MAX_RNDV_LANES), 4);
    char *unset[] = {"-x", "UCX_MAX_EAGER_LANES"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, unset, NULL, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "-x UCX_MAX_EAGER_LANES: not set in this environment");
    /* Another program's variable is skipped, set or not. */
    unsetenv("TS_TEST_NOT_A_PARAM");
    char *other[] = {"-x", "TS_TEST_NOT_A_PARAM", "-x", "LD_LIBRARY_PATH=/x"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 4, other, NULL, &err), TS_OK);
    /* ... but not a misspelt UCX or MCA one. */
    char *typo[] = {"-x", "UCX_RNDV_TRESH=1"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, typo, NULL, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "unknown parameter 'UCX_RNDV_TRESH' (did you mean UCX_RNDV_THRESH?)");
    char *typo2[] = {"-x", "OMPI_MCA_pmll=ucx"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, typo2, NULL, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "unknown parameter 'OMPI_MCA_pmll' (did you mean OMPI_MCA_pml?)");
    char *typo3[] = {"--mca", "coll_hcoll_enabel", "0"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 3, typo3, NULL, &err), TS_EARG);

    /* Missing operands. */
    char *miss1[] = {"-x"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 1, miss1, NULL, &err), TS_EUSAGE);
    char *miss2[] = {"--mca", "pml"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, miss2, NULL, &err), TS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "--mca expects KEY VALUE");
    char *miss3[] = {"--set", "model.net.latency"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, miss3, NULL, &err), TS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "--set expects KEY=VALUE, got 'model.net.latency'");
    char *miss4[] = {"-x", "=rc"};
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 2, miss4, NULL, &err), TS_EUSAGE);
    CU_ASSERT_EQUAL(ts_params_parse_args(q, 0, NULL, NULL, &err), TS_OK);
    ts_params_free(q);
    ts_params_free(p);
}

static void test_mpirun_reference_line(void)
{
    /* reference/simplefoam-motorbike-72.md, verbatim. */
    ts_params_t *p = fresh();
    ts_error_t err;
    ts_mpirun_info_t info;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(ts_params_parse_mpirun(p,
                                                 "mpirun -n 72 -N 36 -machinefile hosts -x "
                                                 "UCX_NET_DEVICES=mlx5_2:1 simpleFoam -parallel",
                                                 &info, &err),
                          TS_OK);
    CU_ASSERT_EQUAL(info.ranks, 72);
    CU_ASSERT_EQUAL(info.ppn, 36);
    CU_ASSERT_STRING_EQUAL(info.map_by, "");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "mlx5_2:1");
    CU_ASSERT(ts_params_is_set(p, TS_P_UCX_NET_DEVICES));
    ts_params_free(p);

    /* The recording line of the same file (Open MPI on this project's machines). */
    p = fresh();
    setenv("WM_PROJECT_DIR", "/usr/share/openfoam", 1);
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p,
                                           "mpirun --allow-run-as-root --oversubscribe -np 72 -x "
                                           "WM_PROJECT_DIR --mca mpi_yield_when_idle 1 "
                                           "potentialFoam -parallel -writephi",
                                           &info, &err),
                    TS_OK);
    CU_ASSERT_EQUAL(info.ranks, 72);
    CU_ASSERT_EQUAL(info.ppn, 0);
    CU_ASSERT_EQUAL(TS_PARAM_BOOL(p, MCA_MPI_YIELD_WHEN_IDLE), 1);
    ts_params_free(p);

    /* A candidate run's full line. */
    p = fresh();
    CU_ASSERT_EQUAL(
        ts_params_parse_mpirun(p,
                               "/opt/openmpi/bin/mpirun -np 72 --map-by ppr:36:node --bind-to core "
                               "-x UCX_TLS=self,sm,ud -x UCX_RNDV_THRESH=intra:64kb,inter:128kb "
                               "-x UCX_ZCOPY_THRESH=128kb --mca coll_hcoll_enable 0 --mca "
                               "coll_ucc_enable 1 --report-bindings simpleFoam -parallel",
                               &info, &err),
        TS_OK);
    CU_ASSERT_EQUAL(info.ranks, 72);
    CU_ASSERT_EQUAL(info.ppn, 36);
    CU_ASSERT_STRING_EQUAL(info.map_by, "ppr:36:node");
    CU_ASSERT(ts_params_tls(p) & TS_TL_UD);
    CU_ASSERT_FALSE(ts_params_tls(p) & TS_TL_RC);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 0), 64 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_BOOL(p, MCA_COLL_UCC_ENABLE), 1);
    ts_params_free(p);
}

static void test_mpirun_syntax(void)
{
    ts_params_t *p = fresh();
    ts_error_t err;
    ts_mpirun_info_t info;
    /* Quotes, escapes, continuation lines, comments, --name=value, env assignments. */
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p,
                                           "UCX_ZCOPY_THRESH=64kb mpiexec \\\n"
                                           "  --np=8 --npernode 4 \\\n"
                                           "  -x 'UCX_NET_DEVICES=mlx5_0:1 mlx5_1:1' "
                                           "-x \"UCX_RNDV_THRESH=intra:\"16kb\\,inter:1mb "
                                           "-x UCX_RNDV_SCHEME=get\\_zcopy --map-by=slot "
                                           "-- ./a.out -x UCX_TLS=foo # a comment",
                                           &info, &err),
                    TS_OK);
    CU_ASSERT_EQUAL(info.ranks, 8);
    CU_ASSERT_EQUAL(info.ppn, 4);
    CU_ASSERT_STRING_EQUAL(info.map_by, "slot");
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "mlx5_0:1 mlx5_1:1");
    CU_ASSERT_EQUAL(TS_PARAM_SIZE(p, UCX_ZCOPY_THRESH), 64 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 0), 16 * KB);
    CU_ASSERT_EQUAL(TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 1), MB);
    CU_ASSERT_STRING_EQUAL(TS_PARAM_ENUM(p, UCX_RNDV_SCHEME), "get_zcopy");
    CU_ASSERT_EQUAL(ts_params_tls(p), 0x3ffu); /* the program's own -x is not mpirun's */
    ts_params_free(p);

    /* Double quotes keep backslashes except before $ ` " \ newline. */
    p = fresh();
    CU_ASSERT_EQUAL(
        ts_params_parse_mpirun(p, "mpirun -x \"UCX_NET_DEVICES=a\\b\\\"c\\\\d\" x", &info, &err),
        TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_params_str(p, TS_P_UCX_NET_DEVICES), "a\\b\"c\\d");
    ts_params_free(p);

    /* No launcher word, no program, info NULL: fine. */
    p = fresh();
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "-n 4 -x UCX_TLS=tcp", NULL, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_tls(p), TS_TL_TCP);
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "", &info, &err), TS_OK);
    CU_ASSERT_EQUAL(info.ranks, 0);
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "mpirun ''", &info, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "orterun -N 2 a.out", &info, &err), TS_OK);
    CU_ASSERT_EQUAL(info.ppn, 2);
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "mpirun --map-by ppr:2:socket a", &info, &err),
                    TS_OK);
    CU_ASSERT_EQUAL(info.ppn, 0); /* per socket, not per node */
    CU_ASSERT_STRING_EQUAL(info.map_by, "ppr:2:socket");

    ts_params_free(p);

    /* Errors: p and info untouched. */
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"mpirun --foo 3 a.out", "unknown mpirun option '--foo'"},
        {"mpirun -n 4 -mca frobnicate_level 2 a.out", "unknown parameter 'frobnicate_level'"},
        {"mpirun -n", "mpirun -n expects a value"},
        {"mpirun -n four a.out", "mpirun -n: expected a positive count, got 'four'"},
        {"mpirun -np 0 a.out", "mpirun -np: expected a positive count, got '0'"},
        {"mpirun -n 'x", "unterminated ' in the command line"},
        {"mpirun -x \"UCX_TLS=rc", "unterminated \" in the command line"},
        {"mpirun --oversubscribe=1 a", "unknown mpirun option '--oversubscribe=1'"},
        {"mpirun -x UCX_TLS=foo a", NULL},
        {"mpirun -x ucx_tls=rc a", "unknown parameter 'ucx_tls' (did you mean UCX_TLS?)"},
        {"mpirun --set UCX_TLS=rc a", "unknown mpirun option '--set'"},
        {"UCX_TLS=bad mpirun a", NULL},
        {"mpirun --map-by ppr:1:node:PE=1,SPAN,OVERSUBSCRIBE:xyz a", NULL},
    };
    p = fresh();
    CU_ASSERT_EQUAL(ts_params_parse_mpirun(p, "mpirun -n 3 -x UCX_TLS=rc a", &info, &err), TS_OK);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ts_error_clear(&err);
        ts_status st = ts_params_parse_mpirun(p, bad[k].line, &info, &err);
        CU_ASSERT_EQUAL(st, TS_EARG);
        if (st != TS_EARG)
            printf("\n  accepted: %s", bad[k].line);
        if (bad[k].msg)
            CU_ASSERT_STRING_EQUAL(err.msg, bad[k].msg);
        CU_ASSERT(tu_one_line(err.msg));
        CU_ASSERT_EQUAL(info.ranks, 3);
        CU_ASSERT_EQUAL(ts_params_tls(p), TS_TL_RC);
    }
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

/* ---- tunesim params ------------------------------------------------------------------- */

static ts_status run_cmd(int argc, char **argv, char **out, ts_error_t *err);

/* The output of a command that must succeed, kept until the next call (argv NULL: none, the
 * last one freed). */
static const char *out_of(char **argv, int argc)
{
    static char *out;
    free(out);
    out = NULL;
    if (!argv)
        return NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL(run_cmd(argc, argv, &out, &err), TS_OK);
    return out ? out : "";
}

static ts_status run_cmd(int argc, char **argv, char **out, ts_error_t *err)
{
    capture_t c;
    capture_open(&c);
    ts_error_clear(err);
    ts_status st = ts_params_cmd_to(c.fp, argc, argv, err);
    *out = capture_close(&c);
    return st;
}

static void test_cmd(void)
{
    ts_error_t err;
    char *out;
    char *list[] = {"params"};
    CU_ASSERT_EQUAL(run_cmd(1, list, &out, &err), TS_OK);
    CU_ASSERT(strncmp(out, "name ", 5) == 0);
    /* Readable in 100 columns: every line fits, every parameter is there. */
    int widest = 0, len = 0;
    for (const char *c = out; *c; c++) {
        len = *c == '\n' ? 0 : len + 1;
        widest = len > widest ? len : widest;
    }
    CU_ASSERT(widest <= 100);
    for (int i = 0; i < TS_P__COUNT; i++) {
        char name[96];
        snprintf(name, sizeof name, "\n%s ", ts_param_def((ts_param_id)i)->name);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, name));
    }
    free(out);
    char *wide[] = {"params", "--wide"};
    CU_ASSERT_EQUAL(run_cmd(2, wide, &out, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "default from"));
    free(out);
    /* One parameter in full; a misspelt one: did you mean, nothing printed. */
    char *one[] = {"params", "model.net.latency"};
    CU_ASSERT_EQUAL(run_cmd(2, one, &out, &err), TS_OK);
    CU_ASSERT(strncmp(out, "model.net.latency\n  type      time\n  default   1.66us\n", 53) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  default from\n    reference/bm-optimized3.36.md"));
    free(out);
    char *typo[] = {"params", "model.net.latancy"};
    CU_ASSERT_EQUAL(run_cmd(2, typo, &out, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(out, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown parameter 'model.net.latancy' (did you mean "
                                           "model.net.latency"));
    free(out);
    char *md[] = {"params", "--markdown"};
    CU_ASSERT_EQUAL(run_cmd(2, md, &out, &err), TS_OK);
    CU_ASSERT(strncmp(out, "<!-- Generated", 14) == 0);
    free(out);

    char *check[] = {"params", "--check",         "-x", "UCX_TLS=self,sm,rc",
                     "--mca",  "coll_ucc_enable", "1"};
    CU_ASSERT_EQUAL(run_cmd(7, check, &out, &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(out, "UCX_TLS=self,sm,rc\ncoll_ucc_enable=1\n");
    free(out);
    char *none[] = {"params", "--check"};
    CU_ASSERT_EQUAL(run_cmd(2, none, &out, &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(out, "# no changes: every parameter keeps its default\n");
    free(out);
    char reference[] = "mpirun -n 72 -N 36 -machinefile hosts -x UCX_NET_DEVICES=mlx5_2:1 "
                       "simpleFoam -parallel";
    char *line[] = {"params", "--mpirun", reference};
    CU_ASSERT_EQUAL(run_cmd(3, line, &out, &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(out, "# ranks 72, per node 36, map-by -\n# note: -machinefile hosts: "
                                "the host file is not read; the nodes are --nodes (or the "
                                "platform's), the ranks per node -N or --ppn\n"
                                "UCX_NET_DEVICES=mlx5_2:1\n");
    free(out);
    char bare[] = "mpirun -np 72 -x UCX_TLS=rc ./app";
    char *noppn[] = {"params", "--mpirun", bare};
    CU_ASSERT_EQUAL(run_cmd(3, noppn, &out, &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(out, "# ranks 72, per node -, map-by -\nUCX_TLS=rc\n");
    free(out);

    /* Errors: a code and one line, nothing printed. */
    char *badval[] = {"params", "--check", "-x", "UCX_RNDV_THRESH=12qb"};
    CU_ASSERT_EQUAL(run_cmd(4, badval, &out, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(out, "");
    free(out);
    char *badword[] = {"params", "--check", "UCX_TLS=rc"};
    CU_ASSERT_EQUAL(run_cmd(3, badword, &out, &err), TS_EUSAGE);
    free(out);
    char *badopt[] = {"params", "--frob"};
    CU_ASSERT_EQUAL(run_cmd(2, badopt, &out, &err), TS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "params: unexpected argument '--frob' (expected NAME..., "
                                    "--wide, --markdown, --uncertain, --check ARGS..., "
                                    "--protocols ARGS... or --mpirun LINE)");
    free(out);
    /* --uncertain: every parameter with a prior (params_prior.h), its range, and why. */
    char *unc[] = {"params", "--uncertain"};
    CU_ASSERT_EQUAL(run_cmd(2, unc, &out, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "model.ucx.rndv_overhead        0.745us    300ns .. 2us"));
    CU_ASSERT_PTR_NULL(strstr(out, "model.net.latency"));
    double lo, hi;
    CU_ASSERT_TRUE(ts_param_prior(TS_P_UCX_RECV_CALL, &lo, &hi, NULL));
    CU_ASSERT_DOUBLE_EQUAL(lo, 0.16e-6, 1e-15);
    CU_ASSERT_FALSE(ts_param_prior(TS_P_NET_LATENCY, &lo, &hi, NULL));
    free(out);
    /* --protocols: UCX_PROTO_INFO's view under the settings given. The defaults put on-host
     * rendezvous where UCX's own estimate does (posix bcopy to 2,792 B, then xpmem), and a set
     * threshold moves it. */
    char *protos[] = {"params", "--protocols", "-x", "UCX_RNDV_THRESH=intra:128kb,inter:64kb"};
    CU_ASSERT_EQUAL(run_cmd(4, protos, &out, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "same_numa     MPI_Isend  0-92 eager short/posix, 93-131071 "
                                       "eager bcopy/posix, 131072+ rndv rkey_ptr/xpmem\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "65536+ rndv get_zcopy/rc_mlx5\n"));
    free(out);
    char *protos_def[] = {"params", "--protocols"};
    CU_ASSERT_EQUAL(run_cmd(2, protos_def, &out, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "same_numa     MPI_Isend  0-92 eager short/posix, 93-2695 "
                                       "eager bcopy/posix, 2696+ rndv rkey_ptr/xpmem\n"));
    free(out);
    /* UCX_TLS=all at 72 expected endpoints: dc carries the network traffic, and the listing
     * says what chose it. */
    char *protos_dc[] = {"params", "--protocols", "-x", "UCX_NUM_EPS=72"};
    CU_ASSERT_EQUAL(run_cmd(4, protos_dc, &out, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "same_leaf     MPI_Isend  0-2007 eager short/dc_mlx5,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "(network lane for 72 expected endpoints:"));
    free(out);
    /* UCX_PROTO_ENABLE: v2 (the default) counts an eager zcopy send's ack in its estimate,
     * so bcopy holds to 11,969 B; v1 sends zcopy from 2,008 B. A model file may carry the
     * platform's UCX (n: the localhost calibration), and a setting after it overrides it. */
    char mfile[512];
    snprintf(mfile, sizeof mfile, "%s/proto-v1.xml", tu_tmpdir());
    FILE *mf = fopen(mfile, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tunesim-model platform=\"unspecified\" "
          "created-from=\"test\" version=\"1\">\n  <param name=\"UCX_PROTO_ENABLE\" "
          "value=\"n\" source=\"test\"/>\n</tunesim-model>\n",
          mf);
    fclose(mf);
    static const char v2_line[] = "same_leaf     MPI_Isend  0-2007 eager short/rc_mlx5, 2008-11969 "
                                  "eager bcopy/rc_mlx5, 11970-14070 eager zcopy/rc_mlx5, 14071+ "
                                  "rndv get_zcopy/rc_mlx5\n";
    CU_ASSERT_PTR_NOT_NULL(strstr(out_of(protos_def, 2), v2_line));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_of(protos_def, 2),
                                  "(UCX's protocol selection v2, UCX 1.16 on: "
                                  "UCX_PROTO_ENABLE=y)\n"));
    char *protos_v1[] = {"params", "--protocols", "--model", mfile};
    CU_ASSERT_PTR_NOT_NULL(strstr(out_of(protos_v1, 4),
                                  "same_leaf     MPI_Isend  0-2007 eager short/rc_mlx5, 2008-24576 "
                                  "eager zcopy/rc_mlx5, 24577+ rndv get_zcopy/rc_mlx5\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_of(protos_v1, 4), "(UCX's protocol selection v1, UCX "
                                                        "before 1.16: UCX_PROTO_ENABLE=n)\n"));
    char *protos_v2[] = {"params", "--protocols", "--model", mfile, "-x", "UCX_PROTO_ENABLE=y"};
    CU_ASSERT_PTR_NOT_NULL(strstr(out_of(protos_v2, 6), v2_line));
    out_of(NULL, 0);
    char *protos_bad[] = {"params", "--protocols", "-x", "UCX_RNDV_THRESH=sometimes"};
    CU_ASSERT_EQUAL(run_cmd(4, protos_bad, &out, &err), TS_EARG);
    free(out);
    char *extra[] = {"params", "--markdown", "x"};
    CU_ASSERT_EQUAL(run_cmd(3, extra, &out, &err), TS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "params: unexpected argument 'x'");
    free(out);
    char *noline[] = {"params", "--mpirun"};
    CU_ASSERT_EQUAL(run_cmd(2, noline, &out, &err), TS_EUSAGE);
    free(out);
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
    CU_add_test(s, "candidate settings", test_candidate_settings);
    CU_add_test(s, "-x / --mca / --set words", test_parse_args);
    CU_add_test(s, "mpirun: reference lines", test_mpirun_reference_line);
    CU_add_test(s, "mpirun: quoting and errors", test_mpirun_syntax);
    CU_add_test(s, "typed reads", test_typed_reads);
    CU_add_test(s, "copy and changes", test_copy_and_changes);
    CU_add_test(s, "table listing", test_table_listing);
    CU_add_test(s, "issue 12 defect 8: every numeric parameter has a range",
                test_every_numeric_param_has_range);
    CU_add_test(s, "issue 12 defect 8: out-of-range values refused", test_out_of_range_refused);
    CU_add_test(s, "docs/parameters.md is current", test_docs_current);
    CU_add_test(s, "tunesim params", test_cmd);
    return tu_run_all();
}
