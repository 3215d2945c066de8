/* params_impl.h - private to params/params.c, params_value.c and params_args.c: the parameter
 * table's helpers that the value parsers and the command-line readers share. Nothing else
 * includes it. */
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

enum { ENUM_WORD_MAX = 24 };

/* A parsed value; which member is live follows the parameter's type. */
typedef union pvalue {
    uint64_t size[2];         /* SIZE: both equal; SIZE2: [0] intra (on-host), [1] inter */
    double num;               /* TIME (s), BW (bytes/s, 0 = auto), DOUBLE */
    int64_t i;                /* INT, BOOL (0/1) */
    unsigned tls;             /* TLS: ts_tl bits */
    char word[ENUM_WORD_MAX]; /* ENUM: the table's spelling of the chosen word */
} pvalue_t;

/* Parse text as a value of parameter id into *v. On error fills err (may be NULL) with
 * "NAME: bad value 'TEXT' (expected ...)" and returns TS_EARG. */
ts_status ts__params_parse_value(ts_param_id id, const char *text, pvalue_t *v, ts_error_t *err);
/* A type's name in listings ("size") and its syntax paragraph of docs/parameters.md. */
const char *ts__params_type_name(ts_param_type t);
const char *ts__params_type_doc(ts_param_type t);

#endif
