/* infile.h - reading a whole (small) input file into memory: sets files, results files. */
#ifndef TS_INFILE_H
#define TS_INFILE_H

#include <stddef.h>

#include "status.h"

/* The contents of path, NUL-terminated, malloc'ed (the caller frees); *len (may be NULL)
 * receives the length. NULL on failure, with *st and err (may be NULL) saying, in one line
 * naming the file, why: TS_ENOENT when it does not exist, TS_EIO otherwise. */
char *ts_read_whole(const char *path, size_t *len, ts_status *st, ts_error_t *err);

/* Open path for reading without waiting: a FIFO that nobody writes opens at once (and reads
 * as empty) instead of blocking; a directory fails with EISDIR. The descriptor (reads block
 * as usual), or -1 with errno set. */
int ts_open_input(const char *path);

#endif
