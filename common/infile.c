/* infile.c - whole-file input (see infile.h). */
#include "infile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ts_read_whole(const char *path, size_t *len, ts_status *st, ts_error_t *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        ts_status code = errno == ENOENT ? TS_ENOENT : TS_EIO;
        *st = err ? ts_error_set(err, code, "%s: cannot open: %s", path, strerror(errno)) : code;
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0;
    FILE *ms = open_memstream(&buf, &n);
    char chunk[65536];
    size_t got;
    while (ms && (got = fread(chunk, 1, sizeof chunk, fp)) > 0)
        fwrite(chunk, 1, got, ms);
    int bad = ferror(fp);
    fclose(fp);
    if (!ms || fclose(ms) != 0 || bad) {
        free(buf);
        *st = err ? ts_error_set(err, TS_EIO, "%s: read error", path) : TS_EIO;
        return NULL;
    }
    if (len)
        *len = n;
    *st = TS_OK;
    return buf;
}
