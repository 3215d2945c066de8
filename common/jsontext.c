/* jsontext.c - JSON text written as valid UTF-8 (see jsontext.h). */
#include "jsontext.h"

size_t ts_utf8_seq_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    /* The second byte's range per lead byte (RFC 3629's table) rules out overlong forms,
     * UTF-16 surrogates and code points above U+10FFFF. */
    unsigned lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

int ts_json_fputs(const char *txt, FILE *fp)
{
    const unsigned char *s = (const unsigned char *)txt;
    while (*s) {
        /* Runs of valid text go out whole; an invalid byte becomes the escape. */
        const unsigned char *run = s;
        size_t n;
        while (*s && (n = ts_utf8_seq_len(s)) > 0)
            s += n;
        if (s > run && fwrite(run, 1, (size_t)(s - run), fp) != (size_t)(s - run))
            return EOF;
        if (*s) {
            if (fputs("\\ufffd", fp) == EOF)
                return EOF;
            s++;
        }
    }
    return 0;
}
