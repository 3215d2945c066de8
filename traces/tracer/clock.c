/* clock.c - wall and per-rank CPU ("virtual") timestamps for the tracer; see clock.h. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

#include <string.h>
#include <time.h>

static uint64_t read_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int trc_clock_parse(const char *text, trc_clock_kind *out)
{
    if (text == NULL || text[0] == '\0' || strcmp(text, "wall") == 0) {
        *out = TRC_CLOCK_WALL;
        return 0;
    }
    if (strcmp(text, "cpu") == 0) {
        *out = TRC_CLOCK_CPU;
        return 0;
    }
    return -1;
}

const char *trc_clock_name(trc_clock_kind kind)
{
    return kind == TRC_CLOCK_CPU ? "cpu" : "wall";
}

void trc_clock_init(trc_clock_t *clock, trc_clock_kind kind)
{
    clock->kind = kind;
    clock->last = 0;
    clock->cpu_mark = 0;
}

/* Never hand out a timestamp below the previous one: OTF2 readers expect each location's
 * records in time order. */
static uint64_t stamp(trc_clock_t *clock, uint64_t t)
{
    if (t < clock->last)
        t = clock->last;
    clock->last = t;
    return t;
}

uint64_t trc_clock_enter(trc_clock_t *clock)
{
    if (clock->kind == TRC_CLOCK_WALL)
        return stamp(clock, read_ns(CLOCK_MONOTONIC));
    uint64_t cpu = read_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t burst = cpu > clock->cpu_mark ? cpu - clock->cpu_mark : 0;
    clock->cpu_mark = cpu;
    return stamp(clock, clock->last + burst + TRC_CLOCK_TICK_NS);
}

uint64_t trc_clock_tick(trc_clock_t *clock)
{
    if (clock->kind == TRC_CLOCK_WALL)
        return stamp(clock, read_ns(CLOCK_MONOTONIC));
    return stamp(clock, clock->last + TRC_CLOCK_TICK_NS);
}

uint64_t trc_clock_leave(trc_clock_t *clock)
{
    return trc_clock_tick(clock);
}

void trc_clock_resume(trc_clock_t *clock)
{
    if (clock->kind == TRC_CLOCK_CPU)
        clock->cpu_mark = read_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t trc_clock_realtime_of(const trc_clock_t *clock, uint64_t timestamp)
{
    if (clock->kind != TRC_CLOCK_WALL)
        return 0;
    uint64_t mono = read_ns(CLOCK_MONOTONIC);
    uint64_t real = read_ns(CLOCK_REALTIME);
    return real - (mono - timestamp);
}
