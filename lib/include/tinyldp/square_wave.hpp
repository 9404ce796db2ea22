// SPDX-License-Identifier: Apache-2.0
// tinyldp/square_wave.hpp — the Square Wave mechanism (Li et al., SIGMOD 2020) for a bounded
// integer v ∈ [lo, hi], bucketed: the mechanism for a numeric attribute's *distribution*
// (the collector reconstructs it with EMS, collector/bayesian_update.hpp).
//
// The input is rounded at random to one of D equally spaced buckets (bucket 0 is lo, D − 1 is
// hi; unbiased, as stochastic_discretization.hpp's levels); the output is one of N = D + 2B
// cells, those within B of the bucket (a window of 2B + 1) with probability h/2^b each, the
// others m/2^b, h/m ≤ e^ε. B is the paper's half-width b = (ε·e^ε − e^ε + 1)/(2e^ε(e^ε − 1 − ε))
// of the unit input range, in buckets: B = ⌊b·(D − 1) + ½⌋. That is the Piecewise Mechanism's
// grid (piecewise.hpp) with a band of 2B + 1 cells and D starts, so the integers, the draw and
// the realized ε = ln(h/m) are PM's, verified the same way; only the band's width differs (PM's
// is chosen for the mean, SW's for the distribution: wider at small ε).
//
// Cost: context 80 bytes (PM's grid); report ⌈log2 N⌉ bits (a uint32_t cell here); random
// bits per report B_r + b (24 + ≤ 64); time PM's. Limits: 4 ≤ D, N ≤ 4096 (so D ≤ 4096 − 2B);
// (hi − lo)·D·2^24 < 2^63. Run-time configure is PM's with B computed first (make(): nothing at
// run time).
// Measured: docs/footprint.md (code, stack per target) and docs/target-costs.md.
#ifndef TINYLDP_SQUARE_WAVE_HPP
#define TINYLDP_SQUARE_WAVE_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class SquareWave : public detail::PackedPrivatize<SquareWave, int32_t> {
 public:
  static constexpr uint32_t min_buckets = 4;
  static constexpr uint32_t default_buckets = 1024;

  // B = ⌊b·(D − 1) + ½⌋ with the paper's b, from e^ε's lower bound E (128 fraction bits):
  // b = (εE − E + 1)/(2E(E − 1 − ε)), all in fixed point (no floating point on the device).
  static constexpr uint32_t half_width_for(Epsilon eps, uint32_t buckets) {
    const detail::Wide one = detail::one_fixed();
    const detail::Wide e = exp_lower_bound(eps);
    const detail::Wide eps_fixed = detail::Wide::from(eps.q32).shl(detail::exp_fraction_bits - 32);
    const detail::Wide num = (eps_fixed * e).shr(detail::exp_fraction_bits) + one - e;  // ·2^128
    const detail::Wide gap = e - one - eps_fixed;                                        // e^ε − 1 − ε > 0
    const detail::Wide den = (e * gap).times(2);                                         // ·2^256
    // ⌊num·2^128·(D − 1)/den + ½⌋ = ⌊(2·num·2^128·(D − 1) + den)/(2·den)⌋.
    const detail::Wide scaled = num.shl(detail::exp_fraction_bits).times(2 * uint64_t{buckets - 1}) + den;
    return static_cast<uint32_t>(floor_div(scaled, den.times(2)).low64());
  }

  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t buckets, SquareWave& out,
                                    Precision precision = {},
                                    unsigned rounding_bits = PiecewiseMechanism::default_rounding_bits) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    if (buckets < min_buckets || buckets > PiecewiseMechanism::max_cells) return Status::bad_parameter;
    const uint32_t half = half_width_for(eps, buckets);
    if (uint64_t{buckets} + 2 * uint64_t{half} > PiecewiseMechanism::max_cells) return Status::bad_parameter;
    return from_half_width(eps, lo, hi, buckets, half, out, precision, rounding_bits);
  }
  static consteval SquareWave make(Epsilon eps, int32_t lo, int32_t hi, uint32_t buckets = default_buckets,
                                   Precision precision = {}) {
    return detail::configured<SquareWave>([&](auto& r) { return configure(eps, lo, hi, buckets, r, precision); });
  }

  // With the window's half-width B given (the tests' small grids; any B ≥ 0 is as private).
  // The grid's band (2B + 1) is at most N − 3 = D + 2B − 3 cells: D ≥ 4.
  static constexpr Status from_half_width(Epsilon eps, int32_t lo, int32_t hi, uint32_t buckets, uint32_t half,
                                          SquareWave& out, Precision precision = {},
                                          unsigned rounding_bits = PiecewiseMechanism::default_rounding_bits) {
    if (buckets < min_buckets || half > PiecewiseMechanism::max_cells) return Status::bad_parameter;
    const uint64_t cells = uint64_t{buckets} + 2 * uint64_t{half};
    if (cells > PiecewiseMechanism::max_cells) return Status::bad_parameter;
    PiecewiseMechanism grid;
    const Status s = PiecewiseMechanism::configure_band(eps, lo, hi, static_cast<uint32_t>(cells), 2 * half + 1,
                                                        grid, precision, rounding_bits);
    if (s != Status::ok) return s;
    out.grid_ = grid;
    return Status::ok;
  }

  constexpr bool configured() const { return grid_.configured(); }
  constexpr int32_t low() const { return grid_.low(); }
  constexpr int32_t high() const { return grid_.high(); }
  constexpr uint32_t buckets() const { return grid_.starts(); }
  constexpr uint32_t half_width() const { return (grid_.band_cells() - 1) / 2; }
  constexpr uint32_t cells() const { return grid_.cells(); }
  // The grid: the window is its band, the buckets its starts (m, h, cell 0's extra).
  constexpr const PiecewiseMechanism& grid() const { return grid_; }
  constexpr Epsilon realized_epsilon() const { return grid_.realized_epsilon(); }
  constexpr unsigned random_bits_per_report() const { return grid_.random_bits_per_report(); }

  // On the wire (wire.hpp): id sw, the cell in ⌈log2 N⌉ bits; the digest covers the range, D,
  // B, the rounding bits and m (h and cell 0's extra follow).
  using Report = uint32_t;
  constexpr uint32_t payload_bits() const { return grid_.payload_bits(); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::sw, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::sw))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(buckets())
                .u32(half_width())
                .byte(static_cast<uint8_t>(grid_.rounding_bits()))
                .dyadic(grid_.outside_probability())
                .value()};
  }
  constexpr void pack(Report cell, uint8_t* payload) const { grid_.pack(cell, payload); }
  constexpr Report unpack(const uint8_t* payload) const { return grid_.unpack(payload); }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below (PM's grid's, which is fail-closed and constant time).
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, uint32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    return grid_.privatize(value, rng, report);
  }

 private:
  PiecewiseMechanism grid_{};
};

}  // namespace tinyldp

#endif
