/* sets_expand.c - the sets a sets file's sections make (sets_impl.h): a section is one set, a
 * [grid NAME] the cartesian product of its axes, named NAME-i-j...; the file's total is
 * bounded, and two sets may not share a name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../params/params_args.h"
#include "sets_impl.h"

static ts_status add_set(ts_sets_t *s, const section_t *sec, const char *name, const int *pick)
{
    if (TS_GROW(s->sets, (size_t)s->nsets, s->setcap, 16) != 0)
        return TS_ENOMEM;
    set_t *set = &s->sets[s->nsets];
    memset(set, 0, sizeof *set);
    if (!(set->name = strdup(name)) ||
        !(set->items = calloc((size_t)sec->nentries + 1, sizeof *set->items))) {
        free(set->name);
        return TS_ENOMEM;
    }
    set->line = sec->line;
    for (int e = 0, a = 0; e < sec->nentries; e++) {
        const entry_t *en = &sec->entries[e];
        const item_t *it = en->nvalues > 1 ? en->values[pick[a++]] : en->values[0];
        set->items[set->nitems++] = it;
        /* Later lines win, as later mpirun options do. */
        switch (it->pkey) {
        case PL_NODES:
            set->place.nodes = it->pint;
            set->place.nodes_line = it->line;
            break;
        case PL_PPN:
            set->place.ppn = it->pint;
            set->place.ppn_line = it->line;
            break;
        case PL_NPS:
            set->place.nps = it->pint;
            set->place.nps_line = it->line;
            break;
        case PL_MAP_BY:
            set->place.map_by = it->ptext;
            set->place.map_by_line = it->line;
            break;
        default:
            break;
        }
    }
    s->nsets++;
    return TS_OK;
}

/* The k-th key an item sets ("UCX_TLS", "btl_vader_eager_limit", "model.net.latency",
 * "nps"), into buf; 0 past the last. An MCA name is compared without OMPI_MCA_. */
static int item_key(const item_t *it, int k, char *buf, size_t n)
{
    static const char *const place[] = {"nodes", "ppn", "nps", "map-by"};
    if (it->pkey != PL_NONE) {
        snprintf(buf, n, "%s", k ? "" : place[it->pkey]);
        return k == 0;
    }
    for (int i = 0; i < it->nwords; i++) {
        const char *w = it->words[i], *key = NULL;
        if ((!strcmp(w, "--set") || !strcmp(w, "-x") || !strcmp(w, "--mca") ||
             !strcmp(w, "-mca")) &&
            i + 1 < it->nwords)
            key = it->words[++i];
        else if (ts_params_whatif_param(w) && i + 1 < it->nwords) /* --link-speed FDR */
            key = ts_params_whatif_param(w), i++;
        else if (!strncmp(w, "-x", 2) && w[2] && w[2] != '-')
            key = w + 2;
        if (!key || k--)
            continue;
        if (!strncmp(key, "OMPI_MCA_", 9))
            key += 9;
        snprintf(buf, n, "%.*s", (int)strcspn(key, "="), key);
        return 1;
    }
    return 0;
}

/* Items by what they set: placement, then words. */
static int cmp_items(const void *a, const void *b)
{
    const item_t *x = *(const item_t *const *)a, *y = *(const item_t *const *)b;
    if (x->pkey != y->pkey)
        return x->pkey < y->pkey ? -1 : 1;
    if (x->pkey != PL_NONE)
        return x->ptext && y->ptext ? strcmp(x->ptext, y->ptext)
                                    : (x->pint > y->pint) - (x->pint < y->pint);
    if (x->nwords != y->nwords)
        return x->nwords < y->nwords ? -1 : 1;
    for (int w = 0; w < x->nwords; w++) {
        int c = strcmp(x->words[w], y->words[w]);
        if (c)
            return c;
    }
    return 0;
}

/* A grid's axis takes each key once, and nothing else in the section sets it: a later line
 * would make the axis dead (its sets all alike), an earlier one is overridden by it; a value
 * given twice in one axis makes two sets alike. */
