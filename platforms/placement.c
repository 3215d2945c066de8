/* placement.c - mapping ranks to node, socket, NUMA domain, core and leaf switch (the rules
 * are in placement.h), and the locality of two ranks. */
#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOST_NAME_SIZE 24 /* "n<node>c<core>" with node <= 10^6, core < 10^6 */

struct ts_placement_s {
    int nranks, nodes, ppn, nps, nodes_per_leaf, leaves;
    int sockets, cores_per_socket;
    int ppr_n, ppr_obj; /* map-by ppr:N:OBJ, 0: none */
    int pe;             /* cores per rank (map-by PE=n), at least 1 */
    ts_map_by map_by;
    ts_rank_place_t *ranks;
    char *hosts; /* nranks names of HOST_NAME_SIZE bytes */
};

const char *ts_map_by_name(ts_map_by m)
{
    return m == TS_MAP_CYCLIC ? "cyclic" : m == TS_MAP_NODE ? "node" : "block";
}

/* Open MPI --map-by words: those that fill cores in order are block, "numa" deals ranks out
 * round-robin over the NUMA domains, which is cyclic. */
static const struct {
    const char *word;
    ts_map_by m;
} map_words[] = {{"block", TS_MAP_BLOCK}, {"cyclic", TS_MAP_CYCLIC},  {"core", TS_MAP_BLOCK},
                 {"slot", TS_MAP_BLOCK},  {"hwthread", TS_MAP_BLOCK}, {"numa", TS_MAP_CYCLIC},
                 {"node", TS_MAP_NODE}};

/* The word of text up to the first ':' equals word. */
static int word_is(const char *text, size_t n, const char *word)
{
    return strlen(word) == n && strncmp(text, word, n) == 0;
}

/* "ppr:N:OBJ" (N ranks per object, filled in order), modifiers after another ':' allowed. */
static int is_ppr(const char *text)
{
    static const char *const objects[] = {"package", "socket", "numa", "node"};
    if (strncmp(text, "ppr:", 4) != 0)
        return 0;
    size_t digits = strspn(text + 4, "0123456789");
    /* N from 1 (Open MPI refuses 0) to 999999. */
    if (digits == 0 || digits > 6 || atoi(text + 4) < 1 || text[4 + digits] != ':')
        return 0;
    const char *obj = text + 4 + digits + 1;
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
        if (word_is(obj, strcspn(obj, ":"), objects[i]))
            return 1;
    return 0;
}

/* The n of a PE=n modifier among text's ':'-separated words: 0 for none, -1 for a malformed
 * one (not 1 to 999999 cores). */
static int pe_of(const char *text)
{
    for (const char *w = strchr(text, ':'); w; w = strchr(w + 1, ':')) {
        if (strncasecmp(w + 1, "PE=", 3) != 0)
            continue;
        const char *d = w + 4;
        size_t digits = strspn(d, "0123456789");
        if (digits == 0 || digits > 6 || (d[digits] != '\0' && d[digits] != ':') || atoi(d) < 1)
            return -1;
        return atoi(d);
    }
    return 0;
}

enum { PPR_NODE = 1, PPR_SOCKET, PPR_NUMA };

ts_status ts_map_by_layout(const char *text, ts_placement_opts_t *o, ts_error_t *err)
{
    ts_status st = ts_map_by_parse(text, &o->map_by, err);
    if (st != TS_OK)
        return st;
    int pe = pe_of(text); /* parsed: not malformed */
    o->ppr_n = o->ppr_obj = 0;
    o->pe = pe;
    if (!is_ppr(text))
        return TS_OK;
    const char *obj = strchr(text + 4, ':') + 1;
    size_t n = strcspn(obj, ":");
    o->ppr_n = atoi(text + 4);
    o->ppr_obj = word_is(obj, n, "node")   ? PPR_NODE
                 : word_is(obj, n, "numa") ? PPR_NUMA
                                           : PPR_SOCKET;
    return TS_OK;
}

