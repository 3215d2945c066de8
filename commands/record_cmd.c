/* record_cmd.c - `tunesim record`: run an MPI command with the PMPI tracer preloaded into its
 * ranks and report where the OTF2 trace went; see record_cmd.h. */
#include "record_cmd.h"
#include "options.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/numparse.h"
#include "../traces/tracer/owner.h"

#define TRACER_LIB  "libtunesim-trace.so"
#define DEFAULT_DIR "tunesim-trace"
#define RECORD_USAGE                                                                               \
    "tunesim record [-o DIR] [--clock wall|cpu] [--exclusive[=N]] -- mpirun ARGS..."

typedef struct record_opts_s {
    const char *dir;
    const char *clock;
    const char *exclusive; /* NULL: off; "cores" or a count */
    char **command;        /* NULL-terminated, from argv */
    int help;
} record_opts_t;

static ts_status usage(ts_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* main() prints nothing for TS_EUSAGE, so the message is printed here. */
static ts_status usage(ts_error_t *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tunesim: record: %s (usage: %s)\n", msg, RECORD_USAGE);
    return ts_error_set(err, TS_EUSAGE, "record: %s", msg);
}

/* record's options; the command to run starts at the first operand (or after "--"). */
enum { RO_HELP, RO_OUTPUT, RO_CLOCK, RO_EXCLUSIVE, RO__COUNT };
static const ts_opt_t RECORD_OPTS[RO__COUNT] = {[RO_HELP] = {"help", 'h', 0},
                                                [RO_OUTPUT] = {"output", 'o', 1},
                                                [RO_CLOCK] = {"clock", 0, 1},
                                                [RO_EXCLUSIVE] = {"exclusive", 0, 2}};

static ts_status record_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    (void)err;
    record_opts_t *o = ctx;
    if (opt == RO_HELP)
        o->help = 1;
    else if (opt == RO_OUTPUT)
        o->dir = v;
    else if (opt == RO_EXCLUSIVE)
        o->exclusive = v != NULL ? v : "cores";
    else
        o->clock = v;
    return TS_OK;
}

