/* owner.h - whether a directory's "traces" archive is tunesim's own, the one test the tracer
 * (archive.c, before it replaces one) and `tunesim record` (before it starts a run) share: an
 * archive tunesim did not write (Score-P names its archive "traces" too) is never replaced.
 * Tunesim's own: the mark file its tracer publishes with the archive, or, for archives written
 * before the mark existed, the tracer's creator string in the anchor file (OTF2 stores it as
 * plain text). Header only: the tracer is a library of its own. */
#ifndef TRC_OWNER_H
#define TRC_OWNER_H

/* memmem: the project builds with _GNU_SOURCE (CMakeLists.txt) */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

#endif
