// SPDX-License-Identifier: Apache-2.0
// tinyldp/wipe.hpp — erasing memory that held random bits, so that the erasure survives the
// optimizer; and wiping an object when its scope ends, for code that wants that.
//
// A report's noise, found in RAM later (a crash dump, a debug probe, a later bug), gives its
// value away. A plain memset of memory that is not read again is a dead store the compiler may
// remove; here the zeroing stores are followed by an empty asm statement that takes the address
// and clobbers memory, so they must happen. Cost: the stores (one per word for small constant
// sizes; a memset call for large ones).
//
// Objects meant to live in static storage (the DRBG, RandomBits, the mechanisms) are trivially
// destructible, so a plain global registers no destructor (__cxa_atexit/atexit) and, with an
// all-zero initial state, sits in .bss: they wipe what a report used at the end of the report,
// not on destruction (docs/privacy-model.md, "Static placement"). WipedOnExit<T> adds the wipe
// on scope exit for objects on a stack (host code, tests): T's wipe() runs in its destructor.
#ifndef TINYLDP_WIPE_HPP
#define TINYLDP_WIPE_HPP

#include <stddef.h>
#include <stdint.h>

// True when T has a trivial destructor (a compiler builtin: the core includes no <type_traits>).
#if defined(__clang__)
#define TINYLDP_TRIVIALLY_DESTRUCTIBLE(T) __is_trivially_destructible(T)
#else
#define TINYLDP_TRIVIALLY_DESTRUCTIBLE(T) __has_trivial_destructor(T)
#endif

namespace tinyldp {

inline void wipe(void* p, size_t n) {
  __builtin_memset(p, 0, n);
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

// Bytes of stack that scrub_stack() zeroes below the frame of its caller: where the frames of
// the report path's callees (RandomBits' draws and refills, the source's fill) were. Sized from
// the report paths' measured stack use on the 32-bit targets (tests/privacy/test_no_noise_left
// finds every drawn word within it); 0 on 64-bit hosts, whose report frames keep none
// (the same test, on the host). A build may set its own (-DTINYLDP_STACK_SCRUB_BYTES=…).
#if !defined(TINYLDP_STACK_SCRUB_BYTES)
#if defined(__riscv) && __SIZEOF_POINTER__ == 4
#define TINYLDP_STACK_SCRUB_BYTES 256
#elif __SIZEOF_POINTER__ == 4
#define TINYLDP_STACK_SCRUB_BYTES 192
#else
#define TINYLDP_STACK_SCRUB_BYTES 0
#endif
#endif

// Zeroes TINYLDP_STACK_SCRUB_BYTES of stack right below the caller's frame: a local array of
// fixed size (the stack analysis sees a bounded frame), wiped past the optimizer. Out of line,
// so the array lies where the caller's callees had their frames.
__attribute__((noinline)) inline void scrub_stack() {
  if constexpr (TINYLDP_STACK_SCRUB_BYTES != 0) {
    volatile uint32_t area[(TINYLDP_STACK_SCRUB_BYTES + 3) / 4];
    for (size_t i = 0; i < sizeof area / sizeof area[0]; ++i) area[i] = 0;
  }
}

// A T (with a wipe() member) that wipes itself when it goes out of scope.
template <class T>
class WipedOnExit : public T {
 public:
  using T::T;
  WipedOnExit() = default;
  WipedOnExit(const WipedOnExit&) = delete;
  WipedOnExit& operator=(const WipedOnExit&) = delete;
  ~WipedOnExit() { this->wipe(); }
};

}  // namespace tinyldp

#endif
