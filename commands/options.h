/* options.h - the commands' one option layer: getopt_long over the words that the parameter
 * layer (params/params_args: -x, --mca, --set, --mpirun words, --model) left, with one usage
 * message for an unknown option or a missing value. Long options take their value as the next
 * word or after '=' (--nodes=2), as GNU programs do. */
#ifndef TS_OPTIONS_H
#define TS_OPTIONS_H

#include "../common/outfile.h"
#include "../common/status.h"
#include "../params/params.h"
#include "../platforms/placement.h"
#include "../sim/extrapolate.h"

typedef struct ts_opt_s {
    const char *name; /* long name, without the dashes */
    int letter;       /* short form ('j' for -j N / -jN), or 0 */
    int has_arg;      /* 1: takes a value; 2: takes one only as --name=VALUE (-xVALUE) */
} ts_opt_t;

/* Called once per option, in command-line order, with its index in the table and its value
 * (NULL without one), and once per operand with opt = -1 and the word. A status other than
 * TS_OK stops the walk and is returned. */
typedef ts_status (*ts_opt_fn)(void *ctx, int opt, const char *value, ts_error_t *err);

/* Walk argv[1..argc-1] except the words marked in used (NULL: none), cmd naming the command
 * in messages. Words after "--" are operands. */
ts_status ts_opts_parse(const char *cmd, int argc, char **argv, const unsigned char *used,
                        const ts_opt_t *opts, int nopts, ts_opt_fn fn, void *ctx, ts_error_t *err);

/* The usual command line: the parameter words (-x, --mca, --set, --model, params_args.h) into
 * params, then the command's own options and operands through ts_opts_parse. */
ts_status ts_opts_parse_params(const char *cmd, int argc, char **argv, ts_params_t *params,
                               const ts_opt_t *opts, int nopts, ts_opt_fn fn, void *ctx,
                               ts_error_t *err);

/* The placement options that replay and sweep share, in this order in their tables:
 * --nodes, --ppn, --nps, --map-by (which: 0-3). */
enum { TS_PLACE_NODES, TS_PLACE_PPN, TS_PLACE_NPS, TS_PLACE_MAP_BY };
ts_status ts_opts_place(const char *cmd, int which, const char *v, ts_placement_opts_t *place,
                        ts_error_t *err);

/* --scale-by compute|visits of replay and sweep (extrapolate.h). */
ts_status ts_opts_scale_by(const char *cmd, const char *v, ts_xp_scale *scale, ts_error_t *err);

/* The same for a command that runs another one (tunesim record -o DIR mpirun ...): the walk
 * stops at the first operand or after "--", whose index in argv goes to *first_operand (argc
 * when there is none); used words are not allowed here. */
ts_status ts_opts_parse_prefix(const char *cmd, int argc, char **argv, const ts_opt_t *opts,
                               int nopts, ts_opt_fn fn, void *ctx, int *first_operand,
                               ts_error_t *err);

/* The model file p was given (--model), as one more input of ts_check_files, so that no output
 * replaces it; flag says where it was given ("--model"). Its path is NULL (nothing to check)
 * when p has none. */
ts_file_use_t ts_opts_model_use(const ts_params_t *p, const char *flag);
/* The same for set's own model file (its flag, "--model of set [NAME]", written into flag, size
 * n): path NULL when it has none or it is base's, which the command line's check covers (base
 * may be NULL). */
ts_file_use_t ts_opts_set_model_use(const ts_params_t *set, const char *name,
                                    const ts_params_t *base, char *flag, size_t n);

#endif
