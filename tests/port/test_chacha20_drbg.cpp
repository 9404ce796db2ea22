// SPDX-License-Identifier: Apache-2.0
// The ChaCha20 DRBG: known answers from an independent model, seeding through the contract,
// the reseed interval (fails closed), fast key erasure, wiping, and its contract as a source;
// the stream for a mix of request sizes against a one-block-at-a-time model and the digests of
// the implementation before the host's four-lane refills.
#include "tinyldp/port/entropy/chacha20_drbg.hpp"

#include "check.hpp"
#include "digest.hpp"
#include "test_util.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

constexpr uint32_t blocking = TINYLDP_ENTROPY_BLOCKING;

void seed_0_to_31(port::ChaCha20Drbg& drbg) {
  uint8_t material[32];
  for (int i = 0; i < 32; ++i) material[i] = static_cast<uint8_t>(i);
  drbg.seed_from_bytes(material, sizeof material);
}
// ... and reseeding every `interval` blocks, from `reseeder` if there is one.
void seed_0_to_31(port::ChaCha20Drbg& drbg, uint32_t interval, port::InsecureTestSource* reseeder = nullptr) {
  seed_0_to_31(drbg);
  if (reseeder != nullptr) drbg.set_reseed_source(*reseeder);
  drbg.set_reseed_interval_blocks(interval);
}

// Lets a test look at the generator's bytes after its destructor ran.
union Inspectable {
  Inspectable() : drbg() {}
  ~Inspectable() {}
  WipedOnExit<port::ChaCha20Drbg> drbg;
  uint8_t bytes[sizeof(port::ChaCha20Drbg)];
};

// A plain global: constant-initialized (constinit) to all zeros, so it is .bss with no
// destructor registered (tests/static_placement checks the images).
constinit port::ChaCha20Drbg global_drbg;

bool contains(const uint8_t* hay, size_t hay_n, const uint8_t* needle, size_t needle_n) {
  for (size_t i = 0; i + needle_n <= hay_n; ++i)
    if (bytes_equal(hay + i, needle, needle_n)) return true;
  return false;
}

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

TEST(is_an_entropy_source_with_full_estimate_once_seeded) {
  static_assert(EntropyEstimating<port::ChaCha20Drbg>);
  port::ChaCha20Drbg drbg;
  CHECK_EQ(entropy_estimate(drbg), 0u);
  seed_0_to_31(drbg);
  CHECK_EQ(entropy_estimate(drbg), 2048u);
}

TEST(known_answers_from_an_independent_model) {
  // Expected bytes computed by a separately written Python model of the construction over
  // OpenSSL's ChaCha20 (seed chain, 4-block refills, direct blocks for long requests).
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  uint8_t a[16], b[200], c[40];
  CHECK(drbg.fill(a, sizeof a, blocking) == EntropyResult::ok);
  CHECK(drbg.fill(b, sizeof b, blocking) == EntropyResult::ok);
  CHECK(drbg.fill(c, sizeof c, blocking) == EntropyResult::ok);
  CHECK(equals_hex(a, "1a4d8e14fc466a2441948d2ae79596cd", 16));
  CHECK(equals_hex(b, "3c24ed4e7b4aaaf1560d1c291868d182", 16));
  CHECK(equals_hex(b + 184, "96fa04f96d81c6f9fdd0c1658e85094d", 16));
  CHECK(equals_hex(c,
                   "ccb109ffcffe55e1e5073aea3dde5df60b4d990a3c266116ffff5dc113548b13"
                   "8c8b5baf2c4f953c",
                   40));
}

TEST(long_requests_go_straight_to_the_caller_with_the_same_stream_on_every_path) {
  // After the first refill is used up, a 1100-byte request takes blocks 1–17 of the next key
  // straight into the caller (on x86-64 hosts all of them, block 0 included, on the wide path;
  // elsewhere one at a time in the buffer) and 12 bytes from block 0's second half. Those 12
  // bytes and the 20 after them are the model's (the start of `c` above, bytes 8–39); the
  // direct blocks are what the scalar build (targets, clang) and the wide one both give.
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  static uint8_t a[16], b[208], big[1100], after[48];
  CHECK(drbg.fill(a, sizeof a, blocking) == EntropyResult::ok);
  CHECK(drbg.fill(b, sizeof b, blocking) == EntropyResult::ok);
  CHECK(drbg.fill(big, sizeof big, blocking) == EntropyResult::ok);
  CHECK(drbg.fill(after, sizeof after, blocking) == EntropyResult::ok);
  CHECK(equals_hex(big, "186f822921a7cb57380c24f94434b8d1", 16));
  CHECK(equals_hex(big + 512, "f74f4c5959b9d09157945ece64f50e2d", 16));
  CHECK(equals_hex(big + 1008, "ddc42efca664e43dde5871ce46768bfc", 16));
  CHECK(equals_hex(big + 1084, "e6394501e5073aea3dde5df60b4d990a", 16));
  CHECK(equals_hex(after,
                   "3c266116ffff5dc113548b138c8b5baf2c4f953cccfeff9d51005799e5e5fe8e"
                   "cab25fa5c4240e5b5660d16b3aee14a9",
                   48));
}

