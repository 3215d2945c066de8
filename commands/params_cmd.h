/* params_cmd.h - `tunesim params`: the parameter table (text or Markdown) and a check of
 * settings written as on an mpirun line, before any run. */
#ifndef TS_PARAMS_CMD_H
#define TS_PARAMS_CMD_H

#include <stdio.h>

#include "../common/status.h"

/* Usage lines for main's --help (no trailing newline after the last). */
#define TS_PARAMS_CMD_USAGE                                                                        \
    "  params [--markdown]               list every parameter: name, type, default, unit,\n"       \
    "                                    meaning, where the default comes from\n"                  \
    "  params --check ARGS...            check settings (-x KEY=VALUE, --mca KEY VALUE,\n"         \
    "                                    --set KEY=VALUE) and print what they change\n"            \
    "  params --mpirun 'LINE'            the same for a whole pasted mpirun command line,\n"       \
    "                                    with the rank count and placement it asks for"

/* Run `tunesim params ...`; argv[0] is "params". Writes its output on stdout.
 * Returns TS_OK (0), or a negative status with a one-line message in err: TS_EUSAGE for a
 * bad command line (unknown option, missing operand, a word that is no setting), TS_EARG
 * for a bad parameter name or value, TS_EIO when stdout cannot be written. Never exits. */
int ts_params_cmd(int argc, char **argv, ts_error_t *err);

/* The same, writing on out (for tests). */
int ts_params_cmd_to(FILE *out, int argc, char **argv, ts_error_t *err);

#endif
