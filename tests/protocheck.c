/* protocheck.c - the protocol tests' helpers (protocheck.h). */
#include "protocheck.h"

#include "testutil.h"

ts_params_t *round_params(void)
{
    ts_params_t *p = tu_round_params();
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

ts_proto_model_t *model_for(const char *const (*extra)[2], size_t n, int world)
{
    ts_params_t *p = round_params();
    ts_error_t err;
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL_FATAL(ts_params_set(p, extra[i][0], extra[i][1], &err), TS_OK);
    ts_proto_model_t *m;
    CU_ASSERT_FATAL(ts_proto_model_new(p, world, &m, &err) == TS_OK);
    ts_params_free(p);
    return m;
}

ts_proto_model_t *model_with(const char *const (*extra)[2], size_t n)
{
    return model_for(extra, n, 0);
}

ts_proto proto_at(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking)
{
    ts_msg_plan_t pl;
    ts_proto_plan(m, size, loc, blocking, &pl);
    return pl.proto;
}
