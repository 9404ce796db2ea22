// SPDX-License-Identifier: Apache-2.0
// Deterministic statistical checks: an observed count of n fixed-seed trials must lie within
// 6 standard deviations of n·p. On the host, tests also assert that the bound is tighter than
// 1 % of n·p, i.e. that the check would catch a probability off by 1 %.
#ifndef TINYLDP_TESTS_SUPPORT_FREQUENCY_CHECK_HPP
#define TINYLDP_TESTS_SUPPORT_FREQUENCY_CHECK_HPP

#include <stdint.h>

#include "check.hpp"
#include "tinyldp/probability.hpp"

namespace tinyldp::test {

inline double sqrt_newton(double x) {
  if (x <= 0) return 0;
  double r = x > 1 ? x : 1;
  for (int i = 0; i < 100; ++i) r = 0.5 * (r + x / r);
  return r;
}

inline double as_double(Dyadic p) {
  double v = static_cast<double>(p.num);
  for (unsigned i = 0; i < p.bits; ++i) v *= 0.5;
  return v;
}

// True if |count − n·p| ≤ 6σ. With require_power, also fails unless 10σ < 1 % of n·p.
inline bool within_six_sigma(uint64_t count, uint64_t n, double p, bool require_power) {
  const double expected = static_cast<double>(n) * p;
  const double six_sigma = 6 * sqrt_newton(expected * (1 - p));
  const double diff = static_cast<double>(count) - expected;
  const bool ok = diff <= six_sigma && -diff <= six_sigma;
  if (!ok) {
    print("    count ");
    print_u64(count);
    print(" vs expected ");
    print_u64(static_cast<uint64_t>(expected));
    print(" ± ");
    print_u64(static_cast<uint64_t>(six_sigma));
    print("\n");
  }
  if (require_power && !(six_sigma * 10 / 6 < 0.01 * expected)) {
    print("    too few trials to catch a 1 % error\n");
    return false;
  }
  return ok;
}

// Trials needed so that 1 % of n·p exceeds the 6σ bound plus a 4σ margin for the sample's own
// deviation: a probability off by 1 % then fails with overwhelming probability.
inline uint64_t trials_to_catch_one_percent(double p) {
  return static_cast<uint64_t>(1.1 * 100.0 * (1 - p) / (1e-4 * p)) + 1;
}

// A frequency test's sample: on the host, enough trials to catch a 1 % error in a probability
// near p, and within_six_sigma's require_power set; on an emulated target, `on_target` trials
// (its run time) and no power required.
struct Sample {
  uint32_t n;
  bool power;
};
inline Sample powered_sample(double p, uint32_t on_target) {
#ifdef TINYLDP_TEST_ON_TARGET
  (void)p;
  return {on_target, false};
#else
  (void)on_target;
  return {static_cast<uint32_t>(trials_to_catch_one_percent(p)), true};
#endif
}

// A simulated fleet's size: `on_host` devices, or 3000 on an emulated target (its run time).
constexpr uint32_t fleet_size(uint32_t on_host) {
#ifdef TINYLDP_TEST_ON_TARGET
  (void)on_host;
  return 3000;
#else
  return on_host;
#endif
}

}  // namespace tinyldp::test

#endif
