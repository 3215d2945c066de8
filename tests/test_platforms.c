/* test_platforms.c - the platform layer: the bundled .platform files and the one-line errors on
 * bad ones, rank placement (block / cyclic, NPS1 / NPS2) checked against hand-derived cores,
 * locality, and the generated SimGrid XML: byte-identical on repeat, loaded by SimGrid 3.32 in
 * a child process (its engine is a one-per-process singleton) to count hosts and read routes. */
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xbt/dynar.h>

#include "testutil.h"
#include "params/params.h"
#include "platforms/placement.h"
#include "platforms/platform.h"
#include "platforms/xml.h"

#define PLATFORM_DIR TS_SOURCE_DIR "/platforms"

static ts_platform_t *open_bm(void)
{
    ts_platform_t *pf = NULL;
    ts_error_t err = {0};
    CU_ASSERT_EQUAL(ts_platform_open_name("bm-optimized3.36", PLATFORM_DIR, &pf, &err), TS_OK);
    if (!pf)
        fprintf(stderr, "bm-optimized3.36: %s\n", err.msg);
    return pf;
}

/* What the nproc command prints: localhost.platform's `cores_per_socket = auto`. */
static int nproc(void)
{
    static int n;
    if (!n) {
        FILE *p = popen("nproc", "r");
        if (!p || fscanf(p, "%d", &n) != 1)
            n = -1;
        if (p)
            pclose(p);
    }
    return n;
}

/* ---- the bundled descriptions ------------------------------------------------------------ */

static void test_bm(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    /* shared/reference/bm-optimized3.36.md */
    CU_ASSERT_STRING_EQUAL(ts_platform_name(pf), "bm-optimized3.36");
    CU_ASSERT_EQUAL(ts_platform_nodes(pf), 2);
    CU_ASSERT_EQUAL(ts_platform_sockets(pf), 2);
    CU_ASSERT_EQUAL(ts_platform_cores_per_socket(pf), 18);
    CU_ASSERT_EQUAL(ts_platform_cores_per_node(pf), 36);
    CU_ASSERT_EQUAL(ts_platform_nps(pf), 1);
    CU_ASSERT(ts_platform_nps_offered(pf, 1));
    CU_ASSERT(ts_platform_nps_offered(pf, 2));
    CU_ASSERT(!ts_platform_nps_offered(pf, 4));
    CU_ASSERT(!ts_platform_nps_offered(pf, 0));
    CU_ASSERT_STRING_EQUAL(ts_platform_nps_options(pf), "1,2");
    CU_ASSERT_EQUAL(ts_platform_nic_socket(pf), 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_core_speed(pf), 1e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_upi_bandwidth(pf), 67.2e9, 0);
    CU_ASSERT(strstr(ts_platform_path(pf), "bm-optimized3.36.platform") != NULL);
    ts_platform_close(pf);
}

static void test_localhost(void)
{
    ts_platform_t *pf = NULL;
    ts_error_t err = {0};
    CU_ASSERT_EQUAL_FATAL(ts_platform_open_file(PLATFORM_DIR "/localhost.platform", &pf, &err),
                          TS_OK);
    CU_ASSERT_STRING_EQUAL(ts_platform_name(pf), "localhost");
    CU_ASSERT_EQUAL(ts_platform_nodes(pf), 1);
    CU_ASSERT_EQUAL(ts_platform_sockets(pf), 1);
    CU_ASSERT_EQUAL(ts_platform_cores_per_socket(pf), nproc()); /* cores_per_socket = auto */
    CU_ASSERT_EQUAL(ts_platform_nic_socket(pf), -1);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_upi_bandwidth(pf), 0, 0);
    ts_platform_close(pf);
}

static void test_open_by_name(void)
{
    ts_platform_t *pf = NULL;
    ts_error_t err = {0};
    /* The compiled-in default directory is the source tree's platforms/. */
    CU_ASSERT_EQUAL(ts_platform_open_name("localhost", NULL, &pf, &err), TS_OK);
    ts_platform_close(pf);
    CU_ASSERT_EQUAL(ts_platform_open_name("nope", PLATFORM_DIR, &pf, &err), TS_ENOENT);
    CU_ASSERT_PTR_NULL(pf);
    /* The error lists what the directory holds. */
    CU_ASSERT(strstr(err.msg, "no platform 'nope' in " PLATFORM_DIR " (available: ") == err.msg);
    CU_ASSERT(strstr(err.msg, "bm-optimized3.36, ") != NULL);
    CU_ASSERT(strstr(err.msg, "localhost") != NULL);
    CU_ASSERT_EQUAL(ts_platform_open_name("../etc/passwd", PLATFORM_DIR, &pf, &err), TS_EARG);
    CU_ASSERT(strstr(err.msg, "platform name '../etc/passwd'") == err.msg);
    /* ts_platform_open: a path when it has a '/' or the suffix, a name otherwise. */
    CU_ASSERT_EQUAL(ts_platform_open(PLATFORM_DIR "/localhost.platform", "/nonexistent", &pf, &err),
                    TS_OK);
    ts_platform_close(pf);
    CU_ASSERT_EQUAL(ts_platform_open("localhost", PLATFORM_DIR, &pf, &err), TS_OK);
    ts_platform_close(pf);
    CU_ASSERT_EQUAL(ts_platform_open("localhost", "/nonexistent", &pf, &err), TS_ENOENT);
    CU_ASSERT_EQUAL(ts_platform_open("x.platform", PLATFORM_DIR, &pf, &err), TS_ENOENT);
    CU_ASSERT(strstr(err.msg, "x.platform: cannot open") == err.msg);
    CU_ASSERT_EQUAL(ts_platform_open_file("/nonexistent/x.platform", &pf, &err), TS_ENOENT);
    CU_ASSERT(strstr(err.msg, "/nonexistent/x.platform: cannot open") == err.msg);
    ts_platform_close(NULL);
}