// The construction as chacha20_drbg.hpp describes it, one block at a time with chacha20_block
// (RFC 8439's byte form): seed_from_bytes of 32 bytes into the all-zero key is one link of the
// seed chain; a refill is TINYLDP_CHACHA20_DRBG_BLOCKS blocks of the key; a request that finds
// the buffer empty with n ≥ 64 bytes left takes blocks 1 … min(n / 64, 4096) of the key
// straight and buffers block 0's second half; block 0's first half is always the next key.
// (The default reseed interval, which these requests never reach.)
class Model {
 public:
  explicit Model(const uint8_t material[32]) {
    uint32_t mixed[8];
    for (size_t i = 0; i < 8; ++i) mixed[i] = port::load_le32(material + 4 * i);
    const uint32_t nonce[3] = {0x65747962u, 0, 32};  // "byte", chunk 0, 32 bytes
    next_key(mixed, nonce);
  }
  void fill(uint8_t* out, size_t length) {
    static constexpr uint32_t zero[3] = {0, 0, 0};
    size_t done = 0;
    while (done < length) {
      if (position_ == end_) {
        size_t direct = (length - done) / 64;
        if (direct > 4096) direct = 4096;
        const size_t blocks = direct > 0 ? direct + 1 : size_t{TINYLDP_CHACHA20_DRBG_BLOCKS};
        for (size_t i = 1; i < blocks; ++i)
          port::chacha20_block(key_, static_cast<uint32_t>(i), zero,
                               direct > 0 ? out + done + 64 * (i - 1) : buffer_ + 64 * i);
        next_key(key_, zero);  // block 0: the next key, then 32 bytes for the buffer
        position_ = 32;
        end_ = direct > 0 ? 64 : 64 * size_t{TINYLDP_CHACHA20_DRBG_BLOCKS};
        done += 64 * direct;
        continue;
      }
      for (; position_ < end_ && done < length; ++position_) out[done++] = buffer_[position_];
    }
  }

 private:
  void next_key(const uint32_t key[8], const uint32_t nonce[3]) {
    port::chacha20_block(key, 0, nonce, buffer_);
    for (size_t i = 0; i < 8; ++i) key_[i] = port::load_le32(buffer_ + 4 * i);
  }
  uint32_t key_[8] = {};
  uint8_t buffer_[64 * TINYLDP_CHACHA20_DRBG_BLOCKS] = {};
  size_t position_ = 0, end_ = 0;
};

// Request sizes that take every path of fill: bytes from the buffer alone, requests across a
// refill, long requests of 1 … 17 direct blocks (around the host's four-lane and 16-lane
// batches) that find the buffer empty or not.
constexpr uint16_t mixed_sizes[] = {1,   7,   8,   8,   8,    13,   32,   31,  64,  65,  100, 127,
                                    128, 129, 150, 191, 192,  193,  200,  255, 256, 257, 300, 320,
                                    448, 511, 512, 600, 1000, 1024, 1025, 1100, 3,   8,   40,  8};
uint8_t mixed_out[1100], model_out[1100];

