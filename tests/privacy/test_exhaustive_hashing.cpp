// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification of local hashing (BLH, OLH) and Hadamard response: every
// input, every seed or row, every random string — with planted mutants the check must catch.
// Runs ignore the mechanism's Status: every value enumerated is in the domain and the counting
// source never fails, so each run returns ok (statuses, fail-closed reports included, are
// checked in tests/core/).
#include "check.hpp"
#include "exhaustive.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/local_hashing.hpp"

namespace tinyldp::test {
namespace {

#if defined(TINYLDP_TEST_ON_TARGET)
constexpr uint32_t max_range = 16;  // 16 KiB of RAM on the micro:bit
#else
constexpr uint32_t max_range = 64;
#endif
uint32_t counts[8 * 8 * max_range];
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 2),
                            Epsilon::from_ratio(1, 1), Epsilon::from_ratio(3, 1),
                            Epsilon::from_ratio(8, 1)};
const uint32_t domains[] = {2, 3, 5, 8};

TEST(local_hashing_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t d : domains) {
    for (Epsilon eps : epsilons) {
      for (int blh = 0; blh < 2; ++blh) {
        LocalHashing lh;
        const Precision precision{8, 1u << 11};
        const Status s = blh ? LocalHashing::configure_blh(eps, d, lh, precision, 3)
                             : LocalHashing::configure_olh(eps, d, lh, precision, 3);
        if (s == Status::precision_too_low) continue;
        CHECK_EQ(s, Status::ok);
        if (s != Status::ok || lh.range() > max_range) continue;
        const uint32_t g = lh.range();
        const auto v = verify_exhaustively(d, 8 * g, lh.realized_epsilon(), counts,
                                           [&](uint32_t x, CountingRng& rng) {
                                             LocalHashingReport r;
                                             static_cast<void>(lh.privatize(x, rng, r));
                                             return r.seed * g + r.value;
                                           });
        expect_private_and_tight(v, lh.realized_epsilon());
        CHECK_EQ(v.random_bits, lh.random_bits_per_report());
        // Exactly the k-RR's probabilities around H(seed, x).
        for (uint32_t x = 0; x < d; ++x)
          for (uint32_t seed = 0; seed < 8; ++seed)
            for (uint32_t y = 0; y < g; ++y)
              CHECK_EQ(uint64_t{counts[x * 8 * g + seed * g + y]},
                       y == local_hash(seed, x, g) ? lh.randomizer().keep_numerator()
                                                            : lh.randomizer().other_probability().num);
        ++verified;
      }
    }
  }
  CHECK_GE(verified, 20);  // 40 configurations less those too coarse at 8 bits or with large g
}

TEST(hadamard_response_is_exactly_as_private_as_it_claims) {
  int verified = 0;
  for (uint32_t d : domains) {
    for (Epsilon eps : epsilons) {
      HadamardResponse hr;
      CHECK_EQ(HadamardResponse::configure(eps, d, hr, Precision{6, 1u << 11}), Status::ok);
      const uint32_t rows = 1u << hr.row_bits();
      const auto v = verify_exhaustively(d, 2 * rows, hr.realized_epsilon(), counts,
                                         [&](uint32_t x, CountingRng& rng) {
                                           HadamardReport r;
                                           static_cast<void>(hr.privatize(x, rng, r));
                                           return r.row * 2 + r.bit;
                                         });
      expect_private_and_tight(v, hr.realized_epsilon());
      const Dyadic p = hr.randomizer().keep_probability();
      for (uint32_t x = 0; x < d; ++x)
        for (uint32_t row = 0; row < rows; ++row)
          for (uint32_t bit = 0; bit < 2; ++bit)
            CHECK_EQ(uint64_t{counts[x * 2 * rows + row * 2 + bit]},
                     bit == hadamard_bit(row, x) ? p.num : (uint64_t{1} << p.bits) - p.num);
      ++verified;
    }
  }
  CHECK_EQ(verified, 20);
}

// --- Planted mutants ---

TEST(catches_local_hashing_that_skips_the_randomizer_for_one_seed) {
  LocalHashing lh;
  CHECK_EQ(LocalHashing::configure_olh(Epsilon::from_ratio(1, 1), 4, lh, Precision{8, 1u << 11}, 3),
           Status::ok);
  const uint32_t g = lh.range();
  const auto v = verify_exhaustively(4, 8 * g, lh.realized_epsilon(), counts,
                                     [&](uint32_t x, CountingRng& rng) {
                                       LocalHashingReport r;
                                       static_cast<void>(lh.privatize(x, rng, r));
                                       if (r.seed == 0) r.value = local_hash(0, x, g);
                                       return r.seed * g + r.value;
                                     });
  CHECK(!v.within_claim);
}

TEST(catches_hadamard_response_with_the_wrong_column) {
  HadamardResponse hr;
  CHECK_EQ(HadamardResponse::configure(Epsilon::from_ratio(1, 1), 4, hr, Precision{6, 1u << 11}),
           Status::ok);
  // The bug: the row is drawn from the value's bits instead of fresh randomness for row 0.
  const auto v = verify_exhaustively(4, 8, hr.realized_epsilon(), counts,
                                     [&](uint32_t x, CountingRng& rng) {
                                       HadamardReport r;
                                       static_cast<void>(hr.privatize(x, rng, r));
                                       if (r.row == 0) r.row = x;  // row now depends on x
                                       return r.row * 2 + r.bit;
                                     });
  CHECK(!v.within_claim);
}

TEST(tiny_epsilon_is_verified_at_a_finer_precision) {
  // At 6–8 bits ε = 0.01 rounds to p = q (rejected) for local hashing and to p = 1/2 (ε = 0)
  // for Hadamard response; at 12 bits both stay non-degenerate and are still enumerable.
  const Epsilon tiny[] = {Epsilon::from_ratio(1, 100), Epsilon::from_ratio(1, 20)};
  const uint32_t tiny_domains[] = {3, 8};
  const Precision fine{12, 1u << 11};
  for (Epsilon eps : tiny) {
    for (uint32_t d : tiny_domains) {
      for (int blh = 0; blh < 2; ++blh) {
        LocalHashing lh;
        CHECK_EQ(blh ? LocalHashing::configure_blh(eps, d, lh, fine, 3) : LocalHashing::configure_olh(eps, d, lh, fine, 3),
                 Status::ok);
        CHECK_EQ(lh.range(), 2u);  // round(e^ε) + 1 = 2 for tiny ε
        CHECK(lh.realized_epsilon().q32 > 0 && lh.realized_epsilon() <= eps);
        const auto v = verify_exhaustively(d, 8 * 2, lh.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
          LocalHashingReport r;
          static_cast<void>(lh.privatize(x, rng, r));
          return r.seed * 2 + r.value;
        });
        expect_private_and_tight(v, lh.realized_epsilon());
      }
      HadamardResponse hr;
      CHECK_EQ(HadamardResponse::configure(eps, d, hr, fine), Status::ok);
      CHECK(hr.realized_epsilon().q32 > 0 && hr.realized_epsilon() <= eps);
      const uint32_t rows = 1u << hr.row_bits();
      const auto v = verify_exhaustively(d, 2 * rows, hr.realized_epsilon(), counts, [&](uint32_t x, CountingRng& rng) {
        HadamardReport r;
        static_cast<void>(hr.privatize(x, rng, r));
        return r.row * 2 + r.bit;
      });
      expect_private_and_tight(v, hr.realized_epsilon());
    }
  }
}

}  // namespace
}  // namespace tinyldp::test
