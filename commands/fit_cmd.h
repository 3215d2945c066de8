/* fit_cmd.h - `tunesim fit`: learn the uncertain model parameters (params/params_prior.h)
 * from measured runs of the traced application. Each measured setting of the sets file is
 * replayed (scaled to the full run with the first set's profile, as sweep does) and the
 * parameters are moved, by penalised least squares (calibration/fit.h), until the predicted
 * run times match the measured ones within their spread, with each run's own profile, where
 * given, constraining how each MPI function's time changes against the first set's. Prints
 * every parameter before and after with its uncertainty and whether it stayed inside its
 * prior range, the runs' residuals, the leave-one-out error (three runs or more) and the
 * prediction of every set that was not measured, with an interval; writes a model file for
 * --model. Refuses, writing nothing, when a measured run stays unexplained. */
#ifndef TS_FIT_CMD_H
#define TS_FIT_CMD_H

#include "../common/status.h"

/* argv[0] is "fit". Usage errors return TS_EUSAGE with the message in err. */
int ts_fit_cmd(int argc, char **argv, ts_error_t *err);

#endif
