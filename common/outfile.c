/* outfile.c - atomic output files and directories (temporary name, then rename). */
#include "outfile.h"

#include "infile.h"
#include "tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ts_outfile_s {
    char *path;
    char *tmp; /* NULL when written directly (a FIFO, a terminal, /dev/null) */
    FILE *fp;
};

struct ts_outdir_s {
    char *path;
    char *tmp;
    const ts_outdir_kind_t *kind;
};

static char *tmp_name(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", path, suffix);
    return s;
}

/* The file a symbolic link names, however many links lead there; its final target may not
 * exist yet (a dangling link names the file to create). *via_proc says whether a link in
 * /proc was followed (/dev/stdout, /dev/fd/N): those name files already open, whose names
 * are not paths to create files beside. Malloc'd, or NULL with errno set (ELOOP for a
 * loop). */
static char *link_target(const char *path, int *via_proc)
{
    char *cur = strdup(path);
    *via_proc = 0;
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat lst;
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode))
            return cur;
        *via_proc |= strncmp(cur, "/proc/", 6) == 0;
        char buf[4096];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        buf[n] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash)
            next = strdup(buf);
        else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, buf) < 0)
            next = NULL;
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

/* Standard output or error when sb is the file open there, else -1. */
static int std_stream_of(const struct stat *sb)
{
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        struct stat so;
        if (fstat(fd, &so) == 0 && so.st_dev == sb->st_dev && so.st_ino == sb->st_ino)
            return fd;
    }
    return -1;
}

/* An output written directly instead of through a temporary file: a FIFO, a terminal,
 * /dev/null, or a file already open as standard output (/dev/stdout, `--json out > out`):
 * renaming over it would replace the device or pipe the user named, or leave the descriptor
 * writing to a file no longer there. The file standard output (error) has open is written
 * through a duplicate of that descriptor, sharing its offset, so the output lands after what
 * was printed before it. A FIFO nobody reads is refused rather than waited for. */
