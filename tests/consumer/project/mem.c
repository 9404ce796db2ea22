// SPDX-License-Identifier: Apache-2.0
// What the compiler may call on RV32, where the toolchain links no C library (only libgcc).
#include <stddef.h>

void* memcpy(void* dst, const void* src, size_t n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  while (n--) *d++ = *s++;
  return dst;
}

void* memset(void* dst, int c, size_t n) {
  unsigned char* d = dst;
  while (n--) *d++ = (unsigned char)c;
  return dst;
}
