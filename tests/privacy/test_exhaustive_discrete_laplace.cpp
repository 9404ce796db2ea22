// Exhaustive privacy verification of the discrete Laplace mechanism: every value of small
// ranges, every random string, the exact output distribution against the integer weights, and
// a planted mutant.
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/discrete_laplace.hpp"

using tinyldp::DiscreteLaplace;
using tinyldp::Epsilon;
using tinyldp::Status;
using tinyldp::test::CountingRng;
using tinyldp::test::verify_exhaustively;

namespace {
uint32_t counts[6 * 6];
uint64_t table[6];
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(2, 1),
                            Epsilon::from_ratio(4, 1)};

// Pr[y | v] · 2^B from the weights: interior |y − v|, end points the folded sums.
uint64_t expected_count(const DiscreteLaplace& m, uint32_t v, uint32_t y, uint32_t width) {
  if (y > 0 && y < width) return m.weight(y > v ? y - v : v - y);
  uint64_t c = y == 0 ? m.tail_low() : m.tail_high();
  const uint32_t nearest = y == 0 ? v : width - v;  // |z| of the closest noise reaching the end
  for (uint32_t k = nearest; k < width; ++k) c += m.weight(k);
  return c;
}
}  // namespace

TEST(discrete_laplace_is_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t width = 1; width <= 4; ++width) {
    for (Epsilon eps : epsilons) {
      for (uint32_t delta = 1; delta <= width; delta += width - 1 > 0 ? width - 1 : 1) {
        DiscreteLaplace dl;
        const Status s = DiscreteLaplace::configure(eps, 0, static_cast<int32_t>(width), delta, table, 6, dl, 10);
        if (s == Status::precision_too_low) continue;
        CHECK_EQ(s, Status::ok);
        if (s != Status::ok) continue;
        CHECK(dl.realized_epsilon() <= eps);
        const auto v = verify_exhaustively(width + 1, width + 1, dl.local_epsilon(), counts,
                                           [&](uint32_t x, CountingRng& rng) {
                                             int32_t y = 0;
                                             dl.privatize(static_cast<int32_t>(x), rng, y);
                                             return static_cast<uint32_t>(y);
                                           });
        CHECK(v.fixed_consumption);
        CHECK(v.within_claim);
        CHECK_EQ(v.random_bits, 10u);
        for (uint32_t x = 0; x <= width; ++x)
          for (uint32_t y = 0; y <= width; ++y)
            CHECK_EQ(uint64_t{counts[x * (width + 1) + y]}, expected_count(dl, x, y, width));
        // Neighbouring values stay within e^(ε_step), ε_step = realized ε / Δ, on the exact counts.
        const auto bound = tinyldp::exp_lower_bound(Epsilon{dl.realized_epsilon().q32 / delta});
        using W = tinyldp::detail::Wide;
        for (uint32_t x = 0; x < width; ++x)
          for (uint32_t y = 0; y <= width; ++y) {
            const W a = W::from(counts[x * (width + 1) + y]), b = W::from(counts[(x + 1) * (width + 1) + y]);
            CHECK(a.shl(128) <= bound * b);
            CHECK(b.shl(128) <= bound * a);
          }
        ++verified;
      }
    }
  }
  CHECK_GE(verified, 20);
}

TEST(catches_discrete_laplace_that_skips_the_noise_at_the_top) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 3, 3, table, 6, dl, 10), Status::ok);
  const auto v = verify_exhaustively(4, 4, dl.local_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
    int32_t y = 0;
    dl.privatize(static_cast<int32_t>(x), rng, y);
    if (x == 3) y = 3;  // the bug: the largest value is reported without noise
    return static_cast<uint32_t>(y);
  });
  CHECK(!v.within_claim);
}