TEST(a_mix_of_request_sizes_gives_the_models_stream_and_the_digest_of_before) {
  // The same bytes as the model, on every target; and the digest of every byte handed out as
  // the implementation gave it before the four-lane refills (x86-64 hosts, 2026-11-25): the
  // stream, buffered/direct split included, is unchanged on every path. Three passes, each
  // starting at a different place in a refill.
  uint8_t material[32];
  for (int i = 0; i < 32; ++i) material[i] = static_cast<uint8_t>(i);
  port::ChaCha20Drbg drbg;
  drbg.seed_from_bytes(material, sizeof material);
  Model model(material);
  Digest digest;
  size_t requests = 0, differing = 0;
  for (size_t pass = 0; pass < 3; ++pass) {
    for (uint16_t n : mixed_sizes) {
      const size_t length = (n + 3 * pass) % (sizeof mixed_out + 1);
      CHECK(drbg.fill(mixed_out, length, blocking) == EntropyResult::ok);
      model.fill(model_out, length);
      differing += !bytes_equal(mixed_out, model_out, length);
      digest.add(mixed_out, length);
      ++requests;
    }
  }
  CHECK_EQ(differing, 0u);
  CHECK_EQ(requests, 3 * sizeof mixed_sizes / sizeof mixed_sizes[0]);
#if TINYLDP_CHACHA20_DRBG_BLOCKS == 4
  CHECK_EQ(digest.state, 0xe1c52039e4a6c1c8ull);
#endif

  // With a reseed every 5 blocks (long requests clipped to the interval) from a test source.
  port::InsecureTestSource reseeder(21);
  port::ChaCha20Drbg clipped;
  clipped.seed_from_bytes(material, sizeof material);
  clipped.set_reseed_source(reseeder);
  clipped.set_reseed_interval_blocks(5);
  Digest reseeded;
  for (uint16_t n : mixed_sizes) {
    CHECK(clipped.fill(mixed_out, n, blocking) == EntropyResult::ok);
    reseeded.add(mixed_out, n);
  }
  CHECK_GE(reseeder.bytes_served(), 10u * 32u);
#if TINYLDP_CHACHA20_DRBG_BLOCKS == 4
  CHECK_EQ(reseeded.state, 0x3615e1ac6f487ef1ull);
#endif
}

#if !defined(TINYLDP_TEST_ON_TARGET)
// Past the 4096 direct blocks one key serves (host only: 300 KiB).
uint8_t huge_out[300 * 1024], huge_model[300 * 1024];
TEST(a_request_past_the_direct_limit_gives_the_models_stream) {
  uint8_t material[32];
  for (int i = 0; i < 32; ++i) material[i] = static_cast<uint8_t>(0xA0 + i);
  port::ChaCha20Drbg drbg;
  drbg.seed_from_bytes(material, sizeof material);
  Model model(material);
  uint8_t head[40], model_head[40];
  CHECK(drbg.fill(head, sizeof head, blocking) == EntropyResult::ok);
  model.fill(model_head, sizeof model_head);
  CHECK(drbg.fill(huge_out, sizeof huge_out, blocking) == EntropyResult::ok);
  model.fill(huge_model, sizeof huge_model);
  CHECK(bytes_equal(head, model_head, sizeof head));
  CHECK(bytes_equal(huge_out, huge_model, sizeof huge_out));
  Digest digest;
  digest.add(huge_out, sizeof huge_out);
#if TINYLDP_CHACHA20_DRBG_BLOCKS == 4
  CHECK_EQ(digest.state, 0x8d92a310faa89115ull);
#endif
}
#endif

TEST(the_four_lane_blocks_equal_one_block_at_a_time) {
  // chacha20_blocks_four_split (x86-64 hosts with AVX-512VL: the refills above): block 0 as
  // words, blocks 1 … count − 1 as bytes, nothing written past them; it declines counts
  // outside 1 … 4, and everything elsewhere.
  const uint32_t key[8] = {0x03020100u, 0x07060504u, 0x0b0a0908u, 0x0f0e0d0cu,
                           0x13121110u, 0x17161514u, 0x1b1a1918u, 0x9f9e9d9cu};
  const uint32_t nonce[3] = {0, 0, 0};
#if TINYLDP_CHACHA20_WIDE
  const bool four_lanes = __builtin_cpu_supports("avx512vl");
#else
  const bool four_lanes = false;
#endif
  uint32_t served = 0;
  for (size_t count = 0; count <= 5; ++count) {
    uint32_t first[16] = {};
    uint8_t rest[4 * 64], expected[64];
    for (uint8_t& b : rest) b = 0xA5;
    const bool done = port::chacha20_blocks_four_split(key, nonce, first, rest, count);
    CHECK_EQ(done, four_lanes && count >= 1 && count <= 4);
    size_t untouched_from = 0;
    if (done) {
      ++served;
      uint32_t words[16];
      port::chacha20_block_words(key, 0, nonce, words);
      for (size_t w = 0; w < 16; ++w) CHECK_EQ(first[w], words[w]);
      for (size_t i = 1; i < count; ++i) {
        port::chacha20_block(key, static_cast<uint32_t>(i), nonce, expected);
        CHECK(bytes_equal(rest + 64 * (i - 1), expected, 64));
      }
      untouched_from = 64 * (count - 1);
    } else {
      for (uint32_t w : first) CHECK_EQ(w, 0u);
    }
    for (size_t i = untouched_from; i < sizeof rest; ++i) CHECK_EQ(rest[i], 0xA5u);
  }
  CHECK_EQ(served, four_lanes ? 4u : 0u);
}

