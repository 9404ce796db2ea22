// SPDX-License-Identifier: Apache-2.0
// RandomBits: exact bit accounting, a fixed bit order, and sticky failure.
#include "tinyldp/random_bits.hpp"

#include "check.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {
namespace {

TEST(bits_come_least_significant_first_in_byte_order) {
  port::CountingSource src(0x8877665544332211ull);
  RandomBits<port::CountingSource> rng(src);
  CHECK_EQ(rng.draw(4), 0x1u);
  CHECK_EQ(rng.draw(4), 0x1u);
  CHECK_EQ(rng.draw(8), 0x22u);
  CHECK_EQ(rng.draw(60), 0x0000000887766554433ull);  // crosses into the next 64-bit word
  CHECK_EQ(rng.bits_drawn(), 76u);
  CHECK_EQ(rng.bytes_pulled(), 32u);
}

TEST(draws_of_any_width_reassemble_the_stream) {
  port::InsecureTestSource a(7), b(7);
  RandomBits<port::InsecureTestSource> whole(a);
  RandomBits<port::InsecureTestSource> parts(b);
  for (int i = 0; i < 100; ++i) {
    const uint64_t w = whole.draw(64);
    uint64_t r = 0;
    unsigned got = 0;
    const unsigned widths[] = {13, 1, 27, 23};
    for (unsigned n : widths) {
      r |= parts.draw(n) << got;
      got += n;
    }
    CHECK_EQ(w, r);
  }
}

TEST(mixed_draw32_draw64_and_draw_n_are_the_stream) {
  // Every kind of draw, interleaved, across buffer refills (8- and 32-byte buffers), reads
  // the stream bit by bit. Reference: the source's bytes read least significant bit first.
  const unsigned widths[] = {32, 1, 32, 64, 32, 32, 7, 64, 32, 31, 33, 32, 64, 5, 32, 32, 59};
  uint32_t mismatches = 0;
  for (int buffer = 0; buffer < 2; ++buffer) {
    port::InsecureTestSource a(21), b(21), c(21);
    static uint8_t stream[4096];  // static: too large for the smallest board's stack
    CHECK(b.fill(stream, sizeof stream, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
    RandomBits<port::InsecureTestSource, 8> small(a);
    RandomBits<port::InsecureTestSource, 32> large(c);
    size_t bit = 0;
    for (int round = 0; round < 40; ++round) {
      for (unsigned n : widths) {
        uint64_t want = 0;
        for (unsigned i = 0; i < n; ++i, ++bit)
          want |= ((uint64_t{stream[bit / 8]} >> (bit % 8)) & 1u) << i;
        uint64_t got = 0;
        if (buffer == 0)
          got = n == 32 ? small.draw32() : n == 64 ? small.draw64() : small.draw(n);
        else
          got = n == 32 ? large.draw32() : n == 64 ? large.draw64() : large.draw(n);
        mismatches += got != want;
      }
    }
    CHECK_EQ(buffer == 0 ? small.bits_drawn() : large.bits_drawn(), uint64_t{bit});
  }
  CHECK_EQ(mismatches, 0u);
}

TEST(failure_is_sticky_and_draws_read_zero) {
  port::InsecureTestSource src(1);
  RandomBits<port::InsecureTestSource> rng(src);
  src.fail_on_call(2);
  rng.draw(64);
  CHECK(rng.ok());
  for (int i = 0; i < 3; ++i) rng.draw(64);  // exhausts the first 32-byte buffer
  CHECK(rng.ok());
  CHECK_EQ(rng.draw(64), 0u);
  CHECK(rng.status() == Status::entropy_failed);
  CHECK_EQ(rng.draw(17), 0u);
  CHECK(rng.status() == Status::entropy_failed);
  rng.reset();
  CHECK(rng.ok());
}

TEST(not_ready_is_reported_as_such) {
  port::InsecureTestSource src(1);
  src.fail_on_call(1, EntropyResult::not_ready);
  RandomBits<port::InsecureTestSource> rng(src, TINYLDP_ENTROPY_NONBLOCKING);
  rng.draw(1);
  CHECK(rng.status() == Status::entropy_not_ready);
}

tinyldp_entropy_result broken(void*, uint8_t*, size_t, uint32_t) { return TINYLDP_ENTROPY_FAILED; }
tinyldp_entropy_result ones(void* ctx, uint8_t* out, size_t n, uint32_t) {
  ++*static_cast<int*>(ctx);
  for (size_t i = 0; i < n; ++i) out[i] = 0xFF;
  return TINYLDP_ENTROPY_OK;
}

TEST(c_sources_plug_in_and_fail_closed) {
  int calls = 0;
  CEntropySource good({&ones, &calls});
  RandomBits<CEntropySource> rng(good);
  CHECK_EQ(rng.draw(12), 0xFFFu);
  CHECK_EQ(calls, 1);
  CEntropySource bad({&broken, nullptr});
  RandomBits<CEntropySource> rng2(bad);
  rng2.draw(3);
  CHECK(rng2.status() == Status::entropy_failed);
  CEntropySource null_source({nullptr, nullptr});
  RandomBits<CEntropySource> rng3(null_source);
  rng3.draw(3);
  CHECK(rng3.status() == Status::entropy_failed);
}

TEST(bulk_raw_draws_are_the_stream_at_the_returned_offset) {
  // After 0..63 leftover bits, blocks of 1..70 words (within, across and spanning whole 32-byte
  // buffers) read at the returned bit offset equal the same number of draw64() calls, and the
  // source sees the same requests.
  static uint64_t raw[71];
  for (unsigned lead = 0; lead < 64; lead += 9) {
    const size_t blocks[] = {1, 3, 4, 5, 8, 9, 70};
    port::InsecureTestSource a(lead), b(lead);
    RandomBits<port::InsecureTestSource> bulk(a), single(b);
    if (lead != 0) {
      CHECK_EQ(bulk.draw(lead), single.draw(lead));
    }
    uint32_t mismatches = 0;
    for (size_t n : blocks) {
      const unsigned offset = bulk.draw64_block_raw(raw, n);
      CHECK_EQ(offset, lead == 0 ? 64u : lead);
      for (size_t i = 0; i < n; ++i) {
        const size_t bit = offset + 64 * i;  // start of drawn word i in raw[0..n]
        const uint64_t lo = raw[bit / 64] >> (bit % 64);
        const uint64_t word = bit % 64 == 0 ? lo : lo | (raw[bit / 64 + 1] << (64 - bit % 64));
        mismatches += word != single.draw64();
      }
    }
    CHECK_EQ(mismatches, 0u);
    CHECK_EQ(bulk.draw(13), single.draw(13));  // the reservoir continues where it should
    CHECK_EQ(bulk.bits_drawn(), single.bits_drawn());
    CHECK_EQ(bulk.bytes_pulled(), single.bytes_pulled());
    CHECK_EQ(a.calls(), b.calls());
  }
}

TEST(bulk_raw_draws_read_zero_after_a_failure) {
  port::InsecureTestSource src(1);
  src.fail_on_call(2);
  RandomBits<port::InsecureTestSource> rng(src);
  static uint64_t raw[13];
  rng.draw(5);
  const unsigned offset = rng.draw64_block_raw(raw, 12);  // the second buffer fails
  CHECK(rng.status() == Status::entropy_failed);
  CHECK_EQ(offset, 5u);
  uint32_t nonzero = 0;
  for (size_t i = 4; i <= 12; ++i) nonzero += raw[i] != 0;  // words from the failed requests
  CHECK_EQ(nonzero, 0u);
  CHECK_EQ(rng.draw(64), 0u);
}

// each_word<W>(n, use): after 0..63 leftover bits, runs of 32- and 64-bit words (within, across
// and spanning whole buffers, 8- and 32-byte buffers) equal the same number of draw(32)/draw(64)
// calls, the stream continues where it should, and the source sees the same requests.
template <class Word, size_t Buffer>
uint32_t each_word_mismatches(unsigned lead) {
  port::InsecureTestSource a(lead + 100), b(lead + 100);
  RandomBits<port::InsecureTestSource, Buffer> bulk(a), single(b);
  uint32_t mismatches = 0;
  if (lead != 0) mismatches += bulk.draw(lead) != single.draw(lead);
  const size_t runs[] = {1, 2, 3, 4, 5, 8, 9, 17, 0, 70};
  for (size_t n : runs) {
    bulk.template each_word<Word>(n, [&](Word w) { mismatches += w != single.draw(8 * sizeof(Word)); });
    mismatches += bulk.draw(3) != single.draw(3);  // and every offset in between
  }
  mismatches += bulk.draw(61) != single.draw(61);
  mismatches += bulk.bits_drawn() != single.bits_drawn();
  mismatches += bulk.bytes_pulled() != single.bytes_pulled();
  mismatches += a.calls() != b.calls();
  return mismatches;
}

TEST(bulk_words_are_the_stream_at_every_offset) {
  uint32_t mismatches = 0;
  for (unsigned lead = 0; lead < 64; ++lead) {
    mismatches += each_word_mismatches<uint32_t, 8>(lead);
    mismatches += each_word_mismatches<uint32_t, 32>(lead);
    mismatches += each_word_mismatches<uint64_t, 8>(lead);
    mismatches += each_word_mismatches<uint64_t, 128>(lead);
  }
  CHECK_EQ(mismatches, 0u);
}

TEST(bulk_words_read_zero_after_a_failure) {
  port::InsecureTestSource src(1);
  src.fail_on_call(2);
  RandomBits<port::InsecureTestSource> rng(src);
  rng.draw(5);
  uint32_t nonzero_after = 0, count = 0;
  // Words 8.. (stream bits 261..) lie wholly in the failed second request: zeros.
  rng.each_word<uint32_t>(24, [&](uint32_t w) { nonzero_after += count++ >= 8 && w != 0; });
  CHECK(rng.status() == Status::entropy_failed);
  CHECK_EQ(nonzero_after, 0u);
  CHECK_EQ(rng.draw(64), 0u);
}

}  // namespace
}  // namespace tinyldp::test