static ts_status open_direct(ts_outfile_t *f, const struct stat *sb, ts_error_t *err)
{
    int fd, std = std_stream_of(sb);
    if (std >= 0) {
        fflush(std == STDOUT_FILENO ? stdout : stderr);
        fd = fcntl(std, F_DUPFD_CLOEXEC, 0);
    } else {
        int trunc = S_ISREG(sb->st_mode) ? O_TRUNC : 0;
        fd = open(f->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | trunc);
    }
    if (fd < 0)
        return ts_error_set(err, TS_EIO, "%s: cannot open output: %s", f->path,
                            errno == ENXIO && S_ISFIFO(sb->st_mode)
                                ? "a FIFO with no reader (start the reader first)"
                                : strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && std < 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (!(f->fp = fdopen(fd, "wb"))) {
        close(fd);
        return ts_error_set(err, TS_EIO, "%s: cannot open output: %s", f->path, strerror(errno));
    }
    return TS_OK;
}

static const char *special_name(mode_t m)
{
    return S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The directory that path's file is to be created in exists (or a one-line error). */
static ts_status check_dir(const char *path, const char *target, ts_error_t *err)
{
    const char *slash = strrchr(target, '/');
    if (!slash)
        return TS_OK;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
    struct stat sb;
    if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return TS_OK;
    if (strcmp(path, target) != 0)
        return ts_error_set(err, TS_EIO,
                            "%s: a symbolic link to %s, whose directory %s does not exist: "
                            "expected a link to a file that can be created",
                            path, target, dir);
    return ts_error_set(err, TS_EIO, "%s: cannot create output: no directory %s", path, dir);
}

ts_status ts_outfile_open(const char *path, ts_outfile_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_outfile_t *f = calloc(1, sizeof *f);
    if (!f)
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
    struct stat sb; /* what path names, links followed (the kernel's way, /proc's too) */
    int exists = stat(path, &sb) == 0;
    ts_status st = TS_OK;
    if (exists && S_ISDIR(sb.st_mode))
        st = ts_error_set(err, TS_EIO, "%s: is a directory, expected a file", path);
    else if (exists && !S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) && !S_ISCHR(sb.st_mode))
        st = ts_error_set(err, TS_EIO,
                          "%s: is %s, expected a regular file, a FIFO or a character device "
                          "(/dev/stdout) to write the output to",
                          path, special_name(sb.st_mode));
    else if (exists && !S_ISREG(sb.st_mode)) { /* a FIFO or a device: written, never replaced */
        st = (f->path = strdup(path)) ? open_direct(f, &sb, err)
                                      : ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
        if (st == TS_OK) {
            *out = f;
            return TS_OK;
        }
    }
    if (st != TS_OK) {
        ts_outfile_abort(f);
        return st;
    }
    /* Through a symbolic link to the file it names: the new file replaces the target, and
     * the link stays a link. */
    int via_proc = 0;
    if (!(f->path = link_target(path, &via_proc))) {
        int e = errno;
        ts_outfile_abort(f);
        return e == ELOOP
                   ? ts_error_set(err, TS_EIO, "%s: cannot create output: symbolic link loop", path)
                   : ts_error_set(err, TS_EIO, "%s: cannot create output: %s", path, strerror(e));
    }
    /* A file already open (standard output's, or one behind /proc's links) is written where
     * it is; so is one whose link could not be followed to it. */
    struct stat tb;
    if (exists && (via_proc || std_stream_of(&sb) >= 0 || stat(f->path, &tb) != 0 ||
                   tb.st_dev != sb.st_dev || tb.st_ino != sb.st_ino)) {
        free(f->path);
        if (!(f->path = strdup(path)))
            st = ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
        if (st == TS_OK && (st = open_direct(f, &sb, err)) == TS_OK) {
            *out = f;
            return TS_OK;
        }
        ts_outfile_abort(f);
        return st;
    }
    if (!exists && (st = check_dir(path, f->path, err)) != TS_OK) {
        ts_outfile_abort(f);
        return st;
    }
    if (!(f->tmp = tmp_name(f->path, ".tmp.XXXXXX"))) {
        ts_outfile_abort(f);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
    }
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        st = ts_error_set(err, TS_EIO, "%s: cannot create output: %s", path, strerror(errno));
        free(f->tmp);
        f->tmp = NULL;
        ts_outfile_abort(f);
        return st;
    }
    ts_tmp_register(f->tmp, 0);
    /* mkstemp creates 0600; outputs are ordinary files. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        close(fd);
        ts_outfile_abort(f);
        return ts_error_set(err, TS_EIO, "%s: cannot open output: %s", path, strerror(errno));
    }
    *out = f;
    return TS_OK;
}

FILE *ts_outfile_stream(ts_outfile_t *f)
{
    return f->fp;
}

ts_status ts_outfile_commit(ts_outfile_t *f, ts_error_t *err)
{
    if (!f->tmp) { /* written directly: nothing to sync or rename */
        int bad = ferror(f->fp) || fflush(f->fp) != 0;
        int saved = errno;
        if (fclose(f->fp) != 0 && !bad) {
            bad = 1;
            saved = errno;
        }
        f->fp = NULL;
        ts_status st = bad ? ts_error_set(err, TS_EIO, "%s: write failed: %s", f->path,
                                          saved ? strerror(saved) : "error on the stream")
                           : TS_OK;
        ts_outfile_abort(f);
        return st;
    }
    int bad = ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0;
    int saved = errno;
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    f->fp = NULL;
    if (!bad && rename(f->tmp, f->path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        ts_status st = ts_error_set(err, TS_EIO, "%s: write failed: %s", f->path, strerror(saved));
        ts_outfile_abort(f);
        return st;
    }
    ts_tmp_forget(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    ts_outfile_abort(f);
    return TS_OK;
}

void ts_outfile_abort(ts_outfile_t *f)
{
    if (!f)
        return;
    if (f->fp)
        fclose(f->fp);
    if (f->tmp)
        ts_tmp_remove(f->tmp);
    free(f->tmp);
    free(f->path);
    free(f);
}

ts_status ts_write_all(int fd, const void *buf, size_t len)
{
    const char *c = buf;
    while (len) {
        ssize_t w = write(fd, c, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return TS_EIO;
        c += w;
        len -= (size_t)w;
    }
    return TS_OK;
}

static int std_closed[3];

void ts_std_mark_closed(int fd)
{
    if (fd >= 0 && fd < 3)
        std_closed[fd] = 1;
}

ts_status ts_report_check(FILE *fp, const char *after, ts_error_t *err)
{
    int e = errno; /* a failed write of the report, where the caller cleared errno before it */
    errno = 0;
    if (fflush(fp) == 0 && !ferror(fp))
        return TS_OK;
    if (errno)
        e = errno;
    else if (e != EIO && e != ENOSPC && e != EFBIG && e != EPIPE && e != EBADF && e != EDQUOT)
        e = 0; /* not a write's failure: another call's, left over */
    int fd = fp == stdout ? 1 : fp == stderr ? 2 : -1;
    return ts_error_set(err, TS_EIO, "%s: writing the report failed: %s%s",
                        fd == 1   ? "standard output"
                        : fd == 2 ? "standard error"
                                  : "the report",
                        fd > 0 && std_closed[fd] ? "closed (>&-)"
                        : e                      ? strerror(e)
                                                 : "write error",
                        after ? after : "");
}

static char *resolved_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
             slash ? path : ".");
    if (!realpath(dir, real))
        return NULL;
    char *out;
    return asprintf(&out, "%s/%s", real, slash ? slash + 1 : path) < 0 ? NULL : out;
}

