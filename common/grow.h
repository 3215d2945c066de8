/* grow.h - room for one more element in a growing array, written once instead of a doubling
 * block at every array that grows. */
#ifndef TS_GROW_H
#define TS_GROW_H

#include <stddef.h>

/* items points to the array's pointer (T **), *cap is its capacity in elements of elem bytes,
 * n the elements in use. When n == *cap, the capacity doubles (to first when empty). 0, or -1
 * when out of memory (the array and *cap unchanged). */
int ts_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first);

/* TS_GROW(arr, n, cap, first) for an array arr of n used and cap (size_t) allotted elements. */
#define TS_GROW(arr, n, cap, first) ts_grow(&(arr), &(cap), (n), sizeof *(arr), (first))

/* Append a copy of s to the array *strs of *n strings (the array grows by one; the caller
 * frees each string and the array). 0, or -1 when out of memory (nothing changed). */
int ts_strs_push(char ***strs, size_t *n, const char *s);

#endif
