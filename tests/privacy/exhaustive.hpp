// SPDX-License-Identifier: Apache-2.0
// Exhaustive privacy verification: drives a mechanism through *every* random string and
// checks the exact output distribution against the ε the mechanism claims.
//
// For each input v and each counter value r in [0, 2^T) (T = random bits one report
// consumes), the mechanism runs on a CountingSource serving r, and the output is tallied.
// Each string has probability 2^-T, so the tallies *are* the exact distribution (exact
// rational arithmetic with a common denominator). The check: for all outputs y and inputs
// v1, v2, count(y|v1) ≤ e^ε · count(y|v2), evaluated as count1 · 2^128 ≤ L · count2 with L a
// rigorous lower bound on e^ε. It also reports the largest ratio met, so a test can assert
// that the claimed ε is tight (expect_private_and_tight), and whether every run consumed
// exactly T bits.
#ifndef TINYLDP_TESTS_PRIVACY_EXHAUSTIVE_HPP
#define TINYLDP_TESTS_PRIVACY_EXHAUSTIVE_HPP

#include <stdint.h>

#include "check.hpp"
#include "tinyldp/epsilon.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {

using CountingRng = RandomBits<port::CountingSource>;

struct ExhaustiveVerdict {
  bool fixed_consumption = true;  // every run drew exactly random_bits bits
  bool within_claim = true;       // no ratio above e^claimed
  bool tight = false;             // the largest ratio's ε (rounded up) equals the claim
  Epsilon observed{};             // ε of the largest ratio met (rounded up to 2^-32)
  unsigned random_bits = 0;
  uint64_t runs = 0;
};

// counts: scratch for inputs × outputs tallies. run(value, rng) returns the output index.
template <class Run>
ExhaustiveVerdict verify_exhaustively(uint32_t inputs, uint32_t outputs, Epsilon claimed,
                                      uint32_t* counts, Run run) {
  ExhaustiveVerdict verdict;
  {  // How many bits does one report take?
    port::CountingSource probe(0);
    CountingRng rng(probe);
    run(0, rng);
    verdict.random_bits = static_cast<unsigned>(rng.bits_drawn());
  }
  const uint64_t strings = uint64_t{1} << verdict.random_bits;
  for (uint32_t i = 0; i < inputs * outputs; ++i) counts[i] = 0;
  for (uint32_t v = 0; v < inputs; ++v) {
    for (uint64_t r = 0; r < strings; ++r) {
      port::CountingSource source(r);
      CountingRng rng(source);
      const uint32_t y = run(v, rng);
      if (rng.bits_drawn() != verdict.random_bits) verdict.fixed_consumption = false;
      if (y < outputs) ++counts[v * outputs + y];
      ++verdict.runs;
    }
  }
  using detail::Wide;
  const Wide bound = exp_lower_bound(claimed);
  Wide worst_num = Wide::from(1), worst_den = Wide::from(1);
  for (uint32_t y = 0; y < outputs; ++y) {
    for (uint32_t v1 = 0; v1 < inputs; ++v1) {
      for (uint32_t v2 = 0; v2 < inputs; ++v2) {
        const uint32_t c1 = counts[v1 * outputs + y], c2 = counts[v2 * outputs + y];
        if (c1 == 0) continue;
        if (c2 == 0) {  // possible under v1, impossible under v2: unbounded loss
          verdict.within_claim = false;
          worst_num = Wide::power_of_two(200);
          worst_den = Wide::from(1);
          continue;
        }
        const Wide n1 = Wide::from(c1), n2 = Wide::from(c2);
        if (n1.shl(detail::exp_fraction_bits) > bound * n2) verdict.within_claim = false;
        if (n1 * worst_den > worst_num * n2) {
          worst_num = n1;
          worst_den = n2;
        }
      }
    }
  }
  if (ln_upper_bound(worst_num, worst_den, verdict.observed)) {
    verdict.tight = verdict.observed == claimed;
  } else {
    verdict.observed = Epsilon{~uint64_t{0}};
  }
  return verdict;
}

// Memoized mechanisms: the memo's draws recorded during a first report and replayed for the
// next ones — the same memo for every report of a value, as the keyed PRF makes it on a device.
struct MemoRecorder {
  CountingRng& rng;
  uint64_t log[64] = {};
  unsigned n = 0;
  uint64_t draw(unsigned bits) { return log[n++] = rng.draw(bits); }
};
struct MemoReplayer {
  const MemoRecorder& recorded;
  unsigned n = 0;
  uint64_t draw(unsigned) { return recorded.log[n++]; }
};

// The verdict every real mechanism must get: each run drew the same bits, no ratio exceeds
// e^claimed, and the largest ratio met is exactly e^claimed (the claim is tight).
inline void expect_private_and_tight(const ExhaustiveVerdict& v, Epsilon claimed) {
  CHECK(v.fixed_consumption);
  CHECK(v.within_claim);
  CHECK(v.tight);
  CHECK_EQ(v.observed.q32, claimed.q32);
}

}  // namespace tinyldp::test

#endif
