// SPDX-License-Identifier: Apache-2.0
// ChaCha20 block function, written from RFC 8439 §2.1–2.3.
#include "tinyldp/port/entropy/chacha20.hpp"


namespace tinyldp::port {
namespace {

inline uint32_t rotl(uint32_t v, unsigned n) { return (v << n) | (v >> (32u - n)); }

inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  a += b; d ^= a; d = rotl(d, 16);
  c += d; b ^= c; b = rotl(b, 12);
  a += b; d ^= a; d = rotl(d, 8);
  c += d; b ^= c; b = rotl(b, 7);
}

#if TINYLDP_CHACHA20_WIDE
// Sixteen blocks side by side, one per vector lane (GCC vector extension): the same adds,
// xors and rotates as chacha20_block on 16 counters at once. Compiled three times, for
// AVX-512, AVX2 and baseline x86-64, the CPU picking at run time; the output is identical.
constexpr size_t wide_lanes = 16;
typedef uint32_t Lanes __attribute__((vector_size(4 * wide_lanes)));

// By reference only: a 64-byte vector passed or returned by value would have a different ABI
// in each clone.
inline void rotate(Lanes& v, unsigned n) { v = (v << n) | (v >> (32u - n)); }

inline void quarter_round(Lanes& a, Lanes& b, Lanes& c, Lanes& d) {
  a += b; d ^= a; rotate(d, 16);
  c += d; b ^= c; rotate(b, 12);
  a += b; d ^= a; rotate(d, 8);
  c += d; b ^= c; rotate(b, 7);
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void chacha20_wide(const uint32_t key[chacha20_key_words], uint32_t counter,
                   const uint32_t nonce[chacha20_nonce_words], uint8_t* out) {
  Lanes in[16];
  const uint32_t constants[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
  for (int i = 0; i < 4; ++i) in[i] = Lanes{} + constants[i];
  for (int i = 0; i < 8; ++i) in[4 + i] = Lanes{} + key[i];
  for (unsigned lane = 0; lane < wide_lanes; ++lane) in[12][lane] = counter + lane;
  for (int i = 0; i < 3; ++i) in[13 + i] = Lanes{} + nonce[i];
  Lanes x[16];
  for (int i = 0; i < 16; ++i) x[i] = in[i];
  for (int round = 0; round < 10; ++round) {
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  // Word i of every block sits in x[i]: through a 16×16 table, one block (row) at a time.
  uint32_t words[16][wide_lanes];
  for (int i = 0; i < 16; ++i) {
    const Lanes sum = x[i] + in[i];
    __builtin_memcpy(words[i], &sum, sizeof sum);
  }
#pragma GCC unroll 16
  for (unsigned lane = 0; lane < wide_lanes; ++lane) {
    uint32_t block[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) block[i] = words[i][lane];
    __builtin_memcpy(out + chacha20_block_bytes * lane, block, sizeof block);  // little-endian host
  }
  // Wipe the keystream table; the empty asm that reads it keeps the stores from being dropped.
  __builtin_memset(words, 0, sizeof words);
  __asm__ __volatile__("" : : "r"(words) : "memory");
}

// Four blocks side by side, one per lane of a 128-bit vector (counters 0 … 3 in the lanes): a
// short request's blocks without the 16-lane batch's twelve wasted lanes, its 1 KiB of stack and
// the wipe of it. Sixteen named vectors, not arrays: with AVX-512VL's 32 vector registers and its
// rotate the whole state stays in registers (no stack frame at all). Only there: with the 16
// registers of AVX2 or SSE2 the compiler spills state and output words to the stack, which
// nothing would wipe (chacha20_blocks_four_split then declines).
typedef uint32_t Lanes4 __attribute__((vector_size(16)));

inline void rotate(Lanes4& v, unsigned n) { v = (v << n) | (v >> (32u - n)); }

inline void quarter_round(Lanes4& a, Lanes4& b, Lanes4& c, Lanes4& d) {
  a += b; d ^= a; rotate(d, 16);
  c += d; b ^= c; rotate(b, 12);
  a += b; d ^= a; rotate(d, 8);
  c += d; b ^= c; rotate(b, 7);
}

// Words w … w + 3 of the four blocks (a: word w of blocks 0 … 3, b: word w + 1, …), transposed
// to four words of each block: block 0's into first[w …], block i's (1 ≤ i < count) into rest.
inline void store_words(const Lanes4& a, const Lanes4& b, const Lanes4& c, const Lanes4& d,
                        size_t w, uint32_t* first, uint8_t* rest, size_t count) {
  const Lanes4 ab_low = __builtin_shuffle(a, b, Lanes4{0, 4, 1, 5});
  const Lanes4 ab_high = __builtin_shuffle(a, b, Lanes4{2, 6, 3, 7});
  const Lanes4 cd_low = __builtin_shuffle(c, d, Lanes4{0, 4, 1, 5});
  const Lanes4 cd_high = __builtin_shuffle(c, d, Lanes4{2, 6, 3, 7});
  // One store per block, straight from a register (an array of the four would go on the stack).
  const Lanes4 block0 = __builtin_shuffle(ab_low, cd_low, Lanes4{0, 1, 4, 5});
  const Lanes4 block1 = __builtin_shuffle(ab_low, cd_low, Lanes4{2, 3, 6, 7});
  const Lanes4 block2 = __builtin_shuffle(ab_high, cd_high, Lanes4{0, 1, 4, 5});
  const Lanes4 block3 = __builtin_shuffle(ab_high, cd_high, Lanes4{2, 3, 6, 7});
  __builtin_memcpy(first + w, &block0, sizeof block0);  // little-endian host: bytes are words
  if (count > 1) __builtin_memcpy(rest + 4 * w, &block1, sizeof block1);
  if (count > 2) __builtin_memcpy(rest + chacha20_block_bytes + 4 * w, &block2, sizeof block2);
  if (count > 3) __builtin_memcpy(rest + 2 * chacha20_block_bytes + 4 * w, &block3, sizeof block3);
}

__attribute__((target("avx512vl")))
void chacha20_four(const uint32_t key[chacha20_key_words], const uint32_t nonce[chacha20_nonce_words],
                   uint32_t* first, uint8_t* rest, size_t count) {
  constexpr uint32_t c0 = 0x61707865u, c1 = 0x3320646eu, c2 = 0x79622d32u, c3 = 0x6b206574u;
  const Lanes4 counters = {0, 1, 2, 3};
  Lanes4 x0 = Lanes4{} + c0, x1 = Lanes4{} + c1, x2 = Lanes4{} + c2, x3 = Lanes4{} + c3;
  Lanes4 x4 = Lanes4{} + key[0], x5 = Lanes4{} + key[1], x6 = Lanes4{} + key[2];
  Lanes4 x7 = Lanes4{} + key[3], x8 = Lanes4{} + key[4], x9 = Lanes4{} + key[5];
  Lanes4 x10 = Lanes4{} + key[6], x11 = Lanes4{} + key[7], x12 = counters;
  Lanes4 x13 = Lanes4{} + nonce[0], x14 = Lanes4{} + nonce[1], x15 = Lanes4{} + nonce[2];
  for (int round = 0; round < 10; ++round) {
    quarter_round(x0, x4, x8, x12);
    quarter_round(x1, x5, x9, x13);
    quarter_round(x2, x6, x10, x14);
    quarter_round(x3, x7, x11, x15);
    quarter_round(x0, x5, x10, x15);
    quarter_round(x1, x6, x11, x12);
    quarter_round(x2, x7, x8, x13);
    quarter_round(x3, x4, x9, x14);
  }
  x0 += c0, x1 += c1, x2 += c2, x3 += c3;
  x4 += key[0], x5 += key[1], x6 += key[2], x7 += key[3];
  x8 += key[4], x9 += key[5], x10 += key[6], x11 += key[7];
  x12 += counters, x13 += nonce[0], x14 += nonce[1], x15 += nonce[2];
  store_words(x0, x1, x2, x3, 0, first, rest, count);
  store_words(x4, x5, x6, x7, 4, first, rest, count);
  store_words(x8, x9, x10, x11, 8, first, rest, count);
  store_words(x12, x13, x14, x15, 12, first, rest, count);
}
#endif

// "expand 32-byte k"
constexpr uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};

// x[i] = input word i (the constants, the key, the counter, the nonce), or x[i] += it when
// Add: short loops, compact and branch-free per word.
template <bool Add>
inline void with_input(uint32_t* x, const uint32_t* key, uint32_t counter, const uint32_t* nonce) {
  for (unsigned i = 0; i < 4; ++i) x[i] = (Add ? x[i] : 0) + sigma[i];
  for (unsigned i = 0; i < 8; ++i) x[4 + i] = (Add ? x[4 + i] : 0) + key[i];
  x[12] = (Add ? x[12] : 0) + counter;
  for (unsigned i = 0; i < 3; ++i) x[13 + i] = (Add ? x[13 + i] : 0) + nonce[i];
}

// Wipes a block's working state: with the output it would give back the key (the 20 rounds
// are a permutation), so it must not stay behind in a dead stack frame.
inline void wipe_state(uint32_t* x) {
  volatile uint32_t* v = x;
  for (unsigned i = 0; i < 16; ++i) v[i] = 0;
}

}  // namespace

#if defined(__ARM_ARCH_6M__)
// Cortex-M0/M0+ (ARMv6-M): eight low registers cannot hold the sixteen-word state, so the
// register-allocated form below spills most of it into a 232-byte frame. Here the state is one
// array — the output itself — and every quarter round reads and writes its four words from a
// table of indices: a small frame and less code, for some more loads and stores.
namespace {
constexpr uint8_t quarter_rounds[8][4] = {{0, 4, 8, 12},  {1, 5, 9, 13}, {2, 6, 10, 14},
                                          {3, 7, 11, 15}, {0, 5, 10, 15}, {1, 6, 11, 12},
                                          {2, 7, 8, 13},  {3, 4, 9, 14}};

// Out of line, so that only four words are live at a time.
__attribute__((noinline)) void quarter_round_at(uint32_t* x, const uint8_t* q) {
  uint32_t a = x[q[0]], b = x[q[1]], c = x[q[2]], d = x[q[3]];
  quarter_round(a, b, c, d);
  x[q[0]] = a;
  x[q[1]] = b;
  x[q[2]] = c;
  x[q[3]] = d;
}
}  // namespace

void chacha20_block_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                          const uint32_t nonce[chacha20_nonce_words], uint32_t x[chacha20_block_words_count]) {
  with_input<false>(x, key, counter, nonce);
  for (int round = 0; round < 10; ++round) {
    for (const auto& q : quarter_rounds) quarter_round_at(x, q);
  }
  with_input<true>(x, key, counter, nonce);
}
#else
void chacha20_block_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                          const uint32_t nonce[chacha20_nonce_words], uint32_t out[chacha20_block_words_count]) {
  // Sixteen locals rather than an array: lets the compiler keep the state in registers.
  uint32_t x0 = sigma[0], x1 = sigma[1], x2 = sigma[2], x3 = sigma[3];
  uint32_t x4 = key[0], x5 = key[1], x6 = key[2], x7 = key[3];
  uint32_t x8 = key[4], x9 = key[5], x10 = key[6], x11 = key[7];
  uint32_t x12 = counter, x13 = nonce[0], x14 = nonce[1], x15 = nonce[2];
  for (int round = 0; round < 10; ++round) {
    // column rounds
    quarter_round(x0, x4, x8, x12);
    quarter_round(x1, x5, x9, x13);
    quarter_round(x2, x6, x10, x14);
    quarter_round(x3, x7, x11, x15);
    // diagonal rounds
    quarter_round(x0, x5, x10, x15);
    quarter_round(x1, x6, x11, x12);
    quarter_round(x2, x7, x8, x13);
    quarter_round(x3, x4, x9, x14);
  }
  // Straight from the registers into the output (no copy of the state on the stack), then the
  // input added in short loops (smaller code than sixteen unrolled adds).
  out[0] = x0, out[1] = x1, out[2] = x2, out[3] = x3, out[4] = x4, out[5] = x5, out[6] = x6;
  out[7] = x7, out[8] = x8, out[9] = x9, out[10] = x10, out[11] = x11, out[12] = x12;
  out[13] = x13, out[14] = x14, out[15] = x15;
  with_input<true>(out, key, counter, nonce);
}
#endif

