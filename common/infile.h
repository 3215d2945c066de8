/* infile.h - reading a whole (small) input file into memory: sets files, results files. */
#ifndef TS_INFILE_H
#define TS_INFILE_H

#include <stddef.h>

#include "status.h"

/* The contents of path, NUL-terminated, malloc'ed (the caller frees); *len (may be NULL)
 * receives the length. NULL on failure, with *st and err (may be NULL) saying, in one line
 * naming the file, why: TS_ENOENT when it does not exist, TS_EIO otherwise. */
char *ts_read_whole(const char *path, size_t *len, ts_status *st, ts_error_t *err);

/* TS_OK when path may be read as an input of the kind what names ("a sets file", or NULL): a
 * regular file, or a pipe already open in this process (standard input, a shell's <(...)), or with
 * dir_ok a directory. Checked by type (stat) before anything opens it: a FIFO nobody writes
 * would block the open, or read as empty and be mistaken for an empty file, and a device such
 * as /dev/zero never ends. Otherwise TS_EARG, one line naming path, what it is and what was
 * expected. A path that does not exist is TS_OK: its opener says so in its own words. */
ts_status ts_check_input(const char *path, const char *what, int dir_ok, ts_error_t *err);

/* Open path for reading without waiting: a FIFO that nobody writes opens at once (and reads
 * as empty) instead of blocking; a directory fails with EISDIR. The descriptor (reads block
 * as usual), or -1 with errno set. */
int ts_open_input(const char *path);

#endif