int ts_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolved_path(a), *rb = resolved_path(b);
    int same = ra && rb ? strcmp(ra, rb) == 0 : strcmp(a, b) == 0;
    free(ra);
    free(rb);
    return same;
}

/* Whether an input and an output are one file that writing would destroy: only a regular
 * file is (the terminal behind both /dev/stdin and /dev/stdout is not; a directory is the
 * output directory's own check, ts_outdir_open, which says more), and only where
 * both exist, compared by device and inode; an output not written yet is one whose path,
 * its directory resolved, is the input's. */
static int clobbers(const char *in, const char *out)
{
    struct stat si;
    if (stat(in, &si) != 0 || !S_ISREG(si.st_mode))
        return 0;
    return ts_same_file(in, out);
}

/* Whether out (an existing regular file) is one of the files the OTF2 reader opens for the
 * anchor named STEM.otf2: the anchor, STEM.def or a file of STEM/. Named as the reader names
 * them, from the path given (not resolved: a linked anchor's archive is the one beside the
 * link), and compared by device and inode, so that a link to any of them counts too. */
static int archive_holds(const char *anchor, const char *out)
{
    size_t n = strlen(anchor);
    if (n < 5 || strcmp(anchor + n - 5, ".otf2") != 0)
        return 0;
    char *stem = strndup(anchor, n - 5), *def = NULL;
    if (!stem || asprintf(&def, "%s.def", stem) < 0) {
        free(stem);
        return 0;
    }
    struct stat sb;
    int hit = (stat(anchor, &sb) == 0 && ts_same_file(anchor, out)) ||
              (stat(def, &sb) == 0 && ts_same_file(def, out));
    DIR *d = hit ? NULL : opendir(stem);
    struct dirent *de;
    while (d && !hit && (de = readdir(d))) {
        char *f = NULL;
        if (de->d_name[0] != '.' && asprintf(&f, "%s/%s", stem, de->d_name) >= 0)
            hit = stat(f, &sb) == 0 && S_ISREG(sb.st_mode) && ts_same_file(f, out);
        free(f);
    }
    if (d)
        closedir(d);
    free(def);
    free(stem);
    return hit;
}

int ts_in_archive(const char *in, const char *out)
{
    struct stat si, so;
    if (stat(in, &si) != 0 || stat(out, &so) != 0 || !S_ISREG(so.st_mode))
        return 0;
    if (S_ISREG(si.st_mode))
        return archive_holds(in, out);
    if (!S_ISDIR(si.st_mode))
        return 0;
    DIR *d = opendir(in);
    struct dirent *de;
    int hit = 0;
    while (d && !hit && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        char *a = NULL;
        if (n > 5 && strcmp(de->d_name + n - 5, ".otf2") == 0 &&
            asprintf(&a, "%s/%s", in, de->d_name) >= 0)
            hit = archive_holds(a, out);
        free(a);
    }
    if (d)
        closedir(d);
    return hit;
}

/* Whether standard output is a regular file that is also path (`tunesim info T >> T`). */
static int is_stdout(const char *path)
{
    struct stat so, sp;
    return fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) && stat(path, &sp) == 0 &&
           so.st_dev == sp.st_dev && so.st_ino == sp.st_ino;
}

/* Whether an output can be written where it is to go: not a directory (unless the output is
 * one), its directory present and writable. A FIFO or a device is written directly. */
