// SPDX-License-Identifier: Apache-2.0
/* memcpy/memset/memmove/memcmp for the RISC-V target, which has no C library here. GCC emits
 * calls to these for struct copies and clearing loops; the attribute keeps it from turning
 * these very loops back into calls to themselves. */
#include <stddef.h>

#define TINYLDP_NO_LOOP_TO_CALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

TINYLDP_NO_LOOP_TO_CALL void* memcpy(void* dst, const void* src, size_t n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  while (n--) *d++ = *s++;
  return dst;
}

TINYLDP_NO_LOOP_TO_CALL void* memmove(void* dst, const void* src, size_t n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  if (d < s) {
    while (n--) *d++ = *s++;
  } else {
    while (n--) d[n] = s[n];
  }
  return dst;
}

TINYLDP_NO_LOOP_TO_CALL void* memset(void* dst, int value, size_t n) {
  unsigned char* d = dst;
  while (n--) *d++ = (unsigned char)value;
  return dst;
}

TINYLDP_NO_LOOP_TO_CALL int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char* x = a;
  const unsigned char* y = b;
  for (; n; --n, ++x, ++y)
    if (*x != *y) return *x - *y;
  return 0;
}