TEST(unseeded_generator_fails_closed) {
  port::ChaCha20Drbg drbg;
  uint8_t out[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::failed);
  CHECK_EQ(out[0], 1u);  // nothing written
  CHECK(drbg.fill(out, 0, blocking) == EntropyResult::failed);
}

TEST(seeding_reads_256_bits_by_the_source_estimate) {
  {
    port::InsecureTestSource full(1);  // claims 8 bits per byte
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(full) == EntropyResult::ok);
    CHECK_EQ(full.bytes_served(), 32u);
    CHECK(drbg.seeded());
  }
  {
    port::InsecureTestSource weak(1);
    weak.set_min_entropy_q8(256);  // 1 bit per byte: 256 bytes for 256 bits
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(weak) == EntropyResult::ok);
    CHECK_EQ(weak.bytes_served(), 256u);
  }
  {
    port::InsecureTestSource odd(1);
    odd.set_min_entropy_q8(300);  // ceil(65536 / 300) = 219 bytes
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(odd) == EntropyResult::ok);
    CHECK_EQ(odd.bytes_served(), 219u);
  }
  // The least estimate accepted, exact and rounded up (Cortex-M0 divides by shift and subtract).
  const uint16_t estimates[] = {64, 65, 257};
  const uint32_t bytes[] = {1024, 1009, 256};
  for (size_t i = 0; i < 3; ++i) {
    port::InsecureTestSource source(1);
    source.set_min_entropy_q8(estimates[i]);
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(source) == EntropyResult::ok);
    CHECK_EQ(source.bytes_served(), bytes[i]);
  }
}

TEST(refuses_sources_without_enough_entropy) {
  port::InsecureTestSource too_weak(1);
  too_weak.set_min_entropy_q8(63);
  port::ChaCha20Drbg drbg;
  CHECK(drbg.seed(too_weak) == EntropyResult::not_supported);
  CHECK_EQ(too_weak.bytes_served(), 0u);
  CHECK(!drbg.seeded());
  // A C source whose estimate is unknown is refused as well.
  port::InsecureTestSource inner(2);
  CEntropySource unknown(to_c_source(inner));
  CHECK(drbg.seed(unknown) == EntropyResult::not_supported);
  CEntropySource stated(to_c_source(inner), TINYLDP_ENTROPY_ESTIMATE_FULL);
  CHECK(drbg.seed(stated) == EntropyResult::ok);
}

TEST(a_failing_seed_source_leaves_the_generator_unchanged) {
  port::InsecureTestSource broken(1);
  broken.fail_on_call(1);
  port::ChaCha20Drbg drbg;
  CHECK(drbg.seed(broken) == EntropyResult::failed);
  CHECK(!drbg.seeded());
  uint8_t out[4];
  CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::failed);

  // Seeded, then a failed reseed: the stream continues exactly as without the attempt.
  port::ChaCha20Drbg a, b;
  seed_0_to_31(a);
  seed_0_to_31(b);
  port::InsecureTestSource late(3);
  late.fail_on_call(2, EntropyResult::not_ready);
  late.set_min_entropy_q8(512);  // needs 128 bytes = 4 calls; the second one fails
  CHECK(a.seed(late, TINYLDP_ENTROPY_NONBLOCKING) == EntropyResult::not_ready);
  uint8_t x[48], y[48];
  CHECK(a.fill(x, sizeof x, blocking) == EntropyResult::ok);
  CHECK(b.fill(y, sizeof y, blocking) == EntropyResult::ok);
  CHECK(bytes_equal(x, y, sizeof x));
}

TEST(personalization_separates_generators_with_the_same_seed) {
  port::InsecureTestSource s1(5), s2(5);
  port::ChaCha20Drbg a, b;
  const uint8_t id_a[] = {'d', 'e', 'v', '1'};
  const uint8_t id_b[] = {'d', 'e', 'v', '2'};
  CHECK(a.seed(s1, blocking, id_a, sizeof id_a) == EntropyResult::ok);
  CHECK(b.seed(s2, blocking, id_b, sizeof id_b) == EntropyResult::ok);
  uint8_t x[32], y[32];
  CHECK(a.fill(x, sizeof x, blocking) == EntropyResult::ok);
  CHECK(b.fill(y, sizeof y, blocking) == EntropyResult::ok);
  CHECK(!bytes_equal(x, y, sizeof x));
}

