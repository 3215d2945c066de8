/* open.c - ts_trace_open (trace.h): which reader opens a path. A directory is read by the OTF2
 * reader through its anchor, a file by the store reader when it starts with the store's magic,
 * else by the OTF2 reader when it is an anchor (.otf2). Kept apart from trace.c, the builder
 * both readers use, so that no include runs in a circle. */
#include "trace_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int find_anchor_in_dir(const char *dir, char *out, size_t outsz)
{
    static const char *const names[] = {"traces.otf2", "scorep.otf2", "trace.otf2"};
    struct stat st;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(out, outsz, "%.*s/%s", (int)n, dir, names[i]);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
            return 0;
    }
    return -1;
}

ts_status ts_trace_open(const char *path, ts_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    if (!path[0])
        return ts_error_set(err, TS_ENOENT,
                            "the trace's path is empty: expected an OTF2 anchor (.otf2), its "
                            "directory, or a tunesim store");
    struct stat st;
    if (stat(path, &st) != 0)
        return ts_error_set(err, errno == ENOENT ? TS_ENOENT : TS_EIO, "%s: %s", path,
                            strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char anchor[4096];
        if (find_anchor_in_dir(path, anchor, sizeof anchor) != 0)
            return ts_error_set(err, TS_ENOTTRACE,
                                "%s: directory holds no OTF2 anchor (traces.otf2) and is not "
                                "a trace",
                                path);
        return ts__otf2_read(anchor, out, err);
    }
    if (!S_ISREG(st.st_mode))
        return ts_error_set(err, TS_ENOTTRACE, "%s: not a regular file or directory", path);
    int is_store = ts_store_is_store(path);
    if (is_store < 0)
        return ts_error_set(err, TS_EIO, "%s: cannot read: %s", path, strerror(errno));
    if (is_store)
        return ts__store_read(path, out, err);
    if (has_suffix(path, ".otf2"))
        return ts__otf2_read(path, out, err);
    return ts_error_set(err, TS_ENOTTRACE,
                        "%s: not a trace: expected an OTF2 anchor (.otf2), its directory, or a "
                        "tunesim store",
                        path);
}
