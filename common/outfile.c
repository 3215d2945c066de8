/* outfile.c - atomic output files and directories (temporary name, then rename). */
#include "outfile.h"

#include "tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ts_outfile_s {
    char *path;
    char *tmp;
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

ts_status ts_outfile_open(const char *path, ts_outfile_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_outfile_t *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->tmp = tmp_name(path, ".tmp.XXXXXX"))) {
        ts_outfile_abort(f);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
    }
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        ts_status st =
            ts_error_set(err, TS_EIO, "%s: cannot create output: %s", path, strerror(errno));
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

ts_status ts_outdir_open(const char *path, const ts_outdir_kind_t *kind, ts_outdir_t **out,
                         ts_error_t *err)
{
    *out = NULL;
    ts_status rc = check_replaceable(path, kind, err);
    if (rc != TS_OK)
        return rc;
    ts_outdir_t *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path)) || !(d->tmp = tmp_name(path, ".tmp.XXXXXX"))) {
        ts_outdir_abort(d);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
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