void chacha20_block(const uint32_t key[chacha20_key_words], uint32_t counter,
                    const uint32_t nonce[chacha20_nonce_words], uint8_t out[chacha20_block_bytes]) {
  uint32_t x[16];
  chacha20_block_words(key, counter, nonce, x);
  for (unsigned i = 0; i < 16; ++i) put_le(out + 4 * i, x[i]);
  wipe_state(x);
}

#if TINYLDP_CHACHA20_WIDE
size_t chacha20_blocks_wide(const uint32_t key[chacha20_key_words], uint32_t counter,
                            const uint32_t nonce[chacha20_nonce_words], uint8_t* out, size_t count) {
  const size_t total = count;
  for (; count >= wide_lanes; count -= wide_lanes, counter += wide_lanes) {
    chacha20_wide(key, counter, nonce, out);
    out += wide_lanes * chacha20_block_bytes;
  }
  // A remainder of 4 or more blocks: all 16 lanes into a partial batch (cheaper than 4 plain
  // blocks), the needed ones copied out, the rest of the keystream wiped.
  if (count >= 4) {
    uint64_t partial[wide_lanes * chacha20_block_bytes / 8];
    chacha20_wide(key, counter, nonce, reinterpret_cast<uint8_t*>(partial));
    __builtin_memcpy(out, partial, count * chacha20_block_bytes);
    volatile uint64_t* wipe = partial;
    for (size_t i = 0; i < sizeof partial / 8; ++i) wipe[i] = 0;
    count = 0;
  }
  return total - count;
}

