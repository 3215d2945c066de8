/* bench_store.c - measures the trace store against OTF2 on one trace, side by side in one
 * run: store size as a fraction of the archive, and events read per second from each
 * (open + decode every event of every rank), in alternating rounds (see measure()). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "traces/store.h"
#include "traces/trace.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Open path and read every event; returns events read, 0 on error. */
static uint64_t read_all(const char *path)
{
    ts_trace_t *t;
    ts_error_t err;
    if (ts_trace_open(path, &t, &err) != TS_OK) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 0;
    }
    uint64_t n = 0;
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        ts_cursor_t *c;
        const ts_event_t *evs;
        int k;
        ts_cursor_open(t, r, &c);
        while ((k = ts_cursor_next_batch(c, &evs, NULL)) > 0)
            n += (uint64_t)k;
        ts_cursor_close(c);
    }
    ts_trace_close(t);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Alternate one OTF2 read and one store read per round, so that the machine's drift hits
 * both sides alike; per side, the median and the minimum time per read over the rounds. */
enum { MAX_ROUNDS = 400 };
static void measure(const char *otf2, const char *store, uint64_t *events, double med[2],
                    double best[2], int *rounds)
{
    static double t[2][MAX_ROUNDS];
    const char *paths[2] = {otf2, store};
    double start = now();
    int n = 0;
    while (n < MAX_ROUNDS && (n < 20 || now() - start < 3.0)) {
        for (int side = 0; side < 2; side++) {
            double t0 = now();
            uint64_t e = read_all(paths[side]);
            t[side][n] = now() - t0;
            if (!e || (side == 1 && e != *events)) {
                fprintf(stderr, "bench_store: reading %s failed or counted %llu events\n",
                        paths[side], (unsigned long long)e);
                exit(1);
            }
            *events = e;
        }
        n++;
    }
    for (int side = 0; side < 2; side++) {
        qsort(t[side], (size_t)n, sizeof(double), cmp_double);
        med[side] = t[side][n / 2];
        best[side] = t[side][0];
    }
    *rounds = n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_store TRACE STORE_OUT\n");
        return 2;
    }
    ts_trace_t *t;
    ts_error_t err;
    if (ts_trace_open(argv[1], &t, &err) != TS_OK || ts_store_write(t, argv[2], &err) != TS_OK) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    uint64_t otf2_bytes = ts_trace_source_bytes(t);
    ts_trace_close(t);
    if (ts_trace_open(argv[2], &t, &err) != TS_OK) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    uint64_t store_bytes = ts_trace_source_bytes(t);
    ts_trace_close(t);

    uint64_t events = 0;
    double med[2], best[2];
    int rounds;
    measure(argv[1], argv[2], &events, med, best, &rounds);
    double ratio = med[0] / med[1];
    printf("trace                 %s\n", argv[1]);
    printf("events                %llu\n", (unsigned long long)events);
    printf("OTF2 archive bytes    %llu\n", (unsigned long long)otf2_bytes);
    printf("store bytes           %llu\n", (unsigned long long)store_bytes);
    printf("store / OTF2 size     %.4f   (target <= 0.2)\n",
           (double)store_bytes / (double)otf2_bytes);
    printf("OTF2  read rate       %.3e events/s median, %.3e best (%d reads)\n",
           (double)events / med[0], (double)events / best[0], rounds);
    printf("store read rate       %.3e events/s median, %.3e best (%d reads)\n",
           (double)events / med[1], (double)events / best[1], rounds);
    printf("store / OTF2 speed    %.1fx median, %.1fx best   (target >= 10x)\n", ratio,
           best[0] / best[1]);
    int ok = (double)store_bytes <= 0.2 * (double)otf2_bytes && ratio >= 10;
    printf("targets               %s\n", ok ? "met" : "NOT met");
    return ok ? 0 : 3;
}
