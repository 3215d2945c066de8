/* test_common.c - the small helpers of common/ that every folder shares: whole-string
 * integers (numparse) and growing arrays (grow). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/grow.h"
#include "common/numparse.h"
#include "testutil.h"

static void test_parse_int(void)
{
    int v = 7;
    CU_ASSERT_EQUAL(ts_parse_int("36", 1, 64, &v), 0);
    CU_ASSERT_EQUAL(v, 36);
    CU_ASSERT_EQUAL(ts_parse_int("-3", -5, 5, &v), 0);
    CU_ASSERT_EQUAL(v, -3);
    /* Each refusal leaves *out as it was. */
    v = 7;
    const char *bad[] = {"", "x", "3x", "3 ", "65", "0", "99999999999999999999", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ts_parse_int(bad[i], 1, 64, &v), -1);
        CU_ASSERT_EQUAL(v, 7);
    }
    CU_ASSERT_EQUAL(ts_parse_int("64", 1, 64, &v), 0); /* bounds are inclusive */
    CU_ASSERT_EQUAL(v, 64);
    CU_ASSERT_EQUAL(ts_parse_int(" 3", 1, 64, &v), 0); /* leading blanks, as strtol reads */
    CU_ASSERT_EQUAL(v, 3);
}

static void test_grow(void)
{
    uint32_t *a = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        CU_ASSERT_EQUAL_FATAL(TS_GROW(a, n, cap, 4), 0);
        CU_ASSERT(cap > n);
        a[n++] = i * 3;
    }
    /* 4, 8, ..., 1024: doubling from the first capacity. */
    CU_ASSERT_EQUAL(cap, 1024);
    for (uint32_t i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL(a[i], i * 3);
    /* Room left: nothing moves. */
    uint32_t *before = a;
    CU_ASSERT_EQUAL(TS_GROW(a, n, cap, 4), 0);
    CU_ASSERT_PTR_EQUAL(a, before);
    CU_ASSERT_EQUAL(cap, 1024);
    /* A capacity that cannot be allocated: -1, the array and capacity unchanged. */
    size_t huge = SIZE_MAX / 2 + 1;
    uint32_t *same = a;
    CU_ASSERT_EQUAL(ts_grow(&a, &huge, huge, sizeof *a, 4), -1);
    CU_ASSERT_PTR_EQUAL(a, same);
    CU_ASSERT_EQUAL(huge, SIZE_MAX / 2 + 1);
    free(a);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("common helpers", NULL, NULL);
    CU_add_test(s, "whole-string integers", test_parse_int);
    CU_add_test(s, "growing arrays", test_grow);
    return tu_run_all();
}
