/* exclusive.c - tokens for compute bursts and polite waits; see exclusive.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include "exclusive.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXCL_MAGIC      0x74734558u /* "tsEX" */
#define EXCL_MAX_TOKENS 1024
/* More than the ranks of one host that can wait at once (one ticket each). */
#define EXCL_QUEUE 8192
/* How long a rank waits for the host's first rank to set the segment up. */
#define ATTACH_WAIT_MS 20000

struct trc_excl_shared_s {
    uint32_t magic;
    int ready;  /* set last by the creator */
    int tokens; /* N */
    int users;  /* ranks attached */
    int ncpus;  /* CPUs the tokens are pinned to: cpus[i % ncpus] */
    int cpus[EXCL_MAX_TOKENS];
    int busy[EXCL_MAX_TOKENS]; /* 1 while token i is held */
    /* A first-come first-served queue for the tokens: ticket t may hold one once
     * t < released + tokens. Each waiter sleeps on its own word (ticket % EXCL_QUEUE), which a
     * releaser changes and wakes: no herd, and no rank can overtake the ranks before it (a
     * rank that polls and gives its token back would otherwise win it again at once). */
    uint64_t next_ticket;
    uint64_t released;
    uint32_t wake[EXCL_QUEUE];
};

static void pause_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* FNV-1a: a short name for the trace directory in the default key. */
static unsigned long hash_text(const char *s)
{
    unsigned long h = 1469598103934665603UL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211UL;
    return h;
}

static int make_key(trc_excl_t *e, const char *trace_dir, char *msg, size_t len)
{
    const char *key = getenv("TUNESIM_TRACE_EXCLUSIVE_KEY");
    if (key != NULL && key[0] != '\0') {
        if (key[0] != '/' || strchr(key + 1, '/') != NULL || strlen(key) >= sizeof e->key) {
            snprintf(msg, len,
                     "TUNESIM_TRACE_EXCLUSIVE_KEY='%s' must be '/name' of at most %zu bytes", key,
                     sizeof e->key - 1);
            return -1;
        }
        snprintf(e->key, sizeof e->key, "%s", key);
        return 0;
    }
    /* One run's ranks share the job id Open MPI gives them, and the directory. */
    const char *job = getenv("OMPI_MCA_ess_base_jobid");
    snprintf(e->key, sizeof e->key, "/tunesim-excl-%lu-%s-%lx", (unsigned long)getuid(),
             job != NULL ? job : "0", hash_text(trace_dir));
    return 0;
}

static void create_segment(trc_excl_shared_t *sh, int tokens)
{
    memset(sh, 0, sizeof *sh);
    /* The CPUs the run may use: those of the launcher that started this rank (mpirun or
     * its daemon), since mpirun may have bound this rank to one of them. */
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(getppid(), sizeof mask, &mask) == 0 ||
        sched_getaffinity(0, sizeof mask, &mask) == 0)
        for (int c = 0; c < CPU_SETSIZE && sh->ncpus < EXCL_MAX_TOKENS; c++)
            if (CPU_ISSET(c, &mask))
                sh->cpus[sh->ncpus++] = c;
    if (tokens == 0) /* "cores" */
        tokens = sh->ncpus > 0 ? sh->ncpus : 1;
    sh->tokens = tokens;
    sh->magic = EXCL_MAGIC;
    __atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
}

