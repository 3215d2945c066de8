/* model_file.h - tunesim model files: the XML a calibration writes (tunesim calibrate) and
 * `--model FILE` reads. Root <tunesim-model platform=".." created-from="..">, optional <note>
 * elements, then one <param name=".." value=".." stderr=".." source=".."/> per fitted value;
 * the schema is params/model.xsd, compiled into the program and checked on every load.
 * Values use the parameter's own syntax (params/params_table.h), so loading is ts_params_set. */
#ifndef TS_MODEL_FILE_H
#define TS_MODEL_FILE_H

#include <stddef.h>

#include "../common/status.h"
#include "params.h"

typedef struct ts_model_s ts_model_t;

/* One parameter entry; stderr_text may be NULL (not fitted, or no uncertainty). */
typedef struct ts_model_param_s {
    const char *name, *value, *stderr_text, *source;
    int line; /* line in the file it was read from; 0 for a model built in memory */
} ts_model_param_t;

/* An empty model for platform, made from created_from (both copied). NULL when out of
 * memory. Free with ts_model_free. */
ts_model_t *ts_model_new(const char *platform, const char *created_from);
void ts_model_free(ts_model_t *m);
/* Append a note / a parameter (texts copied; stderr_text may be NULL). TS_ENOMEM, or TS_EARG
 * when name is not a model parameter of params_table.h or value does not parse for it. */
ts_status ts_model_add_note(ts_model_t *m, const char *text, ts_error_t *err);
ts_status ts_model_add_param(ts_model_t *m, const char *name, const char *value,
                             const char *stderr_text, const char *source, ts_error_t *err);
size_t ts_model_nparams(const ts_model_t *m);
const ts_model_param_t *ts_model_param(const ts_model_t *m, size_t i);
const char *ts_model_platform(const ts_model_t *m);
const char *ts_model_created_from(const ts_model_t *m);

/* Write m as XML to path atomically (common/outfile). Same model, same bytes. */
ts_status ts_model_write(const ts_model_t *m, const char *path, ts_error_t *err);

/* Read and schema-check path. Errors are one line: "FILE:LINE: what was expected". On
 * success the caller owns *out. */
ts_status ts_model_read(const char *path, ts_model_t **out, ts_error_t *err);

/* Read path and set each of its parameters into p (ts_params_set). On any error p is
 * unchanged and err names the file and line. */
ts_status ts_model_apply_file(const char *path, ts_params_t *p, ts_error_t *err);

/* The schema text (params/model.xsd as compiled in), NUL-terminated. */
const char *ts_model_schema(void);

#endif
