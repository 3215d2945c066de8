/* tmpfiles.c - temporary files removed on SIGINT, SIGTERM and the like (what and why:
 * tmpfiles.h). */
#include "tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_TMP = 16 };

/* The one mutable global outside main: a signal handler can reach no state it is not given,
 * and the paths to remove are only known to the modules that create them. */
static struct tmp_entry {
    volatile sig_atomic_t used;
    pid_t owner;
    int is_dir;
    char path[PATH_MAX];
} registry[MAX_TMP];

const char *ts_tmp_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

ts_status ts_tmp_file(const char *prefix, const char *suffix, char *buf, size_t n, ts_error_t *err)
{
    int len = snprintf(buf, n, "%s/%s.XXXXXX%s", ts_tmp_dir(), prefix, suffix);
    if (len < 0 || (size_t)len >= n)
        return ts_error_set(err, TS_EIO, "%s: temporary directory name too long", ts_tmp_dir());
    int fd = mkstemps(buf, (int)strlen(suffix));
    if (fd < 0)
        return ts_error_set(err, TS_EIO, "%s: cannot create a temporary file: %s", ts_tmp_dir(),
                            strerror(errno));
    close(fd);
    ts_tmp_register(buf, 0);
    return TS_OK;
}

FILE *ts_tmp_stream(const char *prefix, const char *suffix, char *buf, size_t n, ts_error_t *err)
{
    int len = snprintf(buf, n, "%s/%s.XXXXXX%s", ts_tmp_dir(), prefix, suffix);
    if (len < 0 || (size_t)len >= n) {
        ts_error_set(err, TS_EIO, "%s: temporary directory name too long", ts_tmp_dir());
        return NULL;
    }
    int fd = mkstemps(buf, (int)strlen(suffix));
    if (fd < 0) {
        ts_error_set(err, TS_EIO, "%s: cannot create a temporary file: %s", ts_tmp_dir(),
                     strerror(errno));
        return NULL;
    }
    unlink(buf);
    FILE *fp = fdopen(fd, "w+");
    if (!fp) {
        ts_error_set(err, TS_EIO, "%s: cannot open: %s", buf, strerror(errno));
        close(fd);
    }
    return fp;
}

void ts_tmp_register(const char *path, int is_dir)
{
    if (strlen(path) >= PATH_MAX)
        return;
    for (int i = 0; i < MAX_TMP; i++)
        if (!registry[i].used) {
            registry[i].owner = getpid();
            registry[i].is_dir = is_dir;
            memcpy(registry[i].path, path, strlen(path) + 1);
            registry[i].used = 1; /* last: the handler sees a complete entry or none */
            return;
        }
}

void ts_tmp_forget(const char *path)
{
    pid_t me = getpid();
    for (int i = 0; i < MAX_TMP; i++)
        if (registry[i].used && registry[i].owner == me && strcmp(registry[i].path, path) == 0)
            registry[i].used = 0;
}

void ts_tmp_remove(const char *path)
{
    /* A registered directory (emptied by its owner) goes with rmdir: unlink refuses it. */
    if (unlink(path) != 0 && (errno == EISDIR || errno == EPERM))
        rmdir(path);
    ts_tmp_forget(path);
}

/* Remove a directory of plain files. opendir / readdir are not on POSIX's list of
 * async-signal-safe functions, but the process is about to die and touches nothing else. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char p[PATH_MAX];
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name) < (int)sizeof p)
                unlink(p);
        closedir(d);
    }
    rmdir(dir);
}

static void on_signal(int sig)
{
    pid_t me = getpid();
    for (int i = 0; i < MAX_TMP; i++)
        if (registry[i].used && registry[i].owner == me) {
            if (registry[i].is_dir)
                remove_dir(registry[i].path);
            else
                unlink(registry[i].path);
            registry[i].used = 0;
        }
    /* Die of the signal itself, so that the parent sees how the run ended. */
    signal(sig, SIG_DFL);
    raise(sig);
}

void ts_tmp_install_handlers(void)
{
    /* Every signal whose default ends the process and that a user, a terminal, a batch system
     * or a closed pipe sends. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        /* A signal the caller ignores (a background job's SIGINT) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    /* A file grown past `ulimit -f` fails its write (EFBIG), which the writer reports and
     * cleans up after, instead of the process dying without a word. */
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(SIGXFSZ, SIG_IGN);
}
