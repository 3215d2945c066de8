/* sweep_cmd.h - `tunesim sweep`: replay one trace under every parameter set of a sets file
 * (commands/sets.h) in parallel worker processes, resumably, and rank the sets; or write a Slurm
 * job array that does the same on a cluster, and merge its results. */
#ifndef TS_SWEEP_CMD_H
#define TS_SWEEP_CMD_H

#include <stdio.h>

#include "../common/status.h"

/* argv[0] is "sweep". Usage errors return TS_EUSAGE with the message in err; invalid sets are
 * printed on stderr, one line each, before err says how many there were. */
int ts_sweep_cmd(int argc, char **argv, ts_error_t *err);
/* The same with the report (the tables sweep prints) on out: how validate runs a sweep in its
 * own process, its report on stderr so that stdout holds the validation alone. */
int ts_sweep_cmd_to(FILE *out, int argc, char **argv, ts_error_t *err);

#endif
