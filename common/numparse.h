/* numparse.h - whole-string numbers for command-line options and description files: one
 * convention (0 on success, -1 otherwise; *out untouched on failure) instead of a copy per
 * command with its own idea of what an empty string or an overflow is. */
#ifndef TS_NUMPARSE_H
#define TS_NUMPARSE_H

/* A decimal integer filling the rest of s after any leading blanks (as strtol reads it),
 * within [lo, hi]: no sign-only, empty or trailing text, no overflow. */
int ts_parse_int(const char *s, long lo, long hi, int *out);
/* A finite decimal number filling the rest of s (as ts_strtod_dec reads it). */
int ts_parse_double(const char *s, double *out);
/* strtod for decimal text: digits with an optional sign, point and exponent. Hex floats
 * ("0x1.ap0"), "inf" and "nan", which strtod also reads, are no way a measurement or a setting
 * is written: they read as no number (0, *end = s). */
double ts_strtod_dec(const char *s, char **end);

#endif
