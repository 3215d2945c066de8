/* fuzz_text.h - the fuzz targets of fuzz_text.c: each takes any bytes and returns 0. */
#ifndef TS_FUZZ_TEXT_H
#define TS_FUZZ_TEXT_H

#include <stddef.h>
#include <stdint.h>

int ts_fuzz_sets(const uint8_t *data, size_t size);   /* a sets file */
int ts_fuzz_params(const uint8_t *data, size_t size); /* an mpirun line, then NAME=VALUE lines */
int ts_fuzz_model(const uint8_t *data, size_t size);  /* a model XML file */
int ts_fuzz_bench(const uint8_t *data, size_t size);  /* OSU / IMB / probe output */

#endif
