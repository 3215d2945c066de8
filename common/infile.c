/* infile.c - whole-file input (see infile.h). */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether path leads, through symbolic links, to a pipe without a name: /dev/stdin or
 * /dev/fd/63 from <(...) end in /proc's link to "pipe:[INODE]". Such a pipe has its writer
 * already (the shell made it), unlike a FIFO that someone may never open. */
static int is_open_pipe(const char *path)
{
    char cur[4096], buf[4096];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat lst;
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode))
            return 0;
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0)
            return 0;
        buf[n] = '\0';
        if (strncmp(buf, "pipe:[", 6) == 0)
            return 1;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash)
            snprintf(cur, sizeof cur, "%s", buf);
        else {
            /* A link whose target path does not fit is not a pipe we can follow. */
            char next[4096];
            int len = snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, buf);
            if (len < 0 || (size_t)len >= sizeof next)
                return 0;
            memcpy(cur, next, (size_t)len + 1);
        }
    }
    return 0;
}

static const char *type_name(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

ts_status ts_check_input(const char *path, const char *what, int dir_ok, ts_error_t *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode) || (dir_ok && S_ISDIR(sb.st_mode)))
        return TS_OK;
    if (S_ISFIFO(sb.st_mode) && is_open_pipe(path))
        return TS_OK;
    const char *kind = dir_ok ? "a regular file or directory" : "a regular file";
    if (!what)
        return ts_error_set(err, TS_EARG, "%s: is %s, expected %s", path, type_name(sb.st_mode),
                            kind);
    return ts_error_set(err, TS_EARG, "%s: is %s, expected %s (%s)", path, type_name(sb.st_mode),
                        what, kind);
}

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
    /* Whole: a FIFO or a device (/dev/zero) would never end or read as empty. */
    ts_error_t own;
    if ((*st = ts_check_input(path, NULL, 0, err ? err : &own)) != TS_OK) {
        errno = EINVAL;
        return NULL;
    }
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
