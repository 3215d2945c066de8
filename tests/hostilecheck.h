/* hostilecheck.h - what the hostile-input tests (test_hostile.c, test_hostile_passes.c) share:
 * the command line run with an expected status and one-line message, files written under the
 * test's temporary directory, and a directory's entries counted. */
#ifndef TS_TESTS_HOSTILECHECK_H
#define TS_TESTS_HOSTILECHECK_H

/* How many entries of dir start with prefix ("" counts "." and ".." too); -1 if unreadable. */
int count_prefixed(const char *dir, const char *prefix);

/* Run the CLI with printf-style arguments; expect status want and, if not NULL, needle in its
 * stderr, on one line (a CUnit assertion; the command and what came back printed on failure). */
void expect_cli(int want, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* text written to tu_tmpdir()/name; the path, in one of testutil's rotating buffers. */
const char *write_tmp(const char *name, const char *text);

#endif