/* ---- bad descriptions -------------------------------------------------------------------- */

#define GOOD_BODY                                                                                  \
    "nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1,2\nnps = 1\n"         \
    "nic_socket = 1\ncore_speed = 1e9\nupi_bandwidth = 67.2e9\n"

/* Write text to a fresh file and try to load it; returns the status, err filled. */
static ts_status load_text(const char *text, char *path, size_t size, ts_error_t *err)
{
    static int n;
    snprintf(path, size, "%s/bad-%d.platform", tu_tmpdir(), n++);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
    ts_platform_t *pf = NULL;
    ts_status st = ts_platform_open_file(path, &pf, err);
    CU_ASSERT((st == TS_OK) == (pf != NULL));
    ts_platform_close(pf);
    return st;
}

/* The error for text must be exactly "PATH" + tail, on one line. */
static void expect_error(const char *text, const char *tail)
{
    char path[512], want[1024];
    ts_error_t err = {0};
    CU_ASSERT_EQUAL(load_text(text, path, sizeof path, &err), TS_EARG);
    snprintf(want, sizeof want, "%s%s", path, tail);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT(strchr(err.msg, '\n') == NULL);
    if (strcmp(err.msg, want) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
}

/* The optional references of the what-ifs and a platform's own parameter values: the file's
 * value where the user sets none, the user's where both do. */
static void test_references_and_params(void)
{
    char path[512];
    ts_error_t err = {0};
    ts_platform_t *pf = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_platform_open("bm-optimized3.36", PLATFORM_DIR, &pf, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_link_rate(pf), 100e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_memory_bandwidth(pf), 204.8e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_core_clock(pf), 3.0e9, 1);
    CU_ASSERT_EQUAL(ts_platform_param_count(pf), 0);
    ts_platform_close(pf);
    CU_ASSERT_EQUAL_FATAL(ts_platform_open("localhost", PLATFORM_DIR, &pf, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_platform_link_rate(pf), 0); /* not given: the what-if is refused */
    ts_platform_close(pf);

    /* The second study's nodes: shape, references, 18 nodes a leaf. */
    const struct {
        const char *name;
        int cores;
        double mem, clock, upi;
    } study[] = {{"broadwell-e5-2690v4-edr", 14, 76.8e9, 2.6e9, 38.4e9},
                 {"skylake-gold6148-edr", 20, 128e9, 2.4e9, 62.4e9}};
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL_FATAL(ts_platform_open(study[k].name, PLATFORM_DIR, &pf, &err), TS_OK);
        CU_ASSERT_EQUAL(ts_platform_nodes(pf), 32);
        CU_ASSERT_EQUAL(ts_platform_sockets(pf), 2);
        CU_ASSERT_EQUAL(ts_platform_cores_per_socket(pf), study[k].cores);
        CU_ASSERT_DOUBLE_EQUAL(ts_platform_link_rate(pf), 100e9, 1);
        CU_ASSERT_DOUBLE_EQUAL(ts_platform_memory_bandwidth(pf), study[k].mem, 1);
        CU_ASSERT_DOUBLE_EQUAL(ts_platform_core_clock(pf), study[k].clock, 1);
        CU_ASSERT_DOUBLE_EQUAL(ts_platform_upi_bandwidth(pf), study[k].upi, 1);
        ts_params_t *p = NULL;
        CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
        CU_ASSERT_EQUAL(ts_platform_apply_params(pf, p, &err), TS_OK);
        CU_ASSERT_EQUAL(ts_params_int(p, TS_P_NET_NODES_PER_LEAF), 18);
        ts_params_free(p);
        ts_platform_close(pf);
    }

    CU_ASSERT_EQUAL_FATAL(load_text(GOOD_BODY "link_rate = 56e9\nmodel.net.latency = 1.1us\n"
                                              "model.net.bandwidth = 12000MB/s\n",
                                    path, sizeof path, &err),
                          TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_platform_open_file(path, &pf, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_platform_link_rate(pf), 56e9, 1);
    CU_ASSERT_EQUAL(ts_platform_param_count(pf), 2);
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    CU_ASSERT_EQUAL(ts_params_set(p, "model.net.bandwidth", "10GB/s", &err), TS_OK);
    CU_ASSERT_EQUAL(ts_platform_apply_params(pf, p, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_params_seconds(p, TS_P_NET_LATENCY), 1.1e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_params_bw(p, TS_P_NET_BW), 10e9, 1); /* the user's */
    ts_params_free(p);
    ts_platform_close(pf);
}

static void test_bad_files(void)
{
    char path[512];
    ts_error_t err = {0};
    /* The good body with comments, blank lines and odd spacing loads. */
    CU_ASSERT_EQUAL(load_text("# c\n\n  " GOOD_BODY "  # trailing\n", path, sizeof path, &err),
                    TS_OK);
    expect_error("nodes = 2\n# comment\nsocket = 2\n",
                 ":3: unknown key 'socket' (known keys: nodes, sockets_per_node, "
                 "cores_per_socket, nps_options, nps, nic_socket, core_speed, upi_bandwidth, "
                 "link_rate, memory_bandwidth, core_clock; or a parameter's name)");
    expect_error(GOOD_BODY "link_rate = fast\n",
                 ":9: bad value 'fast' for link_rate (expected a number of bits/s in 1 .. 1e15, "
                 "e.g. 100e9)");
    expect_error(GOOD_BODY "model.net.latency = 1us\nmodel.net.latency = 2us\n",
                 ":10: duplicate parameter 'model.net.latency'");
    /* A time without its unit is a second: refused in a file, as on the command line. */
    expect_error(GOOD_BODY "model.net.latency = 1\n",
                 ":9: model.net.latency: bad value '1' (a time needs its unit: 1s, 1ms, 1us or "
                 "1ns; only 0 goes without)");
    expect_error(GOOD_BODY "UCX_RNDV_THRESH = lots\n",
                 ":9: UCX_RNDV_THRESH: bad value 'lots' (expected a size (8192, 16kb, 1mb, inf or "
                 "auto) or intra:SIZE,inter:SIZE)");
    expect_error("nodes = two\n",
                 ":1: bad value 'two' for nodes (expected an integer from 1 to 1000000)");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18x\n",
                 ":3: bad value '18x' for cores_per_socket (expected an integer from 1 to 4096, "
                 "or auto)");
    expect_error("core_speed = -1\n",
                 ":1: bad value '-1' for core_speed (expected a number of flop/s in 1 .. 1e18, "
                 "e.g. 1e9)");
    expect_error("nps_options = 1,,2\n",
                 ":1: bad value '1,,2' for nps_options (expected comma-separated integers from "
                 "1 to 63, e.g. 1,2)");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1,2\n"
                 "nps = 1\nnic_socket = 1\nupi_bandwidth = 67.2e9\n",
                 ": missing key 'core_speed' (expected a number of flop/s in 1 .. 1e18, e.g. 1e9)");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1,2\n"
                 "nps = 1\nnic_socket = 1\ncore_speed = 1e9\n",
                 ": missing key 'upi_bandwidth' (expected a number of bytes/s in 1 .. 1e14, e.g. "
                 "67.2e9) with more than one socket");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1,2\n"
                 "nps = 4\nnic_socket = 1\ncore_speed = 1e9\nupi_bandwidth = 1e9\n",
                 ":5: nps = 4 is not offered (nps_options = 1,2)");
    expect_error(GOOD_BODY "nodes = 3\n", ":9: duplicate key 'nodes' (first set on line 1)");
    expect_error("nodes 2\n", ":1: expected 'key = value', got 'nodes 2'");
    expect_error("nodes =\n", ":1: key 'nodes' has no value (expected an integer from 1 to "
                              "1000000)");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1,4\n"
                 "nps = 1\nnic_socket = 1\ncore_speed = 1e9\nupi_bandwidth = 1e9\n",
                 ":4: nps_options: 18 cores per socket do not split into 4 NUMA domains");
    expect_error("nodes = 2\nsockets_per_node = 2\ncores_per_socket = 18\nnps_options = 1\n"
                 "nps = 1\nnic_socket = 2\ncore_speed = 1e9\nupi_bandwidth = 1e9\n",
                 ":6: nic_socket = 2, but sockets are numbered 0 to 1");
    expect_error("nodes = 2\nsockets_per_node = 1\ncores_per_socket = 4\nnps_options = 1\n"
                 "nps = 1\nnic_socket = none\ncore_speed = 1e9\n",
                 ":1: nodes = 2, but nic_socket = none (no network: one node only)");
    expect_error("nodes = 1\nsockets_per_node = 1\ncores_per_socket = 4\nnps_options = 1\n"
                 "nps = 1\nnic_socket = 0\ncore_speed = 1e9\nupi_bandwidth = 1e9\n",
                 ":8: upi_bandwidth is set but sockets_per_node = 1 (no socket-to-socket link)");
}