static ts_status check_writable(const char *cmd, const ts_file_use_t *f, ts_error_t *err)
{
    struct stat sb;
    if (stat(f->path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode) && !f->dir_ok)
            return ts_error_set(err, TS_EIO, "%s: %s %s: is a directory, expected a file", cmd,
                                f->flag, f->path);
        if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
            return TS_OK;
    } else if (errno != ENOENT) /* a link loop, a name too long: the write would fail too */
        return ts_error_set(err, TS_EIO, "%s: %s %s: %s", cmd, f->flag, f->path, strerror(errno));
    /* the directory it goes in: "out/" (a directory output as a shell completes it) is out;
     * a file's name ending in '/' names a directory that must exist */
    size_t len = strlen(f->path);
    while (f->dir_ok && len > 1 && f->path[len - 1] == '/')
        len--;
    const char *slash = memrchr(f->path, '/', len);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == f->path ? 1 : (int)(slash - f->path)) : 1,
             slash ? f->path : ".");
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return ts_error_set(err, TS_EIO, "%s: %s %s: no directory %s to write it in", cmd, f->flag,
                            f->path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ts_error_set(err, TS_EIO, "%s: %s %s: cannot write in %s: %s", cmd, f->flag, f->path,
                            dir, strerror(errno));
    return TS_OK;
}

ts_status ts_check_files(const char *cmd, const ts_file_use_t *f, int n, ts_error_t *err)
{
    ts_status st = TS_OK;
    for (int i = 0; i < n; i++) /* an input's own check says more (ts_check_input) */
        if (f[i].path && f[i].output && !f[i].path[0])
            return ts_error_set(err, TS_EUSAGE, "%s: %s: expected a file name, got an empty one",
                                cmd, f[i].flag);
    for (int i = 0; i < n && st == TS_OK; i++)
        if (f[i].path && !f[i].output)
            st = ts_check_input(f[i].path, f[i].what, f[i].dir_ok, err);
    for (int i = 0; i < n && st == TS_OK; i++) {
        if (!f[i].path)
            continue;
        if (!f[i].output && is_stdout(f[i].path))
            return ts_error_set(err, TS_EUSAGE,
                                "%s: %s is both an input (%s) and an output (standard output): "
                                "writing it would destroy the input",
                                cmd, f[i].path, f[i].flag);
        for (int j = i + 1; j < n; j++) {
            if (!f[j].path || (!f[i].output && !f[j].output))
                continue;
            const ts_file_use_t *in = f[i].output ? &f[j] : &f[i],
                                *out = in == &f[i] ? &f[j] : &f[i];
            if (in->output) { /* two outputs */
                if (ts_same_file(f[i].path, f[j].path))
                    return ts_error_set(err, TS_EUSAGE,
                                        "%s: %s %s and %s %s are the same file: give each output "
                                        "a path of its own",
                                        cmd, f[i].flag, f[i].path, f[j].flag, f[j].path);
            } else if (clobbers(in->path, out->path)) {
                return ts_error_set(err, TS_EUSAGE,
                                    "%s: %s is both an input (%s) and an output (%s %s): writing "
                                    "it would destroy the input",
                                    cmd, in->path, in->flag, out->flag, out->path);
            } else if (ts_in_archive(in->path, out->path)) {
                return ts_error_set(err, TS_EUSAGE,
                                    "%s: %s %s is a file of the trace's archive %s (%s): writing "
                                    "it would destroy the input",
                                    cmd, out->flag, out->path, in->path, in->flag);
            }
        }
    }
    for (int i = 0; i < n && st == TS_OK; i++)
        if (f[i].path && f[i].output)
            st = check_writable(cmd, &f[i], err);
    return st;
}

/* Remove a directory of plain files (what ts_outdir writes; nothing deeper). */
static void remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Whether the existing path may be replaced: it is absent, an empty directory, or a directory
 * of plain files that an output of this kind writes, its marker among them. */
static ts_status check_replaceable(const char *path, const ts_outdir_kind_t *kind, ts_error_t *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT
                   ? TS_OK
                   : ts_error_set(err, TS_EIO, "%s: cannot inspect: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ts_error_set(err, TS_EARG,
                            "%s: exists and is not a directory: expected a new "
                            "directory or a previous %s",
                            path, kind->what);
    DIR *d = opendir(path);
    if (!d)
        return ts_error_set(err, TS_EIO, "%s: cannot read: %s", path, strerror(errno));
    ts_status rc = TS_OK;
    int entries = 0, marker = 0;
    struct dirent *de;
    while (rc == TS_OK && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        entries++;
        char p[4096];
        int plain = snprintf(p, sizeof p, "%s/%s", path, de->d_name) < (int)sizeof p &&
                    lstat(p, &st) == 0 && S_ISREG(st.st_mode);
        if (!plain || !kind->owns(de->d_name))
            rc = ts_error_set(err, TS_EARG,
                              "%s: exists and is not a previous %s (it holds "
                              "'%s'): refusing to replace it; choose a new directory",
                              path, kind->what, de->d_name);
        marker |= strcmp(de->d_name, kind->marker) == 0;
    }
    closedir(d);
    if (rc == TS_OK && entries && !marker)
        rc = ts_error_set(err, TS_EARG,
                          "%s: exists and is not a previous %s (no %s): refusing "
                          "to replace it; choose a new directory",
                          path, kind->what, kind->marker);
    return rc;
}

