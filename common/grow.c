/* grow.c - growing arrays (see grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ts_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : first;
    if (c <= n)
        c = n + 1;
    if (elem && c > SIZE_MAX / elem)
        return -1;
    /* The caller's pointer is read and written as bytes: items is a T **, not a void **. */
    void *p;
    memcpy(&p, items, sizeof p);
    void *q = realloc(p, c * elem);
    if (!q)
        return -1;
    memcpy(items, &q, sizeof q);
    *cap = c;
    return 0;
}

int ts_strs_push(char ***strs, size_t *n, const char *s)
{
    char *copy = strdup(s);
    char **v = copy ? realloc(*strs, (*n + 1) * sizeof *v) : NULL;
    if (!v) {
        free(copy);
        return -1;
    }
    v[(*n)++] = copy;
    *strs = v;
    return 0;
}