/* Map the host's segment, creating it if this rank is the host's first. */
static trc_excl_shared_t *attach(const char *key, int tokens, char *msg, size_t len)
{
    size_t size = sizeof(trc_excl_shared_t);
    int creator = 1;
    int fd = shm_open(key, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        creator = 0;
        fd = shm_open(key, O_RDWR, 0600);
    }
    if (fd < 0) {
        snprintf(msg, len, "exclusive mode: cannot open shared memory %s: %s", key,
                 strerror(errno));
        return NULL;
    }
    struct stat sb;
    int waited = 0;
    if (creator) {
        if (ftruncate(fd, (off_t)size) != 0) {
            snprintf(msg, len, "exclusive mode: cannot size %s: %s", key, strerror(errno));
            close(fd);
            shm_unlink(key);
            return NULL;
        }
    } else {
        while (fstat(fd, &sb) == 0 && (size_t)sb.st_size < size && waited < ATTACH_WAIT_MS) {
            pause_ns(1000000L);
            waited++;
        }
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(msg, len, "exclusive mode: cannot map %s: %s", key, strerror(errno));
        if (creator)
            shm_unlink(key);
        return NULL;
    }
    trc_excl_shared_t *sh = p;
    if (creator) {
        create_segment(sh, tokens);
    } else {
        while (!__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) && waited < ATTACH_WAIT_MS) {
            pause_ns(1000000L);
            waited++;
        }
        if (!__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) || sh->magic != EXCL_MAGIC) {
            snprintf(msg, len, "exclusive mode: %s was not set up within %d s (a stale segment?)",
                     key, ATTACH_WAIT_MS / 1000);
            munmap(p, size);
            return NULL;
        }
        if (tokens != 0 && sh->tokens != tokens) {
            snprintf(msg, len, "exclusive mode: %s holds %d tokens, this rank asked for %d", key,
                     sh->tokens, tokens);
            munmap(p, size);
            return NULL;
        }
    }
    __atomic_fetch_add(&sh->users, 1, __ATOMIC_ACQ_REL);
    return sh;
}

int trc_excl_start(trc_excl_t *e, const char *trace_dir, char *msg, size_t len)
{
    *e = (trc_excl_t){.slot = -1, .last_slot = 0, .pinned_cpu = -1};
    msg[0] = '\0';
    const char *v = getenv("TUNESIM_TRACE_EXCLUSIVE");
    if (v == NULL || v[0] == '\0' || strcmp(v, "0") == 0)
        return 0;
    int tokens = 0; /* 0: one per CPU */
    if (strcmp(v, "cores") != 0) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno != 0 || *end != '\0' || n < 1 || n > EXCL_MAX_TOKENS) {
            snprintf(msg, len,
                     "TUNESIM_TRACE_EXCLUSIVE='%s' must be 'cores' or a count 1-%d; not exclusive",
                     v, EXCL_MAX_TOKENS);
            return -1;
        }
        tokens = (int)n;
    }
    if (make_key(e, trace_dir, msg, len) != 0)
        return -1;
    e->shared = attach(e->key, tokens, msg, len);
    if (e->shared == NULL)
        return -1;
    const char *pin = getenv("TUNESIM_TRACE_PIN");
    e->pin = (pin == NULL || strcmp(pin, "0") != 0) && e->shared->ncpus > 0;
    e->on = 1;
    if (e->shared->tokens > e->shared->ncpus)
        snprintf(msg, len,
                 "exclusive mode: %d tokens for %d CPUs: some bursts share a core "
                 "(--exclusive=%d or fewer keeps them apart)",
                 e->shared->tokens, e->shared->ncpus, e->shared->ncpus);
    return 0;
}

void trc_excl_stop(trc_excl_t *e)
{
    if (!e->on)
        return;
    trc_excl_release(e);
    if (__atomic_sub_fetch(&e->shared->users, 1, __ATOMIC_ACQ_REL) == 0)
        shm_unlink(e->key);
    munmap(e->shared, sizeof *e->shared);
    e->shared = NULL;
    e->on = 0;
}

static void futex_wait(uint32_t *word, uint32_t seen)
{
    /* A bounded sleep: a lost wake-up (none is known) costs 50 ms, not a hang. */
    struct timespec limit = {0, 50000000L};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &limit, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void trc_excl_release(trc_excl_t *e)
{
    if (!e->on || e->slot < 0)
        return;
    trc_excl_shared_t *sh = e->shared;
    __atomic_store_n(&sh->busy[e->slot], 0, __ATOMIC_RELEASE);
    e->slot = -1;
    /* Admit the next ticket: the one `tokens` places behind this release. */
    uint64_t admitted =
        __atomic_fetch_add(&sh->released, 1, __ATOMIC_ACQ_REL) + (uint64_t)sh->tokens;
    uint32_t *w = &sh->wake[admitted % EXCL_QUEUE];
    __atomic_fetch_add(w, 1, __ATOMIC_ACQ_REL);
    futex_wake(w);
}

static void pin_to(trc_excl_t *e, int cpu)
{
    if (!e->pin || cpu == e->pinned_cpu)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0)
        e->pinned_cpu = cpu;
    else
        e->pin = 0; /* not allowed here (a cpuset): the scheduler places the bursts */
}