/* ---- placement --------------------------------------------------------------------------- */

static ts_placement_t *place(const ts_platform_t *pf, int nranks, int nodes, int ppn, int nps,
                             ts_map_by m, int npl)
{
    ts_placement_opts_t o = {
        .nodes = nodes, .ppn = ppn, .nps = nps, .map_by = m, .nodes_per_leaf = npl};
    ts_placement_t *pl = NULL;
    ts_error_t err = {0};
    if (ts_placement_open(pf, &o, nranks, &pl, &err) != TS_OK)
        fprintf(stderr, "\n  placement: %s\n", err.msg);
    return pl;
}

/* rank r sits on node, socket, numa, core. */
static int at(const ts_placement_t *pl, int r, int node, int socket, int numa, int core)
{
    const ts_rank_place_t *p = ts_placement_rank(pl, r);
    char host[32];
    snprintf(host, sizeof host, "n%dc%d", node, core);
    int ok = p->node == node && p->socket == socket && p->numa == numa && p->core == core &&
             strcmp(ts_placement_host(pl, r), host) == 0;
    if (!ok)
        fprintf(stderr,
                "\n  rank %d: node %d socket %d numa %d core %d host %s; want %d %d %d %d\n", r,
                p->node, p->socket, p->numa, p->core, ts_placement_host(pl, r), node, socket, numa,
                core);
    return ok;
}

static void test_block_nps1(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    /* Defaults: 2 nodes, 72 / 2 = 36 per node, NPS1, block. */
    ts_placement_t *pl = place(pf, 72, 0, 0, 0, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_nodes(pl), 2);
    CU_ASSERT_EQUAL(ts_placement_ppn(pl), 36);
    CU_ASSERT_EQUAL(ts_placement_nps(pl), 1);
    CU_ASSERT_EQUAL(ts_placement_leaves(pl), 1);
    /* ppr:18:package: local rank i on core i. */
    CU_ASSERT(at(pl, 0, 0, 0, 0, 0));
    CU_ASSERT(at(pl, 17, 0, 0, 0, 17));
    CU_ASSERT(at(pl, 18, 0, 1, 1, 18));
    CU_ASSERT(at(pl, 35, 0, 1, 1, 35));
    CU_ASSERT(at(pl, 36, 1, 0, 0, 0));
    CU_ASSERT(at(pl, 53, 1, 0, 0, 17));
    CU_ASSERT(at(pl, 54, 1, 1, 1, 18));
    CU_ASSERT(at(pl, 71, 1, 1, 1, 35));
    CU_ASSERT_EQUAL(ts_placement_rank(pl, 71)->leaf, 0);
    ts_placement_close(pl);
    ts_platform_close(pf);
}