TEST(reseed_interval_fails_closed_without_a_reseed_source) {
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg, 8);
  uint8_t out[32];
  size_t delivered = 0;
  EntropyResult r = EntropyResult::ok;
  for (int i = 0; i < 100 && r == EntropyResult::ok; ++i) {
    for (uint8_t& b : out) b = 0xAA;
    r = drbg.fill(out, sizeof out, blocking);
    if (r == EntropyResult::ok) delivered += sizeof out;
  }
  CHECK(r == EntropyResult::failed);
  for (uint8_t b : out) CHECK(b == 0xAA || b == 0);  // the failed request hands out nothing
  CHECK_LE(delivered, 8u * 64u);
  CHECK_GE(delivered, 8u * 64u - 4 * 64u);  // it did not stop early either
  CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::failed);  // stays failed
  port::InsecureTestSource fresh(9);
  CHECK(drbg.seed(fresh) == EntropyResult::ok);
  CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::ok);
}

TEST(a_main_loop_reseeding_by_blocks_until_reseed_never_fails) {
  // The firmware pattern: no reseed source; before each 100-byte request (at most 8 blocks:
  // two 4-block refills) reseed when fewer than 8 blocks are left.
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg, 20);
  CHECK_EQ(drbg.blocks_until_reseed(), 20u);
  port::InsecureTestSource trng(13);
  uint8_t out[100];
  int reseeds = 0;
  uint64_t least = 20;
  for (int i = 0; i < 60; ++i) {
    if (drbg.blocks_until_reseed() < 8) {
      CHECK(drbg.seed(trng) == EntropyResult::ok);
      CHECK_EQ(drbg.blocks_until_reseed(), 20u);
      ++reseeds;
    }
    CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::ok);
    CHECK_EQ(drbg.blocks_until_reseed(), 20u - drbg.blocks_since_reseed());
    if (drbg.blocks_until_reseed() < least) least = drbg.blocks_until_reseed();
  }
  CHECK_GE(reseeds, 5);  // 6000 bytes, at most 20 blocks of 64 bytes per seed
  CHECK_LT(least, 8u);    // the margin was actually used
  // Setting a reseed source with no fill function leaves the generator failing closed.
  drbg.set_reseed_source(tinyldp_entropy_source{nullptr, nullptr}, TINYLDP_ENTROPY_ESTIMATE_FULL);
  EntropyResult r = EntropyResult::ok;
  for (int i = 0; i < 30 && r == EntropyResult::ok; ++i) r = drbg.fill(out, sizeof out, blocking);
  CHECK(r == EntropyResult::failed);
  // So does a generator set as its own reseed source (refused: it would recurse).
  CHECK(drbg.seed(trng) == EntropyResult::ok);
  drbg.set_reseed_source(drbg);
  r = EntropyResult::ok;
  for (int i = 0; i < 30 && r == EntropyResult::ok; ++i) r = drbg.fill(out, sizeof out, blocking);
  CHECK(r == EntropyResult::failed);
}

TEST(reseed_interval_draws_from_the_reseed_source) {
  port::ChaCha20Drbg drbg;
  port::InsecureTestSource reseeder(11);
  seed_0_to_31(drbg, 8, &reseeder);
  uint8_t out[100];
  for (int i = 0; i < 50; ++i) CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::ok);
  CHECK_LE(drbg.blocks_since_reseed(), 8u);
  // 5000 bytes at <= 8 blocks (512 bytes) per seed: at least 9 reseeds of 32 bytes each.
  CHECK_GE(reseeder.bytes_served(), 9u * 32u);
  // A reseed source that fails makes the generator fail, with the failure's own result.
  reseeder.fail_on_call(1, EntropyResult::not_ready);
  EntropyResult r = EntropyResult::ok;
  for (int i = 0; i < 20 && r == EntropyResult::ok; ++i)
    r = drbg.fill(out, sizeof out, TINYLDP_ENTROPY_NONBLOCKING);
  CHECK(r == EntropyResult::not_ready);
}

TEST(long_requests_respect_the_interval_too) {
  port::ChaCha20Drbg drbg;
  port::InsecureTestSource reseeder(12);
  seed_0_to_31(drbg, 3, &reseeder);
  uint8_t big[1000];
  CHECK(drbg.fill(big, sizeof big, blocking) == EntropyResult::ok);
  CHECK_LE(drbg.blocks_since_reseed(), 3u);
  CHECK_GE(reseeder.bytes_served(), 5u * 32u);  // 1000 bytes need >= 16 blocks: >= 5 reseeds
}

