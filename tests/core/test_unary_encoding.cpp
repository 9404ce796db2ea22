// SPDX-License-Identifier: Apache-2.0
// Unary encoding (SUE, OUE, generic): configuration, errors, layout, golden reports.
#include "check.hpp"
#include "mechanism_checks.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

TEST(configures_at_compile_time) {
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 256);
  static_assert(oue.p() == Dyadic{1, 1});
  static_assert(oue.report_bytes() == 32);
  static_assert(UnaryEncoding::report_bytes_for(1000) == 125);
  constexpr UnaryEncoding sue = UnaryEncoding::make_sue(Epsilon::from_double(1.0), 5);
  // SUE: q = 1 − p, the same denominator.
  static_assert(sue.p().bits == sue.q().bits);
  static_assert(sue.p().num + sue.q().num == (uint64_t{1} << sue.p().bits));
  CHECK(oue.realized_epsilon() <= Epsilon::from_double(1.0));
}

TEST(rejects_bad_parameters) {
  UnaryEncoding ue;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 1, ue) == Status::bad_parameter);
  CHECK(UnaryEncoding::configure(Dyadic{1, 2}, Dyadic{1, 1}, 4, ue) == Status::bad_parameter);
  CHECK(UnaryEncoding::configure(Dyadic{1, 1}, Dyadic{0, 0}, 4, ue) == Status::precision_too_low);
  CHECK(UnaryEncoding::configure_sue(Epsilon::from_q32(0), 4, ue) == Status::bad_epsilon);
}

TEST(short_buffer_out_of_domain_and_failure_emit_nothing) {
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 20);
  uint8_t report[3] = {0xAA, 0xAA, 0xAA};
  port::InsecureTestSource src(5);
  Rng rng(src);
  CHECK(oue.privatize(3, rng, report, 2) == Status::buffer_too_small);
  CHECK_EQ(report[0] | report[1], 0);
  check_fail_closed(BufferReports<3>(oue), 1, 20);
}

TEST(fills_exactly_d_bits_and_no_more) {
  // d = 13: bits 13..15 of the second byte stay zero; bytes beyond the report are untouched.
  constexpr UnaryEncoding sue = UnaryEncoding::make_sue(Epsilon::from_double(0.2), 13);
  port::InsecureTestSource src(8);
  Rng rng(src);
  uint8_t report[3] = {0, 0, 0x5A};
  for (int i = 0; i < 200; ++i) {
    CHECK(sue.privatize(static_cast<uint32_t>(i % 13), rng, report, 2) == Status::ok);
    CHECK_EQ(report[1] & 0xE0, 0);
    CHECK_EQ(report[2], 0x5A);
  }
}

TEST(consumes_the_same_bits_for_every_input) {
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 70);
  const uint32_t values[] = {0, 23, 46, 69};
  check_same_bits(BufferReports<9>(oue), values, 1, 20);
}

// Forwards draws one at a time only: hides RandomBits' bulk interface, so privatize takes the
// word-by-word ladder (the definition the bulk path on 64-bit machines must reproduce).
struct OneWordAtATime {
  Rng& rng;
  uint64_t draw(unsigned n) { return rng.draw(n); }
  uint64_t draw64() { return rng.draw64(); }
  bool ok() const { return rng.ok(); }
  Status status() const { return rng.status(); }
};

TEST(bulk_and_word_by_word_ladders_give_the_same_reports) {
  // d multiples of 64 (the bulk path on 64-bit machines, one or several blocks of steps, at
  // every bit offset left by p's draw) and others (word by word everywhere).
#ifdef TINYLDP_TEST_ON_TARGET
  const uint32_t domains[] = {64, 1024, 100};
  static uint8_t a[128], b[128];
#else
  const uint32_t domains[] = {64, 128, 1024, 4096, 16384, 16448, 32768, 100, 1000};
  static uint8_t a[4096], b[4096];
#endif
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(7, 1)};
  for (uint32_t d : domains) {
    for (Epsilon eps : epsilons) {
      for (int sue = 0; sue < 2; ++sue) {
        UnaryEncoding ue;
        CHECK((sue ? UnaryEncoding::configure_sue(eps, d, ue) : UnaryEncoding::configure_oue(eps, d, ue)) == Status::ok);
        port::InsecureTestSource s1(d), s2(d);
        Rng bulk(s1), words(s2);
        OneWordAtATime one{words};
        uint32_t mismatches = 0;
        for (uint32_t i = 0; i < 5; ++i) {
          const uint32_t v = (i * 7919u) % d;
          CHECK(ue.privatize(v, bulk, a, sizeof a) == Status::ok);
          CHECK(ue.privatize(v, one, b, sizeof b) == Status::ok);
          for (size_t j = 0; j < ue.report_bytes(); ++j) mismatches += a[j] != b[j];
        }
        CHECK_EQ(mismatches, 0u);
        CHECK_EQ(bulk.bits_drawn(), words.bits_drawn());
        CHECK_EQ(bulk.bytes_pulled(), words.bytes_pulled());
      }
    }
  }
  // A source failing in the middle of a bulk block: nothing is emitted.
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 1024);
  port::InsecureTestSource src(3);
  src.fail_on_call(20);
  Rng failing(src);
  a[0] = 0xFF;
  CHECK(oue.privatize(5, failing, a, sizeof a) == Status::entropy_failed);
  uint32_t nonzero = 0;
  for (size_t j = 0; j < oue.report_bytes(); ++j) nonzero += a[j] != 0;
  CHECK_EQ(nonzero, 0u);
}

TEST(golden_reports_are_identical_everywhere) {
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 100);
  constexpr UnaryEncoding sue = UnaryEncoding::make_sue(Epsilon::from_double(1.0), 37);
  port::InsecureTestSource src(2024);
  Rng rng(src);
  Digest digest;
  uint8_t report[13];
  for (uint32_t i = 0; i < 200; ++i) {
    CHECK(oue.privatize(i % 100, rng, report, sizeof report) == Status::ok);
    digest.add(report, oue.report_bytes());
    CHECK(sue.privatize(i % 37, rng, report, sizeof report) == Status::ok);
    digest.add(report, sue.report_bytes());
  }
  CHECK_EQ(digest.state, 2567194661593964260ull);
  // d a multiple of 64: the bulk ladder on 64-bit machines, word by word on 32-bit ones.
  constexpr BufferReports<128> oue_wide(UnaryEncoding::make_oue(Epsilon::from_double(1.0), 1024));
  CHECK_EQ(golden_digest(oue_wide, rng, 50, [](uint32_t i) { return i * 20; }),
           15798488968841624740ull);
}

}  // namespace
}  // namespace tinyldp::test
