/* sweep_cmd.h - `tunesim sweep`: replay one trace under every parameter set of a sets file
 * (commands/sets.h) in parallel worker processes, resumably, and rank the sets; or write a Slurm
 * job array that does the same on a cluster, and merge its results. */
#ifndef TS_SWEEP_CMD_H
#define TS_SWEEP_CMD_H

#include <stdio.h>

#include "../common/outfile.h"
#include "../common/status.h"

/* argv[0] is "sweep". Usage errors return TS_EUSAGE with the message in err; invalid sets are
 * printed on stderr, one line each, before err says how many there were. */
int ts_sweep_cmd(int argc, char **argv, ts_error_t *err);
/* The same with the report (the tables sweep prints) on out: how validate runs a sweep in its
 * own process, its report on stderr so that stdout holds the validation alone. also: the
 * caller's outputs (up to SWEEP_MAX_ALSO), refused like the sweep's own where one is an input
 * of the sweep. */
enum { SWEEP_MAX_ALSO = 2 };
int ts_sweep_cmd_to(FILE *out, const ts_file_use_t *also, int nalso, int argc, char **argv,
                    ts_error_t *err);

#endif
