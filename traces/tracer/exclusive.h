/* exclusive.h - the tracer's exclusive mode (private to the tracer): each compute burst runs
 * as it would with a core to itself, although the ranks outnumber the cores.
 *
 * Why: 72 ranks time-sharing 2 cores put random extra time into every compute burst (a burst
 * descheduled in the middle resumes with cold caches; docs/recording-noise.md), and the
 * replay turns that noise into imbalance the real run, one rank per core, does not have.
 *
 * How: the ranks of one host share N tokens (default: the CPUs its launcher may run on),
 * handed out first come, first served; only a rank holding one runs, so at most N run at
 * once and each has a core of its own (the token's, by CPU affinity). A rank holds its token
 * while it computes and through calls that return at once (Isend, Test, ...). A blocking
 * call is made as its non-blocking form and a polite wait: test; if unfinished, give the
 * token to the next rank in the queue and test again at the next turn. So a waiting rank
 * never spins beside a computing one, and a call whose partners are there completes without
 * a hand-over. Blocking calls without a polite form (communicator creation,
 * Sendrecv_replace, MPI_Finalize) give the token up for their whole length. The MPI call
 * durations of such a trace are the recording host's turns, not the cluster's waits; the
 * replay replaces them anyway.
 *
 * Environment (read at MPI_Init): TUNESIM_TRACE_EXCLUSIVE = N or "cores" (unset or 0: off);
 * TUNESIM_TRACE_EXCLUSIVE_KEY, the name of the shared segment (`tunesim record` sets a fresh
 * one per run; default derived from the user, Open MPI's job id and the trace directory);
 * TUNESIM_TRACE_PIN = 0 to leave CPU affinity alone (default 1). */
#ifndef TRC_EXCLUSIVE_H
#define TRC_EXCLUSIVE_H

#include <stddef.h>

#include <mpi.h>

typedef struct trc_excl_shared_s trc_excl_shared_t;

typedef struct trc_excl_s {
    int on;
    int slot;                  /* the token this rank holds (its index), or -1 */
    int last_slot;             /* the token it held last (its CPU's caches are warm) */
    int pinned_cpu;            /* the CPU this thread was last pinned to, or -1 */
    int pin;                   /* pin a token's holder to the token's CPU */
    unsigned long token_waits; /* times a rank found no free token (statistics) */
    trc_excl_shared_t *shared; /* the host's segment (mmap'ed) */
    char key[96];              /* its name */
} trc_excl_t;

/* Read the environment and, if exclusive mode is asked for, attach to (or create) the host's
 * segment. Returns 0 (on or off), or -1 with a one-line message (the mode is then off). */
int trc_excl_start(trc_excl_t *e, const char *trace_dir, char *msg, size_t len);
/* Detach; the last rank of the host to leave removes the segment. */
void trc_excl_stop(trc_excl_t *e);

/* Give the token back (a blocking call that waits without a polite form). */
void trc_excl_release(trc_excl_t *e);
/* Take a token if this rank holds none (sleeping until its turn) and its CPU: before a
 * recorded call's Leave record, so that the burst after it is all computing. */
void trc_excl_acquire(trc_excl_t *e);

/* Complete a request politely: PMPI_Test and turns, the same result as PMPI_Wait; with e NULL
 * or the mode off, PMPI_Wait itself (likewise below). */
int trc_excl_wait(trc_excl_t *e, MPI_Request *request, MPI_Status *status);
/* As PMPI_Waitall, PMPI_Waitany, PMPI_Waitsome and PMPI_Probe, politely. */
int trc_excl_waitall(trc_excl_t *e, int count, MPI_Request *requests, MPI_Status *statuses);
int trc_excl_waitany(trc_excl_t *e, int count, MPI_Request *requests, int *index,
                     MPI_Status *status);
int trc_excl_waitsome(trc_excl_t *e, int count, MPI_Request *requests, int *outcount, int *indices,
                      MPI_Status *statuses);
int trc_excl_probe(trc_excl_t *e, int source, int tag, MPI_Comm comm, MPI_Status *status);

/* rc of a non-blocking call that posted *request, followed by a polite wait for it: the body
 * of a blocking call in exclusive mode. */
int trc_excl_finish(trc_excl_t *e, int rc, MPI_Request *request, MPI_Status *status);

#endif