/* map-by ppr:N:OBJ: N ranks on each object, so N x objects ranks a node; a --ppn or a node
 * that says otherwise is refused (Open MPI would place 36/36/0 or refuse too). */
static void test_ppr(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    static const struct {
        const char *map;
        int nodes, ppn, nps, want_ppn; /* want_ppn 0: refused */
    } cases[] = {{"ppr:36:node", 3, 0, 0, 36}, {"ppr:18:package", 0, 0, 0, 36},
                 {"ppr:9:numa", 0, 0, 2, 36},  {"ppr:8:numa", 4, 0, 2, 32},
                 {"ppr:1:node", 0, 0, 0, 0},   {"ppr:36:node", 0, 30, 0, 0},
                 {"ppr:40:node", 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ts_placement_opts_t o = {.nodes = cases[i].nodes, .ppn = cases[i].ppn, .nps = cases[i].nps};
        ts_map_by_layout(cases[i].map, &o, NULL);
        ts_placement_t *pl = NULL;
        ts_error_t err;
        ts_status st = ts_placement_open(pf, &o, 72, &pl, &err);
        CU_ASSERT_EQUAL(st == TS_OK, cases[i].want_ppn > 0);
        if (pl)
            CU_ASSERT_EQUAL(ts_placement_ppn(pl), cases[i].want_ppn);
        ts_placement_close(pl);
    }
    /* N on each object, its cores in order: ppr:9:package puts rank 9 on socket 1's first
     * core (18), ppr:4:numa under NPS2 rank 4 on domain 1's (9) and rank 12 on domain 3's. */
    ts_placement_opts_t o = {0};
    ts_map_by_layout("ppr:9:package", &o, NULL);
    ts_placement_t *pl = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_placement_open(pf, &o, 36, &pl, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_placement_ppn(pl), 18);
    CU_ASSERT(at(pl, 8, 0, 0, 0, 8));
    CU_ASSERT(at(pl, 9, 0, 1, 1, 18));
    CU_ASSERT(at(pl, 18, 1, 0, 0, 0));
    ts_placement_close(pl);
    o = (ts_placement_opts_t){.nps = 2};
    ts_map_by_layout("ppr:4:numa", &o, NULL);
    CU_ASSERT_EQUAL_FATAL(ts_placement_open(pf, &o, 32, &pl, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_placement_ppn(pl), 16);
    CU_ASSERT(at(pl, 4, 0, 0, 1, 9));
    CU_ASSERT(at(pl, 12, 0, 1, 3, 27));
    ts_placement_close(pl);
    ts_platform_close(pf);
}

/* map-by ...:PE=n: each rank takes n cores, so ranks are n cores apart. */
static void test_pe(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    ts_placement_t *pl = NULL;
    ts_error_t err;
    /* core:PE=2, 18 ranks on a node: ranks 0-8 on socket 0's even cores, 9 on socket 1's
     * first (core 18) where block alone keeps all 18 on socket 0. */
    ts_placement_opts_t o = {.nodes = 1};
    ts_map_by_layout("core:PE=2", &o, NULL);
    CU_ASSERT_EQUAL(o.pe, 2);
    CU_ASSERT_EQUAL_FATAL(ts_placement_open(pf, &o, 18, &pl, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_placement_pe(pl), 2);
    CU_ASSERT(at(pl, 8, 0, 0, 0, 16));
    CU_ASSERT(at(pl, 9, 0, 1, 1, 18));
    CU_ASSERT(at(pl, 17, 0, 1, 1, 34));
    ts_placement_close(pl);
    /* numa:PE=2 under NPS2: dealt over the four domains of 9 cores, two cores each; rank 5 is
     * domain 1's second (core 9 + 2). */
    o = (ts_placement_opts_t){.nodes = 1, .nps = 2};
    ts_map_by_layout("numa:PE=2", &o, NULL);
    CU_ASSERT_EQUAL(ts_map_by_parse("numa:PE=2", &o.map_by, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_placement_open(pf, &o, 8, &pl, &err), TS_OK);
    CU_ASSERT(at(pl, 1, 0, 0, 1, 9));
    CU_ASSERT(at(pl, 4, 0, 0, 0, 2));
    CU_ASSERT(at(pl, 5, 0, 0, 1, 11));
    ts_placement_close(pl);
    /* ppr:4:numa:PE=2: rank 1 two cores after rank 0, rank 5 two after domain 1's first. */
    o = (ts_placement_opts_t){.nodes = 1, .nps = 2};
    ts_map_by_layout("ppr:4:numa:PE=2", &o, NULL);
    CU_ASSERT_EQUAL_FATAL(ts_placement_open(pf, &o, 16, &pl, &err), TS_OK);
    CU_ASSERT(at(pl, 1, 0, 0, 0, 2));
    CU_ASSERT(at(pl, 5, 0, 0, 1, 11));
    ts_placement_close(pl);
    /* What does not fit, and malformed modifiers. */
    o = (ts_placement_opts_t){.nodes = 1};
    ts_map_by_layout("core:PE=3", &o, NULL);
    CU_ASSERT_EQUAL(ts_placement_open(pf, &o, 18, &pl, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "18 ranks per node of 3 cores each (map-by PE=3)"));
    o = (ts_placement_opts_t){.nodes = 1, .nps = 2};
    ts_map_by_layout("numa:PE=3", &o, NULL);
    CU_ASSERT_EQUAL(ts_map_by_parse("numa:PE=3", &o.map_by, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_placement_open(pf, &o, 16, &pl, &err), TS_EARG); /* 4 x 3 > 9 */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "dealt over its NUMA domains"));
    o = (ts_placement_opts_t){.nodes = 1};
    ts_map_by_layout("ppr:9:socket:PE=3", &o, NULL);
    CU_ASSERT_EQUAL(ts_placement_open(pf, &o, 18, &pl, &err), TS_EARG); /* 27 > 18 */
    ts_map_by m;
    static const char *const bad[] = {"core:PE=0", "core:PE=x", "core:PE=", "slot:PE=2x",
                                      "core:PE=1234567"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ts_map_by_parse(bad[i], &m, &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "PE= expects the cores of each rank"));
    }
    CU_ASSERT_EQUAL(ts_map_by_parse("core:PE=1", &m, &err), TS_OK);
    CU_ASSERT_EQUAL(m, TS_MAP_BLOCK);
    ts_platform_close(pf);
}

static void test_block_nps2(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    /* ppr:9:numa: four domains of 9 cores, filled in order. */
    ts_placement_t *pl = place(pf, 72, 2, 36, 2, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT(at(pl, 0, 0, 0, 0, 0));
    CU_ASSERT(at(pl, 8, 0, 0, 0, 8));
    CU_ASSERT(at(pl, 9, 0, 0, 1, 9));
    CU_ASSERT(at(pl, 17, 0, 0, 1, 17));
    CU_ASSERT(at(pl, 18, 0, 1, 2, 18));
    CU_ASSERT(at(pl, 27, 0, 1, 3, 27));
    CU_ASSERT(at(pl, 45, 1, 0, 1, 9));
    CU_ASSERT(at(pl, 71, 1, 1, 3, 35));
    ts_placement_close(pl);
    /* Half-full nodes, 18 per node: block fills cores in order (ppr:18:package), so all 18
     * stay on socket 0; under NPS2 they fill its domains 0 and 1 (ppr:9:numa). */
    pl = place(pf, 36, 2, 18, 1, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT(at(pl, 8, 0, 0, 0, 8));
    CU_ASSERT(at(pl, 9, 0, 0, 0, 9));
    CU_ASSERT(at(pl, 17, 0, 0, 0, 17));
    CU_ASSERT(at(pl, 18, 1, 0, 0, 0));
    ts_placement_close(pl);
    pl = place(pf, 36, 2, 18, 2, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT(at(pl, 4, 0, 0, 0, 4));
    CU_ASSERT(at(pl, 8, 0, 0, 0, 8));
    CU_ASSERT(at(pl, 9, 0, 0, 1, 9));
    CU_ASSERT(at(pl, 17, 0, 0, 1, 17));
    CU_ASSERT(at(pl, 35, 1, 0, 1, 17));
    ts_placement_close(pl);
    ts_platform_close(pf);
}

static void test_cyclic(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    /* NPS1: local rank i on socket i % 2, its (i / 2)-th core. */
    ts_placement_t *pl = place(pf, 72, 2, 36, 1, TS_MAP_CYCLIC, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_map_by(pl), TS_MAP_CYCLIC);
    CU_ASSERT(at(pl, 0, 0, 0, 0, 0));
    CU_ASSERT(at(pl, 1, 0, 1, 1, 18));
    CU_ASSERT(at(pl, 2, 0, 0, 0, 1));
    CU_ASSERT(at(pl, 3, 0, 1, 1, 19));
    CU_ASSERT(at(pl, 34, 0, 0, 0, 17));
    CU_ASSERT(at(pl, 35, 0, 1, 1, 35));
    CU_ASSERT(at(pl, 36, 1, 0, 0, 0));
    CU_ASSERT(at(pl, 37, 1, 1, 1, 18));
    ts_placement_close(pl);
    /* NPS2: domain i % 4 (9 cores each), its (i / 4)-th core. */
    pl = place(pf, 72, 2, 36, 2, TS_MAP_CYCLIC, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT(at(pl, 0, 0, 0, 0, 0));
    CU_ASSERT(at(pl, 1, 0, 0, 1, 9));
    CU_ASSERT(at(pl, 2, 0, 1, 2, 18));
    CU_ASSERT(at(pl, 3, 0, 1, 3, 27));
    CU_ASSERT(at(pl, 4, 0, 0, 0, 1));
    CU_ASSERT(at(pl, 5, 0, 0, 1, 10));
    CU_ASSERT(at(pl, 35, 0, 1, 3, 35));
    CU_ASSERT(at(pl, 70, 1, 1, 2, 26));
    ts_placement_close(pl);
    ts_platform_close(pf);
}

static void expect_place_error(const ts_platform_t *pf, int nranks, int nodes, int ppn, int nps,
                               const char *want)
{
    ts_placement_opts_t o = {.nodes = nodes, .ppn = ppn, .nps = nps};
    ts_placement_t *pl = NULL;
    ts_error_t err = {0};
    CU_ASSERT_EQUAL(ts_placement_open(pf, &o, nranks, &pl, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(pl);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    if (strcmp(err.msg, want) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
}

/* Issue 30 item 13: --map-by node deals ranks round-robin over the nodes (rank r on node
 * r % nodes), each node's ranks filling its cores in order: 72 ranks on 2 x 36, ranks 0 and 2
 * on node 0's cores 0 and 1, rank 1 on node 1's core 0, rank 71 on node 1's core 35. */
static void test_map_by_node(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    ts_placement_t *pl = place(pf, 72, 2, 36, 1, TS_MAP_NODE, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT(at(pl, 0, 0, 0, 0, 0));
    CU_ASSERT(at(pl, 1, 1, 0, 0, 0));
    CU_ASSERT(at(pl, 2, 0, 0, 0, 1));
    CU_ASSERT(at(pl, 71, 1, 1, 1, 35));
    CU_ASSERT_EQUAL(ts_placement_nodes(pl), 2);
    CU_ASSERT_STRING_EQUAL(ts_map_by_name(ts_placement_map_by(pl)), "node");
    ts_placement_close(pl);
    /* Three ranks on four nodes: three nodes used. */
    pl = place(pf, 3, 4, 36, 1, TS_MAP_NODE, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_nodes_used(pl), 3);
    CU_ASSERT(at(pl, 2, 2, 0, 0, 0));
    ts_placement_close(pl);
    ts_map_by m = TS_MAP_BLOCK;
    ts_error_t err = {0};
    CU_ASSERT_EQUAL(ts_map_by_parse("node", &m, &err), TS_OK);
    CU_ASSERT_EQUAL(m, TS_MAP_NODE);
    ts_platform_close(pf);
}

static void test_placement_errors(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    expect_place_error(pf, 73, 2, 36, 0,
                       "placement: 73 ranks do not fit on 2 nodes x 36 ranks per node (72 slots)");
    expect_place_error(pf, 73, 0, 0, 0,
                       "placement: 73 ranks on 2 nodes need 37 ranks per node, but "
                       "bm-optimized3.36 has 36 cores per node");
    expect_place_error(pf, 72, 2, 37, 0,
                       "placement: 37 ranks per node do not fit on bm-optimized3.36's 36 cores "
                       "per node");
    expect_place_error(pf, 72, 2, 36, 4,
                       "placement: NPS 4 is not offered by bm-optimized3.36 (nps_options = 1,2)");
    expect_place_error(pf, 0, 2, 36, 0, "placement: 0 ranks (expected at least 1)");
    ts_platform_close(pf);

    ts_error_t err = {0};
    CU_ASSERT_EQUAL_FATAL(ts_platform_open_name("localhost", PLATFORM_DIR, &pf, &err), TS_OK);
    expect_place_error(pf, 2, 2, 1, 0,
                       "placement: 2 nodes asked, but localhost has no network (one node only)");
    ts_platform_close(pf);

    ts_map_by m = TS_MAP_BLOCK;
    CU_ASSERT_EQUAL(ts_map_by_parse("cyclic", &m, &err), TS_OK);
    CU_ASSERT_EQUAL(m, TS_MAP_CYCLIC);
    /* Open MPI spellings. */
    const char *blocks[] = {"block",          "core",       "core:PE=1",   "slot",
                            "ppr:18:package", "ppr:9:numa", "ppr:36:node", "ppr:18:socket:PE=1"};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        m = TS_MAP_CYCLIC;
        CU_ASSERT_EQUAL(ts_map_by_parse(blocks[i], &m, &err), TS_OK);
        CU_ASSERT_EQUAL(m, TS_MAP_BLOCK);
    }
    CU_ASSERT_EQUAL(ts_map_by_parse("numa", &m, &err), TS_OK);
    CU_ASSERT_EQUAL(m, TS_MAP_CYCLIC);
    const char *bad[] = {"scatter",     "package", "ppr:x:numa", "ppr::numa",
                         "ppr:4:cache", "ppr:4",   "cores",      ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(ts_map_by_parse(bad[i], &m, &err), TS_EARG);
    CU_ASSERT_EQUAL(ts_map_by_parse("scatter", &m, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "map-by 'scatter': expected block, cyclic or node (or Open MPI's "
                           "core, slot, hwthread, ppr:N:package|socket|numa|node: "
                           "block; numa: cyclic)");
    CU_ASSERT_STRING_EQUAL(ts_map_by_name(TS_MAP_BLOCK), "block");
}

static void test_locality(void)
{
    ts_platform_t *pf = open_bm();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    ts_placement_t *pl = place(pf, 72, 2, 36, 1, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 5, 5), TS_LOC_SELF);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 17), TS_LOC_SAME_NUMA);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 9), TS_LOC_SAME_NUMA); /* one domain under NPS1 */
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 17, 18), TS_LOC_CROSS_SOCKET);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 36), TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 71, 0), TS_LOC_SAME_LEAF);
    ts_placement_close(pl);

    pl = place(pf, 72, 2, 36, 2, TS_MAP_BLOCK, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 8), TS_LOC_SAME_NUMA);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 9), TS_LOC_SAME_SOCKET);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 9, 18), TS_LOC_CROSS_SOCKET);
    ts_placement_close(pl);

    /* Cyclic NPS2: neighbours 0 and 1 are in different domains of socket 0, 0 and 4 share. */
    pl = place(pf, 72, 2, 36, 2, TS_MAP_CYCLIC, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 1), TS_LOC_SAME_SOCKET);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 2), TS_LOC_CROSS_SOCKET);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 4), TS_LOC_SAME_NUMA);
    ts_placement_close(pl);

    /* 4 nodes, 2 per leaf: nodes 0-1 under leaf 0, 2-3 under leaf 1. */
    pl = place(pf, 144, 4, 36, 1, TS_MAP_BLOCK, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_leaves(pl), 2);
    CU_ASSERT_EQUAL(ts_placement_rank(pl, 108)->leaf, 1);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 71), TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 72), TS_LOC_CROSS_SPINE);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 72, 143), TS_LOC_SAME_LEAF);
    ts_placement_close(pl);

    /* nodes_per_leaf 0: every node under one leaf. */
    pl = place(pf, 144, 4, 36, 1, TS_MAP_BLOCK, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_placement_leaves(pl), 1);
    CU_ASSERT_EQUAL(ts_placement_locality(pl, 0, 143), TS_LOC_SAME_LEAF);
    ts_placement_close(pl);
    ts_platform_close(pf);
}

