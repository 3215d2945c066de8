/* infile.c - whole-file input (see infile.h). */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ts_open_input(const char *path)
{
    /* Non-blocking, so that opening a FIFO nobody writes returns at once; reads block again
     * (a pipe with a writer, as from <(...), is read whole; one without reads as empty). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        int e = S_ISDIR(sb.st_mode) ? EISDIR : errno;
        close(fd);
        errno = e;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

char *ts_read_whole(const char *path, size_t *len, ts_status *st, ts_error_t *err)
{
    int fd = ts_open_input(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!fp) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        ts_status code = e == ENOENT ? TS_ENOENT : TS_EIO;
        *st = err ? ts_error_set(err, code, "%s: cannot open: %s", path,
                                 e == EISDIR ? "is a directory, expected a file" : strerror(e))
                  : code;
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
