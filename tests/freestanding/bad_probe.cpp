// SPDX-License-Identifier: Apache-2.0
// Deliberately NOT freestanding: the guard must report every one of these references.
#include <stddef.h>

extern "C" void* malloc(size_t);
extern "C" void* __cxa_allocate_exception(size_t);

int calls_so_far;  // writable static state

extern "C" void* bad_probe(size_t n, volatile double* x, int** escaped) {
  ++calls_so_far;
  *x = *x * 3.0;         // a soft-float multiply on soft-float targets
  *escaped = new int(3);  // operator new (escapes, so it cannot be elided)
  void* p = malloc(n);
  return p != nullptr ? p : __cxa_allocate_exception(n);
}