ts_status ts_map_by_parse(const char *text, ts_map_by *out, ts_error_t *err)
{
    if (pe_of(text) < 0)
        return ts_error_set(err, TS_EARG,
                            "map-by '%s': PE= expects the cores of each rank, 1 to 999999", text);
    if (is_ppr(text)) {
        *out = TS_MAP_BLOCK;
        return TS_OK;
    }
    size_t n = strcspn(text, ":"); /* modifiers such as core:PE=1 change no placement */
    for (size_t i = 0; i < sizeof map_words / sizeof map_words[0]; i++)
        if (word_is(text, n, map_words[i].word)) {
            *out = map_words[i].m;
            return TS_OK;
        }
    return ts_error_set(err, TS_EARG,
                        "map-by '%s': expected block, cyclic or node (or Open MPI's core, slot, "
                        "hwthread, ppr:N:package|socket|numa|node: block; numa: cyclic)",
                        text);
}

/* Domain and first core within it of local rank i among ppn ranks on u domains, each rank
 * taking pe cores. */
static void local_slot(ts_map_by m, int i, int per_domain, int u, int pe, int *domain, int *slot)
{
    if (m == TS_MAP_CYCLIC) {
        *domain = i % u;
        *slot = i / u * pe;
        return;
    }
    /* Block fills the cores in order, as ppr:18:package (ppr:9:numa under NPS2) with
     * --rank-by fill does: a domain is full before the next one gets a rank, so a half-full
     * node keeps its ranks on socket 0. A rank of pe cores that straddles two domains counts
     * in its first core's. */
    *domain = i * pe / per_domain;
    *slot = i * pe % per_domain;
}

