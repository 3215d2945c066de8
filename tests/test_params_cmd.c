/* test_params_cmd.c - `tunesim params` (commands/params_cmd.c): the listing and one
 * parameter in full, "did you mean", --markdown, the changes a pasted mpirun line makes,
 * the ranges, the protocols UCX would pick (--protocols), and the usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paramscheck.h"
#include "testutil.h"

#include "commands/params_cmd.h"

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
    /* Its --map-by is read as a replay reads it: one it cannot place is refused. */
    char pe[] = "mpirun -np 72 --map-by core:PE=2 ./app";
    char *withpe[] = {"params", "--mpirun", pe};
    CU_ASSERT_EQUAL(run_cmd(3, withpe, &out, &err), TS_OK);
    CU_ASSERT_STRING_EQUAL(out, "# ranks 72, per node -, map-by core:PE=2\n# no changes: every "
                                "parameter keeps its default\n");
    free(out);
    char bogus[] = "mpirun -np 72 --map-by core:PE=x ./app";
    char *badmap[] = {"params", "--mpirun", bogus};
    CU_ASSERT_EQUAL(run_cmd(3, badmap, &out, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(out, "");
    CU_ASSERT_STRING_EQUAL(err.msg, "map-by 'core:PE=x': PE= expects the cores of each rank, 1 to "
                                    "999999");
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
    CU_pSuite s = CU_add_suite("params_cmd", NULL, NULL);
    CU_add_test(s, "tunesim params", test_cmd);
    return tu_run_all();
}
