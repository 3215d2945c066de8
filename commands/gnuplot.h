/* gnuplot.h - pictures drawn by gnuplot (Debian's gnuplot-nox) for the commands' --plot: a
 * scratch directory beside the output prefix, the caller's data files and script in it,
 * gnuplot run on the script, and the pictures renamed into place, so that a failed plot
 * leaves no half-written picture. */
#ifndef TS_GNUPLOT_H
#define TS_GNUPLOT_H

#include <stdio.h>

#include "../common/status.h"

/* Whether a gnuplot program is on PATH. */
int ts_gnuplot_available(void);

/* Write s as a gnuplot string literal in single quotes (a quote doubled). */
void ts_gnuplot_quote(FILE *fp, const char *s);

/* Close fp, a data file or script written for gnuplot: TS_EIO, "PATH: write failed: ...",
 * when any write to it failed (ferror) or the close did. */
ts_status ts_gnuplot_close(FILE *fp, const char *path, ts_error_t *err);

/* Writes the data files and "plot.gp" into dir (an absolute path). */
typedef ts_status (*ts_gnuplot_write_fn)(void *ctx, const char *dir, ts_error_t *err);

/* Render: make a scratch directory beside prefix, call write, run gnuplot on dir/plot.gp,
 * rename each outputs[i][0] (a file gnuplot wrote in dir) to prefix + outputs[i][1], and
 * remove the scratch directory with whatever else is in it. who names the option in
 * messages ("--plot"). */
ts_status ts_gnuplot_render(const char *who, const char *prefix, ts_gnuplot_write_fn write,
                            void *ctx, const char *const (*outputs)[2], int noutputs,
                            ts_error_t *err);

#endif
