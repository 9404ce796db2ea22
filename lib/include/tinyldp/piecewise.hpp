// SPDX-License-Identifier: Apache-2.0
// tinyldp/piecewise.hpp — the Piecewise Mechanism (Wang et al., ICDE 2019) for a bounded integer
// v ∈ [lo, hi], on a grid of M output cells with integer probabilities: the mean's mechanism
// with the smallest worst-case variance at ε ≳ 1.3 among PM, Duchi's (`sd` with two levels) and
// discrete Laplace.
//
// The continuous PM reports a point of [−C, C]: with density p inside a band of width C − 1 that
// slides with the value, p/e^ε outside it. On the grid, the band is W_b = ⌊M/(e^{ε/2} + 1) + ½⌋
// consecutive cells (PM's band fraction (C − 1)/2C), starting at cell s ∈ [0, S − 1],
// S = M − W_b + 1: the value is first rounded stochastically to one of the S starts (s = 0 is lo,
// s = S − 1 is hi, unbiased as in stochastic_discretization.hpp). Each cell outside the band has
// probability m/2^b, each inside h/2^b, and the R = 2^b − W_b·h − (M − W_b)·m < W_b left over
// go to cell 0 whatever the value. m is a Dyadic rounded *up* from 1/(W_b·e^ε + M − W_b), h is
// rounded down, so every likelihood ratio is at most h/m ≤ e^ε (cell 0's (h + R)/(m + R) is
// smaller): realized_epsilon() = ln(h/m), rounded up.
//
// The expected cell is affine in s — E[y | s]·2^b = m·M(M − 1)/2 + (h − m)·W_b·(s + (W_b − 1)/2)
// (cell 0 adds nothing to it) — so the collector's score of a cell is an exactly unbiased
// estimate of the value (up to the rounding's 2^-B of a start). At the default M = 2048 the
// worst-case variance is within 0.5 % of the continuous PM's for ε ∈ {0.5, 1, 2, 4, 8}
// (tests/core/test_piecewise.cpp computes it from these integers).
//
// One draw of B bits rounds the value; one draw of b bits picks the cell: its cumulative
// position is compared with the band's two ends and divided by m or h with restoring divisions
// of a fixed trip count (ct::quotient), so neither the value nor the noise decides a branch, an
// address or a long multiply.
// Cost: context 80 bytes; report ⌈log2 M⌉ bits (a uint32_t cell here); random bits per report
// B + b (24 + ≤ 64); time ⌈log2 S⌉ + ⌈log2 M⌉ + ⌈log2 W_b⌉ 64-bit compare-and-subtract
// steps (at most 32 at M = 2048). Limits: 4 ≤ M ≤ 4096; (hi − lo)·S·2^B < 2^63 (hi − lo < 2^28 at the
// defaults). Run-time configure needs ≈ 1.3 KiB of stack (make(): none). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
#ifndef TINYLDP_PIECEWISE_HPP
#define TINYLDP_PIECEWISE_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class PiecewiseMechanism : public detail::PackedPrivatize<PiecewiseMechanism, int32_t> {
 public:
  static constexpr uint32_t min_cells = 4;
  static constexpr uint32_t max_cells = 4096;
  static constexpr uint32_t default_cells = 2048;
  static constexpr unsigned default_rounding_bits = 24;

  // The band's width in cells for ε and M: ⌊M/(e^{ε/2} + 1) + ½⌋, at least 1, at most M − 3.
  static constexpr uint32_t band_cells_for(Epsilon eps, uint32_t cells) {
    const detail::Wide half = exp_lower_bound(Epsilon{eps.q32 / 2});
    const detail::Wide one = detail::one_fixed();
    const uint64_t twice = floor_div(one.times(2 * uint64_t{cells}), half + one).low64();
    uint64_t band = (twice + 1) / 2;
    if (band < 1) band = 1;
    if (band > cells - 3) band = cells - 3;
    return static_cast<uint32_t>(band);
  }

  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t cells,
                                    PiecewiseMechanism& out, Precision precision = {},
                                    unsigned rounding_bits = default_rounding_bits) {
    if (cells < min_cells || cells > max_cells) return Status::bad_parameter;
    return configure_band(eps, lo, hi, cells, band_cells_for(eps, cells), out, precision, rounding_bits);
  }
  // With the band's width given (Square Wave's, square_wave.hpp): 1 ≤ band ≤ cells − 3.
  static constexpr Status configure_band(Epsilon eps, int32_t lo, int32_t hi, uint32_t cells, uint32_t band,
                                         PiecewiseMechanism& out, Precision precision = {},
                                         unsigned rounding_bits = default_rounding_bits) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    if (hi <= lo || cells < min_cells || cells > max_cells || band < 1 || band > cells - 3 || rounding_bits < 1 ||
        rounding_bits > 24)
      return Status::bad_parameter;
    const uint64_t width = static_cast<uint64_t>(int64_t{hi} - int64_t{lo});
    const uint32_t starts = cells - band + 1;
    // The rounding's dividend (value offset)·(S − 1)·2^B + u·W stays below W·S·2^B < 2^63.
    if (width >= (uint64_t{1} << 31) ||
        detail::Wide::from(width).times(starts) >= detail::scale(63 - rounding_bits))
      return Status::bad_parameter;
    // m ≥ 2^b/(W_b·e^ε + M − W_b): the fewest bits between the bound at ε and at ε − tolerance.
    const unsigned bits = precision.max_bits;
    const detail::Wide one = detail::one_fixed();
    const detail::Wide safe_den = exp_lower_bound(eps).times(band) + one.times(cells - band);
    const detail::Wide loose_den =
        exp_lower_bound(detail::loosened(eps, precision)).times(band) + one.times(cells - band);
    const uint64_t safe = ceil_div(detail::scale(bits) * one, safe_den).low64();
    const uint64_t loose = floor_div(detail::scale(bits) * one, loose_den).low64();
    // h is rounded down after m is picked, which can cost more than the tolerance: m then takes
    // one bit more at a time (safe rounded up to a multiple of 2^s, s falling from the fewest
    // bits' trailing zeros), the first whose h/m stays above e^(ε − tolerance) kept — checked
    // against the exp bound directly, so the realized ε is computed once. At full precision
    // (s = 0, m = safe) h's rounding costs < 2^-50.
    // At and below the default tolerance the rule of earlier releases stands (the fewest bits,
    // else m at full precision), so their reports keep their parameter digests.
    const uint64_t picked = detail::pick_at_least(safe, loose);
    if (!detail::is_coarse(precision)) {
      const Status s = from_outside_probability(lo, hi, cells, band, make_dyadic(picked, bits), out, rounding_bits);
      if (s != Status::ok || out.realized_.q32 + precision.tolerance_q32 >= eps.q32) return s;
      return from_outside_probability(lo, hi, cells, band, make_dyadic(safe, bits), out, rounding_bits);
    }
    const detail::Wide floor_ratio = exp_lower_bound(detail::loosened(eps, precision));
    int shift = picked == 0 ? 0 : __builtin_ctzll(picked);
    for (; shift > 0; --shift) {
      const uint64_t unit = uint64_t{1} << shift;
      const uint64_t rounded = (safe + unit - 1) & ~(unit - 1);
      if (rounded > loose) continue;
      // h has m's own denominator (from_outside_probability works at the reduced Dyadic).
      const Dyadic m = make_dyadic(rounded, bits);
      const detail::Wide whole = detail::scale(m.bits);
      const detail::Wide outside = detail::Wide::from(m.num).times(cells - band);
      if (outside >= whole) continue;
      const detail::Wide h = floor_div(whole - outside, detail::Wide::from(band));
      if (h.shl(detail::exp_fraction_bits) > floor_ratio * detail::Wide::from(m.num)) break;
    }
    const uint64_t unit = uint64_t{1} << shift;
    const uint64_t m = shift == 0 ? safe : (safe + unit - 1) & ~(unit - 1);
    return from_outside_probability(lo, hi, cells, band, make_dyadic(m, bits), out, rounding_bits);
  }
  static consteval PiecewiseMechanism make(Epsilon eps, int32_t lo, int32_t hi,
                                           uint32_t cells = default_cells, Precision precision = {}) {
    return detail::configured<PiecewiseMechanism>(
        [&](auto& r) { return configure(eps, lo, hi, cells, r, precision); });
  }

  // Uses the outside probability m/2^b as given (the band's h follows, rounded down); the
  // tests configure tiny grids this way to enumerate every draw.
  static constexpr Status from_outside_probability(int32_t lo, int32_t hi, uint32_t cells,
                                                   uint32_t band, Dyadic m, PiecewiseMechanism& out,
                                                   unsigned rounding_bits = default_rounding_bits) {
    if (hi <= lo || cells < min_cells || cells > max_cells || band < 1 || band > cells - 3 ||
        rounding_bits < 1 || rounding_bits > 24 || m.num == 0)
      return Status::bad_parameter;
    const uint64_t width = static_cast<uint64_t>(int64_t{hi} - int64_t{lo});
    const uint32_t starts = cells - band + 1;
    if (width >= (uint64_t{1} << 31) ||
        detail::Wide::from(width).times(starts) >= detail::scale(63 - rounding_bits))
      return Status::bad_parameter;
    const detail::Wide whole = detail::scale(m.bits);
    const detail::Wide outside = detail::Wide::from(m.num).times(cells - band);
    if (outside >= whole) return Status::precision_too_low;
    const detail::Wide h = floor_div(whole - outside, detail::Wide::from(band));
    if (h <= detail::Wide::from(m.num)) return Status::precision_too_low;
    const detail::Wide band_mass = h.times(band);
    Epsilon realized;
    if (!detail::realized_epsilon_of(h, detail::Wide::from(m.num), realized)) return Status::bad_epsilon;
    out.lo_ = lo;
    out.width_ = static_cast<uint32_t>(width);
    out.cells_ = cells;
    out.band_ = band;
    out.rounding_bits_ = rounding_bits;
    out.m_ = m;
    out.h_ = h.low64();
    out.band_mass_ = band_mass.low64();
    out.band_excess_ = (band_mass - detail::Wide::from(m.num).times(band)).low64();
    out.rest_ = (whole - outside - band_mass).low64();
    out.realized_ = realized;
    return Status::ok;
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return cells_ != 0; }
  constexpr int32_t low() const { return lo_; }
  constexpr int32_t high() const { return static_cast<int32_t>(int64_t{lo_} + width_); }
  constexpr uint32_t cells() const { return cells_; }
  constexpr uint32_t band_cells() const { return band_; }
  constexpr uint32_t starts() const { return cells_ - band_ + 1; }
  constexpr unsigned rounding_bits() const { return rounding_bits_; }
  // A cell outside the band has probability m/2^b, one inside h/2^b; cell 0 has R/2^b more.
  constexpr Dyadic outside_probability() const { return m_; }
  constexpr uint64_t band_numerator() const { return h_; }
  constexpr uint64_t cell_zero_extra() const { return rest_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr unsigned random_bits_per_report() const { return rounding_bits_ + m_.bits; }

  // On the wire (wire.hpp): id pm, the cell in ⌈log2 M⌉ bits; the digest covers the range, M,
  // W_b, the rounding bits and m (h and R follow from them).
  using Report = uint32_t;
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(cells_); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::pm, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::pm))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(cells_)
                .u32(band_)
                .byte(static_cast<uint8_t>(rounding_bits_))
                .dyadic(m_)
                .value()};
  }
  constexpr void pack(Report cell, uint8_t* payload) const {
    wire::pack_value(cell, payload_bits(), payload);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    return static_cast<Report>(wire::unpack_bits(payload, payload_bits()));
  }

  // The band's start an in-range value rounds to for the rounding draw u < 2^B: ⌊(t·2^B + u·W)/
  // (W·2^B)⌋ with t = (v − lo)(S − 1), so it rounds up with probability ⌊(t mod W)·2^B/W⌋/2^B.
  constexpr uint32_t start(int32_t value, uint64_t u) const {
    const auto offset = static_cast<uint32_t>(int64_t{value} - int64_t{lo_});
    const uint64_t position = (ct::mul_wide(offset, starts() - 1u) << rounding_bits_) +
                              ct::mul_wide(static_cast<uint32_t>(u), width_);
    return ct::quotient(position, uint64_t{width_} << rounding_bits_, wire::bits_for_values(starts()));
  }
  // The cell a band starting at s gives for the cell draw u < 2^b.
  constexpr uint32_t cell(uint32_t s, uint64_t u) const {
    const uint64_t m = m_.num;
    const uint32_t extra = static_cast<uint32_t>(ct::less64(u, rest_));  // cell 0's R
    const uint64_t v = u - rest_;  // meaningless (and unused) when extra
    // s·m, through 32-bit multiplies (s·m < 2^b, so s·⌊m/2^32⌋ < 2^32).
    const uint64_t band_begin = ct::mul_wide(s, static_cast<uint32_t>(m)) +
                                (uint64_t{s * static_cast<uint32_t>(m >> 32)} << 32);
    // In the band: v − s·m < W_b·h (not v < s·m + W_b·h, which wraps to 0 at b = 64 when the
    // band ends at 2^64, R = 0).
    const uint32_t below_band = static_cast<uint32_t>(ct::less64(v, band_begin));
    const uint32_t in_band = (below_band ^ 1u) & static_cast<uint32_t>(ct::less64(v - band_begin, band_mass_));
    const uint32_t above_band = (below_band | in_band) ^ 1u;
    // Outside the band every cell is m wide: above it, remove the band's extra (h − m)·W_b.
    const uint64_t outside_position = v - (band_excess_ & ct::mask64(above_band));
    const uint32_t outside_cell = ct::quotient(outside_position, m, wire::bits_for_values(cells_));
    const uint32_t band_cell = s + ct::quotient(v - band_begin, h_, wire::bits_for_values(band_));
    return ct::select(extra, 0u, ct::select(in_band, band_cell, outside_cell));
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, uint32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const auto [safe, in_domain] = detail::in_range_or_low(value, lo_, width_);
    const uint64_t u_round = rng.draw(rounding_bits_);
    const uint64_t u_cell = rng.draw(m_.bits);
    const uint32_t y = cell(start(safe, u_round), u_cell);
    return release<stack_scrub_bytes(216)>(rng, in_domain, y, report);
  }

 private:
  int32_t lo_ = 0;
  uint32_t width_ = 1;
  uint32_t cells_ = 0;
  uint32_t band_ = 1;
  unsigned rounding_bits_ = default_rounding_bits;
  Dyadic m_{};
  uint64_t h_ = 0;
  uint64_t band_mass_ = 0;    // W_b·h
  uint64_t band_excess_ = 0;  // W_b·(h − m)
  uint64_t rest_ = 0;       // R, cell 0's extra
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
