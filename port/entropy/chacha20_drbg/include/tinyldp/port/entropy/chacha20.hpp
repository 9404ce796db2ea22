// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/chacha20.hpp — the ChaCha20 block function of RFC 8439 (20 rounds, 256-bit key,
// 32-bit block counter, 96-bit nonce), the primitive under the ChaCha20 DRBG.
//
// Plain 32-bit adds, xors and rotates: no data-dependent branches, indices or tables, so its
// timing does not depend on the key. chacha20_block_words computes in its output, so no block
// state is left on the stack; chacha20_block works in a local array it wipes before returning
// (with the output the state would give the key back). Cost: no state; on Cortex-M0, whose
// eight low registers cannot hold the state, a compact form with the state in the output
// array (its frames are on the OUE firmware's call path in docs/footprint.md). On the x86-64
// host chacha20_blocks runs 16 blocks side by side, and with AVX-512VL up to four blocks (the
// DRBG's refills) run in the four lanes of 128-bit vectors. Instructions per byte on every target:
// docs/target-costs.md; host speed through the DRBG: docs/benchmarks.md.
#ifndef TINYLDP_PORT_CHACHA20_HPP
#define TINYLDP_PORT_CHACHA20_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"

namespace tinyldp::port {

inline constexpr size_t chacha20_block_bytes = 64;
inline constexpr size_t chacha20_key_words = 8;
inline constexpr size_t chacha20_nonce_words = 3;

inline constexpr size_t chacha20_block_words_count = 16;

// One keystream block as sixteen words: word i is bytes 4i..4i+3 of the block read
// little-endian. Computed in `out` itself, so no working state is left on the stack (the
// DRBG generates into its own buffer this way); `out` must not overlap key or nonce.
void chacha20_block_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                          const uint32_t nonce[chacha20_nonce_words],
                          uint32_t out[chacha20_block_words_count]);

// One 64-byte keystream block. Key and nonce are taken as little-endian words (RFC 8439 §2.3:
// key word i = bytes 4i..4i+3 of the key read little-endian); `out` receives the serialized
// block, byte order as in the RFC.
void chacha20_block(const uint32_t key[chacha20_key_words], uint32_t counter,
                    const uint32_t nonce[chacha20_nonce_words], uint8_t out[chacha20_block_bytes]);

// `count` consecutive blocks (counters counter, counter + 1, …, wrapping mod 2^32) into out,
// 64·count bytes: the same bytes as one chacha20_block call per counter. On x86-64 hosts
// 16 blocks at a time run side by side in vector registers (AVX-512 or AVX2 when the CPU has
// them): several GB/s.
void chacha20_blocks(const uint32_t key[chacha20_key_words], uint32_t counter,
                     const uint32_t nonce[chacha20_nonce_words], uint8_t* out, size_t count);
// x86-64 hosts (GCC) compute 16 blocks at a time in vector registers; microcontrollers and
// other compilers run the plain block function, which is what fits their registers.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TINYLDP_CHACHA20_WIDE 1
#else
#define TINYLDP_CHACHA20_WIDE 0
#endif

// The blocks of a chacha20_blocks request the host's wide path serves (whole batches of 16,
// and a remainder of 4 or more), written to out; returns how many — the first ones. Elsewhere
// 0: callers compute the rest with chacha20_block_words where they choose (the DRBG: in its
// buffer, so no block state goes on the stack).
#if TINYLDP_CHACHA20_WIDE
size_t chacha20_blocks_wide(const uint32_t key[chacha20_key_words], uint32_t counter,
                            const uint32_t nonce[chacha20_nonce_words], uint8_t* out, size_t count);
// Blocks 0 … count − 1 (counters from 0) with block 0 as words into `first` and blocks 1… into
// `rest` (64·(count − 1) bytes), all on the wide path (no block computed alone); false, with
// nothing written, elsewhere or when count < 4. The DRBG's long requests: block 0 holds its
// next key.
bool chacha20_blocks_wide_split(const uint32_t key[chacha20_key_words],
                                const uint32_t nonce[chacha20_nonce_words],
                                uint32_t first[chacha20_block_words_count], uint8_t* rest,
                                size_t count);
// The same for count = 1 … 4 on CPUs with AVX-512VL (false, with nothing written, for other
// counts and CPUs): four blocks side by side, one per lane of a 128-bit vector, where the 16-lane
// batch would compute 16 blocks for them — the DRBG's 4-block refills (first: its buffer's
// words, rest: the buffer after block 0) and its requests of one to three direct blocks. The
// whole state stays in AVX-512VL's 32 registers: nothing goes on the stack.
bool chacha20_blocks_four_split(const uint32_t key[chacha20_key_words],
                                const uint32_t nonce[chacha20_nonce_words],
                                uint32_t first[chacha20_block_words_count], uint8_t* rest,
                                size_t count);
#else
inline size_t chacha20_blocks_wide(const uint32_t*, uint32_t, const uint32_t*, uint8_t*, size_t) {
  return 0;
}
inline bool chacha20_blocks_wide_split(const uint32_t*, const uint32_t*, uint32_t*, uint8_t*, size_t) {
  return false;
}
inline bool chacha20_blocks_four_split(const uint32_t*, const uint32_t*, uint32_t*, uint8_t*, size_t) {
  return false;
}
#endif

// `count` consecutive blocks as words (chacha20_block_words per counter) into out, 16·count
// words; the wide path on x86-64 hosts, else each block computed in place.
#if TINYLDP_CHACHA20_WIDE
void chacha20_blocks_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                           const uint32_t nonce[chacha20_nonce_words], uint32_t* out, size_t count);
#else
inline void chacha20_blocks_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                                  const uint32_t nonce[chacha20_nonce_words], uint32_t* out,
                                  size_t count) {
  for (; count > 0; --count, ++counter, out += chacha20_block_words_count)
    chacha20_block_words(key, counter, nonce, out);
}
#endif

// Reads a little-endian 32-bit word (helper for turning RFC byte strings into key words).
constexpr uint32_t load_le32(const uint8_t* p) { return get_le<uint32_t>(p); }

}  // namespace tinyldp::port

#endif
