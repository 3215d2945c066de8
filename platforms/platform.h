/* platform.h - a machine description loaded from a `.platform` file: how many nodes, sockets,
 * cores, which NUMA layouts (NPS) the BIOS offers, where the NIC sits, and the CPU speed. The
 * file format is documented at the top of platform.c and in the bundled files
 * (platforms/bm-optimized3.36.platform, platforms/localhost.platform).
 *
 * The NIC, memory and copy bandwidths and every latency are not here: they are parameters
 * (params/params_table.h), so that a sweep can vary them. The platform is the shape, plus the
 * socket-to-socket bandwidth, which no parameter covers. Nothing here calls SimGrid. */
#ifndef TS_PLATFORM_H
#define TS_PLATFORM_H

#include <stddef.h>

#include "../common/status.h"
#include "../params/params.h"

typedef struct ts_platform_s ts_platform_t;

/* The directory searched by ts_platform_open_name when it is given no directory: the source
 * tree's platforms/ (TUNESIM_PLATFORM_DIR at configure time), so nothing needs installing. */
const char *ts_platform_default_dir(void);

/* Load and validate the description at path. On success *out is a new platform owned by the
 * caller (ts_platform_close). On failure *out is NULL and err holds one line naming the file,
 * the line and the key: unknown key, bad number, duplicate or missing key, an NPS that is not
 * offered, a NIC on a socket that does not exist. */
ts_status ts_platform_open_file(const char *path, ts_platform_t **out, ts_error_t *err);

/* Load the platform called name ("bm-optimized3.36") from dir/name.platform; dir NULL means
 * ts_platform_default_dir(). A name is letters, digits, '.', '_' and '-' only. When there is
 * no such file, the error lists the platforms dir holds. Ownership as ts_platform_open_file. */
ts_status ts_platform_open_name(const char *name, const char *dir, ts_platform_t **out,
                                ts_error_t *err);

/* Either of the above: what contains a '/' or ends in ".platform" is a file path, anything
 * else a name looked up in dir (NULL: the default). Ownership as ts_platform_open_file. */
/* 1 when ts_platform_open takes name_or_path as a file (it holds a '/' or ends in .platform),
 * 0 for a platform's name: commands check such a file as one of their inputs. */
int ts_platform_is_path(const char *name_or_path);
ts_status ts_platform_open(const char *name_or_path, const char *dir, ts_platform_t **out,
                           ts_error_t *err);

/* Free a platform. Safe on NULL. */
void ts_platform_close(ts_platform_t *pf);

/* Accessors. Strings belong to the platform and live until ts_platform_close. */
const char *ts_platform_name(const ts_platform_t *pf);     /* file name without .platform */
const char *ts_platform_path(const ts_platform_t *pf);     /* the file it was loaded from */
int ts_platform_nodes(const ts_platform_t *pf);            /* default node count */
int ts_platform_sockets(const ts_platform_t *pf);          /* sockets (packages) per node */
int ts_platform_cores_per_socket(const ts_platform_t *pf); /* `auto` already resolved */
int ts_platform_cores_per_node(const ts_platform_t *pf);
int ts_platform_nps(const ts_platform_t *pf); /* default NUMA domains per socket */
/* 1 if the platform offers nps NUMA domains per socket, else 0. */
int ts_platform_nps_offered(const ts_platform_t *pf, int nps);
/* The offered NPS values as the file lists them ("1,2"). */
const char *ts_platform_nps_options(const ts_platform_t *pf);
/* Socket the network adapter hangs off, or -1 when the platform has no network (then it has
 * one node only). */
int ts_platform_nic_socket(const ts_platform_t *pf);
double ts_platform_core_speed(const ts_platform_t *pf);    /* flop/s of one core */
double ts_platform_upi_bandwidth(const ts_platform_t *pf); /* bytes/s; 0 with one socket */
/* The what-ifs' references (docs/what-if.md); 0 where the file does not give one. */
double ts_platform_link_rate(const ts_platform_t *pf);        /* the NIC's data rate, bits/s */
double ts_platform_memory_bandwidth(const ts_platform_t *pf); /* one socket's peak, bytes/s */
double ts_platform_core_clock(const ts_platform_t *pf);       /* base clock, Hz */

/* How many parameter values the file gives. */
int ts_platform_param_count(const ts_platform_t *pf);
/* Give p the platform file's parameter values (`model.net.latency = 1us` lines) for each
 * parameter p does not set explicitly (ts_params_is_set): the user's settings win. */
ts_status ts_platform_apply_params(const ts_platform_t *pf, ts_params_t *p, ts_error_t *err);

/* The SimGrid host name of a core: "n<node>c<core>", core counted 0.. within the node (cores
 * 0..cores_per_socket-1 on socket 0, and so on). Returns snprintf's result. */
int ts_platform_host_name(char *buf, size_t size, int node, int core);

#endif