bool chacha20_blocks_wide_split(const uint32_t key[chacha20_key_words],
                                const uint32_t nonce[chacha20_nonce_words],
                                uint32_t first[chacha20_block_words_count], uint8_t* rest,
                                size_t count) {
  if (count < 4) return false;
  uint64_t batch[wide_lanes * chacha20_block_bytes / 8];
  chacha20_wide(key, 0, nonce, reinterpret_cast<uint8_t*>(batch));
  const size_t in_batch = count < wide_lanes ? count : wide_lanes;
  __builtin_memcpy(first, batch, chacha20_block_bytes);  // little-endian host: bytes are words
  __builtin_memcpy(rest, batch + 8, (in_batch - 1) * chacha20_block_bytes);
  volatile uint64_t* wipe = batch;
  for (size_t i = 0; i < sizeof batch / 8; ++i) wipe[i] = 0;
  if (count > wide_lanes) {
    uint8_t* out = rest + (wide_lanes - 1) * chacha20_block_bytes;
    const size_t left = count - wide_lanes;
    const size_t done = chacha20_blocks_wide(key, wide_lanes, nonce, out, left);
    for (size_t b = done; b < left; ++b)
      chacha20_block(key, static_cast<uint32_t>(wide_lanes + b), nonce, out + b * chacha20_block_bytes);
  }
  return true;
}

