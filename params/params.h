/* params.h - a parameter set: values for every entry of params_table.h, set by name and text
 * (here) or the way users write them on a command line (params_args.h: mpirun -x KEY=VALUE,
 * --mca KEY VALUE, --set KEY=VALUE, a pasted mpirun command line) and read back typed by the
 * models. A set starts with every default. */
#ifndef TS_PARAMS_H
#define TS_PARAMS_H

#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"
#include "params_table.h"

typedef enum ts_param_id {
#define TS__PARAM_ID(id, name, type, def, unit, source, help) TS_P_##id,
    TS_PARAM_TABLE(TS__PARAM_ID)
#undef TS__PARAM_ID
        TS_P__COUNT
} ts_param_id;

typedef enum ts_param_type {
    TS_PT_SIZE,
    TS_PT_SIZE2,
    TS_PT_TIME,
    TS_PT_BW,
    TS_PT_INT,
    TS_PT_DOUBLE,
    TS_PT_BOOL,
    TS_PT_ENUM,
    TS_PT_TLS,
    TS_PT_STRING
} ts_param_type;

/* Special sizes: "auto" and "inf". Real sizes are below both. */
#define TS_SIZE_AUTO UINT64_MAX
#define TS_SIZE_INF  (UINT64_MAX - 1)

/* UCX transports (bits of ts_params_tls). */
typedef enum ts_tl {
    TS_TL_SELF = 1u << 0,
    TS_TL_POSIX = 1u << 1,
    TS_TL_SYSV = 1u << 2,
    TS_TL_XPMEM = 1u << 3,
    TS_TL_CMA = 1u << 4,
    TS_TL_KNEM = 1u << 5,
    TS_TL_RC = 1u << 6,
    TS_TL_UD = 1u << 7,
    TS_TL_DC = 1u << 8,
    TS_TL_TCP = 1u << 9
} ts_tl;

typedef struct ts_params_s ts_params_t;

/* The definition of a parameter (for listings and documentation). */
typedef struct ts_param_def_s {
    ts_param_id id;
    const char *name, *default_text, *unit, *source, *help;
    ts_param_type type;
} ts_param_def_t;
const ts_param_def_t *ts_param_def(ts_param_id id);
/* The valid range of a numeric parameter (params/params_range.h), inclusive, in its base unit
 * (bytes, seconds, bytes/s, plain number): 1 with *min and *max set, or 0 when it has none
 * (ENUM, TLS, BOOL and STRING parameters; for a numeric one a mistake that test_params
 * catches). Values outside it are refused by every parser (ts_params_set and all above it). */
int ts_param_range(ts_param_id id, double *min, double *max);
/* The range as users write values, e.g. "1 .. 16" or "0s .. 1s", in buf (size n); "" when
 * there is none. Returns buf. */
const char *ts_param_range_text(ts_param_id id, char *buf, size_t n);
/* The prior of an uncertain parameter (params/params_prior.h): 1 with the range its true
 * value is believed to lie in (base unit) and why (any pointer may be NULL), or 0 for a
 * parameter tunesim holds a firm figure for. */
int ts_param_prior(ts_param_id id, double *lo, double *hi, const char **why);
/* That range as users write values ("" when there is none). Returns buf. */
const char *ts_param_prior_text(ts_param_id id, char *buf, size_t n);
/* Find by name: exact UCX / MCA / model name; MCA names also with an OMPI_MCA_ prefix. */
int ts_param_find(const char *name); /* id or -1 */
/* The id of name, or TS_EARG with "unknown parameter 'NAME' (did you mean ...?)" in err. */
ts_status ts_param_lookup(const char *name, ts_param_id *id, ts_error_t *err);

/* A new set holding every default, parsed by the same parsers as user input; the caller
 * owns *out and frees it with ts_params_free. TS_ENOMEM, or TS_EARG if a default of the
 * table does not parse (test_params checks that none does). */
ts_status ts_params_new(ts_params_t **out);
/* A deep copy of src (caller owns *out); TS_ENOMEM on failure. */
ts_status ts_params_copy(const ts_params_t *src, ts_params_t **out);
/* Free a set and the texts it holds; NULL is fine. */
void ts_params_free(ts_params_t *p);

/* Set one parameter from text (copied). Unknown names fail with TS_EARG and the closest known
 * names ("did you mean"); bad values fail with TS_EARG naming the key, the value and what
 * was expected. On error p is unchanged. */
ts_status ts_params_set(ts_params_t *p, const char *name, const char *value, ts_error_t *err);

/* ts_params_set for text a person wrote (--set, --mca, sets, model, platform and calibration
 * files): a time must also say its unit, since a bare 1 for a latency is one second and
 * never what was meant (0 may go without). The code's own numbers go through ts_params_set,
 * where no unit is the base unit. */
ts_status ts_params_set_user(ts_params_t *p, const char *name, const char *value, ts_error_t *err);

/* Typed reads. For SIZE2, inter selects the off-host value. A read of the wrong type (or an
 * id out of range) returns 0 / NULL; use the TS_PARAM_* macros below, which check the type
 * at compile time, so that this cannot happen. */
