// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of every mechanism on small configurations: every input,
// every random string, exact output distributions, checked against the realized ε each
// mechanism reports — and planted mutants that the check must catch.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails, so each run returns ok (statuses, fail-closed reports included, are
// checked in tests/core/).
#include "exhaustive.hpp"

#include "check.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

#if defined(TINYLDP_TEST_ON_TARGET)
constexpr uint32_t max_ue_domain = 5;
constexpr unsigned max_random_bits = 14;
constexpr uint32_t mutant_ue_domain = 3;  // 2^16 random strings instead of 2^21
#else
constexpr uint32_t max_ue_domain = 8;
constexpr unsigned max_random_bits = 20;
constexpr uint32_t mutant_ue_domain = 4;
#endif

uint32_t counts[8 * 256];

// ε from 0.01 to 10, including ln 3.
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 2),
                            Epsilon::from_q32(4718503850ull), Epsilon::from_ratio(1, 1),
                            Epsilon::from_ratio(4, 1), Epsilon::from_ratio(10, 1)};

const uint8_t rr_bits[] = {3, 6, 12};
const uint8_t krr_bits[] = {6, 10, 14};
const uint8_t ue_bits[] = {2, 3, 4};
const uint32_t krr_domains[] = {2, 3, 5, 8};

uint64_t pow2(unsigned b) { return uint64_t{1} << b; }

TEST(binary_rr_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (Epsilon eps : epsilons) {
    for (uint8_t bits : rr_bits) {
      BinaryRr rr;
      CHECK(BinaryRr::configure(eps, rr, Precision{bits, 1u << 11}) == Status::ok);
      CHECK(rr.realized_epsilon() <= eps);
      const auto v = verify_exhaustively(2, 2, rr.realized_epsilon(), counts,
                                         [&](uint32_t x, CountingRng& rng) {
                                           uint8_t out = 0;
                                           static_cast<void>(rr.privatize(x, rng, out));
                                           return uint32_t{out};
                                         });
      expect_private_and_tight(v, rr.realized_epsilon());
      // The distribution is exactly the Dyadic p: p·2^T strings keep the bit.
      CHECK_EQ(v.random_bits, rr.keep_probability().bits);
      CHECK_EQ(counts[0 * 2 + 0], rr.keep_probability().num);
      CHECK_EQ(counts[1 * 2 + 1], rr.keep_probability().num);
      ++verified;
    }
  }
  CHECK_EQ(verified, 18);
}

TEST(kary_rr_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t k : krr_domains) {
    for (Epsilon eps : epsilons) {
      for (uint8_t bits : krr_bits) {
        KaryRr krr;
        const Status s = KaryRr::configure(eps, k, krr, Precision{bits, 1u << 11});
        if (s == Status::precision_too_low) continue;  // e.g. tiny ε with 6 bits
        CHECK_EQ(s, Status::ok);
        if (s != Status::ok) continue;
        CHECK(krr.realized_epsilon() <= eps);
        if (krr.random_bits_per_report() > max_random_bits) continue;
        const auto v = verify_exhaustively(k, k, krr.realized_epsilon(), counts,
                                           [&](uint32_t x, CountingRng& rng) {
                                             uint32_t out = 0;
                                             static_cast<void>(krr.privatize(x, rng, out));
                                             return out;
                                           });
        expect_private_and_tight(v, krr.realized_epsilon());
        for (uint32_t x = 0; x < k; ++x)
          for (uint32_t y = 0; y < k; ++y)
            CHECK_EQ(counts[x * k + y], x == y ? krr.keep_numerator() : krr.other_probability().num);
        ++verified;
      }
    }
  }
  CHECK_GE(verified, 40);
}

// Exact count of output y for input x under UE(p, q) with T = p.bits + d·q.bits bits.
uint64_t ue_expected_count(const UnaryEncoding& ue, uint32_t x, uint32_t y) {
  const Dyadic p = ue.p(), q = ue.q();
  uint64_t c = ((y >> x) & 1u) ? p.num : pow2(p.bits) - p.num;
  c *= pow2(q.bits);  // lane x's own q draw is overwritten: every value counts
  for (uint32_t i = 0; i < ue.domain(); ++i)
    if (i != x) c *= ((y >> i) & 1u) ? q.num : pow2(q.bits) - q.num;
  return c;
}

// Every random string of one UE report over d ≤ 8: private and tight at the realized ε, the
// declared bits drawn, and every output's count the product of its bits' probabilities.
void verify_ue_report(const UnaryEncoding& ue) {
  const uint32_t d = ue.domain(), outputs = 1u << d;
  const auto v = verify_exhaustively(d, outputs, ue.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    uint8_t out[1] = {0};
    static_cast<void>(ue.privatize(x, rng, out, 1));
    return uint32_t{out[0]};
  });
  expect_private_and_tight(v, ue.realized_epsilon());
  CHECK_EQ(v.random_bits, ue.random_bits_per_report());
  for (uint32_t x = 0; x < d; ++x)
    for (uint32_t y = 0; y < outputs; ++y) CHECK_EQ(uint64_t{counts[x * outputs + y]}, ue_expected_count(ue, x, y));
}

int verify_ue(bool symmetric) {
  int verified = 0;
  for (uint32_t d = 2; d <= max_ue_domain; ++d) {
    for (Epsilon eps : epsilons) {
      for (uint8_t bits : ue_bits) {
        UnaryEncoding ue;
        const Precision precision{bits, 1u << 11};
        const Status s = symmetric ? UnaryEncoding::configure_sue(eps, d, ue, precision)
                                   : UnaryEncoding::configure_oue(eps, d, ue, precision);
        if (s == Status::precision_too_low || s == Status::bad_parameter) continue;
        CHECK_EQ(s, Status::ok);
        if (s != Status::ok) continue;
        CHECK(ue.realized_epsilon() <= eps);
        if (ue.random_bits_per_report() > max_random_bits) continue;
        verify_ue_report(ue);
        ++verified;
      }
    }
  }
  return verified;
}

