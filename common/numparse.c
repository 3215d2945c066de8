/* numparse.c - whole-string numbers (see numparse.h). */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int ts_parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

double ts_strtod_dec(const char *s, char **end)
{
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        p++;
    int digit = isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]));
    if (!digit || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
        *end = (char *)s;
        return 0;
    }
    return strtod(s, end);
}

int ts_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = ts_strtod_dec(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
