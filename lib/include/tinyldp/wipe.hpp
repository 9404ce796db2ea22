// SPDX-License-Identifier: Apache-2.0
// tinyldp/wipe.hpp — erasing memory that held random bits, so that the erasure survives the
// optimizer.
//
// A report's noise, found in RAM later (a crash dump, a debug probe, a later bug), gives its
// value away. A plain memset of memory that is not read again is a dead store the compiler may
// remove; here the zeroing stores are followed by an empty asm statement that takes the address
// and clobbers memory, so they must happen. Cost: the stores (one per word for small constant
// sizes; a memset call for large ones).
#ifndef TINYLDP_WIPE_HPP
#define TINYLDP_WIPE_HPP

#include <stddef.h>

namespace tinyldp {

inline void wipe(void* p, size_t n) {
  __builtin_memset(p, 0, n);
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

}  // namespace tinyldp

#endif
