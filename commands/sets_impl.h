/* sets_impl.h - private to commands/sets.c (the parser and the API) and sets_expand.c (the
 * sets a file's sections make): the parsed structure they share. Nothing else includes it. */
#ifndef TS_SETS_IMPL_H
#define TS_SETS_IMPL_H

#include "sets.h"

/* The most sets a file makes: enough for any sweep that fits a cluster's queue, small enough
 * that a typo (an axis of 100 values too many) is caught before it runs for days. */
#define MAX_SETS   100000
#define MAX_ERRORS 200
#define MAX_NAME   64

enum { PL_NONE = -1, PL_NODES, PL_PPN, PL_NPS, PL_MAP_BY };

/* One setting: parameter words (as for ts_params_parse_args) or one placement choice. */
typedef struct item_s {
    int line;
    int nwords;
    char **words;
    int pkey; /* PL_* or PL_NONE */
    int pint;
    char *ptext; /* map-by as written */
} item_t;

/* One line of a section: a fixed item, or (in a grid) an axis of alternatives. */
typedef struct entry_s {
    int nvalues;     /* 1 for a fixed item */
    item_t **values; /* nvalues items */
} entry_t;

typedef struct section_s {
    char *name;
    int line, grid;
    int bad_name; /* already reported: its lines are checked, but it makes no sets */
    int nentries;
    size_t cap;
    entry_t *entries;
} section_t;

typedef struct set_s {
    char *name;
    int line;
    int nitems;
    const item_t **items;
    ts_set_place_t place;
} set_t;

struct ts_sets_s {
    char *path;
    int nsections;
    size_t seccap;
    section_t *sections;
    int nsets;
    size_t setcap;
    set_t *sets;
    int nerrors, more_errors;
    int over_limit; /* the file's sets passed MAX_SETS (reported once) */
    char **errors;
    ts_params_t *defaults; /* scratch: every setting is checked against a copy */
};

/* Expand every section into its sets (a grid into its cartesian product), each mistake
 * listed with ts_sets_add_error, and refuse two sets of one name. TS_ENOMEM only when out of
 * memory. */
ts_status ts__sets_expand(ts_sets_t *s);

#endif