/* path without its trailing slashes ("out/" as a shell completes it names out, whose
 * temporary goes beside it, not into it); NULL when out of memory. */
static char *trimmed_dir(const char *path)
{
    char *p = strdup(path);
    size_t n = p ? strlen(p) : 0;
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    return p;
}

/* given's directory name, trimmed, once checked as ts_outdir_check says; NULL with err set
 * otherwise. */
static char *checked_dir(const char *given, const ts_outdir_kind_t *kind, ts_error_t *err)
{
    char *path = trimmed_dir(given);
    if (!path) {
        ts_error_set(err, TS_ENOMEM, "%s: out of memory", given);
        return NULL;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    /* "." or "..": a directory that cannot be replaced by renaming onto it */
    if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(path, "/")) {
        ts_error_set(err, TS_EARG,
                     "%s: expected the output directory by its own name, not . or .. or /", given);
        free(path);
        return NULL;
    }
    if (check_replaceable(path, kind, err) != TS_OK) {
        free(path);
        return NULL;
    }
    return path;
}

ts_status ts_outdir_check(const char *given, const ts_outdir_kind_t *kind, ts_error_t *err)
{
    char *path = checked_dir(given, kind, err);
    free(path);
    return path ? TS_OK : err ? err->code : TS_EARG;
}

ts_status ts_outdir_open(const char *given, const ts_outdir_kind_t *kind, ts_outdir_t **out,
                         ts_error_t *err)
{
    *out = NULL;
    char *path = checked_dir(given, kind, err);
    if (!path)
        return err ? err->code : TS_EARG;
    ts_outdir_t *d = calloc(1, sizeof *d);
    if (d)
        d->path = path;
    else
        free(path);
    if (!d || !(d->tmp = tmp_name(path, ".tmp.XXXXXX"))) {
        ts_outdir_abort(d);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", given);
    }
    if (!mkdtemp(d->tmp)) {
        ts_status st = ts_error_set(err, TS_EIO, "%s: cannot create output directory: %s", path,
                                    strerror(errno));
        free(d->tmp);
        d->tmp = NULL;
        ts_outdir_abort(d);
        return st;
    }
    chmod(d->tmp, 0755);
    ts_tmp_register(d->tmp, 1);
    d->kind = kind;
    *out = d;
    return TS_OK;
}

const char *ts_outdir_path(const ts_outdir_t *d)
{
    return d->tmp;
}

ts_status ts_outdir_commit(ts_outdir_t *d, ts_error_t *err)
{
    struct stat st;
    char *old = NULL;
    /* Again: the directory may have been filled while the output was written. */
    ts_status rc = check_replaceable(d->path, d->kind, err);
    if (rc != TS_OK) {
        ts_outdir_abort(d);
        return rc;
    }
    if (lstat(d->path, &st) == 0) {
        old = tmp_name(d->path, ".old.XXXXXX");
        if (!old || !mkdtemp(old) || rmdir(old) != 0 || rename(d->path, old) != 0) {
            ts_status s =
                ts_error_set(err, TS_EIO, "%s: cannot replace: %s", d->path, strerror(errno));
            free(old);
            ts_outdir_abort(d);
            return s;
        }
    }
    if (rename(d->tmp, d->path) != 0) {
        ts_status s = ts_error_set(err, TS_EIO, "%s: cannot create: %s", d->path, strerror(errno));
        if (old)
            rename(old, d->path);
        free(old);
        ts_outdir_abort(d);
        return s;
    }
    if (old)
        remove_flat_dir(old);
    free(old);
    ts_tmp_forget(d->tmp);
    free(d->tmp);
    d->tmp = NULL;
    ts_outdir_abort(d);
    return TS_OK;
}

void ts_outdir_abort(ts_outdir_t *d)
{
    if (!d)
        return;
    if (d->tmp) {
        remove_flat_dir(d->tmp);
        ts_tmp_forget(d->tmp);
    }
    free(d->tmp);
    free(d->path);
    free(d);
}
