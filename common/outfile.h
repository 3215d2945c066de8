/* outfile.h - output files written atomically: data goes to a temporary file beside the
 * target, which is renamed over it only when complete, so a failed or interrupted run never
 * leaves a half-written output. */
#ifndef TS_OUTFILE_H
#define TS_OUTFILE_H

#include <stdio.h>

#include "status.h"

typedef struct ts_outfile_s ts_outfile_t;

/* Start writing path (a temporary file is created in the same directory). A symbolic link
 * is written through: the file it names is replaced, the link stays; a dangling one creates
 * the file it names, when that file's directory exists. A FIFO or a character device (a
 * terminal, /dev/null, /dev/stdout) is written directly, never replaced, and so is the file
 * that standard output has open (through its descriptor); a FIFO nobody reads fails at once
 * (no wait). A directory, a socket or a block device is refused with a one-line error. */
ts_status ts_outfile_open(const char *path, ts_outfile_t **out, ts_error_t *err);
/* The stream to write to; errors on it are caught by ts_outfile_commit. */
FILE *ts_outfile_stream(ts_outfile_t *f);
/* Flush, sync and rename into place; frees f whatever the result. */
ts_status ts_outfile_commit(ts_outfile_t *f, ts_error_t *err);
/* Remove the temporary file; frees f. Safe on NULL. */
void ts_outfile_abort(ts_outfile_t *f);

/* Write all len bytes to fd, across EINTR and short writes: TS_OK or TS_EIO (errno set). */
ts_status ts_write_all(int fd, const void *buf, size_t len);

/* A report written to fp (standard output or error) reached it: fflush and the stream's error
 * flag checked. TS_OK, or TS_EIO with one line, "standard output: writing the report failed:
 * REASON" followed by `after` when not NULL ("; FILE not written"). The reason is the failed
 * write's errno, or "closed (>&-)" for a standard stream the caller closed
 * (ts_std_mark_closed), which main keeps on /dev/full so that its number is not reused. */
ts_status ts_report_check(FILE *fp, const char *after, ts_error_t *err);
/* Main's note that standard stream fd (1 or 2) was closed by the caller. */
void ts_std_mark_closed(int fd);

/* Whether a and b name the same file: the same inode where both exist, else the same path
 * once their directories are resolved (an output not written yet). */
int ts_same_file(const char *a, const char *b);

/* Whether writing out would replace a file of the OTF2 archive that input in leads to, beyond
 * in itself: for an anchor STEM.otf2, STEM.def and the files under STEM/; for a directory, the
 * archive of each anchor (*.otf2) it holds. Only an existing regular file out can be. Other
 * files of a trace's directory (a prediction written beside the archive) are not. */
int ts_in_archive(const char *in, const char *out);

/* One file that a command reads or writes, for ts_check_files. */
typedef struct ts_file_use_s {
    const char *flag; /* as the user gave it: "-o", "--sets", "TRACE" */
    const char *path; /* NULL: not given, nothing to check */
    int output;       /* 1: written, 0: read */
    const char *what; /* an input: what it should be ("a sets file"), for messages */
    int dir_ok;       /* a directory is accepted too (a trace; a directory output) */
} ts_file_use_t;

/* The one check of a command's files, before anything is read or written: no output's name is
 * empty; each input is a regular file (ts_check_input); no output is also an input, standard output
 * (when it is a regular file) included; no two outputs are the same file; each output's
 * directory exists and is writable (TS_EIO), so that no run fails only at its end. Files are
 * compared by device and inode, so another spelling of a path, a hard link or a symbolic link to it
 * is caught too. TS_EUSAGE (TS_EARG for an input's type) with one line, "CMD: FILE is both an input
 * (FLAG) and an output (FLAG): ...". Every command with inputs and outputs calls it. */
ts_status ts_check_files(const char *cmd, const ts_file_use_t *f, int n, ts_error_t *err);

/* The same for a directory: files are written into a temporary directory that replaces
 * path when committed (an existing path is moved aside and removed). Replacing deletes, so an
 * existing path is replaced only when it is empty or a previous output of the same kind: a
 * directory of plain files whose every name kind->owns accepts, kind->marker among them. */
typedef struct ts_outdir_kind_s {
    const char *what;              /* for messages, e.g. "TI export" */
    const char *marker;            /* a file every output of this kind has, e.g. "ti.txt" */
    int (*owns)(const char *name); /* whether such an output writes a file of this name */
} ts_outdir_kind_t;
typedef struct ts_outdir_s ts_outdir_t;
/* The checks ts_outdir_open makes, alone: for a command to make them before its work. */
ts_status ts_outdir_check(const char *path, const ts_outdir_kind_t *kind, ts_error_t *err);
/* Fails with TS_EARG and nothing touched when path exists and is not empty nor such an output;
 * the check is repeated by ts_outdir_commit. */
ts_status ts_outdir_open(const char *path, const ts_outdir_kind_t *kind, ts_outdir_t **out,
                         ts_error_t *err);
/* Path of the temporary directory to write files into. */
const char *ts_outdir_path(const ts_outdir_t *d);
ts_status ts_outdir_commit(ts_outdir_t *d, ts_error_t *err);
void ts_outdir_abort(ts_outdir_t *d);

#endif
