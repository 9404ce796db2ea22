// ChaCha20 block function, written from RFC 8439 §2.1–2.3.
#include "tinyldp/port/chacha20.hpp"

namespace tinyldp::port {
namespace {

inline uint32_t rotl(uint32_t v, unsigned n) { return (v << n) | (v >> (32u - n)); }

inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  a += b; d ^= a; d = rotl(d, 16);
  c += d; b ^= c; b = rotl(b, 12);
  a += b; d ^= a; d = rotl(d, 8);
  c += d; b ^= c; b = rotl(b, 7);
}

inline void store_le32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}

}  // namespace

void chacha20_block(const uint32_t key[chacha20_key_words], uint32_t counter,
                    const uint32_t nonce[chacha20_nonce_words], uint8_t out[chacha20_block_bytes]) {
  // "expand 32-byte k"
  const uint32_t in[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                           key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                           counter, nonce[0], nonce[1], nonce[2]};
  // Sixteen locals rather than an array: lets the compiler keep the state in registers.
  uint32_t x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3];
  uint32_t x4 = in[4], x5 = in[5], x6 = in[6], x7 = in[7];
  uint32_t x8 = in[8], x9 = in[9], x10 = in[10], x11 = in[11];
  uint32_t x12 = in[12], x13 = in[13], x14 = in[14], x15 = in[15];
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
  const uint32_t x[16] = {x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15};
  for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + in[i]);
}

}  // namespace tinyldp::port
