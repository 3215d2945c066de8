/* imb_cmd.h - `tunesim imb`: IMB-MPI1's Alltoall, Allgather, Allreduce, Exchange and PingPong
 * tables predicted for a cluster shape under one parameter set or every set of a sets file. */
#ifndef TS_IMB_CMD_H
#define TS_IMB_CMD_H

#include "../common/status.h"

/* argv[0] is "imb". Usage errors return TS_EUSAGE with the message in err. */
int ts_imb_cmd(int argc, char **argv, ts_error_t *err);

#endif
