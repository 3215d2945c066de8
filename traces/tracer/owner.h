/* owner.h - whether a directory's "traces" archive is tunesim's own, the one test the tracer
 * (archive.c, before it replaces one) and `tunesim record` (before it starts a run) share, and
 * the removal of an archive's directory both do: an
 * archive tunesim did not write (Score-P names its archive "traces" too) is never replaced.
 * Tunesim's own: the mark file its tracer publishes with the archive, or, for archives written
 * before the mark existed, the tracer's creator string in the anchor file (OTF2 stores it as
 * plain text). Header only: the tracer is a library of its own. */
#ifndef TRC_OWNER_H
#define TRC_OWNER_H

/* memmem: the project builds with _GNU_SOURCE (CMakeLists.txt) */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRC_OWNER_MARK ".tunesim-recorded"
#define TRC_CREATOR    "tunesim-trace (PMPI tracer of tunesim)"

static inline int trc_has_part(const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat sb;
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    return n > 0 && (size_t)n < sizeof path && lstat(path, &sb) == 0;
}

/* 1 when dir holds a "traces" archive (any of its parts) that is not tunesim's own. */
static inline int trc_foreign_archive(const char *dir)
{
    if (!trc_has_part(dir, "traces.otf2") && !trc_has_part(dir, "traces.def") &&
        !trc_has_part(dir, "traces"))
        return 0;
    if (trc_has_part(dir, TRC_OWNER_MARK))
        return 0;
    char path[PATH_MAX], buf[65536];
    int n = snprintf(path, sizeof path, "%s/traces.otf2", dir);
    FILE *fp = n > 0 && (size_t)n < sizeof path ? fopen(path, "rb") : NULL;
    if (fp == NULL)
        return 1;
    size_t got = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    return memmem(buf, got, TRC_CREATOR, sizeof TRC_CREATOR - 1) == NULL;
}

/* Remove a directory holding an archive's parts (a set-aside previous trace, or the unfinished
 * one a failed run left): its anchor, definitions and mark, its "traces" subdirectory of .evt
 * and .def files, then the directory itself. Nothing else is touched: a directory holding
 * anything more stays. */
static inline void trc_remove_archive_dir(const char *dir)
{
    static const char *const top[] = {"traces.otf2", "traces.def", TRC_OWNER_MARK};
    char path[PATH_MAX], sub[PATH_MAX];
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        int n = snprintf(path, sizeof path, "%s/%s", dir, top[i]);
        if (n > 0 && (size_t)n < sizeof path)
            unlink(path);
    }
    int n = snprintf(sub, sizeof sub, "%s/traces", dir);
    if (n > 0 && (size_t)n < sizeof sub) {
        DIR *d = opendir(sub);
        if (d != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                size_t len = strlen(e->d_name);
                if (len > 4 && (strcmp(e->d_name + len - 4, ".evt") == 0 ||
                                strcmp(e->d_name + len - 4, ".def") == 0)) {
                    int m = snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
                    if (m > 0 && (size_t)m < sizeof path)
                        unlink(path);
                }
            }
            closedir(d);
        }
        rmdir(sub);
    }
    rmdir(dir);
}

#endif
