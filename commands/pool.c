/* pool.c - forked workers that each run one task (what and why: pool.h). A worker writes 'R'
 * and its answer, or 'E' and its error, into its pipe and exits; the parent reads the pipes
 * as they fill (an answer may be larger than a pipe holds) and reaps each worker once its pipe
 * has ended. */
#include "pool.h"

#include "../common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct worker_s {
    pid_t pid;
    int fd;
    int task;
    char *buf;
    size_t len, cap;
} worker_t;

static void worker_main(const ts_pool_t *p, int task, int fd)
{
    ts_error_t e;
    ts_error_clear(&e);
    char *answer = p->work(p->ctx, task, &e);
    ts_status st = TS_OK;
    if (answer) {
        if (ts_write_all(fd, "R", 1) != TS_OK || ts_write_all(fd, answer, strlen(answer)) != TS_OK)
            st = TS_EIO;
    } else {
        const char *msg = e.msg[0] ? e.msg : ts_status_message(e.code);
        if (ts_write_all(fd, "E", 1) == TS_OK)
            ts_write_all(fd, msg, strlen(msg));
        st = TS_EIO;
    }
    close(fd);
    /* No exit handlers: they belong to the parent (its temporary files, its stdio). */
    _exit(st == TS_OK ? 0 : 1);
}

/* A worker's pipe reached its end: reap it and hand its answer on. */
static ts_status finish_worker(const ts_pool_t *p, worker_t *w, int *failed, ts_error_t *err)
{
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    char *text = w->buf ? w->buf : "";
    if (w->buf)
        w->buf[w->len] = '\0';
    char why[512];
    const char *answer = NULL, *error = why;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && text[0] == 'R')
        answer = text + 1;
    else if (WIFEXITED(status) && text[0] == 'E')
        error = text + 1;
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "worker (pid %d) killed by signal %d (%s)", (int)w->pid,
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "worker (pid %d) exited with status %d without a result",
                 (int)w->pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    *failed = 0;
    ts_status st = p->done(p->ctx, w->task, answer, answer ? NULL : error, failed, err);
    free(w->buf);
    close(w->fd);
    memset(w, 0, sizeof *w);
    w->fd = -1;
    return st;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fmt_dur(char *buf, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void progress(const ts_pool_t *p, int tty, int done, int failed, int total, int ran,
                     int left, double t0, int final)
{
    if (!tty)
        return;
    char el[32], eta[32] = "?";
    double elapsed = now_s() - t0;
    fmt_dur(el, sizeof el, elapsed);
    if (ran > 0)
        fmt_dur(eta, sizeof eta, elapsed / ran * left);
    fprintf(stderr, "\r\033[K%s: %d/%d %s done%s%.0d%s, elapsed %s, remaining ~%s", p->who, done,
            total, p->what, failed ? " (" : "", failed, failed ? " failed)" : "", el,
            left ? eta : "0:00");
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

void ts_pool_clear_line(void)
{
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K");
}

static ts_status start_worker(const ts_pool_t *p, worker_t *wk, int task, ts_error_t *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return ts_error_set(err, TS_EIO, "%s: cannot create a pipe: %s", p->who, strerror(errno));
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ts_error_set(err, TS_EIO, "%s: cannot start a worker: %s", p->who, strerror(errno));
    }
    if (pid == 0) {
        /* A worker ends with its parent, however the parent ends (SIGTERM, SIGKILL, a crash):
         * left running it would finish a replay nobody reads. SIGTERM, so that its handler
         * (common/tmpfiles.h) removes the replay's platform file first. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        close(fds[0]);
        worker_main(p, task, fds[1]);
    }
    close(fds[1]);
    *wk = (worker_t){.pid = pid, .fd = fds[0], .task = task};
    return TS_OK;
}

/* Read what a worker has written so far; 1 once its pipe has ended (the worker is done and
 * finish_worker may reap it), 0 while more may come or on an error (*st says which). */
static int read_worker(worker_t *wk, ts_status *st, ts_error_t *err)
{
    if (wk->cap - wk->len < 65536) {
        size_t cap = wk->cap ? 2 * wk->cap : 131072;
        char *b = realloc(wk->buf, cap + 1);
        if (!b) {
            *st = ts_error_set(err, TS_ENOMEM, "out of memory");
            return 0;
        }
        wk->buf = b;
        wk->cap = cap;
    }
    ssize_t got = read(wk->fd, wk->buf + wk->len, wk->cap - wk->len);
    if (got > 0) {
        wk->len += (size_t)got;
        return 0;
    }
    return !(got < 0 && errno == EINTR);
}

ts_status ts_pool_run(const ts_pool_t *p, const int *todo, int ntodo, int already, ts_error_t *err)
{
    int jobs = p->jobs > 0 ? p->jobs : 1;
    worker_t *w = calloc((size_t)jobs, sizeof *w);
    struct pollfd *pfd = calloc((size_t)jobs, sizeof *pfd);
    int *map = calloc((size_t)jobs, sizeof *map);
    if (!w || !pfd || !map) {
        free(w);
        free(pfd);
        free(map);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    int tty = isatty(STDERR_FILENO), total = already + ntodo, done = already;
    double t0 = now_s();
    int next = 0, running = 0, finished = 0, failed = 0;
    ts_status st = TS_OK;
    for (int j = 0; j < jobs; j++)
        w[j].fd = -1;
    progress(p, tty, done, failed, total, 0, ntodo, t0, 0);
    while (st == TS_OK && (next < ntodo || running)) {
        for (int j = 0; j < jobs && next < ntodo && st == TS_OK; j++) {
            if (w[j].fd >= 0)
                continue;
            if ((st = start_worker(p, &w[j], todo[next], err)) != TS_OK)
                break;
            next++;
            running++;
        }
        if (!running)
            break;
        int np = 0;
        for (int j = 0; j < jobs; j++)
            if (w[j].fd >= 0) {
                pfd[np] = (struct pollfd){.fd = w[j].fd, .events = POLLIN};
                map[np++] = j;
            }
        int r = poll(pfd, (nfds_t)np, tty ? 1000 : -1);
        if (r < 0 && errno != EINTR) {
            st = ts_error_set(err, TS_EIO, "%s: poll: %s", p->who, strerror(errno));
            break;
        }
        for (int k = 0; k < np && r > 0 && st == TS_OK; k++) {
            if (!pfd[k].revents)
                continue;
            worker_t *wk = &w[map[k]];
            if (!read_worker(wk, &st, err))
                continue;
            int bad = 0;
            st = finish_worker(p, wk, &bad, err);
            running--;
            finished++;
            failed += bad;
            done += !bad;
        }
        progress(p, tty, done, failed, total, finished, ntodo - finished, t0, 0);
    }
    progress(p, tty, done, failed, total, finished, ntodo - finished, t0, 1);
    /* On an error of our own, stop the workers still running; their tasks stay to do. */
    for (int j = 0; j < jobs; j++)
        if (w[j].fd >= 0) {
            kill(w[j].pid, SIGTERM);
            while (waitpid(w[j].pid, NULL, 0) < 0 && errno == EINTR)
                ;
            close(w[j].fd);
            free(w[j].buf);
        }
    free(w);
    free(pfd);
    free(map);
    return st;
}