uint64_t ts_params_size(const ts_params_t *p, ts_param_id id, int inter);
double ts_params_seconds(const ts_params_t *p, ts_param_id id);
double ts_params_bw(const ts_params_t *p, ts_param_id id); /* bytes/s; 0 for auto */
int64_t ts_params_int(const ts_params_t *p, ts_param_id id);
double ts_params_double(const ts_params_t *p, ts_param_id id);
int ts_params_bool(const ts_params_t *p, ts_param_id id);
/* A TIME (seconds), BW (bytes/s) or DOUBLE parameter as a number: 1 with *v set, 0 for any
 * other type. */
int ts_params_number(const ts_params_t *p, ts_param_id id, double *v);
/* Set a TIME, BW or DOUBLE parameter from a number in its base unit, checked as user text is
 * (its range). */
ts_status ts_params_set_number(ts_params_t *p, ts_param_id id, double v, ts_error_t *err);
/* ENUM: the chosen word as the table spells it; any other type: the text as set (or the
 * default's text). Owned by p: valid until the parameter is set again or p is freed. */
const char *ts_params_str(const ts_params_t *p, ts_param_id id);
unsigned ts_params_tls(const ts_params_t *p); /* ts_tl bits */
/* The model file applied last (--model FILE) and the platform it was made for; "" when
 * none. ts_model_apply_file records them with ts_params_note_model (texts copied, the
 * platform's truncated to 63 characters; out of memory the file's name is lost, not the
 * platform), so that a replay can refuse a model made for another platform. */
void ts_params_note_model(ts_params_t *p, const char *file, const char *platform);
const char *ts_params_model_file(const ts_params_t *p);
const char *ts_params_model_platform(const ts_params_t *p);

/* Whether the user set it (as opposed to its default). */
int ts_params_is_set(const ts_params_t *p, ts_param_id id);

/* Each parameter's type as a constant, for the checked reads below. */
enum {
#define TS__PARAM_TYPE(id, name, type, def, unit, source, help) TS_PT_OF_##id = TS_PT_##type,
    TS_PARAM_TABLE(TS__PARAM_TYPE)
#undef TS__PARAM_TYPE
};
/* Compile-time check that parameter ID (a table id without TS_P_) has type TYPE. */
#define TS__PARAM_CHECK(id, type)                                                                  \
    ((void)sizeof(struct {                                                                         \
        _Static_assert((int)TS_PT_OF_##id == (int)TS_PT_##type,                                    \
                       "parameter " #id " is not " #type);                                         \
        int ts__unused;                                                                            \
    }))
/* Typed reads by table id, e.g. TS_PARAM_SIZE2(p, UCX_RNDV_THRESH, 1): a wrong type does not
 * compile. */
#define TS_PARAM_SIZE(p, id) (TS__PARAM_CHECK(id, SIZE), ts_params_size((p), TS_P_##id, 0))
#define TS_PARAM_SIZE2(p, id, inter)                                                               \
    (TS__PARAM_CHECK(id, SIZE2), ts_params_size((p), TS_P_##id, (inter)))
#define TS_PARAM_SECONDS(p, id) (TS__PARAM_CHECK(id, TIME), ts_params_seconds((p), TS_P_##id))
#define TS_PARAM_BW(p, id)      (TS__PARAM_CHECK(id, BW), ts_params_bw((p), TS_P_##id))
#define TS_PARAM_INT(p, id)     (TS__PARAM_CHECK(id, INT), ts_params_int((p), TS_P_##id))
#define TS_PARAM_DOUBLE(p, id)  (TS__PARAM_CHECK(id, DOUBLE), ts_params_double((p), TS_P_##id))
#define TS_PARAM_BOOL(p, id)    (TS__PARAM_CHECK(id, BOOL), ts_params_bool((p), TS_P_##id))
#define TS_PARAM_ENUM(p, id)    (TS__PARAM_CHECK(id, ENUM), ts_params_str((p), TS_P_##id))

/* Write the settings that differ from the defaults as "KEY=VALUE" lines, in table order,
 * VALUE as the user wrote it (for reports; identical sets print identically). A parameter set
 * explicitly to its default's value is not a change. Returns the number of lines. */
int ts_params_print_changes(const ts_params_t *p, FILE *fp);
/* The same against another set (NULL: the defaults): the settings whose text differs from
 * base's, e.g. what a set adds to a command's own starting values. */
int ts_params_print_changes_from(const ts_params_t *p, const ts_params_t *base, FILE *fp);
/* The whole table: TS_PTABLE_WIDE, aligned columns one parameter a line with its source
 * (`tunesim params --wide`); TS_PTABLE_MARKDOWN, docs/parameters.md exactly (header, table,
 * value syntax); TS_PTABLE_COMPACT, what `tunesim params` prints: name, default, range and
 * unit on a line, the meaning wrapped below it, within 100 columns. */
enum { TS_PTABLE_WIDE = 0, TS_PTABLE_MARKDOWN = 1, TS_PTABLE_COMPACT = 2 };
void ts_params_print_table(FILE *fp, int format);
/* One parameter in full (`tunesim params NAME`): every field on its own lines, wrapped within
 * 100 columns. */
void ts_params_print_one(FILE *fp, ts_param_id id);

#endif
