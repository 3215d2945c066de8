/* gnuplot.c - pictures drawn by gnuplot in a scratch directory (what and why: gnuplot.h). */
#include "gnuplot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "../common/tmpfiles.h"

/* gnuplot's path by $PATH (unset or empty: "/usr/bin:/bin") into exe; 1 when found. The
 * program run is the one found here, so that the check before a run and the run itself agree
 * (execlp reads an empty PATH otherwise). */
static int find_gnuplot(char *exe, size_t n)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    int found = 0;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(exe, n, "%s/gnuplot", *d ? d : ".");
        found = access(exe, X_OK) == 0;
    }
    free(copy);
    return found;
}

int ts_gnuplot_available(void)
{
    char exe[4096];
    return find_gnuplot(exe, sizeof exe);
}

void ts_gnuplot_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', fp);
        /* A newline would end the string and start a command of gnuplot's own: a file name
         * in a title must not be able to run one. */
        fputc(iscntrl((unsigned char)*s) ? '?' : *s, fp);
    }
    fputc('\'', fp);
}

/* Run gnuplot on script; its complaints go to log. */
static ts_status run_gnuplot(const char *who, const char *script, const char *log, ts_error_t *err)
{
    char exe[4096];
    if (!find_gnuplot(exe, sizeof exe))
        return ts_error_set(err, TS_EIO, "%s: gnuplot is not in PATH", who);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return ts_error_set(err, TS_EIO, "%s: cannot start gnuplot: %s", who, strerror(errno));
    if (pid == 0) {
        /* gnuplot ends with tunesim, however tunesim ends (an interrupt removes the scratch
         * directory it writes in). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        signal(SIGXFSZ, SIG_DFL); /* tunesim's own choice (tmpfiles.h), not gnuplot's */
        FILE *l = freopen(log, "w", stderr);
        (void)l;
        if (!freopen("/dev/null", "w", stdout)) {
        }
        execl(exe, "gnuplot", script, (char *)NULL);
        fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return ts_error_set(err, TS_EIO, "%s: waiting for gnuplot: %s", who, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return TS_OK;
    char first[300] = "";
    FILE *l = fopen(log, "r");
    /* gnuplot's message ends with the line that names the problem: keep the last one. */
    char line[300];
    while (l && fgets(line, sizeof line, l))
        if (line[0] != '\n' && strspn(line, " \t^\n") != strlen(line))
            snprintf(first, sizeof first, "%s", line);
    if (l)
        fclose(l);
    first[strcspn(first, "\n")] = '\0';
    return ts_error_set(err, TS_ECHILD, "%s: gnuplot failed%s%s", who, first[0] ? ": " : "", first);
}

ts_status ts_gnuplot_close(FILE *fp, const char *path, ts_error_t *err)
{
    /* ferror too: a write that failed inside an earlier flush leaves fclose nothing to fail. */
    errno = 0;
    int bad = ferror(fp);
    int e = errno;
    if (fclose(fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    return bad ? ts_error_set(err, TS_EIO, "%s: write failed: %s", path,
                              e ? strerror(e) : "error on the stream")
               : TS_OK;
}

/* Whether the picture gnuplot wrote at path is whole and on disk. gnuplot does not check its
 * own writes: on a full disk it leaves an SVG without its closing tag, a PNG without its end
 * chunk, and exits 0. Synced here, so that a write the file system defers fails now. */
static int picture_complete(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat sb;
    unsigned char tail[64];
    ssize_t n = 0;
    int ok = fstat(fd, &sb) == 0 && sb.st_size > 0 && fsync(fd) == 0;
    if (ok) {
        off_t at = sb.st_size > (off_t)sizeof tail ? sb.st_size - (off_t)sizeof tail : 0;
        n = pread(fd, tail, sizeof tail, at);
        ok = n > 0;
    }
    close(fd);
    size_t len = strlen(path);
    if (ok && len > 4 && strcmp(path + len - 4, ".svg") == 0) {
        while (n > 0 && strchr(" \t\r\n", tail[n - 1]))
            n--;
        ok = n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
    } else if (ok && len > 4 && strcmp(path + len - 4, ".png") == 0) {
        static const unsigned char iend[] = {0,   0,   0,    0,    'I',  'E',
                                             'N', 'D', 0xae, 0x42, 0x60, 0x82};
        ok = n >= (ssize_t)sizeof iend && memcmp(tail + n - sizeof iend, iend, sizeof iend) == 0;
    }
    return ok;
}

/* Remove dir's files (the scratch directory holds plain files only) and dir. */
static void remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    ts_tmp_forget(dir);
}

/* A picture written to an output that is no plain file (a link: through it; a FIFO or a
 * device: into it) the way ts_outfile writes every other output, not renamed over it. */
static ts_status copy_into(const char *from, const char *to, ts_error_t *err)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return ts_error_set(err, TS_EIO, "%s: cannot read: %s", from, strerror(errno));
    ts_outfile_t *of;
    ts_status st = ts_outfile_open(to, &of, err);
    if (st == TS_OK) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, ts_outfile_stream(of));
        st = ferror(in) ? (ts_outfile_abort(of), ts_error_set(err, TS_EIO, "%s: read error", from))
                        : ts_outfile_commit(of, err);
    }
    fclose(in);
    return st;
}

