// SPDX-License-Identifier: Apache-2.0
// Statistical conformance with fixed seeds: every sampler's and mechanism's output frequencies
// match the realized (Dyadic) probabilities within 6σ. On the host the sample sizes are large
// enough that a probability off by 1 % fails; on targets a smaller subset runs.
#include "check.hpp"
#include "frequency_check.hpp"
#include "tinyldp/bernoulli.hpp"
#include "tinyldp/bernoulli_bits.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/uniform.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource, 64>;

#if defined(TINYLDP_TEST_ON_TARGET)
constexpr bool power = false;
uint64_t trials(uint64_t on_target, double) { return on_target; }
#else
constexpr bool power = true;
// On the host: enough trials that the 6σ bound catches a 1 % error in probability p.
uint64_t trials(uint64_t on_target, double p) {
  const uint64_t needed = trials_to_catch_one_percent(p);
  return needed > on_target ? needed : on_target;
}
#endif

const Dyadic probabilities[] = {{1, 1}, {3, 2}, {1, 5}, {0x2D413CCD, 32},
                                {0x1234567890ABCDEFull, 64}, {0xB504F333F9DE6485ull, 64}};

TEST(bernoulli_hits_each_probability) {
  for (Dyadic p : probabilities) {
    port::InsecureTestSource src(101);
    Rng rng(src);
    const uint64_t n = trials(50000, as_double(p) > 0.05 ? as_double(p) : 0.05);
    uint64_t ones = 0;
    for (uint64_t i = 0; i < n; ++i) ones += bernoulli(p, rng);
    CHECK(within_six_sigma(ones, n, as_double(p), power && as_double(p) > 0.05));
    CHECK_EQ(rng.bits_drawn(), n * p.bits);
  }
}

TEST(bit_sliced_lanes_are_independent_bernoullis) {
  // d = 100: whole words and a partial one on every target; d = 128 also runs the host's bulk
  // path. Every lane's frequency, all lanes together, and one pair's joint frequency.
  const uint32_t domains[] = {100, 128};
  for (uint32_t d : domains) {
    for (Dyadic p : probabilities) {
      port::InsecureTestSource src(202);
      Rng rng(src);
      const uint64_t fills = trials(2000, as_double(p) > 0.05 ? as_double(p) : 0.05) / d + 1;
      uint64_t lane_ones[128] = {};
      uint64_t pair_ones = 0;  // lanes 3 and d − 3 both set
      uint8_t out[16];
      for (uint64_t f = 0; f < fills; ++f) {
        BernoulliBits::fill(p, d, rng, out);
        for (uint32_t l = 0; l < d; ++l) lane_ones[l] += (uint32_t{out[l / 8]} >> (l % 8)) & 1u;
        pair_ones += (uint32_t{out[0]} >> 3) & (uint32_t{out[(d - 3) / 8]} >> ((d - 3) % 8)) & 1u;
      }
      uint64_t total = 0;
      for (uint32_t l = 0; l < d; ++l) {
        CHECK(within_six_sigma(lane_ones[l], fills, as_double(p), false));
        total += lane_ones[l];
      }
      CHECK(within_six_sigma(total, d * fills, as_double(p), power && as_double(p) > 0.05));
      CHECK(within_six_sigma(pair_ones, fills, as_double(p) * as_double(p), false));
      CHECK_EQ(rng.bits_drawn(), fills * d * p.bits);
    }
  }
}

TEST(uniform_below_is_uniform) {
  const uint64_t ranges[] = {2, 3, 7, 10, 1000};
  for (uint64_t range : ranges) {
    port::InsecureTestSource src(303);
    Rng rng(src);
    const uint64_t n = 1000 * range;
    uint64_t hits[1000] = {};
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t u = uniform_below(range, rng);
      CHECK_LT(u, range);
      ++hits[u < range ? u : 0];
    }
    for (uint64_t v = 0; v < range; ++v)
      CHECK(within_six_sigma(hits[v], n, 1.0 / static_cast<double>(range), false));
  }
}

TEST(binary_rr_keeps_with_its_realized_probability) {
  constexpr BinaryRr rr = BinaryRr::make(Epsilon::from_double(0.7));
  port::InsecureTestSource src(404);
  Rng rng(src);
  const uint64_t n = trials(50000, as_double(rr.keep_probability()));
  uint64_t kept = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t report = 0;
    const uint32_t bit = static_cast<uint32_t>(i & 1u);
    CHECK(rr.privatize(bit, rng, report) == Status::ok);
    kept += report == bit;
  }
  CHECK(within_six_sigma(kept, n, as_double(rr.keep_probability()), power));
}

TEST(kary_rr_reports_match_p_and_q) {
  constexpr KaryRr krr = KaryRr::make(Epsilon::from_double(1.0), 6);
  const double q = as_double(krr.other_probability());
  const double p = 1 - 5 * q;
  port::InsecureTestSource src(505);
  Rng rng(src);
  const uint64_t n = trials(30000, q);
  uint64_t hist[6] = {};
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t report = 0;
    CHECK(krr.privatize(2, rng, report) == Status::ok);
    ++hist[report < 6 ? report : 0];
  }
  for (uint32_t y = 0; y < 6; ++y) CHECK(within_six_sigma(hist[y], n, y == 2 ? p : q, power));
}

TEST(unary_encoding_bits_match_p_and_q) {
  constexpr UnaryEncoding oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 40);
  constexpr UnaryEncoding sue = UnaryEncoding::make_sue(Epsilon::from_double(2.0), 40);
  const UnaryEncoding* mechanisms[] = {&oue, &sue};
  for (const auto* ue : mechanisms) {
    port::InsecureTestSource src(606);
    Rng rng(src);
    const uint64_t n = trials(2000, as_double(ue->q())) / 39;
    uint64_t ones[40] = {};
    uint64_t pair = 0;  // bits 5 and 30 both set (independence of two q lanes)
    for (uint64_t i = 0; i < n; ++i) {
      uint8_t report[5];
      CHECK(ue->privatize(17, rng, report, sizeof report) == Status::ok);
      for (int b = 0; b < 40; ++b) ones[b] += static_cast<uint64_t>((report[b / 8] >> (b % 8)) & 1);
      pair += ((report[0] >> 5) & (report[3] >> 6)) & 1u;
    }
    const double p = as_double(ue->p()), q = as_double(ue->q());
    uint64_t others = 0;
    for (int b = 0; b < 40; ++b) {
      if (b == 17) continue;
      CHECK(within_six_sigma(ones[b], n, q, false));
      others += ones[b];
    }
    CHECK(within_six_sigma(ones[17], n, p, false));
    CHECK(within_six_sigma(others, 39 * n, q, power));
    CHECK(within_six_sigma(pair, n, q * q, false));
  }
}

#if !defined(TINYLDP_TEST_ON_TARGET)
TEST(the_check_rejects_a_probability_off_by_one_percent) {
  const Dyadic p{0x2D413CCD, 32};  // ≈ 0.1768
  port::InsecureTestSource src(707);
  Rng rng(src);
  const uint64_t n = trials(0, as_double(p));
  uint64_t ones = 0;
  for (uint64_t i = 0; i < n; ++i) ones += bernoulli(p, rng);
  CHECK(within_six_sigma(ones, n, as_double(p), true));
  print("  (two mismatches expected below)\n");
  CHECK(!within_six_sigma(ones, n, as_double(p) * 1.01, false));
  CHECK(!within_six_sigma(ones, n, as_double(p) * 0.99, false));
}
#endif

}  // namespace
}  // namespace tinyldp::test
