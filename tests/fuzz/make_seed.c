/* make_seed.c - turns a store file into the two fuzzer inputs of tests/fuzz/fuzz_store.c:
 * "<out>.store" (mode byte 0 + the file) and "<out>.body" (mode byte 1 + the decompressed
 * body). Used by scripts/fuzz_store.sh to seed the corpus. */
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int put(const char *out, const char *ext, uint8_t mode, const void *d, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", out, ext);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fputc(mode, fp);
    fwrite(d, 1, n, fp);
    return fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_seed STORE OUT\n");
        return 2;
    }
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        return 1;
    static uint8_t buf[1 << 24];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    if (n < 48)
        return 1;
    uint64_t zlen = le(buf + 24), raw = le(buf + 32);
    char *body = malloc(raw);
    if (!body || zlen > n - 48 ||
        LZ4_decompress_safe((char *)buf + 48, body, (int)zlen, (int)raw) != (int)raw)
        return 1;
    return put(argv[2], "store", 0, buf, n) || put(argv[2], "body", 1, body, raw);
}
