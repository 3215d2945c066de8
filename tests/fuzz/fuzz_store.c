/* fuzz_store.c - libFuzzer target for the trace-store reader: any bytes must either parse
 * into a trace whose every event decodes or be refused with an error, never crash, hang or
 * trip a sanitizer. Built by scripts/fuzz_store.sh; tests/test_store.c replays the corpus. */
#include <stddef.h>
#include <stdint.h>

#include "traces/store.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_trace_t *t = NULL;
    ts_error_t err;
    if (ts_store_parse(data, size, "fuzz", &t, &err) != TS_OK)
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
