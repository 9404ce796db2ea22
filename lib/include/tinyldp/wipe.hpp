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

// Bytes of stack a report path scrubs below the frame that ends the report: where the frames
// of its callees (RandomBits' draws and refills, the source's fill, UE's ladder, the memo
// streams' ChaCha20 blocks) were, and where 32-bit cores leave spilled draws. Each mechanism
// passes its own (release<Bytes>, fail_closed.hpp), the deepest residue
// tests/privacy/test_no_noise_left finds on the four 32-bit targets without a scrub (built with
// -DTINYLDP_STACK_SCRUB_BYTES=0; measured below the test's stack pointer, so the frames of the
// report path above the scrub are counted too), rounded up to 16 B, and at least 96 B
// (RandomBits' draw path: draw, draw_across and refill_buffer, whose words that test only sees
// when a report refills). 64-bit hosts: the deepest residue the same test finds on the x86-64
// host, rounded up to 16 B — 0 for the mechanisms whose frames keep none there; the memoized
// ones keep memo words there (ChaCha20's block function pushes its caller's registers). A
// build may set one size for every path (-DTINYLDP_STACK_SCRUB_BYTES=…, 0 turns the scrub off).
constexpr size_t stack_scrub_bytes(size_t measured, size_t measured_on_64_bit = 0) {
#if defined(TINYLDP_STACK_SCRUB_BYTES)
  return (void)measured, (void)measured_on_64_bit, size_t{TINYLDP_STACK_SCRUB_BYTES};
#else
  return __SIZEOF_POINTER__ == 4 ? (measured < 96 ? 96 : (measured + 15) / 16 * 16)
                                 : (measured_on_64_bit + 15) / 16 * 16;
#endif
}
// The size for a forget_drawn() that names none (a memo Rng the exhaustive tests enumerate;
// every report path passes its own measured size).
inline constexpr size_t default_stack_scrub = stack_scrub_bytes(192);

// Zeroes Bytes of stack right below the caller's frame: a local array of fixed size (the stack
// analysis sees a bounded frame), a word store per loop turn (4 instructions), kept by volatile. Out of
// line, so the array lies where the caller's callees had their frames.
template <size_t Bytes>
__attribute__((noinline)) void scrub_stack() {
  if constexpr (Bytes != 0) {
    volatile uint32_t area[(Bytes + 15) / 16 * 4];
    for (volatile uint32_t* p = area; p != area + sizeof area / sizeof area[0]; ++p) *p = 0;
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