static ts_status check_grid(ts_sets_t *s, const section_t *sec)
{
    ts_status st = TS_OK;
    for (int a = 0; a < sec->nentries && st == TS_OK; a++) {
        const entry_t *ax = &sec->entries[a];
        if (ax->nvalues < 2)
            continue;
        /* sorted, so that an axis of 100,000 values is checked in n log n */
        const item_t **v = malloc((size_t)ax->nvalues * sizeof *v);
        if (!v)
            return TS_ENOMEM;
        memcpy(v, ax->values, (size_t)ax->nvalues * sizeof *v);
        qsort(v, (size_t)ax->nvalues, sizeof *v, cmp_items);
        for (int i = 1; i < ax->nvalues && st == TS_OK; i++)
            if (cmp_items(&v[i - 1], &v[i]) == 0)
                st = ts_sets_add_error(
                    s, "%s:%d: [grid %s] a value repeated in the axis: two sets alike", s->path,
                    ax->values[0]->line, sec->name);
        free(v);
        char key[160], other[160];
        if (st != TS_OK || !item_key(ax->values[0], 0, key, sizeof key))
            continue;
        for (int e = 0; e < sec->nentries && st == TS_OK; e++)
            for (int k = 0;
                 e != a && !(e < a && sec->entries[e].nvalues > 1) &&
                 /* said once */ item_key(sec->entries[e].values[0], k, other, sizeof other);
                 k++)
                if (!strcmp(key, other)) {
                    st = ts_sets_add_error(s,
                                           "%s:%d: [grid %s] %s is an axis at line %d: set it once "
                                           "in a grid (a second line would make the axis dead or "
                                           "be overridden by it)",
                                           s->path, sec->entries[e].values[0]->line, sec->name, key,
                                           ax->values[0]->line);
                    break;
                }
    }
    return st;
}

static ts_status expand(ts_sets_t *s, const section_t *sec)
{
    if (sec->grid) {
        int before = s->nerrors;
        ts_status st = check_grid(s, sec);
        if (st != TS_OK || s->nerrors > before)
            return st;
    }
    int naxes = 0;
    double total = 1;
    for (int e = 0; e < sec->nentries; e++)
        if (sec->entries[e].nvalues > 1) {
            naxes++;
            total *= sec->entries[e].nvalues;
        }
    if (total > MAX_SETS)
        return ts_sets_add_error(s,
                                 "%s:%d: [grid %s] expands to %.0f sets, more than the limit "
                                 "of %d",
                                 s->path, sec->line, sec->name, total, MAX_SETS);
    if (total + s->nsets > MAX_SETS) {
        /* Said once, at the section that crosses the limit: the ones after it add nothing. */
        if (s->over_limit++)
            return TS_OK;
        return ts_sets_add_error(s,
                                 "%s:%d: [%s%s] would make the file's sets %.0f, more than the "
                                 "limit of %d",
                                 s->path, sec->line, sec->grid ? "grid " : "", sec->name,
                                 total + s->nsets, MAX_SETS);
    }
    if (sec->bad_name)
        return TS_OK;
    int *pick = calloc((size_t)naxes + 1, sizeof *pick),
        *size = calloc((size_t)naxes + 1, sizeof *size);
    /* The section's name is at most MAX_NAME here; each axis adds "-N", N < MAX_SETS. */
    size_t cap = strlen(sec->name) + 16 * ((size_t)naxes + 1);
    char *name = malloc(cap);
    ts_status st = TS_OK;
    if (!pick || !size || !name) {
        st = TS_ENOMEM;
        goto done;
    }
    for (int e = 0, a = 0; e < sec->nentries; e++)
        if (sec->entries[e].nvalues > 1)
            size[a++] = sec->entries[e].nvalues;
    for (;;) {
        int len = snprintf(name, cap, "%s", sec->name);
        for (int a = 0; a < naxes; a++)
            len += snprintf(name + len, cap - (size_t)len, "-%d", pick[a] + 1);
        if (naxes && len > MAX_NAME)
            st = ts_sets_add_error(s,
                                   "%s:%d: [grid %s] generated set names such as '%s' are "
                                   "longer than %d characters: shorten the grid's name",
                                   s->path, sec->line, sec->name, name, MAX_NAME);
        if (st != TS_OK || (st = add_set(s, sec, name, pick)) != TS_OK)
            break;
        /* Next combination, the last axis fastest. */
        int a = naxes - 1;
        while (a >= 0 && ++pick[a] == size[a])
            pick[a--] = 0;
        if (a < 0)
            break;
    }
done:
    free(pick);
    free(size);
    free(name);
    return st;
}

static int cmp_names(const void *a, const void *b)
{
    const set_t *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : ((*x)->line > (*y)->line) - ((*x)->line < (*y)->line);
}

static ts_status check_duplicates(ts_sets_t *s)
{
    const set_t **v = malloc(((size_t)s->nsets + 1) * sizeof *v);
    if (!v)
        return TS_ENOMEM;
    for (int i = 0; i < s->nsets; i++)
        v[i] = &s->sets[i];
    qsort(v, (size_t)s->nsets, sizeof *v, cmp_names);
    ts_status st = TS_OK;
    for (int i = 1; i < s->nsets && st == TS_OK; i++)
        if (strcmp(v[i]->name, v[i - 1]->name) == 0)
            st = ts_sets_add_error(s, "%s:%d: set name '%s' is already used at line %d", s->path,
                                   v[i]->line, v[i]->name, v[i - 1]->line);
    free(v);
    return st;
}

ts_status ts__sets_expand(ts_sets_t *s)
{
    ts_status st = TS_OK;
    for (int i = 0; i < s->nsections && st == TS_OK; i++)
        st = expand(s, &s->sections[i]);
    return st == TS_OK ? check_duplicates(s) : st;
}
