/* timeq.c - binary min-heap on (time, push number) (see timeq.h): the push number breaks
 * ties, which makes equal times first-in first-out and the order independent of the heap's
 * shape. Beside the heap, a first-in first-out lane takes items pushed at exactly the time
 * last popped (in a replay, about half of them: a step that goes on at the same virtual time),
 * so they skip the heap's sifting. The lane holds equal times in push order, hence sorted on
 * (time, push number) like the heap; every pop takes the lesser of the two fronts, so the
 * order out is exactly that of one heap. */
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
    entry_t *e; /* the heap */
    size_t n, cap;
    uint64_t pushed;
    entry_t *lane; /* a ring: ln entries from lhead, all of one time; lcap is a power of two
                    * (masks, not divisions, in every push and pop) */
    size_t lhead, ln, lcap;
    double last_t; /* the time last popped, once have_last */
    int have_last;
};

ts_timeq_t *ts_timeq_new(void)
{
    return calloc(1, sizeof(ts_timeq_t));
}

void ts_timeq_free(ts_timeq_t *q)
{
    if (q) {
        free(q->e);
        free(q->lane);
    }
    free(q);
}

static int before(const entry_t *a, const entry_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Room for one more entry in the lane, kept in order from index 0 when it grows. */
static int lane_room(ts_timeq_t *q)
{
    if (q->ln < q->lcap)
        return 0;
    size_t cap = q->lcap ? 2 * q->lcap : 64;
    entry_t *p = malloc(cap * sizeof *p);
    if (!p)
        return -1;
    for (size_t i = 0; i < q->ln; i++)
        p[i] = q->lane[(q->lhead + i) & (q->lcap - 1)];
    free(q->lane);
    q->lane = p;
    q->lcap = cap;
    q->lhead = 0;
    return 0;
}

int ts_timeq_push(ts_timeq_t *q, double t, void *item)
{
    entry_t x = {.t = t, .seq = q->pushed, .item = item};
    if (q->have_last && t == q->last_t &&
        (q->ln == 0 || q->lane[(q->lhead + q->ln - 1) & (q->lcap - 1)].t == t)) {
        if (lane_room(q) != 0)
            return -1;
        q->lane[(q->lhead + q->ln++) & (q->lcap - 1)] = x;
        q->pushed++;
        return 0;
    }
    if (ts_grow(&q->e, &q->cap, q->n, sizeof *q->e, 64) != 0)
        return -1;
    q->pushed++;
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
    return q->n + q->ln;
}

/* The front entry: the lane's or the heap's, whichever comes first; NULL if empty. */
static const entry_t *front(const ts_timeq_t *q, int *from_lane)
{
    const entry_t *l = q->ln ? &q->lane[q->lhead] : NULL;
    *from_lane = l && (q->n == 0 || before(l, &q->e[0]));
    return *from_lane ? l : q->n ? &q->e[0] : NULL;
}

double ts_timeq_first(const ts_timeq_t *q)
{
    int lane;
    return front(q, &lane)->t;
}

void *ts_timeq_peek(const ts_timeq_t *q)
{
    int lane;
    const entry_t *f = front(q, &lane);
    return f ? f->item : NULL;
}

void *ts_timeq_pop(ts_timeq_t *q)
{
    int from_lane;
    const entry_t *f = front(q, &from_lane);
    if (!f)
        return NULL;
    void *top = f->item;
    q->last_t = f->t;
    q->have_last = 1;
    if (from_lane) {
        q->lhead = (q->lhead + 1) & (q->lcap - 1);
        q->ln--;
        return top;
    }
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
