/* store.h - tunesim's binary trace store: a versioned, checksummed, compressed image of a
 * loaded trace, which replays and sweeps read many times without parsing OTF2 again.
 * The layout is described at the top of store.c. ts_trace_open recognises a store by its
 * magic, so every command that takes a TRACE takes a store too. */
#ifndef TS_STORE_H
#define TS_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

#define TS_STORE_VERSION 2u

/* Write trace to path atomically. */
ts_status ts_store_write(const ts_trace_t *trace, const char *path, ts_error_t *err);

/* 1 if the file at path starts with the store magic, 0 if not, -1 if it cannot be read. */
int ts_store_is_store(const char *path);

/* Parse a store image held in memory (the whole file). On success *out owns a copy of what
 * it needs. For the fuzzer and the tests; ts_trace_open is the normal way in. */
ts_status ts_store_parse(const uint8_t *data, size_t size, const char *name, ts_trace_t **out,
                         ts_error_t *err);

/* Parse an already decompressed store body (copied). For the fuzzer, which reaches the
 * body parser this way instead of through checksums and compression. */
ts_status ts_store_parse_body(const uint8_t *body, size_t size, const char *name, ts_trace_t **out,
                              ts_error_t *err);

#endif
