/* fuzz_store.c - libFuzzer target for the trace-store reader: any bytes must either parse
 * into a trace whose every event decodes or be refused with an error, never crash, hang or
 * trip a sanitizer. The first byte picks the entry: even - the rest is a whole store file;
 * odd - the rest is a decompressed store body, so that mutations reach the definitions and
 * event parsers without having to survive checksums and LZ4. Built and run by
 * scripts/fuzz_store.sh; tests/test_store.c replays the corpus in every test run. */
#include <stddef.h>
#include <stdint.h>

#include "traces/store.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    ts_trace_t *t = NULL;
    ts_error_t err;
    ts_status st = (data[0] & 1) ? ts_store_parse_body(data + 1, size - 1, "fuzz", &t, &err)
                                 : ts_store_parse(data + 1, size - 1, "fuzz", &t, &err);
    if (st != TS_OK)
        return 0;
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        ts_cursor_t *c;
        ts_event_t ev;
        if (ts_cursor_open(t, r, &c) != TS_OK)
            break;
        while (ts_cursor_next(c, &ev, &err) == 1)
            (void)ts_trace_comm(t, ev.comm);
        ts_cursor_close(c);
    }
    ts_trace_close(t);
    return 0;
}
