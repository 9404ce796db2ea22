// SPDX-License-Identifier: Apache-2.0
// 2^k and e^x for the core tests' floating-point checks of variances and formulas: the target
// tests link no libm, so these are by hand (exact for 2^k; e^x by its Taylor series, to double
// precision for |x| ≤ 8).
#ifndef TINYLDP_TEST_NO_LIBM_HPP
#define TINYLDP_TEST_NO_LIBM_HPP

namespace tinyldp::test {

inline double power_of_two(unsigned bits) {
  double x = 1;
  for (unsigned i = 0; i < bits; ++i) x *= 2;
  return x;
}

inline double exponential(double x) {
  double sum = 1, term = 1;
  for (int k = 1; k < 80; ++k) sum += (term *= x / k);
  return sum;
}

}  // namespace tinyldp::test

#endif
