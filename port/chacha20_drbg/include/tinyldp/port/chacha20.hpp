// tinyldp/port/chacha20.hpp — the ChaCha20 block function of RFC 8439 (20 rounds, 256-bit key,
// 32-bit block counter, 96-bit nonce), the primitive under the ChaCha20 DRBG.
//
// Plain 32-bit adds, xors and rotates: no data-dependent branches, indices or tables, so its
// timing does not depend on the key; the working state is wiped before returning (with the
// output it would give the key back). Cost: no state; stack 200 bytes on Cortex-M3/M4
// (-Os), code ~600 bytes; on Cortex-M0, whose eight low registers cannot hold the state, a
// compact form with the state in one array: 124 bytes of stack and less code. Measured 1.31 k
// instructions per 64-byte block on a Cortex-M3 (20.4 instructions/byte; QEMU -icount,
// SysTick), ~600 MB/s on the x86-64 host (GCC 12 -O2); chacha20_blocks with 16 blocks side by
// side 4+ GB/s there (docs/benchmarks.md).
#ifndef TINYLDP_PORT_CHACHA20_HPP
#define TINYLDP_PORT_CHACHA20_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::port {

inline constexpr size_t chacha20_block_bytes = 64;
inline constexpr size_t chacha20_key_words = 8;
inline constexpr size_t chacha20_nonce_words = 3;

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

// Reads a little-endian 32-bit word (helper for turning RFC byte strings into key words).
constexpr uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace tinyldp::port

#endif
