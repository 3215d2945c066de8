/* params_args.h - parameters set the way users write them on a command line: mpirun's
 * -x KEY=VALUE and --mca KEY VALUE, tunesim's --set KEY=VALUE and --model FILE, and a whole
 * pasted mpirun command line. Each value is checked by the parameter table (params.h). */
#ifndef TS_PARAMS_ARGS_H
#define TS_PARAMS_ARGS_H

#include "../common/status.h"
#include "params.h"

/* Parse command-line words: -x KEY=VALUE, -x KEY (the value of KEY in this environment),
 * --mca KEY VALUE (also -mca), --set KEY=VALUE, the what-ifs --link-speed RATE,
 * --memory-bandwidth BW, --cpu-clock GHZ and --balance F (model.net.link_speed,
 * model.cpu.memory_bandwidth, model.cpu.clock, model.cpu.balance; F also as a percentage),
 * --model FILE (a calibration's model file,
 * params/model_file.h: applied before every other setting, so those override it). Later
 * settings win. -x of a variable that is
 * not a parameter and does not look like one (no UCX_ / OMPI_MCA_ prefix, any case) is the
 * application's environment and is skipped. Words it does not know are left for the caller:
 * consumed[i] is set to 1 for each word used (consumed has argc entries). consumed may be
 * NULL: then an unknown word is an error (TS_EUSAGE). A bad name or value is TS_EARG. On
 * error p is unchanged. */
/* The parameter a what-if option sets ("--link-speed": "model.net.link_speed"), or NULL. */
const char *ts_params_whatif_param(const char *option);

ts_status ts_params_parse_args(ts_params_t *p, int argc, char **argv, unsigned char *consumed,
                               ts_error_t *err);

/* Placement facts found in a pasted mpirun line (-n/-np, -N / --npernode / ppr:N:node,
 * --map-by). Zero or NULL where absent. */
typedef struct ts_mpirun_info_s {
    int ranks;
    int ppn;
    int nodes; /* from -H / --host host lists or srun's -N; 0 where the line does not say */
    char map_by[32];
    char note[200]; /* what the line says that tunesim does not use (a host file), or "" */
} ts_mpirun_info_t;

/* Parse a whole command line as users paste it (shell quoting understood): leading
 * NAME=VALUE words and sudo / env / time / nice prefixes, then Open MPI's launcher (mpirun,
 * mpiexec, orterun, prterun, also as mpirun.openmpi and the like) or Slurm's srun. Its -x /
 * --mca settings (srun: --export) go into p, placement facts into info (may be NULL); the
 * program and its arguments are ignored. A launcher it does not model (mpiexec.hydra, Intel
 * MPI's and MPICH's), a line without a launcher, and an option it does not know fail naming
 * them. On error p is unchanged. */
ts_status ts_params_parse_mpirun(ts_params_t *p, const char *cmdline, ts_mpirun_info_t *info,
                                 ts_error_t *err);

#endif