bool chacha20_blocks_four_split(const uint32_t key[chacha20_key_words],
                                const uint32_t nonce[chacha20_nonce_words],
                                uint32_t first[chacha20_block_words_count], uint8_t* rest,
                                size_t count) {
  if (count == 0 || count > 4 || !__builtin_cpu_supports("avx512vl")) return false;
  chacha20_four(key, nonce, first, rest, count);
  return true;
}
#endif

void chacha20_blocks(const uint32_t key[chacha20_key_words], uint32_t counter,
                     const uint32_t nonce[chacha20_nonce_words], uint8_t* out, size_t count) {
  const size_t wide = chacha20_blocks_wide(key, counter, nonce, out, count);
  for (size_t b = wide; b < count; ++b)
    chacha20_block(key, counter + static_cast<uint32_t>(b), nonce, out + b * chacha20_block_bytes);
}

#if TINYLDP_CHACHA20_WIDE
void chacha20_blocks_words(const uint32_t key[chacha20_key_words], uint32_t counter,
                           const uint32_t nonce[chacha20_nonce_words], uint32_t* out, size_t count) {
  // Little-endian host: the wide path's bytes are the words.
  chacha20_blocks(key, counter, nonce, reinterpret_cast<uint8_t*>(out), count);
}
#endif

}  // namespace tinyldp::port
