/* calibrate_cmd.h - `tunesim calibrate INPUTS... -o FILE [--platform NAME] [-x K=V]
 * [--mca K V] [--set K=V] [--model FILE]`: read OSU / IMB / tunesim-probe outputs, fit the
 * model parameters (calibration/calibrate.h), write the model file and print the report. */
#ifndef TS_CALIBRATE_CMD_H
#define TS_CALIBRATE_CMD_H

#include <stdio.h>

#include "../common/status.h"

#define TS_CALIBRATE_CMD_USAGE                                                                     \
    "  calibrate INPUTS... -o FILE [--platform NAME] [-x KEY=VALUE] [--set KEY=VALUE]\n"           \
    "            [--model FILE]      fit model parameters to OSU / IMB / tunesim-probe\n"          \
    "                                    outputs; write a model file (--model) and a report"

/* argv[0] is "calibrate". The report goes to out. TS_EUSAGE for a bad command line; other
 * errors (unreadable or malformed inputs, nothing to fit, the output) with one line in err;
 * no output file is left on error. */
int ts_calibrate_cmd(FILE *out, int argc, char **argv, ts_error_t *err);

#endif
