/* protocheck.h - what the protocol model's tests (test_protocol.c, test_protocol_ob1.c)
 * share: models built on tu_round_params (testutil.h) with extra settings, and the protocol
 * a message is planned with. */
#ifndef TS_TESTS_PROTOCHECK_H
#define TS_TESTS_PROTOCHECK_H

#include <stddef.h>
#include <stdio.h>

#include "models/protocol.h"

/* tu_round_params (a failure ends the test). */
ts_params_t *round_params(void);
/* The protocol model of round_params with n extra (name, value) settings, for world ranks (0:
 * the model's own count). */
ts_proto_model_t *model_for(const char *const (*extra)[2], size_t n, int world);
ts_proto_model_t *model_with(const char *const (*extra)[2], size_t n);
/* The protocol of a message of size bytes between ranks of locality loc. */
ts_proto proto_at(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking);

#define CHECK_PROTO(m, size, loc, blocking, want)                                                  \
    do {                                                                                           \
        ts_proto got_ = proto_at(m, size, loc, blocking);                                          \
        if (got_ != (want))                                                                        \
            printf("\n  size %llu %s: got %s, expected %s\n", (unsigned long long)(size),          \
                   ts_locality_name(loc), ts_proto_name(got_), ts_proto_name(want));               \
        CU_ASSERT_EQUAL(got_, want);                                                               \
    } while (0)

#endif