static ts_status parse_args(int argc, char **argv, record_opts_t *o, ts_error_t *err)
{
    *o = (record_opts_t){.dir = DEFAULT_DIR, .clock = "wall"};
    int i;
    ts_error_t perr;
    ts_error_clear(&perr);
    if (ts_opts_parse_prefix("record", argc, argv, RECORD_OPTS, RO__COUNT, record_opt, o, &i,
                             &perr) != TS_OK)
        return usage(err, "%s", perr.msg + strlen("record: "));
    if (o->help)
        return TS_OK;
    if (strcmp(o->clock, "wall") != 0 && strcmp(o->clock, "cpu") != 0)
        return usage(err, "--clock must be wall or cpu, not '%s'", o->clock);
    int n = 0;
    if (o->exclusive != NULL && strcmp(o->exclusive, "cores") != 0 &&
        ts_parse_int(o->exclusive, 1, 1024, &n) != 0)
        return usage(err, "--exclusive=N needs N from 1 to 1024 ranks computing at once, not '%s'",
                     o->exclusive);
    if (o->dir[0] == '\0')
        return usage(err, "-o needs a non-empty directory");
    if (i >= argc)
        return usage(err, "missing the command to run");
    o->command = argv + i;
    return TS_OK;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The tracer library: $TUNESIM_TRACE_LIB, else next to this executable (the build dir). */
static ts_status tracer_path(char *out, size_t size, ts_error_t *err)
{
    const char *env = getenv("TUNESIM_TRACE_LIB");
    if (env != NULL && env[0] != '\0') {
        if (!is_file(env))
            return ts_error_set(err, TS_ENOENT, "TUNESIM_TRACE_LIB=%s: no such file", env);
        if (realpath(env, out) == NULL || strlen(out) >= size)
            return ts_error_set(err, TS_ENOENT, "%s: cannot resolve the path", env);
        return TS_OK;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return ts_error_set(err, TS_ENOENT, "cannot locate the tunesim executable: %s",
                            strerror(errno));
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    int len = snprintf(out, size, "%s/%s", exe, TRACER_LIB);
    if (len < 0 || (size_t)len >= size || !is_file(out))
        return ts_error_set(err, TS_ENOENT,
                            "%s/%s not found: build the tracer (it needs MPI) or set "
                            "TUNESIM_TRACE_LIB",
                            exe, TRACER_LIB);
    return TS_OK;
}

/* The ranks may run elsewhere (mpirun --wdir, OpenFOAM's -case): give them an absolute path. */
static ts_status absolute_dir(const char *dir, char *out, size_t size, ts_error_t *err)
{
    int len;
    if (dir[0] == '/') {
        len = snprintf(out, size, "%s", dir);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL)
            return ts_error_set(err, TS_EIO, "cannot read the current directory: %s",
                                strerror(errno));
        len = snprintf(out, size, "%s/%s", cwd, dir);
    }
    if (len < 0 || (size_t)len >= size)
        return ts_error_set(err, TS_EARG, "%s: path too long", dir);
    return TS_OK;
}

static int is_launcher(const char *command)
{
    const char *base = strrchr(command, '/');
    base = base ? base + 1 : command;
    return strcmp(base, "mpirun") == 0 || strcmp(base, "mpiexec") == 0 ||
           strcmp(base, "orterun") == 0;
}

/* What the ranks are told through the environment (the tracer reads it at MPI_Init). */
typedef struct record_env_s {
    const char *preload, *dir, *clock;
    const char *exclusive, *key; /* NULL when exclusive mode is off */
} record_env_t;

/* The signal that ends a recording (SIGINT, SIGTERM, SIGHUP), 0 before one: set by the
 * handler run() installs while the program runs, the one thing a handler may set. */
static volatile sig_atomic_t g_record_signal;

static void on_record_signal(int sig)
{
    if (!g_record_signal)
        g_record_signal = sig;
}

/* Wait for pid. A signal to tunesim is passed on to the program, once, and tunesim waits for
 * it to end, so that no rank goes on writing a trace after tunesim has gone: SIGTERM and
 * SIGHUP at once (tunesim alone was told, as a batch system does); SIGINT after a moment,
 * since Ctrl-C reaches mpirun too and a second SIGINT makes it print a warning. A program
 * still running 30 s later is killed. */
static int wait_child(pid_t pid, int *status)
{
    struct timespec since = {0}, now, tick = {0, 50 * 1000 * 1000};
    int passed = 0, killed = 0;
    for (;;) {
        /* Polled: a blocking wait could miss a signal that comes just before it. A signal
         * cuts the sleep short. */
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        if (!g_record_signal) {
            nanosleep(&tick, NULL);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!since.tv_sec && !since.tv_nsec)
            since = now;
        double waited = (double)(now.tv_sec - since.tv_sec) + (now.tv_nsec - since.tv_nsec) / 1e9;
        if (!passed && (g_record_signal != SIGINT || waited >= 2)) {
            kill(pid, g_record_signal == SIGINT ? SIGINT : SIGTERM);
            passed = 1;
        }
        if (!killed && waited >= 32) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        nanosleep(&tick, NULL);
    }
}

/* Run argv; wait for it. The exec error, if any, comes back through a close-on-exec pipe. A
 * signal that ends the recording leaves *signalled set to it (the program has ended too). */
static ts_status run(char *const *argv, const record_env_t *env, int set_preload, int *signalled,
                     ts_error_t *err)
{
    *signalled = 0;
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0)
        return ts_error_set(err, TS_ECHILD, "cannot create a pipe: %s", strerror(errno));
    fflush(NULL);
    /* Installed before the fork, so that no signal finds the program started and tunesim
     * without its handler; exec resets it in the child. A signal the caller ignores (a
     * background job's SIGINT) stays ignored. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old[3], sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_record_signal;
    sigemptyset(&sa.sa_mask);
    g_record_signal = 0;
    for (int i = 0; i < 3; i++)
        if (sigaction(sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    pid_t pid = fork();
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            sigaction(sigs[i], &old[i], NULL);
        close(fds[0]);
        close(fds[1]);
        return ts_error_set(err, TS_ECHILD, "cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        setenv("TUNESIM_TRACE_DIR", env->dir, 1);
        setenv("TUNESIM_TRACE_CLOCK", env->clock, 1);
        if (env->exclusive != NULL) {
            setenv("TUNESIM_TRACE_EXCLUSIVE", env->exclusive, 1);
            setenv("TUNESIM_TRACE_EXCLUSIVE_KEY", env->key, 1);
        }
        if (set_preload)
            setenv("LD_PRELOAD", env->preload, 1);
        /* The program runs as it would without tunesim, which ignores SIGXFSZ for its own
         * writes (an ignored signal stays ignored across exec). */
        signal(SIGXFSZ, SIG_DFL);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(fds[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    int status;
    int waited = wait_child(pid, &status);
    int wait_errno = errno;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    *signalled = g_record_signal;
    if (waited != 0)
        return ts_error_set(err, TS_ECHILD, "cannot wait for '%s': %s", argv[0],
                            strerror(wait_errno));
    if (*signalled)
        return ts_error_set(err, TS_ECHILD, "interrupted by signal %d", *signalled);
    if (got == (ssize_t)sizeof exec_errno)
        return ts_error_set(err, TS_ECHILD, "cannot run '%s': %s", argv[0], strerror(exec_errno));
    if (WIFSIGNALED(status))
        return ts_error_set(err, TS_ECHILD, "'%s' was killed by signal %d", argv[0],
                            WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return ts_error_set(err, TS_ECHILD, "'%s' failed with exit status %d", argv[0],
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return TS_OK;
}

/* A failed run leaves the tracer's unfinished archive in DIR/.tunesim-trace.XXXXXX (world
 * rank 0 created it at MPI_Init, the ranks died before MPI_Finalize moved it in): remove
 * those made since started, the archive's parts only (.otf2, .def, traces/ of .evt and .def
 * files). Returns how many were removed. */
static int remove_unfinished(const char *dir, time_t started)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char tmp[PATH_MAX];
        struct stat sb;
        if (strncmp(e->d_name, ".tunesim-trace.", 15) != 0)
            continue;
        if (snprintf(tmp, sizeof tmp, "%s/%s", dir, e->d_name) >= (int)sizeof tmp ||
            lstat(tmp, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_mtime < started)
            continue;
        trc_remove_archive_dir(tmp);
        n += access(tmp, F_OK) != 0;
    }
    closedir(d);
    return n;
}

int ts_record_main(int argc, char **argv, ts_error_t *err)
{
    record_opts_t o;
    ts_status st = parse_args(argc, argv, &o, err);
    if (st != TS_OK)
        return st;
    if (o.help) {
        printf("usage: %s\n"
               "  -o DIR        trace directory (default ./%s); DIR/traces.otf2 is replaced\n"
               "  --clock wall  timestamps from CLOCK_MONOTONIC (default)\n"
               "  --clock cpu   per-rank CPU time outside MPI: true compute bursts even when\n"
               "                ranks outnumber cores\n"
               "  --exclusive[=N]  at most N ranks (default: one per core) compute at once, each\n"
               "                pinned to a core of its own, and ranks waiting in MPI queue for\n"
               "                a turn instead of spinning: each burst runs as it would one\n"
               "                rank per core (docs/recording.md). Slower to record\n",
               RECORD_USAGE, DEFAULT_DIR);
        return TS_OK;
    }
    char lib[PATH_MAX], dir[PATH_MAX];
    if ((st = tracer_path(lib, sizeof lib, err)) != TS_OK ||
        (st = absolute_dir(o.dir, dir, sizeof dir, err)) != TS_OK)
        return st;

    /* Keep an LD_PRELOAD the user already has, after ours. */
    const char *old = getenv("LD_PRELOAD");
    char preload[2 * PATH_MAX + 2];
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && old[0] ? ":" : "", old ? old : "");

    /* LD_PRELOAD is a list split at blanks and colons: a tracer path holding one would load
     * pieces of it, and the run would end with no trace for a reason no message names. */
    if (strpbrk(lib, " \t:") != NULL)
        return ts_error_set(err, TS_EARG,
                            "the tracer %s: its path holds a blank or ':', which LD_PRELOAD "
                            "cannot carry (expected tunesim installed under a path without them)",
                            lib);
    int launcher = is_launcher(o.command[0]);
    int argn = 0, napps = 1;
    while (o.command[argn] != NULL) {
        /* An LD_PRELOAD the launcher sets would replace the tracer's for its ranks. */
        if (launcher && argn > 0 && strcmp(o.command[argn - 1], "-x") == 0 &&
            strncmp(o.command[argn], "LD_PRELOAD", 10) == 0 &&
            (o.command[argn][10] == '\0' || o.command[argn][10] == '='))
            return ts_error_set(err, TS_EARG,
                                "the command sets LD_PRELOAD (-x %s), which would replace the "
                                "tracer's: set it in tunesim's own environment instead (it is "
                                "kept, after the tracer)",
                                o.command[argn]);
        napps += strcmp(o.command[argn], ":") == 0;
        argn++;
    }
    /* mpirun applies -x to the application context it is in: every context of an MPMD line
     * (A : B) gets them, or B's ranks run untraced and the traced ones wait for them in
     * MPI_Init's collectives. */
    char **cmd = calloc((size_t)argn + 10 * (size_t)napps + 1, sizeof *cmd);
    char x_preload[sizeof preload + 16], x_dir[PATH_MAX + 32], x_clock[64], x_excl[64], x_key[96],
        key[64];
    /* A fresh name per run for the tokens' shared memory, removed at the end even when the
     * ranks die before they can remove it. */
    snprintf(key, sizeof key, "/tunesim-excl-%ld-%ld", (long)getpid(), (long)time(NULL));
    record_env_t env = {.preload = preload,
                        .dir = dir,
                        .clock = o.clock,
                        .exclusive = o.exclusive,
                        .key = o.exclusive != NULL ? key : NULL};
    if (cmd == NULL)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    /* NAME=VALUE forms, so that mpirun itself does not load the tracer (and libmpi). */
    snprintf(x_preload, sizeof x_preload, "LD_PRELOAD=%s", preload);
    snprintf(x_dir, sizeof x_dir, "TUNESIM_TRACE_DIR=%s", dir);
    snprintf(x_clock, sizeof x_clock, "TUNESIM_TRACE_CLOCK=%s", o.clock);
    snprintf(x_excl, sizeof x_excl, "TUNESIM_TRACE_EXCLUSIVE=%s", o.exclusive ? o.exclusive : "");
    snprintf(x_key, sizeof x_key, "TUNESIM_TRACE_EXCLUSIVE_KEY=%s", key);
    char *xs[] = {"-x", x_preload, "-x", x_dir, "-x", x_clock, "-x", x_excl, "-x", x_key};
    int nxs = o.exclusive != NULL ? 10 : 6;
    int k = 0;
    cmd[k++] = o.command[0];
    for (int j = 0; launcher && j < nxs; j++)
        cmd[k++] = xs[j];
    for (int i = 1; i < argn; i++) {
        cmd[k++] = o.command[i];
        for (int j = 0; launcher && strcmp(o.command[i], ":") == 0 && j < nxs; j++)
            cmd[k++] = xs[j];
    }
    cmd[k] = NULL;

    /* The tracer writes DIR/traces.otf2 and its directories: a DIR that is a file, or an
     * existing DIR it cannot write into, would only show after the whole run. */
    struct stat ds;
    if (stat(dir, &ds) == 0 && !S_ISDIR(ds.st_mode)) {
        free(cmd);
        return ts_error_set(err, TS_EARG,
                            "-o %s: not a directory (expected a directory for the "
                            "trace, made if missing)",
                            dir);
    }
    if (stat(dir, &ds) == 0 && access(dir, W_OK | X_OK) != 0) {
        free(cmd);
        return ts_error_set(err, TS_EARG, "-o %s: %s (expected a directory the program can write)",
                            dir, strerror(errno));
    }
    /* A trace tunesim did not write is not replaced (the tracer refuses it too). */
    if (trc_foreign_archive(dir)) {
        free(cmd);
        return ts_error_set(err, TS_EARG,
                            "%s holds a trace tunesim did not write (Score-P's perhaps): it is "
                            "kept; record into another directory with -o DIR",
                            dir);
    }
    /* The file system's clock, for the new trace's times: files take the kernel's coarse
     * clock, up to a tick behind, hence the 50 ms (no launch of MPI ranks takes less). */
    struct timespec t0;
    clock_gettime(CLOCK_REALTIME, &t0);
    time_t started = t0.tv_sec;
    t0.tv_nsec -= 50 * 1000 * 1000;
    if (t0.tv_nsec < 0) {
        t0.tv_nsec += 1000 * 1000 * 1000;
        t0.tv_sec--;
    }
    int made_dir = stat(dir, &ds) != 0; /* the tracer makes it */
    int signalled;
    st = run(cmd, &env, !launcher, &signalled, err);
    free(cmd);
    if (o.exclusive != NULL)
        shm_unlink(key); /* normally gone already: the last rank removes it */
    if (signalled) {
        /* The program has ended: what it left unfinished goes, then tunesim dies of the signal
         * as the program did (a complete trace, moved in before the signal, stays). */
        remove_unfinished(dir, started);
        if (made_dir)
            rmdir(dir); /* only when empty */
        signal(signalled, SIG_DFL);
        raise(signalled);
        return st;
    }
    /* The tracer replaces a trace only once MPI_Finalize has written the new one, so an
     * anchor older than this run means the tracer never completed in it. */
    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    struct stat sb;
    int complete = stat(anchor, &sb) == 0 &&
                   (sb.st_mtim.tv_sec > t0.tv_sec ||
                    (sb.st_mtim.tv_sec == t0.tv_sec && sb.st_mtim.tv_nsec >= t0.tv_nsec));
    if (st != TS_OK) {
        size_t len = strlen(err->msg);
        if (complete) { /* it failed after MPI_Finalize: the trace is whole, and it is in */
            snprintf(err->msg + len, sizeof err->msg - len,
                     " after its ranks finished MPI: its complete trace was written to %s, "
                     "replacing any there",
                     anchor);
            return st;
        }
        /* The previous trace, if any, is untouched; a directory the tracer made goes. */
        int removed = remove_unfinished(dir, started);
        if (made_dir && rmdir(dir) == 0)
            removed++;
        if (removed)
            snprintf(err->msg + len, sizeof err->msg - len,
                     "; its unfinished trace was removed, %s is as it was", dir);
        return st;
    }
    if (!complete) {
        remove_unfinished(dir, started);
        /* Where the file system is full or read-only, the tracer was loaded but could not
         * write: say that rather than guess at linking. */
        struct statvfs fs;
        if (statvfs(dir, &fs) == 0 && (fs.f_flag & ST_RDONLY))
            return ts_error_set(err, TS_EIO,
                                "'%s' finished but wrote no trace to %s: %s is on a read-only "
                                "file system (expected a writable directory)",
                                o.command[0], anchor, dir);
        if (statvfs(dir, &fs) == 0 && fs.f_bavail == 0)
            return ts_error_set(err, TS_EIO,
                                "'%s' finished but wrote no trace to %s: the file system of %s "
                                "is full (expected room for the trace)",
                                o.command[0], anchor, dir);
        return ts_error_set(err, TS_ECHILD,
                            "'%s' finished but wrote no trace to %s: the tracer was not loaded "
                            "or MPI_Finalize was not reached (is the program linked with this "
                            "Open MPI's libmpi? A Fortran program's calls go to PMPI directly "
                            "and are not traced)",
                            o.command[0], anchor);
    }
    char mode[64] = "";
    if (o.exclusive != NULL)
        snprintf(mode, sizeof mode, ", exclusive=%s", o.exclusive);
    char sa[4200], sd[4200];
    printf("trace written to %s (clock %s%s); see it with: tunesim info %s\n",
           ts_shown(anchor, sa, sizeof sa), o.clock, mode, ts_shown(dir, sd, sizeof sd));
    return TS_OK;
}
