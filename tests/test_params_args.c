/* test_params_args.c - the readers of command-line words (params/params_args.c): -x / --mca /
 * --set words, the tuning candidates' settings, pasted mpirun lines (the reference runs' and
 * the candidates'), their quoting and errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paramscheck.h"
#include "testutil.h"

#include "params/params_args.h"

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
    /* A time in any of the three spellings says its unit: a bare 1 would be a second. */
    static const char *const time_words[][3] = {{"--set", "model.net.latency=1", NULL},
                                                {"-x", "model.net.latency=1", NULL},
                                                {"--mca", "model.net.latency", "1"}};
    for (int k = 0; k < 3; k++) {
        int n = time_words[k][2] ? 3 : 2;
        CU_ASSERT_EQUAL(ts_params_parse_args(q, n, (char **)time_words[k], NULL, &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a time needs its unit"));
    }

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
        /* the settings words' own mistakes are the line's too (were usage errors) */
        {"mpirun -x", "-x expects KEY=VALUE or KEY"},
        {"mpirun -n 3 -mca btl", "-mca expects KEY VALUE"},
        {"mpirun -x =rc a", NULL},
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

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("params_args", NULL, NULL);
    CU_add_test(s, "candidate settings", test_candidate_settings);
    CU_add_test(s, "-x / --mca / --set words", test_parse_args);
    CU_add_test(s, "mpirun: reference lines", test_mpirun_reference_line);
    CU_add_test(s, "mpirun: quoting and errors", test_mpirun_syntax);
    return tu_run_all();
}