/* Resolve and check the options; fills pl's scalar fields. */
static ts_status resolve(const ts_platform_t *pf, const ts_placement_opts_t *o, int nranks,
                         ts_placement_t *pl, ts_error_t *err)
{
    const char *name = ts_platform_name(pf);
    int cores = ts_platform_cores_per_node(pf);
    if (nranks < 1)
        return ts_error_set(err, TS_EARG, "placement: %d ranks (expected at least 1)", nranks);
    if (o->nodes < 0 || o->ppn < 0 || o->nps < 0 || o->nodes_per_leaf < 0)
        return ts_error_set(err, TS_EARG,
                            "placement: negative count (nodes %d, ppn %d, nps %d, "
                            "nodes_per_leaf %d)",
                            o->nodes, o->ppn, o->nps, o->nodes_per_leaf);
    if (o->map_by != TS_MAP_BLOCK && o->map_by != TS_MAP_CYCLIC && o->map_by != TS_MAP_NODE)
        return ts_error_set(err, TS_EARG, "placement: unknown map-by %d", (int)o->map_by);
    pl->nranks = nranks;
    pl->map_by = o->map_by;
    pl->sockets = ts_platform_sockets(pf);
    pl->cores_per_socket = ts_platform_cores_per_socket(pf);
    pl->nodes = o->nodes ? o->nodes : ts_platform_nodes(pf);
    pl->nps = o->nps ? o->nps : ts_platform_nps(pf);
    pl->pe = o->pe > 0 ? o->pe : 1;
    if (pl->pe > cores)
        return ts_error_set(err, TS_EARG, "placement: map-by PE=%d: more than %s's %d cores a node",
                            pl->pe, name, cores);
    if (!ts_platform_nps_offered(pf, pl->nps))
        return ts_error_set(err, TS_EARG,
                            "placement: NPS %d is not offered by %s (nps_options "
                            "= %s)",
                            pl->nps, name, ts_platform_nps_options(pf));
    if (pl->nodes > 1 && ts_platform_nic_socket(pf) < 0)
        return ts_error_set(err, TS_EARG,
                            "placement: %d nodes asked, but %s has no network (one node only)",
                            pl->nodes, name);
    if (pl->nodes > 1000000)
        return ts_error_set(err, TS_EARG, "placement: %d nodes is too many", pl->nodes);
    int ppn = o->ppn;
    if (o->ppr_n > 0) { /* ppr:N:OBJ puts N ranks on each object of a node */
        static const char *const objs[] = {"", "node", "socket", "numa"};
        int per = o->ppr_obj == PPR_NODE   ? 1
                  : o->ppr_obj == PPR_NUMA ? pl->sockets * pl->nps
                                           : pl->sockets;
        long long want = (long long)o->ppr_n * per;
        int fits = want * pl->pe <= cores && (long long)o->ppr_n * pl->pe <= cores / per;
        char pe[32] = "";
        if (pl->pe > 1)
            snprintf(pe, sizeof pe, " of %d cores each", pl->pe);
        if (!fits || (ppn && ppn != want))
            return ts_error_set(
                err, TS_EARG, "placement: map-by ppr:%d:%s places %lld ranks a node%s: %s",
                o->ppr_n, objs[o->ppr_obj], want, pe,
                !fits ? "more than its objects' cores" : "not the ranks per node given (--ppn)");
        ppn = (int)want;
        pl->ppr_n = o->ppr_n;
        pl->ppr_obj = o->ppr_obj;
    }
    if (ppn) {
        pl->ppn = ppn;
        if (pl->ppn > cores)
            return ts_error_set(err, TS_EARG,
                                "placement: %d ranks per node do not fit on %s's %d cores per "
                                "node",
                                pl->ppn, name, cores);
        if ((long long)pl->nodes * pl->ppn < nranks)
            return ts_error_set(err, TS_EARG,
                                "placement: %d ranks do not fit on %d nodes x %d ranks per node "
                                "(%lld slots)",
                                nranks, pl->nodes, pl->ppn, (long long)pl->nodes * pl->ppn);
    } else {
        pl->ppn = (int)(((long long)nranks + pl->nodes - 1) / pl->nodes);
        if (pl->ppn > cores)
            return ts_error_set(err, TS_EARG,
                                "placement: %d ranks on %d nodes need %d ranks per node, but %s "
                                "has %d cores per node",
                                nranks, pl->nodes, pl->ppn, name, cores);
    }
    if (pl->pe > 1) { /* each rank takes pe cores: of the node, or dealt over its domains */
        int domains = pl->sockets * pl->nps, cyc = pl->map_by == TS_MAP_CYCLIC;
        long long need = cyc ? ((long long)pl->ppn + domains - 1) / domains * pl->pe
                             : (long long)pl->ppn * pl->pe;
        if (need > (cyc ? cores / domains : cores))
            return ts_error_set(err, TS_EARG,
                                "placement: %d ranks per node of %d cores each (map-by PE=%d) do "
                                "not fit on %s's %d cores per node%s",
                                pl->ppn, pl->pe, pl->pe, name, cores,
                                cyc ? ", dealt over its NUMA domains" : "");
    }
    pl->nodes_per_leaf = o->nodes_per_leaf ? o->nodes_per_leaf : pl->nodes;
    pl->leaves = (pl->nodes + pl->nodes_per_leaf - 1) / pl->nodes_per_leaf;
    return TS_OK;
}

ts_status ts_placement_open(const ts_platform_t *pf, const ts_placement_opts_t *opts, int nranks,
                            ts_placement_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_placement_t *pl = calloc(1, sizeof *pl);
    if (!pl)
        return ts_error_set(err, TS_ENOMEM, "placement: out of memory");
    ts_placement_opts_t zero = {0};
    ts_status st = resolve(pf, opts ? opts : &zero, nranks, pl, err);
    if (st != TS_OK) {
        ts_placement_close(pl);
        return st;
    }
    pl->ranks = calloc((size_t)nranks, sizeof *pl->ranks);
    pl->hosts = calloc((size_t)nranks, HOST_NAME_SIZE);
    if (!pl->ranks || !pl->hosts) {
        ts_placement_close(pl);
        return ts_error_set(err, TS_ENOMEM, "placement: out of memory for %d ranks", nranks);
    }
    int per_domain = pl->cores_per_socket / pl->nps; /* exact: the platform checked it */
    int domains = pl->sockets * pl->nps;
    for (int r = 0; r < nranks; r++) {
        ts_rank_place_t *p = &pl->ranks[r];
        int domain, slot;
        if (pl->map_by == TS_MAP_NODE) { /* round-robin over the nodes, then block */
            local_slot(TS_MAP_BLOCK, r / pl->nodes, per_domain, domains, pl->pe, &domain, &slot);
            p->node = r % pl->nodes;
        } else if (pl->ppr_n && pl->ppr_obj != PPR_NODE && pl->map_by == TS_MAP_BLOCK) {
            /* ppr:N:numa / ppr:N:package: N ranks on each object, its cores in order */
            int i = r % pl->ppn, n = pl->ppr_n;
            if (pl->ppr_obj == PPR_NUMA) {
                domain = i / n;
                slot = i % n * pl->pe;
            } else {
                int c = i % n * pl->pe;
                domain = i / n * pl->nps + c / per_domain;
                slot = c % per_domain;
            }
            p->node = r / pl->ppn;
        } else {
            local_slot(pl->map_by, r % pl->ppn, per_domain, domains, pl->pe, &domain, &slot);
            p->node = r / pl->ppn;
        }
        p->numa = domain;
        p->socket = domain / pl->nps;
        p->core = domain * per_domain + slot;
        p->leaf = p->node / pl->nodes_per_leaf;
        ts_platform_host_name(pl->hosts + (size_t)r * HOST_NAME_SIZE, HOST_NAME_SIZE, p->node,
                              p->core);
    }
    *out = pl;
    return TS_OK;
}

