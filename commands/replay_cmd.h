/* replay_cmd.h - `tunesim replay`: load a trace, a platform and a parameter set, replay the
 * trace on SimGrid (sim/engine.h) and report the prediction as text or JSON. */
#ifndef TS_REPLAY_CMD_H
#define TS_REPLAY_CMD_H

#include "../common/status.h"

/* argv[0] is "replay". Usage errors return TS_EUSAGE with the message in err. */
int ts_replay_cmd(int argc, char **argv, ts_error_t *err);

#endif
