// SPDX-License-Identifier: Apache-2.0
// The ChaCha20 block function against RFC 8439: the §2.3.2 block, the five keystream blocks of
// Appendix A.1, and the §2.4.2 two-block keystream (checked through its ciphertext).
#include "tinyldp/port/entropy/chacha20.hpp"

#include "check.hpp"
#include "test_util.hpp"

namespace tinyldp::test {
namespace {

struct Inputs {
  uint32_t key[8];
  uint32_t nonce[3];
};

Inputs inputs(const uint8_t key_bytes[32], const uint8_t nonce_bytes[12]) {
  Inputs in{};
  for (int i = 0; i < 8; ++i) in.key[i] = port::load_le32(key_bytes + 4 * i);
  for (int i = 0; i < 3; ++i) in.nonce[i] = port::load_le32(nonce_bytes + 4 * i);
  return in;
}
// Key words multiplier·(i + offset), i = 0 … 7, and the nonce's words: inputs that are not RFC
// vectors, for comparing the batched forms with chacha20_block.
Inputs patterned(uint32_t multiplier, uint32_t offset, uint32_t n0, uint32_t n1, uint32_t n2) {
  Inputs in{{}, {n0, n1, n2}};
  for (uint32_t i = 0; i < 8; ++i) in.key[i] = multiplier * (i + offset);
  return in;
}

// Units of `count` consecutive blocks from `counter` that differ from chacha20_block's: bytes,
// or words (word i = bytes 4i..4i+3 read little-endian).
template <class Unit>
uint32_t differing(const Inputs& in, uint32_t counter, const Unit* got, size_t count) {
  constexpr size_t per_block = 64 / sizeof(Unit);
  uint8_t one[64];
  uint32_t mismatches = 0;
  for (size_t b = 0; b < count; ++b) {
    port::chacha20_block(in.key, counter + static_cast<uint32_t>(b), in.nonce, one);
    for (size_t i = 0; i < per_block; ++i) {
      Unit expected;
      if constexpr (sizeof(Unit) == 1) {
        expected = one[i];
      } else {
        expected = port::load_le32(one + 4 * i);
      }
      mismatches += got[per_block * b + i] != expected;
    }
  }
  return mismatches;
}

TEST(rfc8439_2_3_2_block) {
  uint8_t key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<uint8_t>(i);
  const uint8_t nonce[12] = {0, 0, 0, 0x09, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const Inputs in = inputs(key, nonce);
  uint8_t out[64];
  port::chacha20_block(in.key, 1, in.nonce, out);
  CHECK(equals_hex(out,
                   "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                   "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
                   64));
}

TEST(rfc8439_a1_keystream_vectors) {
  struct Vector {
    uint8_t key_last_or_second;  // vector 3: key[31] = 1; vector 4: key[1] = 0xff
    int which;
    uint32_t counter;
    uint8_t nonce_last;
    const char* keystream;
  };
  const Vector vectors[] = {
      {0, 0, 0, 0,
       "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
       "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"},
      {0, 0, 1, 0,
       "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
       "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"},
      {1, 31, 1, 0,
       "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
       "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0"},
      {0xff, 1, 2, 0,
       "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
       "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"},
      {0, 0, 0, 2,
       "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
       "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"},
  };
  for (const Vector& v : vectors) {
    uint8_t key[32] = {};
    uint8_t nonce[12] = {};
    if (v.which != 0) key[v.which] = v.key_last_or_second;
    nonce[11] = v.nonce_last;
    const Inputs in = inputs(key, nonce);
    uint8_t out[64];
    port::chacha20_block(in.key, v.counter, in.nonce, out);
    CHECK(equals_hex(out, v.keystream, 64));
  }
}

TEST(rfc8439_2_4_2_two_block_keystream) {
  const char plaintext[] =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  constexpr size_t n = sizeof plaintext - 1;
  static_assert(n == 114);
  uint8_t key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<uint8_t>(i);
  const uint8_t nonce[12] = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const Inputs in = inputs(key, nonce);
  uint8_t stream[128];
  port::chacha20_block(in.key, 1, in.nonce, stream);
  port::chacha20_block(in.key, 2, in.nonce, stream + 64);
  uint8_t cipher[n];
  for (size_t i = 0; i < n; ++i) cipher[i] = static_cast<uint8_t>(plaintext[i] ^ stream[i]);
  CHECK(equals_hex(cipher,
                   "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
                   "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
                   "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
                   "5af90bbf74a35be6b40b8eedf2785e42874d",
                   n));
}

TEST(many_blocks_at_once_equal_one_block_at_a_time) {
  // chacha20_blocks (16 blocks side by side on x86-64 hosts, with a partial batch for the
  // remainder) against chacha20_block per counter, for every count up to 40 and a counter
  // that wraps.
  const Inputs in = patterned(0x01234567u, 1, 7, 0x4a, 0);
  static uint8_t many[40 * 64 + 1];
  const uint32_t starts[] = {0, 1, 0xFFFFFFF0u};
  uint32_t mismatches = 0;
  for (uint32_t start : starts) {
    for (size_t count = 0; count <= 40; ++count) {
      many[count * 64] = 0xA5;  // the byte after the output stays untouched
      port::chacha20_blocks(in.key, start, in.nonce, many, count);
      mismatches += differing(in, start, many, count);
      mismatches += many[count * 64] != 0xA5;
    }
  }
  CHECK_EQ(mismatches, 0u);
}

TEST(word_forms_equal_the_byte_form) {
  // chacha20_block_words (computed in its output) and chacha20_blocks_words give the words
  // whose little-endian bytes chacha20_block gives, for counts on both sides of the host's
  // wide batches and a counter that wraps.
  const Inputs in = patterned(0x89abcdefu, 3, 1, 2, 0x4a);
  static uint32_t words[20 * 16 + 1];
  uint32_t mismatches = 0;
  for (size_t count = 0; count <= 20; ++count) {
    words[count * 16] = 0xA5A5A5A5u;  // the word after the output stays untouched
    port::chacha20_blocks_words(in.key, 0xFFFFFFF8u, in.nonce, words, count);
    mismatches += differing(in, 0xFFFFFFF8u, words, count);
    mismatches += words[count * 16] != 0xA5A5A5A5u;
    uint32_t single[16];
    const uint32_t counter = 0xFFFFFFF8u + static_cast<uint32_t>(count);
    port::chacha20_block_words(in.key, counter, in.nonce, single);
    mismatches += differing(in, counter, single, 1);
  }
  CHECK_EQ(mismatches, 0u);
}

TEST(the_split_wide_batch_equals_one_block_at_a_time) {
  // chacha20_blocks_wide_split (x86-64 hosts): block 0 as words, blocks 1.. as bytes, for
  // counts around the 16-block batches; elsewhere it declines and writes nothing.
  const Inputs in = patterned(0x31415926u, 5, 0, 0, 0);
  static uint8_t rest[40 * 64 + 1];
  uint32_t mismatches = 0, served = 0;
  for (size_t count = 0; count <= 40; ++count) {
    uint32_t first[16] = {};
    rest[(count > 0 ? count - 1 : 0) * 64] = 0xA5;  // the byte after the output stays untouched
    const bool done = port::chacha20_blocks_wide_split(in.key, in.nonce, first, rest, count);
    mismatches += done != (TINYLDP_CHACHA20_WIDE && count >= 4);
    if (!done) {
      for (uint32_t w : first) mismatches += w != 0;
      continue;
    }
    ++served;
    mismatches += differing(in, 0, first, 1);
    mismatches += differing(in, 1, rest, count - 1);
    mismatches += rest[(count - 1) * 64] != 0xA5;
  }
  CHECK_EQ(mismatches, 0u);
  CHECK_EQ(served, TINYLDP_CHACHA20_WIDE ? 37u : 0u);
}

}  // namespace
}  // namespace tinyldp::test