/* Queue for a token and take it; the CPU is not changed (a poll does not need it). */
static void take_turn(trc_excl_t *e)
{
    trc_excl_shared_t *sh = e->shared;
    uint64_t t = __atomic_fetch_add(&sh->next_ticket, 1, __ATOMIC_ACQ_REL);
    uint32_t *w = &sh->wake[t % EXCL_QUEUE];
    int waited = 0;
    for (;;) {
        /* Read the word before the count: a release between the two changes the word, and
         * the futex then returns at once. */
        uint32_t seen = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if (t < __atomic_load_n(&sh->released, __ATOMIC_ACQUIRE) + (uint64_t)sh->tokens)
            break;
        waited = 1;
        futex_wait(w, seen);
    }
    e->token_waits += (unsigned long)waited;
    /* At most `tokens` ranks are admitted, so one of the tokens is free; start from the one
     * this rank held last, to stay on its CPU when it can. */
    for (;;) {
        for (int k = 0; k < sh->tokens; k++) {
            int i = (e->last_slot + k) % sh->tokens;
            int expect = 0;
            if (__atomic_compare_exchange_n(&sh->busy[i], &expect, 1, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                e->slot = i;
                e->last_slot = i;
                return;
            }
        }
        sched_yield(); /* not reached: a releaser clears its token before admitting */
    }
}

void trc_excl_acquire(trc_excl_t *e)
{
    if (!e->on)
        return;
    if (e->slot < 0)
        take_turn(e);
    /* Pinned only for computing: the polls between turns would otherwise migrate the
     * thread at every turn. */
    pin_to(e, e->shared->cpus[e->slot % e->shared->ncpus]);
}

/* ---- polite waits ------------------------------------------------------------------------ */

/* Between two polls that found the call unfinished: give the token to the next rank in the
 * queue and wait for a turn again. A waiting rank thus polls only with a token, and a
 * computing rank never shares its core with a poller. */
static void next_turn(trc_excl_t *e)
{
    trc_excl_release(e);
    take_turn(e);
}

/* Repeat the test (which sets rc_ and flag_) until it fails or completes, one turn apart. */
#define POLL_POLITELY(e, test)                                                                     \
    for (;;) {                                                                                     \
        int flag_ = 0;                                                                             \
        int rc_ = (test);                                                                          \
        if (rc_ != MPI_SUCCESS || flag_)                                                           \
            return rc_;                                                                            \
        next_turn(e);                                                                              \
    }

int trc_excl_wait(trc_excl_t *e, MPI_Request *request, MPI_Status *status)
{
    if (e == NULL || !e->on)
        return PMPI_Wait(request, status);
    POLL_POLITELY(e, PMPI_Test(request, &flag_, status));
}

int trc_excl_waitall(trc_excl_t *e, int count, MPI_Request *requests, MPI_Status *statuses)
{
    if (e == NULL || !e->on)
        return PMPI_Waitall(count, requests, statuses);
    POLL_POLITELY(e, PMPI_Testall(count, requests, &flag_, statuses));
}

int trc_excl_waitany(trc_excl_t *e, int count, MPI_Request *requests, int *index,
                     MPI_Status *status)
{
    if (e == NULL || !e->on)
        return PMPI_Waitany(count, requests, index, status);
    POLL_POLITELY(e, PMPI_Testany(count, requests, index, &flag_, status));
}

int trc_excl_waitsome(trc_excl_t *e, int count, MPI_Request *requests, int *outcount, int *indices,
                      MPI_Status *statuses)
{
    if (e == NULL || !e->on)
        return PMPI_Waitsome(count, requests, outcount, indices, statuses);
    for (;;) {
        int rc = PMPI_Testsome(count, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) /* MPI_UNDEFINED: no active request */
            return rc;
        next_turn(e);
    }
}

int trc_excl_probe(trc_excl_t *e, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (e == NULL || !e->on)
        return PMPI_Probe(source, tag, comm, status);
    POLL_POLITELY(e, PMPI_Iprobe(source, tag, comm, &flag_, status));
}

int trc_excl_finish(trc_excl_t *e, int rc, MPI_Request *request, MPI_Status *status)
{
    if (rc != MPI_SUCCESS)
        return rc;
    return trc_excl_wait(e, request, status);
}
