/* jsontext.h - JSON text written as valid UTF-8. json-c copies a string's bytes into its
 * output as they are, so a path that is not UTF-8 (a Latin-1 file name) would make the whole
 * document invalid JSON; these writers replace each byte that does not start a valid UTF-8
 * sequence with the escape \ufffd (the replacement character), which can only stand inside a
 * JSON string, where such bytes are. */
#ifndef TS_JSONTEXT_H
#define TS_JSONTEXT_H

#include <stddef.h>
#include <stdio.h>

/* Write txt to fp with invalid UTF-8 replaced; EOF on a write error, else 0. */
int ts_json_fputs(const char *txt, FILE *fp);

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when the byte at s does not start
 * one (overlong forms, surrogates and code points above U+10FFFF included). */
size_t ts_utf8_seq_len(const unsigned char *s);

#endif
