/* params_impl.h - private to params/params.c and params/params_args.c: the parameter table's
 * helpers that the command-line readers share. Nothing else includes it. */
#ifndef TS_PARAMS_IMPL_H
#define TS_PARAMS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "params.h"

/* The environment form of an MCA parameter's name: OMPI_MCA_<name>. */
static const char MCA_ENV_PREFIX[] = "OMPI_MCA_";
enum { MCA_ENV_PREFIX_LEN = sizeof MCA_ENV_PREFIX - 1 };

/* Strict decimal integer (optional sign, digits only, no overflow): 1 with *out set, else 0. */
int ts__params_parse_int(const char *s, int64_t *out);
/* Exchange the contents of two sets (commits a parse done on a scratch copy). */
void ts__params_swap(ts_params_t *a, ts_params_t *b);
/* Set parameter id from text (copied) after checking it; on error p is unchanged. */
ts_status ts__params_set_id(ts_params_t *p, ts_param_id id, const char *value, ts_error_t *err);
/* TS_EARG "unknown parameter 'KEY'" with the closest known names ("did you mean"). */
ts_status ts__params_unknown(const char *key, ts_error_t *err);

#endif