TEST(oue_is_exactly_as_private_as_it_claims) { CHECK_GE(verify_ue(false), 12); }
TEST(sue_is_exactly_as_private_as_it_claims) { CHECK_GE(verify_ue(true), 12); }

// OUE at a coarse tolerance: q rounded to few bits and p fitted to ε (unary_encoding.hpp's
// detail::fit_oue). The same enumeration, on the configurations where the fit was taken (p is
// not 1/2), and the realized ε within the tolerance below the request.
const uint64_t coarse_tolerances[] = {uint64_t{1} << 28, uint64_t{1} << 30};  // 1/16, 1/4
const uint8_t fitted_bits[] = {6, 8};

int verify_fitted_oue() {
  int verified = 0;
  for (uint32_t d = 2; d <= max_ue_domain; ++d) {
    for (Epsilon eps : epsilons) {
      for (uint64_t tolerance : coarse_tolerances) {
        for (uint8_t bits : fitted_bits) {
          UnaryEncoding ue;
          if (UnaryEncoding::configure_oue(eps, d, ue, Precision{bits, tolerance}) != Status::ok) continue;
          if (ue.p() == Dyadic{1, 1}) continue;  // plain rounding stood
          CHECK(ue.realized_epsilon() <= eps);
          CHECK(detail::loosened(eps, Precision{bits, tolerance}) <= ue.realized_epsilon());
          if (ue.random_bits_per_report() > max_random_bits) continue;
          verify_ue_report(ue);
          ++verified;
        }
      }
    }
  }
  return verified;
}

TEST(fitted_oue_is_exactly_as_private_as_it_claims) { CHECK_GE(verify_fitted_oue(), 8); }

// --- Planted mutants: each is a plausible bug; the verifier must reject every one. ---

TEST(catches_rr_probability_one_unit_too_high) {
  BinaryRr rr, mutant;
  CHECK(BinaryRr::configure(Epsilon::from_ratio(1, 1), rr, Precision{8, 1u << 11}) == Status::ok);
  const Dyadic p = rr.keep_probability();
  CHECK(BinaryRr::from_keep_probability(make_dyadic(p.num * 2 + 1, p.bits + 1u), mutant) ==
        Status::ok);
  const auto v = verify_exhaustively(2, 2, rr.realized_epsilon(), counts,
                                     [&](uint32_t x, CountingRng& rng) {
                                       uint8_t out = 0;
                                       static_cast<void>(mutant.privatize(x, rng, out));
                                       return uint32_t{out};
                                     });
  CHECK(!v.within_claim);
}

// Whether a (mutant) UE report, enumerated over every random string, stays within `claim`.
bool within_claim(const UnaryEncoding& mutant, Epsilon claim) {
  const uint32_t d = mutant.domain();
  return verify_exhaustively(d, 1u << d, claim, counts, [&](uint32_t x, CountingRng& rng) {
           uint8_t out[1] = {0};
           static_cast<void>(mutant.privatize(x, rng, out, 1));
           return uint32_t{out[0]};
         }).within_claim;
}

TEST(catches_oue_with_a_wrong_q) {
  UnaryEncoding ue, mutant;
  constexpr uint32_t d = mutant_ue_domain;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), d, ue, Precision{4, 1u << 11}) ==
        Status::ok);
  // One unit in the last place too small: q rounded down instead of up.
  const Dyadic q = ue.q();
  const Dyadic wrong_q = make_dyadic(q.num * 2 - 1, q.bits + 1u);
  CHECK(UnaryEncoding::configure(ue.p(), wrong_q, d, mutant) == Status::ok);
  CHECK(!within_claim(mutant, ue.realized_epsilon()));
}

TEST(catches_fitted_oue_with_p_one_unit_too_high) {
  UnaryEncoding ue, mutant;
  constexpr uint32_t d = mutant_ue_domain;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), d, ue,
                                     Precision{8, uint64_t{1} << 28}) == Status::ok);
  CHECK(!(ue.p() == Dyadic{1, 1}));  // the fit was taken
  // p's window rounded up instead of down at its own scale: one unit in the last place more.
  const Dyadic p = ue.p();
  CHECK(UnaryEncoding::configure(make_dyadic(p.num * 2 + 1, p.bits + 1u), ue.q(), d, mutant) ==
        Status::ok);
  CHECK(!within_claim(mutant, ue.realized_epsilon()));
}

TEST(catches_krr_off_by_one_in_the_other_value) {
  KaryRr krr;
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 1), 5, krr, Precision{10, 1u << 11}) == Status::ok);
  const uint64_t threshold = krr.keep_numerator();
  const uint64_t m = krr.other_probability().num;
  const unsigned bits = krr.other_probability().bits;
  // The bug: value + j instead of value + 1 + j — the true value can come out as "other".
  const auto v = verify_exhaustively(5, 5, krr.realized_epsilon(), counts,
                                     [&](uint32_t x, CountingRng& rng) {
                                       const uint64_t u = rng.draw(bits);
                                       if (u < threshold) return x;
                                       return static_cast<uint32_t>((x + (u - threshold) / m) % 5);
                                     });
  CHECK(!v.within_claim);
}

}  // namespace
}  // namespace tinyldp::test