TEST(fast_key_erasure_leaves_no_output_or_old_state_behind) {
  Inspectable box;
  seed_0_to_31(box.drbg);
  uint8_t before[sizeof(port::ChaCha20Drbg)];
  for (size_t i = 0; i < sizeof before; ++i) before[i] = box.bytes[i];
  uint8_t out[24];
  CHECK(box.drbg.fill(out, sizeof out, blocking) == EntropyResult::ok);
  // No 8 bytes of the output remain anywhere in the state...
  for (size_t i = 0; i + 8 <= sizeof out; ++i)
    CHECK(!contains(box.bytes, sizeof box.bytes, out + i, 8));
  // ...and no 16 non-zero bytes of the state before the call (its key) survive it.
  for (size_t i = 0; i + 16 <= sizeof before; i += 4) {
    if (all_zero(before + i, 16)) continue;
    bool key_like = true;
    for (size_t j = 0; j < 16; ++j) key_like = key_like && before[i + j] != 0;
    if (key_like) CHECK(!contains(box.bytes, sizeof box.bytes, before + i, 16));
  }
  box.drbg.~WipedOnExit();
  // After WipedOnExit's destruction every byte of the generator is zero (read through volatile:
  // the object's lifetime has ended, the memory has not).
  const volatile uint8_t* after = box.bytes;
  bool zero = true;
  for (size_t i = 0; i < sizeof box.bytes; ++i) zero = zero && after[i] == 0;
  CHECK(zero);
}

TEST(initial_state_is_all_zero_and_works_as_a_global) {
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(port::ChaCha20Drbg));
  Inspectable box;
  CHECK(all_zero(box.bytes, sizeof box.bytes));
  CHECK(box.drbg.reseed_interval_blocks() == port::ChaCha20Drbg::default_reseed_interval_blocks);
  CHECK(!global_drbg.seeded());
  seed_0_to_31(global_drbg);
  uint8_t a[16], b[16];
  CHECK(global_drbg.fill(a, sizeof a, blocking) == EntropyResult::ok);
  seed_0_to_31(box.drbg);
  CHECK(box.drbg.fill(b, sizeof b, blocking) == EntropyResult::ok);
  CHECK(bytes_equal(a, b, sizeof a));
  global_drbg.wipe();
}

TEST(wipe_unseeds) {
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  drbg.wipe();
  uint8_t out[4];
  CHECK(!drbg.seeded());
  CHECK(drbg.fill(out, sizeof out, blocking) == EntropyResult::failed);
}

TEST(serves_isr_and_nonblocking_requests) {
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  uint8_t out[16];
  CHECK(drbg.fill(out, sizeof out, TINYLDP_ENTROPY_FROM_ISR) == EntropyResult::ok);
  CHECK(drbg.fill(out, sizeof out, TINYLDP_ENTROPY_NONBLOCKING) == EntropyResult::ok);
}

TEST(output_bits_are_balanced) {
  // 64 KiB = 524288 bits; fixed seed; |ones - n/2| within 6 sigma (sigma = 362).
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  uint8_t chunk[256];
  uint64_t ones = 0;
  uint32_t byte_counts[256] = {};
  for (int i = 0; i < 256; ++i) {
    CHECK(drbg.fill(chunk, sizeof chunk, blocking) == EntropyResult::ok);
    for (uint8_t b : chunk) {
      ones += popcount8(b);
      ++byte_counts[b];
    }
  }
  const int64_t excess = static_cast<int64_t>(ones) - 262144;
  CHECK_LE(excess < 0 ? -excess : excess, 6 * 362);
  // Every byte value appears (expected 256 each; P(some value missing) < 2^-360).
  uint32_t least = 0xFFFFFFFFu;
  for (uint32_t c : byte_counts) least = c < least ? c : least;
  CHECK_GT(least, 0u);
}

TEST(drives_random_bits_like_any_source) {
  port::ChaCha20Drbg drbg;
  seed_0_to_31(drbg);
  RandomBits<port::ChaCha20Drbg> bits(drbg);
  uint64_t x = bits.draw(64);
  uint64_t y = bits.draw(64);
  CHECK(bits.ok());
  CHECK_NE(x, y);
}

}  // namespace
}  // namespace tinyldp::test
