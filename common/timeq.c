/* timeq.c - binary min-heap on (time, push number) (see timeq.h): the push number breaks
 * ties, which makes equal times first-in first-out and the order independent of the heap's
 * shape. */
#include "timeq.h"

#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

typedef struct entry_s {
    double t;
    uint64_t seq;
    void *item;
} entry_t;

struct ts_timeq_s {
    entry_t *e;
    size_t n, cap;
    uint64_t pushed;
};

ts_timeq_t *ts_timeq_new(void)
{
    return calloc(1, sizeof(ts_timeq_t));
}

void ts_timeq_free(ts_timeq_t *q)
{
    if (q)
        free(q->e);
    free(q);
}

static int before(const entry_t *a, const entry_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int ts_timeq_push(ts_timeq_t *q, double t, void *item)
{
    if (ts_grow(&q->e, &q->cap, q->n, sizeof *q->e, 64) != 0)
        return -1;
    entry_t x = {.t = t, .seq = q->pushed++, .item = item};
    size_t i = q->n++;
    while (i > 0) { /* sift up */
        size_t parent = (i - 1) / 2;
        if (!before(&x, &q->e[parent]))
            break;
        q->e[i] = q->e[parent];
        i = parent;
    }
    q->e[i] = x;
    return 0;
}

size_t ts_timeq_size(const ts_timeq_t *q)
{
    return q->n;
}

double ts_timeq_first(const ts_timeq_t *q)
{
    return q->e[0].t;
}

void *ts_timeq_peek(const ts_timeq_t *q)
{
    return q->n ? q->e[0].item : NULL;
}

void *ts_timeq_pop(ts_timeq_t *q)
{
    if (q->n == 0)
        return NULL;
    void *top = q->e[0].item;
    entry_t x = q->e[--q->n];
    size_t i = 0;
    for (;;) { /* sift the last entry down from the root */
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(&q->e[c + 1], &q->e[c]))
            c++;
        if (!before(&q->e[c], &x))
            break;
        q->e[i] = q->e[c];
        i = c;
    }
    if (q->n > 0)
        q->e[i] = x;
    return top;
}
