/* locality.h - how close two ranks are, the vocabulary shared by the placement (which
 * computes it, platforms/placement.h) and the models (which price messages by it). */
#ifndef TS_LOCALITY_H
#define TS_LOCALITY_H

typedef enum ts_locality {
    TS_LOC_SELF = 0,     /* the same rank */
    TS_LOC_SAME_NUMA,    /* same node and NUMA domain */
    TS_LOC_SAME_SOCKET,  /* same socket, another NUMA domain (only with NPS > 1) */
    TS_LOC_CROSS_SOCKET, /* same node, another socket (across UPI) */
    TS_LOC_SAME_LEAF,    /* another node under the same leaf switch */
    TS_LOC_CROSS_SPINE,  /* another node under another leaf: through the spine */
    TS_LOC__COUNT
} ts_locality;

/* "self", "same_numa", "same_socket", "cross_socket", "same_leaf", "cross_spine". */
const char *ts_locality_name(ts_locality loc);

#endif
