// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of histogram encoding: SHE and THE on small configurations,
// every input, every random string, the exact distribution of whole reports against the ε
// each claims — which must hold and be tight — and a planted mutant.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails, so each run returns ok (statuses, fail-closed reports included, are
// checked in tests/core/test_histogram_encoding).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/histogram_encoding.hpp"

namespace tinyldp::test {
namespace {

#if defined(TINYLDP_TEST_ON_TARGET)
// d = 2 at 6 noise bits: 2^12 strings per input, a few seconds on the Cortex-M0.
const uint32_t she_domains[] = {2};
const unsigned she_bits[] = {6};
constexpr int expected_she = 8;  // every configuration: none is too coarse
const uint32_t the_domains[] = {2};
#else
const uint32_t she_domains[] = {2, 3};
const unsigned she_bits[] = {6, 8};
constexpr int expected_she = 24;  // every configuration: none is too coarse
const uint32_t the_domains[] = {2, 3, 4};
#endif
uint32_t counts[3 * 64];
uint64_t table[4];
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(2, 1),
                            Epsilon::from_ratio(4, 1)};

// The report as an output index: its payload bits (d·k ≤ 6 here).
uint32_t she_output(const SummationHistogram& she, uint32_t v, CountingRng& rng) {
  uint8_t report[1] = {0};
  static_cast<void>(she.privatize(v, rng, report, sizeof report));
  return report[0];
}

// Pr[report | v]·2^(dB): the product of the components' integer probabilities.
uint64_t expected_count(const SummationHistogram& she, uint32_t v, uint32_t output) {
  const unsigned k = she.component_bits();
  uint64_t c = 1;
  for (uint32_t i = 0; i < she.domain(); ++i) {
    const uint32_t shifted = (output >> (i * k)) & ((1u << k) - 1);
    c *= she.probability(i == v ? 1u : 0u, static_cast<int32_t>(shifted) - static_cast<int32_t>(she.truncation()));
  }
  return c;
}

TEST(she_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t d : she_domains) {
    for (uint32_t t = 0; t <= 1; ++t) {
      for (unsigned bits : she_bits) {
        if (d == 3 && bits > 6) continue;  // 2^24 strings: not needed for the claim
        for (Epsilon eps : epsilons) {
          SummationHistogram she;
          const Status s = SummationHistogram::configure(eps, d, table, 4, she, t, bits);
          if (s == Status::precision_too_low) continue;
          CHECK_EQ(s, Status::ok);
          if (s != Status::ok) continue;
          CHECK(she.realized_epsilon() <= eps);
          const uint32_t outputs = 1u << (d * she.component_bits());
          const auto v = verify_exhaustively(d, outputs, she.realized_epsilon(), counts,
                                             [&](uint32_t x, CountingRng& rng) { return she_output(she, x, rng); });
          CHECK(v.fixed_consumption);
          CHECK(v.within_claim);
          CHECK(v.tight);
          CHECK_EQ(v.random_bits, d * bits);
          for (uint32_t x = 0; x < d; ++x)
            for (uint32_t y = 0; y < outputs; ++y) CHECK_EQ(uint64_t{counts[x * outputs + y]}, expected_count(she, x, y));
          ++verified;
        }
      }
    }
  }
  CHECK_EQ(verified, expected_she);
}

TEST(the_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t d : the_domains) {
    for (Epsilon eps : epsilons) {
      ThresholdHistogram the;
      const Status s = ThresholdHistogram::configure(eps, d, the, Precision{5, 1u << 11});
      CHECK_EQ(s, Status::ok);
      if (s != Status::ok) continue;
      CHECK(the.realized_epsilon() <= eps);
      const uint32_t outputs = 1u << d;
      const auto v = verify_exhaustively(d, outputs, the.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
        uint8_t report[1] = {0};
        static_cast<void>(the.privatize(x, rng, report, sizeof report));
        return uint32_t{report[0]};
      });
      CHECK(v.fixed_consumption);
      CHECK(v.within_claim);
      CHECK(v.tight);
      ++verified;
    }
  }
  CHECK_EQ(verified, static_cast<int>(sizeof the_domains / sizeof the_domains[0]) * 4);
}

// --- Planted mutant ---

TEST(catches_she_claiming_one_components_loss) {
  // The bug: the loss of one component (ε/2) claimed for the report, forgetting that two
  // components differ between neighbouring values.
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 2, table, 4, she, 1, 6), Status::ok);
  const auto real = verify_exhaustively(2, 16, she.realized_epsilon(), counts,
                                        [&](uint32_t x, CountingRng& rng) { return she_output(she, x, rng); });
  CHECK(real.within_claim);
  const auto v = verify_exhaustively(2, 16, she.noise().realized_epsilon(), counts,
                                     [&](uint32_t x, CountingRng& rng) { return she_output(she, x, rng); });
  CHECK(!v.within_claim);
}

}  // namespace
}  // namespace tinyldp::test