void ts_placement_close(ts_placement_t *pl)
{
    if (!pl)
        return;
    free(pl->ranks);
    free(pl->hosts);
    free(pl);
}

int ts_placement_nranks(const ts_placement_t *pl)
{
    return pl->nranks;
}
int ts_placement_nodes(const ts_placement_t *pl)
{
    return pl->nodes;
}

int ts_placement_nodes_used(const ts_placement_t *pl)
{
    if (pl->map_by == TS_MAP_NODE) /* round-robin: every node gets a rank while ranks last */
        return pl->nranks < pl->nodes ? pl->nranks : pl->nodes;
    return pl->nranks ? (pl->nranks - 1) / pl->ppn + 1 : 0;
}
int ts_placement_ppn(const ts_placement_t *pl)
{
    return pl->ppn;
}
int ts_placement_pe(const ts_placement_t *pl)
{
    return pl->pe;
}
const char *ts_placement_map_text(const ts_placement_t *pl, char *buf, size_t n)
{
    static const char *const objs[] = {"", "node", "socket", "numa"};
    int k = pl->ppr_n ? snprintf(buf, n, "ppr:%d:%s", pl->ppr_n, objs[pl->ppr_obj])
                      : snprintf(buf, n, "%s", ts_map_by_name(pl->map_by));
    if (pl->pe > 1 && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " PE=%d", pl->pe);
    return buf;
}
int ts_placement_nps(const ts_placement_t *pl)
{
    return pl->nps;
}
ts_map_by ts_placement_map_by(const ts_placement_t *pl)
{
    return pl->map_by;
}
int ts_placement_nodes_per_leaf(const ts_placement_t *pl)
{
    return pl->nodes_per_leaf;
}
int ts_placement_leaves(const ts_placement_t *pl)
{
    return pl->leaves;
}
int ts_placement_sockets(const ts_placement_t *pl)
{
    return pl->sockets;
}
int ts_placement_cores_per_socket(const ts_placement_t *pl)
{
    return pl->cores_per_socket;
}

const ts_rank_place_t *ts_placement_rank(const ts_placement_t *pl, int rank)
{
    return &pl->ranks[rank];
}

const char *ts_placement_host(const ts_placement_t *pl, int rank)
{
    return pl->hosts + (size_t)rank * HOST_NAME_SIZE;
}

ts_locality ts_placement_locality(const ts_placement_t *pl, int a, int b)
{
    const ts_rank_place_t *x = &pl->ranks[a], *y = &pl->ranks[b];
    if (a == b)
        return TS_LOC_SELF;
    if (x->node != y->node)
        return x->leaf == y->leaf ? TS_LOC_SAME_LEAF : TS_LOC_CROSS_SPINE;
    if (x->numa == y->numa)
        return TS_LOC_SAME_NUMA;
    return x->socket == y->socket ? TS_LOC_SAME_SOCKET : TS_LOC_CROSS_SOCKET;
}
