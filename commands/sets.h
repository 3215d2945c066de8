/* sets.h - parameter-set files for sweeps: named sets of settings written the way users write
 * them for mpirun, and grids that expand axes into their cartesian product. Plain C: the
 * settings are checked with params/params, placement words are only parsed here.
 *
 * Format (one item a line; '#' starts a comment where a word starts; blank lines ignored):
 *
 *   [asis]                          a set; an empty section means every default
 *   [t0]
 *   -x UCX_TLS=self,sm,rc           mpirun words: -x KEY=VALUE, --mca KEY VALUE,
 *   --mca coll_hcoll_enable 0       --set KEY=VALUE (several on one line are fine)
 *   UCX_ZCOPY_THRESH = 128kb        KEY=VALUE (spaces around '=' allowed)
 *   nps = 2                         placement: nodes, ppn, nps, map-by (also --nps 2 ...)
 *   --link-speed FDR                the what-ifs (docs/what-if.md), as on the command line
 *
 *   [grid g]                        a grid: every line KEY = V1 | V2 | ... is an axis; the
 *   UCX_TLS = all | self,sm,rc      sets are the cartesian product (last axis fastest),
 *   nps = 1 | 2                     named g-I-J (1-based value positions, one per axis, in
 *   -x UCX_ZCOPY_THRESH=128kb       file order); other lines apply to every set of the grid
 *
 * Set names are 1-64 characters of [A-Za-z0-9._+-] and unique in a file. */
#ifndef TS_SETS_H
#define TS_SETS_H

#include "../common/status.h"
#include "../params/params.h"
#include "../platforms/placement.h"
#include "../sim/replay_job.h"

typedef struct ts_sets_s ts_sets_t;

/* Placement chosen by a set; 0 / NULL where the set leaves it to the command line. */
typedef struct ts_set_place_s {
    int nodes, ppn, nps;
    const char *map_by; /* as written: block, cyclic or an Open MPI --map-by value */
    int nodes_line, ppn_line, nps_line, map_by_line; /* where each was said; 0 where not */
} ts_set_place_t;

/* Parse the sets file at path (text: its contents, or NULL to read the file). Returns TS_OK
 * with *out owned by the caller (ts_sets_free) even when the file has mistakes: every mistake
 * found (syntax, unknown parameters, bad values, bad placement words, duplicate names) is
 * kept as one line "PATH:LINE: ..." in ts_sets_nerrors / ts_sets_error, so that a sweep can
 * report them all at once. Fails only when the file cannot be read (TS_EIO / TS_ENOENT) or
 * memory runs out; then *out is NULL. */
ts_status ts_sets_open(const char *path, const char *text, ts_sets_t **out, ts_error_t *err);
void ts_sets_free(ts_sets_t *s);

int ts_sets_nerrors(const ts_sets_t *s);
const char *ts_sets_error(const ts_sets_t *s, int i);
/* Add one more mistake (e.g. found by the caller while placing the set's ranks); printf-style.
 * TS_ENOMEM or TS_OK. */
ts_status ts_sets_add_error(ts_sets_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The sets, grids expanded, in file order. */
int ts_sets_count(const ts_sets_t *s);
const char *ts_sets_name(const ts_sets_t *s, int i);
/* Line of the set's [section] header. */
int ts_sets_line(const ts_sets_t *s, int i);
/* Index of the set called name, or -1. */
int ts_sets_find(const ts_sets_t *s, const char *name);
const ts_set_place_t *ts_sets_place(const ts_sets_t *s, int i);

/* Set i's placement words over place (the command line's): nodes, ppn, nps and map-by where
 * the set says them. */
void ts_sets_place_over(const ts_sets_t *s, int i, ts_placement_opts_t *place);

/* The line to name when set i's job (its params, its placement words over the command line's
 * jo) cannot be prepared for trace t: the first of its placement words, in file order, without
 * which the job can (that word's value taken from jo); where none is (two words wrong), the
 * first that alone over jo fails with the whole set's message; else the --model line of a model
 * file made for another platform; else the set's header line. */
int ts_sets_job_line(const ts_sets_t *s, int i, const ts_trace_t *t, const char *trace_name,
                     const ts_params_t *params, const ts_job_opts_t *jo);

/* Apply set i's settings, in file order, to p (start from ts_params_new for a set on its own).
 * A bad setting fails with TS_EARG and "PATH:LINE: [NAME] message" in err; p is then
 * unchanged. ts_sets_open has already checked every set, so this fails only for sets whose
 * mistakes ts_sets_error lists. */
ts_status ts_sets_apply(const ts_sets_t *s, int i, ts_params_t *p, ts_error_t *err);

/* Whether name is a valid set name. */
int ts_sets_valid_name(const char *name);

#endif
