/* progress.c - the replay's progress line (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ts_progress_init(ts_progress_t *p, const char *what)
{
    const char *term = getenv("TERM");
    memset(p, 0, sizeof *p);
    p->on = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
    p->what = what;
    p->start = p->last = now_s();
}

void ts_progress_format(char *buf, size_t n, const char *what, double frac, uint64_t total,
                        double rate, double left, int cols)
{
    snprintf(buf, n, "%s: %3.0f %% of %.1f M events, %.2f M events/s, about %.0f s left", what,
             100 * frac, (double)total * 1e-6, rate * 1e-6, left);
    /* A line as wide as the terminal would wrap, and "\r" would then redraw only its last
     * row: keep it one column short (the text is ASCII, a byte a column). */
    size_t fit = cols > 1 ? (size_t)cols - 1 : 0;
    if (strlen(buf) > fit)
        buf[fit] = '\0';
}

void ts_progress_update(void *ctx, uint64_t done, uint64_t total)
{
    ts_progress_t *p = ctx;
    if (!p->on)
        return;
    double t = now_s();
    if (t - p->last < 0.5 || t <= p->start)
        return;
    p->last = t;
    double rate = (double)done / (t - p->start);
    double frac = total ? (double)done / (double)total : 0;
    if (frac > 1) /* a collective's schedule adds no trace events; cursors may read ahead */
        frac = 1;
    double left = rate > 0 && total > done ? (double)(total - done) / rate : 0;
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    char line[256];
    ts_progress_format(line, sizeof line, p->what, frac, total, rate, left, cols);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->shown = 1;
}

void ts_progress_end(ts_progress_t *p)
{
    if (!p->shown)
        return;
    fputs("\r\033[K", stderr); /* back to the line's start, erase it */
    fflush(stderr);
    p->shown = 0;
}
