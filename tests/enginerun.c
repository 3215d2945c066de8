/* enginerun.c - synthetic traces and replays in a child for the engine's tests (enginerun.h). */
#include "enginerun.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- building traces ------------------------------------------------------------------ */

tb_t tb_new(int32_t nranks)
{
    tb_t b;
    CU_ASSERT_FATAL(ts__trace_new("synthetic", TS_FORMAT_OTF2, nranks, &b.t) == TS_OK);
    ts__trace_add_node(b.t, "n0");
    int32_t world[16];
    CU_ASSERT_FATAL(nranks <= 16);
    for (int32_t i = 0; i < nranks; i++)
        world[i] = i;
    ts__trace_add_comm(b.t, "MPI_COMM_WORLD", nranks, 0, world);
    b.f_send = ts__trace_intern_func(b.t, "MPI_Send");
    b.f_recv = ts__trace_intern_func(b.t, "MPI_Recv");
    b.f_isend = ts__trace_intern_func(b.t, "MPI_Isend");
    b.f_irecv = ts__trace_intern_func(b.t, "MPI_Irecv");
    b.f_wait = ts__trace_intern_func(b.t, "MPI_Wait");
    return b;
}

static void put(tb_t *b, int32_t rank, ts_event_t ev)
{
    CU_ASSERT_FATAL(ts_codec_put(&b->t->ranks[rank].buf, &ev) == TS_OK);
    b->t->ranks[rank].nevents++;
}

/* One call with one record inside. */
void call(tb_t *b, int32_t rank, int32_t func, ts_event_t rec)
{
    put(b, rank, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)func});
    if (rec.kind != TS_EV_LEAVE)
        put(b, rank, rec);
    put(b, rank, (ts_event_t){.kind = TS_EV_LEAVE});
}

void send_(tb_t *b, int32_t from, int32_t to, uint64_t size)
{
    call(b, from, b->f_send, (ts_event_t){.kind = TS_EV_SEND, .peer = to, .tag = 7, .bytes = size});
}

void recv_(tb_t *b, int32_t at, int32_t from, uint64_t size)
{
    call(b, at, b->f_recv, (ts_event_t){.kind = TS_EV_RECV, .peer = from, .tag = 7, .bytes = size});
}

void compute(tb_t *b, int32_t rank, int64_t ns)
{
    put(b, rank, (ts_event_t){.kind = TS_EV_COMPUTE, .time = ns});
}

/* ---- running one replay in a child --------------------------------------------------- */

static ts_locality loc_fn(const void *ctx, int32_t a, int32_t b)
{
    const int *node = ctx; /* node of each rank */
    return node[a] == node[b] ? TS_LOC_SAME_NUMA : TS_LOC_SAME_LEAF;
}

/* A platform of one host per rank: each host has a private link to its node's NIC link;
 * ranks on one node reach each other through their private links only. */
static void write_platform(const char *path, int nranks, const int *node, int duplex)
{
    FILE *fp = fopen(path, "w");
    fprintf(fp, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                "<zone id=\"z\" routing=\"Full\">\n");
    for (int i = 0; i < nranks; i++)
        fprintf(fp,
                "<host id=\"h%d\" speed=\"1Gf\"/>\n<link id=\"p%d\" bandwidth=\"1000GBps\" "
                "latency=\"0\"/>\n",
                i, i);
    for (int n = 0; n < nranks; n++)
        fprintf(fp, "<link id=\"nic%d\" bandwidth=\"%.0fBps\" latency=\"0\"%s/>\n", n, B,
                duplex ? " sharing_policy=\"SPLITDUPLEX\"" : "");
    for (int i = 0; i < nranks && duplex; i++) /* one rank per node, full-duplex NICs */
        for (int j = 0; j < nranks; j++)
            if (i != j)
                fprintf(fp,
                        "<route src=\"h%d\" dst=\"h%d\" symmetrical=\"NO\"><link_ctn "
                        "id=\"p%d\"/><link_ctn id=\"nic%d\" direction=\"UP\"/><link_ctn "
                        "id=\"nic%d\" direction=\"DOWN\"/><link_ctn id=\"p%d\"/></route>\n",
                        i, j, i, i, j, j);
    for (int i = 0; i < nranks && !duplex; i++)
        for (int j = i + 1; j < nranks; j++) {
            fprintf(fp, "<route src=\"h%d\" dst=\"h%d\"><link_ctn id=\"p%d\"/>", i, j, i);
            if (node[i] != node[j])
                fprintf(fp, "<link_ctn id=\"nic%d\"/><link_ctn id=\"nic%d\"/>", node[i], node[j]);
            else /* on-host copies run at B too */
                fprintf(fp, "<link_ctn id=\"nic%d\"/>", node[i]);
            fprintf(fp, "<link_ctn id=\"p%d\"/></route>\n", j);
        }
    fprintf(fp, "</zone>\n</platform>\n");
    fclose(fp);
}

/* Replay with the parameters above plus extra (KEY, VALUE pairs, NULL-terminated); duplex:
 * every rank on a node of its own with full-duplex NICs (a contention-free platform for
 * collectives, whose messages flow both ways at once). */
outcome_t replay_ex(tb_t *b, const int *node, const char *const *extra, int duplex)
{
    ts__trace_seal(b->t);
    int nranks = ts_trace_nranks(b->t);
    char xml[512];
    snprintf(xml, sizeof xml, "%s/platform.xml", tu_tmpdir());
    write_platform(xml, nranks, node, duplex);
    int fd[2];
    outcome_t o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_FATAL(pipe(fd) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        ts_params_t *p = tu_round_params(); /* testutil.h: the times above */
        ts_error_t err;
        if (!p)
            _exit(3);
        for (int i = 0; extra && extra[i]; i += 2)
            if (ts_params_set(p, extra[i], extra[i + 1], &err) != TS_OK)
                _exit(3);
        ts_proto_model_t *m;
        ts_proto_model_new(p, 0, &m, &err);
        ts_coll_model_t *cm;
        if (ts_coll_model_new(p, &cm, &err) != TS_OK)
            _exit(4);
        static char names[16][16];
        const char *hosts[16];
        for (int i = 0; i < nranks; i++) {
            snprintf(names[i], sizeof names[i], "h%d", i);
            hosts[i] = names[i];
        }
        ts_replay_spec_t spec = {
            .trace = b->t,
            .proto = m,
            .coll = cm,
            .compute_scale = 1.0,
            .flowless_bytes = ts_params_size(p, TS_P_NET_FLOWLESS_BYTES, 0),
            .layout = {
                .platform_xml = xml, .rank_host = hosts, .locality = loc_fn, .locality_ctx = node}};
        ts_replay_result_t *res = NULL;
        o.status = ts_replay_run(&spec, &res, &err);
        if (o.status == TS_OK) {
            o.makespan = res->makespan;
            o.rank_end[0] = res->rank0_elapsed;
            o.nasks = res->nasks;
            o.asks_all = res->asks_all;
            for (size_t i = 0; i < res->nasks && i < 4; i++)
                o.asks[i] = res->asks[i];
        } else {
            snprintf(o.msg, sizeof o.msg, "%.399s", err.msg);
        }
        if (write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    CU_ASSERT_EQUAL(read(fd[0], &o, sizeof o), (ssize_t)sizeof o);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ts_trace_close(b->t);
    return o;
}

outcome_t replay(tb_t *b, const int *node)
{
    return replay_ex(b, node, NULL, 0);
}

const int TWO_NODES[] = {0, 1, 0, 1};
const int ONE_NODE[] = {0, 0, 0, 0};
const int APART[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
