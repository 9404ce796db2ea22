// RandomBits: exact bit accounting, a fixed bit order, and sticky failure.
#include "tinyldp/random_bits.hpp"

#include "check.hpp"
#include "tinyldp/port/insecure_test_source.hpp"

using tinyldp::port::CountingSource;
using tinyldp::port::InsecureTestSource;

TEST(bits_come_least_significant_first_in_byte_order) {
  CountingSource src(0x8877665544332211ull);
  tinyldp::RandomBits<CountingSource> rng(src);
  CHECK_EQ(rng.draw(4), 0x1u);
  CHECK_EQ(rng.draw(4), 0x1u);
  CHECK_EQ(rng.draw(8), 0x22u);
  CHECK_EQ(rng.draw(60), 0x0000000887766554433ull);  // crosses into the next 64-bit word
  CHECK_EQ(rng.bits_drawn(), 76u);
  CHECK_EQ(rng.bytes_pulled(), 32u);
}

TEST(draws_of_any_width_reassemble_the_stream) {
  InsecureTestSource a(7), b(7);
  tinyldp::RandomBits<InsecureTestSource> whole(a);
  tinyldp::RandomBits<InsecureTestSource> parts(b);
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

TEST(failure_is_sticky_and_draws_read_zero) {
  InsecureTestSource src(1);
  tinyldp::RandomBits<InsecureTestSource> rng(src);
  src.fail_on_call(2);
  rng.draw(64);
  CHECK(rng.ok());
  for (int i = 0; i < 3; ++i) rng.draw(64);  // exhausts the first 32-byte buffer
  CHECK(rng.ok());
  CHECK_EQ(rng.draw(64), 0u);
  CHECK(rng.status() == tinyldp::Status::entropy_failed);
  CHECK_EQ(rng.draw(17), 0u);
  CHECK(rng.status() == tinyldp::Status::entropy_failed);
  rng.reset();
  CHECK(rng.ok());
}

TEST(not_ready_is_reported_as_such) {
  InsecureTestSource src(1);
  src.fail_on_call(1, tinyldp::EntropyResult::not_ready);
  tinyldp::RandomBits<InsecureTestSource> rng(src, TINYLDP_ENTROPY_NONBLOCKING);
  rng.draw(1);
  CHECK(rng.status() == tinyldp::Status::entropy_not_ready);
}

namespace {
tinyldp_entropy_result broken(void*, uint8_t*, size_t, uint32_t) { return TINYLDP_ENTROPY_FAILED; }
tinyldp_entropy_result ones(void* ctx, uint8_t* out, size_t n, uint32_t) {
  ++*static_cast<int*>(ctx);
  for (size_t i = 0; i < n; ++i) out[i] = 0xFF;
  return TINYLDP_ENTROPY_OK;
}
}  // namespace

TEST(c_sources_plug_in_and_fail_closed) {
  int calls = 0;
  tinyldp::CEntropySource good({&ones, &calls});
  tinyldp::RandomBits<tinyldp::CEntropySource> rng(good);
  CHECK_EQ(rng.draw(12), 0xFFFu);
  CHECK_EQ(calls, 1);
  tinyldp::CEntropySource bad({&broken, nullptr});
  tinyldp::RandomBits<tinyldp::CEntropySource> rng2(bad);
  rng2.draw(3);
  CHECK(rng2.status() == tinyldp::Status::entropy_failed);
  tinyldp::CEntropySource null_source({nullptr, nullptr});
  tinyldp::RandomBits<tinyldp::CEntropySource> rng3(null_source);
  rng3.draw(3);
  CHECK(rng3.status() == tinyldp::Status::entropy_failed);
}
