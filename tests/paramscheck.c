/* paramscheck.c - the helpers of the parameter tests (paramscheck.h). */
#include "paramscheck.h"

#include "testutil.h"

ts_params_t *fresh(void)
{
    ts_params_t *p = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

/* Set name=value on a fresh set; returns the status and leaves the message in err. */
ts_status try_set(ts_params_t **p, const char *name, const char *value, ts_error_t *err)
{
    ts_params_free(*p);
    *p = fresh();
    ts_error_clear(err);
    return ts_params_set(*p, name, value, err);
}

void capture_open(capture_t *c)
{
    c->buf = NULL;
    c->size = 0;
    c->fp = open_memstream(&c->buf, &c->size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->fp);
}

char *capture_close(capture_t *c)
{
    fclose(c->fp);
    return c->buf;
}
