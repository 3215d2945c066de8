/* numparse.h - whole-string numbers for command-line options and description files: one
 * convention (0 on success, -1 otherwise; *out untouched on failure) instead of a copy per
 * command with its own idea of what an empty string or an overflow is. */
#ifndef TS_NUMPARSE_H
#define TS_NUMPARSE_H

/* A decimal integer filling the rest of s after any leading blanks (as strtol reads it),
 * within [lo, hi]: no sign-only, empty or trailing text, no overflow. */
int ts_parse_int(const char *s, long lo, long hi, int *out);
/* A finite decimal number filling the rest of s (as strtod reads it). */
int ts_parse_double(const char *s, double *out);

#endif
