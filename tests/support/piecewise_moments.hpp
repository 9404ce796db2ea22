// SPDX-License-Identifier: Apache-2.0
// The variance of the Piecewise Mechanism's unbiased estimate for the value at band start s,
// in units of the continuous mechanism's input [−1, 1], from the grid's integer probabilities:
// what the PM and HM tests compare with the papers' formulas (no libm: target tests too).
#ifndef TINYLDP_TEST_PIECEWISE_MOMENTS_HPP
#define TINYLDP_TEST_PIECEWISE_MOMENTS_HPP

#include <stdint.h>

#include "no_libm.hpp"
#include "tinyldp/piecewise.hpp"

namespace tinyldp::test {

inline double piecewise_variance_at_start(const PiecewiseMechanism& pm, uint32_t s) {
  const double scale = power_of_two(pm.outside_probability().bits);
  const double m = static_cast<double>(pm.outside_probability().num) / scale;
  const double h = static_cast<double>(pm.band_numerator()) / scale;
  const double r = static_cast<double>(pm.cell_zero_extra()) / scale;
  const double slope = (h - m) * pm.band_cells();  // dE[y]/ds
  double mean = 0, second = 0;
  for (uint32_t y = 0; y < pm.cells(); ++y) {
    const double p = (y >= s && y < s + pm.band_cells() ? h : m) + (y == 0 ? r : 0);
    mean += p * y;
    second += p * y * y;
  }
  const double to_unit = 2.0 / (pm.starts() - 1);  // a start's step on [−1, 1]
  return (second - mean * mean) / (slope * slope) * to_unit * to_unit;
}

}  // namespace tinyldp::test

#endif
