/* hostilecheck.c - the hostile-input tests' shared helpers (hostilecheck.h). */
#include "hostilecheck.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* How many entries of dir start with prefix. */
int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Run the CLI with printf-style arguments; expect status want and, if not NULL, needle in its
 * stderr, on one line. */
void expect_cli(int want, const char *needle, const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char *out = NULL, *err = NULL;
    int rc = tu_run_cli(args, &out, &err);
    int ok = rc == want && (!needle || (err && strstr(err, needle) && tu_one_line(err)));
    if (!ok)
        printf("\n  tunesim %s\n    exit %d (want %d), stderr: %s    want: %s\n", args, rc, want,
               err ? err : "(none)\n", needle ? needle : "(anything)");
    CU_ASSERT(ok);
    free(out);
    free(err);
}

/* Write text to a file under the temporary directory; returns its path. */
const char *write_tmp(const char *name, const char *text)
{
    const char *path = tu_path(name);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}
