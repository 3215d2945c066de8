/* tmpfiles.h - temporary files and directories that an interrupted run does not leave behind:
 * created with mkstemps / mkdtemp (unpredictable names, mode 0600 / 0700) under $TMPDIR (else
 * /tmp), and registered so that SIGINT, SIGTERM and the like remove them before the process
 * dies. Callers still remove them as early as they can (a file once opened or loaded), since
 * SIGKILL runs no handler. */
#ifndef TS_TMPFILES_H
#define TS_TMPFILES_H

#include <stddef.h>
#include <stdio.h>

#include "status.h"

/* The directory for temporary files: $TMPDIR when set and not empty, else /tmp. */
const char *ts_tmp_dir(void);

/* Create an empty file TMPDIR/PREFIX.XXXXXXSUFFIX (suffix may be ""), its path in buf (size n),
 * registered for removal on a signal. The caller removes it with ts_tmp_remove. TS_EIO with a
 * one-line message when it cannot be created. */
ts_status ts_tmp_file(const char *prefix, const char *suffix, char *buf, size_t n, ts_error_t *err);

/* The same, opened for writing and reading ("w+") and unlinked at once: nothing is left on
 * disk whatever ends the process, SIGKILL included. Others read it as /proc/self/fd/N
 * (fileno). The name used is written to buf (size n) for messages. NULL with err set when it
 * cannot be created. */
FILE *ts_tmp_stream(const char *prefix, const char *suffix, char *buf, size_t n, ts_error_t *err);

/* Register a path this process created (a file, or a directory of plain files) for removal
 * on a signal; ts_tmp_forget drops it (after it was renamed into place or removed). At most
 * a few paths at once: registration fails silently beyond that, leaving only that path to an
 * interrupt. Paths registered by a parent are not removed by its forked children. */
void ts_tmp_register(const char *path, int is_dir);
void ts_tmp_forget(const char *path);

/* Remove path (a file, or an empty directory) and forget it. */
void ts_tmp_remove(const char *path);

/* Install the handler of SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE that removes the
 * registered paths and then dies of the same signal, and ignore SIGXFSZ (a write past
 * `ulimit -f` then fails with EFBIG, reported like any write error). Called once by main. */
void ts_tmp_install_handlers(void);

#endif
