/* numparse.c - whole-string numbers (see numparse.h). */
#include "numparse.h"

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

int ts_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