/* ---- the SimGrid XML --------------------------------------------------------------------- */

/* Generate the XML for nranks ranks on nodes nodes of platform name into path. */
static ts_status gen(const char *name, int nranks, int nodes, int npl, const ts_params_t *p,
                     const char *path, ts_error_t *err)
{
    ts_platform_t *pf = NULL;
    ts_placement_t *pl = NULL;
    ts_placement_opts_t o = {.nodes = nodes, .nodes_per_leaf = npl};
    ts_status st = ts_platform_open_name(name, PLATFORM_DIR, &pf, err);
    if (st == TS_OK)
        st = ts_placement_open(pf, &o, nranks, &pl, err);
    if (st == TS_OK)
        st = ts_xml_write(path, pf, pl, p, err);
    ts_placement_close(pl);
    ts_platform_close(pf);
    return st;
}

/* In a child process: load path with SimGrid and describe it, one fact per line, for each
 * pair of hosts in routes ("a b a b ..."). Returns the text (malloc'ed) or NULL. */
static char *simgrid_facts(const char *path, const char *routes)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        FILE *out = fdopen(fds[1], "w");
        int argc = 2;
        char a0[] = "test_platforms", a1[] = "--log=root.thres:critical";
        char *argv[] = {a0, a1, NULL};
        simgrid_init(&argc, argv);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        simgrid_load_platform(path);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fprintf(out, "hosts %zu\n", sg_host_count());
        double maxlat = 0;
        size_t nlinks = sg_link_count();
        sg_link_t *links = sg_link_list();
        for (size_t i = 0; i < nlinks; i++)
            if (sg_link_get_latency(links[i]) > maxlat)
                maxlat = sg_link_get_latency(links[i]);
        free(links);
        fprintf(out, "links %zu\nmax latency %g\n", nlinks, maxlat);
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", routes);
        char *save = NULL;
        for (char *a = strtok_r(buf, " ", &save), *b = strtok_r(NULL, " ", &save); a && b;
             a = strtok_r(NULL, " ", &save), b = strtok_r(NULL, " ", &save)) {
            sg_host_t ha = sg_host_by_name(a), hb = sg_host_by_name(b);
            if (!ha || !hb) {
                fprintf(out, "route %s %s: no such host\n", a, b);
                continue;
            }
            xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
            sg_host_get_route(ha, hb, d);
            fprintf(out, "route %s %s:", a, b);
            unsigned k;
            sg_link_t l;
            xbt_dynar_foreach(d, k, l) fprintf(out, " %s", sg_link_get_name(l));
            fprintf(out, "\n");
            xbt_dynar_free(&d);
        }
        fprintf(out, "load %.0f ms\n",
                (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
        fclose(out);
        _exit(0); /* no atexit handlers: SimGrid's engine is never torn down */
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - 1 - len, in)) > 0)
        len += n;
    fclose(in);
    int status;
    waitpid(pid, &status, 0);
    if (!text || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

static void expect_line(const char *facts, const char *line)
{
    char want[1024];
    snprintf(want, sizeof want, "%s\n", line);
    int ok = facts && strstr(facts, want) != NULL;
    CU_ASSERT(ok);
    if (!ok)
        fprintf(stderr, "\n  missing: %s\n  in:\n%s\n", line, facts ? facts : "(no output)");
}

static void test_xml_two_nodes(void)
{
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    char path[512], again[512];
    ts_error_t err = {0};
    snprintf(path, sizeof path, "%s/bm-2.xml", tu_tmpdir());
    snprintf(again, sizeof again, "%s/bm-2-again.xml", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(gen("bm-optimized3.36", 72, 2, 16, p, path, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(gen("bm-optimized3.36", 72, 2, 16, p, again, &err), TS_OK);
    size_t n1 = 0, n2 = 0;
    char *x1 = tu_read_file(path, &n1), *x2 = tu_read_file(again, &n2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x2);
    CU_ASSERT(n1 == n2 && memcmp(x1, x2, n1) == 0); /* byte-identical */
    CU_ASSERT(strstr(x1, "LINK LATENCIES ARE 0") != NULL);
    CU_ASSERT(strstr(x1, "<platform version=\"4.1\">") != NULL);
    CU_ASSERT(strstr(x1, "<link id=\"n0_nic\" bandwidth=\"12254000000Bps\" latency=\"0s\" "
                         "sharing_policy=\"SPLITDUPLEX\"/>") != NULL);
    free(x1);
    free(x2);

    char *facts = simgrid_facts(path, "n0c0 n1c0 n0c18 n1c35 n1c35 n0c18 n0c0 n0c1 "
                                      "n0c0 n0c18 n0c18 n0c0 n0c5 n0c5");
    CU_ASSERT_PTR_NOT_NULL_FATAL(facts);
    expect_line(facts, "hosts 72");
    /* 36 split copy links (2 each) + mem + split upi + split nic + split switch port per node,
     * and
     * SimGrid's own loopback link (the switch itself has none: see platforms/xml.c). */
    expect_line(facts, "links 159");
    expect_line(facts, "max latency 0");
    /* Across nodes: socket 0 reaches the NIC on socket 1 over UPI; no copy or memory link. */
    expect_line(facts, "route n0c0 n1c0: n0_upi0-1_UP n0_nic_UP n0_port_UP n1_port_DOWN "
                       "n1_nic_DOWN n1_upi0-1_DOWN");
    expect_line(facts, "route n0c18 n1c35: n0_nic_UP n0_port_UP n1_port_DOWN n1_nic_DOWN");
    expect_line(facts, "route n1c35 n0c18: n1_nic_UP n1_port_UP n0_port_DOWN n0_nic_DOWN");
    /* On a node: the two cores' copy links and the memory link, plus UPI across sockets. */
    expect_line(facts, "route n0c0 n0c1: n0c0_copy_UP n0_mem n0c1_copy_DOWN");
    expect_line(facts, "route n0c0 n0c18: n0c0_copy_UP n0_mem n0_upi0-1_UP n0c18_copy_DOWN");
    expect_line(facts, "route n0c18 n0c0: n0c18_copy_UP n0_upi0-1_DOWN n0_mem n0c0_copy_DOWN");
    expect_line(facts, "route n0c5 n0c5: n0c5_copy_UP n0_mem n0c5_copy_DOWN");
    free(facts);
    ts_params_free(p);
}

static void test_xml_two_leaves(void)
{
    /* 16 nodes x 36 cores, 8 nodes per leaf: 576 hosts, two leaves joined by their uplinks. */
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    char path[512];
    ts_error_t err = {0};
    snprintf(path, sizeof path, "%s/bm-16.xml", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(gen("bm-optimized3.36", 576, 16, 8, p, path, &err), TS_OK);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    char *facts = simgrid_facts(path, "n0c18 n15c18 n0c18 n7c18 n8c18 n15c18");
    CU_ASSERT_PTR_NOT_NULL_FATAL(facts);
    expect_line(facts, "hosts 576");
    expect_line(facts, "max latency 0");
    expect_line(facts, "route n0c18 n15c18: n0_nic_UP n0_port_UP leaf0_up_UP leaf1_up_DOWN "
                       "n15_port_DOWN n15_nic_DOWN");
    expect_line(facts, "route n0c18 n7c18: n0_nic_UP n0_port_UP n7_port_DOWN n7_nic_DOWN");
    expect_line(facts, "route n8c18 n15c18: n8_nic_UP n8_port_UP n15_port_DOWN n15_nic_DOWN");
    const char *load = strstr(facts, "load ");
    printf("(16 nodes: %lld bytes, %.*s) ", (long long)st.st_size,
           load ? (int)strcspn(load, "\n") : 0, load ? load : "");
    free(facts);
    ts_params_free(p);
}

static void test_xml_localhost(void)
{
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    char path[512], line[64];
    ts_error_t err = {0};
    snprintf(path, sizeof path, "%s/localhost.xml", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(gen("localhost", 1, 0, 16, p, path, &err), TS_OK);
    char *facts = simgrid_facts(path, nproc() > 1 ? "n0c0 n0c1" : "n0c0 n0c0");
    CU_ASSERT_PTR_NOT_NULL_FATAL(facts);
    snprintf(line, sizeof line, "hosts %d", nproc());
    expect_line(facts, line);
    if (nproc() > 1)
        expect_line(facts, "route n0c0 n0c1: n0c0_copy_UP n0_mem n0c1_copy_DOWN");
    free(facts);
    ts_params_free(p);
}

static void test_xml_errors(void)
{
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    ts_error_t err = {0};
    CU_ASSERT_EQUAL(ts_params_set(p, "model.net.bandwidth", "auto", &err), TS_OK);
    char path[512], want[1024];
    snprintf(path, sizeof path, "%s/auto-bw.xml", tu_tmpdir());
    CU_ASSERT_EQUAL(gen("bm-optimized3.36", 72, 2, 16, p, path, &err), TS_EARG);
    snprintf(want, sizeof want,
             "%s: model.net.bandwidth must be a positive bandwidth for the platform, not auto",
             path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(access(path, F_OK), -1); /* nothing written */
    /* Unwritable target: an error naming it, no file. */
    CU_ASSERT_EQUAL(ts_params_set(p, "model.net.bandwidth", "12254MB/s", &err), TS_OK);
    CU_ASSERT_EQUAL(gen("bm-optimized3.36", 72, 2, 16, p, "/nonexistent/dir/x.xml", &err), TS_EIO);
    CU_ASSERT(strstr(err.msg, "/nonexistent/dir/x.xml") == err.msg);
    /* A placement made on another platform is refused. */
    ts_platform_t *bm = open_bm(), *lh = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_platform_open_name("localhost", PLATFORM_DIR, &lh, &err), TS_OK);
    ts_placement_t *pl = place(lh, 1, 0, 0, 0, TS_MAP_BLOCK, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(ts_xml_write(path, bm, pl, p, &err), TS_EARG);
    snprintf(want, sizeof want,
             "%s: the placement was made for another platform than bm-optimized3.36", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    ts_placement_close(pl);
    ts_platform_close(lh);
    ts_platform_close(bm);
    ts_params_free(p);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("platform files", NULL, NULL);
    CU_add_test(s, "bm-optimized3.36", test_bm);
    CU_add_test(s, "localhost (cores = nproc)", test_localhost);
    CU_add_test(s, "open by name, default dir, unknown name", test_open_by_name);
    CU_add_test(s, "bad files: one-line errors with file, line, key", test_bad_files);
    CU_add_test(s, "what-if references, the platform's parameter values",
                test_references_and_params);
    s = CU_add_suite("placement", NULL, NULL);
    CU_add_test(s, "72 ranks, block, NPS1", test_block_nps1);
    CU_add_test(s, "block, NPS2 and half-full nodes", test_block_nps2);
    CU_add_test(s, "map-by ppr:N:OBJ", test_ppr);
    CU_add_test(s, "map-by PE=n: cores per rank", test_pe);
    CU_add_test(s, "cyclic, NPS1 and NPS2", test_cyclic);
    CU_add_test(s, "map-by node: round-robin over the nodes", test_map_by_node);
    CU_add_test(s, "errors: 73 ranks on 2 x 36 and others", test_placement_errors);
    CU_add_test(s, "locality", test_locality);
    s = CU_add_suite("SimGrid XML", NULL, NULL);
    CU_add_test(s, "2 nodes: deterministic, loads, 72 hosts, routes", test_xml_two_nodes);
    CU_add_test(s, "16 nodes on 2 leaves: 576 hosts, route across the uplinks",
                test_xml_two_leaves);
    CU_add_test(s, "localhost", test_xml_localhost);
    CU_add_test(s, "errors", test_xml_errors);
    return tu_run_all();
}