ts_status ts_gnuplot_render(const char *who, const char *prefix, ts_gnuplot_write_fn write,
                            void *ctx, const char *const (*outputs)[2], int noutputs,
                            ts_error_t *err)
{
    if (!ts_gnuplot_available())
        return ts_error_set(err, TS_EIO,
                            "%s needs gnuplot, which is not installed "
                            "(Debian: apt-get install gnuplot-nox)",
                            who);
    /* The scratch directory sits beside PREFIX so that the pictures move in by rename. */
    char dir[4096];
    const char *slash = strrchr(prefix, '/');
    int dlen = slash ? (int)(slash - prefix) : 0;
    snprintf(dir, sizeof dir, "%.*s%s.tunesim-plot.XXXXXX", dlen, prefix, slash ? "/" : "");
    if (slash && dlen == 0)
        snprintf(dir, sizeof dir, "/.tunesim-plot.XXXXXX");
    if (!mkdtemp(dir))
        return ts_error_set(err, TS_EIO, "%s: cannot create a directory beside it: %s", prefix,
                            strerror(errno));
    char abs[4096];
    if (!realpath(dir, abs))
        snprintf(abs, sizeof abs, "%s", dir);
    ts_tmp_register(abs, 1); /* an interrupt removes it */
    ts_status st = write(ctx, abs, err);
    char script[4200], log[4200];
    snprintf(script, sizeof script, "%s/plot.gp", abs);
    snprintf(log, sizeof log, "%s/gnuplot.log", abs);
    if (st == TS_OK)
        st = run_gnuplot(who, script, log, err);
    /* Every picture checked before any is renamed: a failed plot replaces none of them. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < noutputs && st == TS_OK; i++) {
            char from[4300], to[4300];
            snprintf(from, sizeof from, "%s/%s", abs, outputs[i][0]);
            snprintf(to, sizeof to, "%s%s", prefix, outputs[i][1]);
            struct stat sb;
            if (pass == 1) {
                struct stat lb;
                if (lstat(to, &lb) == 0 && !S_ISREG(lb.st_mode))
                    st = copy_into(from, to, err); /* a link, FIFO or device: as --csv's */
                else if (rename(from, to) != 0)
                    st = ts_error_set(err, TS_EIO, "%s: cannot write: %s", to, strerror(errno));
            } else if (stat(from, &sb) != 0 || sb.st_size == 0)
                st = ts_error_set(err, TS_ECHILD, "%s: gnuplot wrote no %s", who, outputs[i][0]);
            else if (!picture_complete(from))
                st = ts_error_set(err, TS_EIO,
                                  "%s: gnuplot wrote an incomplete %s (a full disk?); no "
                                  "picture replaced",
                                  to, outputs[i][0]);
        }
    remove_scratch(abs);
    return st;
}
