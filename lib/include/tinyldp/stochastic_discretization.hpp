// SPDX-License-Identifier: Apache-2.0
// tinyldp/stochastic_discretization.hpp — a bounded integer, randomly rounded to one of L
// equally spaced levels (unbiased), then privatized by k-RR over the levels.
//
// A value v ∈ [lo, hi] sits at real position t/W between levels, with W = hi − lo and
// t = (v − lo)(L − 1). It is rounded to level ⌊t/W⌋ + 1 with probability (t mod W)/W, else to
// ⌊t/W⌋, so E[lo + level·W/(L−1)] = v; then k-RR over the L levels (binary RR when L = 2)
// reports a level. The realized ε is the k-RR's: for every v the report's distribution is a
// mixture of the k-RR's rows, so every likelihood ratio stays within p/q.
//
// Rounding draws B = rounding_bits uniform bits u (24 by default) and rounds up when
// t·2^B + u·W ≥ (⌊t/W⌋ + 1)·W·2^B, evaluated for every level boundary with a fixed number of
// branch-free 64-bit comparisons — no division of a value-dependent number (Cortex-M0 has no
// divider, and libgcc's would branch on it). The up-probability is ⌊(t mod W)·2^B/W⌋/2^B, at most
// 2^-B below the exact (t mod W)/W: the mean is low by less than 2^-B·W/(L−1) value units
// (exactly unbiased when W is a power of two ≤ 2^B). B ≤ 24.
// Cost: context 56 bytes; report ⌈log2 L⌉ bits (a uint32_t level here); random bits per report
// = B + the k-RR's; time L − 1 comparisons plus the k-RR (whose index needs no division
// either: krr.hpp). Limits: W < 2^31, 2 ≤ L ≤ 256.
// Run-time configure needs ≈ 1.3 KiB of stack (make(): none). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
#ifndef TINYLDP_STOCHASTIC_DISCRETIZATION_HPP
#define TINYLDP_STOCHASTIC_DISCRETIZATION_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/krr.hpp"

namespace tinyldp {

class StochasticDiscretization : public detail::PackedPrivatize<StochasticDiscretization, int32_t> {
 public:
  static constexpr uint32_t max_levels = 256;
  static constexpr unsigned default_rounding_bits = 24;

  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t levels,
                                    StochasticDiscretization& out, Precision precision = {},
                                    unsigned rounding_bits = default_rounding_bits) {
    if (hi <= lo || levels < 2 || levels > max_levels || rounding_bits < 1 || rounding_bits > 24)
      return Status::bad_parameter;
    const uint64_t width = static_cast<uint64_t>(int64_t{hi} - int64_t{lo});
    if (width >= (uint64_t{1} << 31)) return Status::bad_parameter;
    KaryRr krr;
    const Status s = KaryRr::configure(eps, levels, krr, precision);
    if (s != Status::ok) return s;
    out.lo_ = lo;
    out.width_ = static_cast<uint32_t>(width);
    out.levels_ = levels;
    out.rounding_bits_ = rounding_bits;
    out.krr_ = krr;
    return Status::ok;
  }
  static consteval StochasticDiscretization make(Epsilon eps, int32_t lo, int32_t hi,
                                                 uint32_t levels, Precision precision = {}) {
    return detail::configured<StochasticDiscretization>(
        [&](auto& r) { return configure(eps, lo, hi, levels, r, precision); });
  }

  // Set by a configure that succeeded (its k-RR is); privatize refuses otherwise.
  constexpr bool configured() const { return krr_.configured(); }
  constexpr int32_t low() const { return lo_; }
  constexpr int32_t high() const { return static_cast<int32_t>(int64_t{lo_} + width_); }
  constexpr uint32_t levels() const { return levels_; }
  constexpr unsigned rounding_bits() const { return rounding_bits_; }
  constexpr const KaryRr& randomizer() const { return krr_; }
  constexpr Epsilon realized_epsilon() const { return krr_.realized_epsilon(); }
  constexpr unsigned random_bits_per_report() const {
    return rounding_bits_ + krr_.random_bits_per_report();
  }

  // On the wire (wire.hpp): id sd, the reported level in ⌈log2 L⌉ bits; the digest covers the
  // range, L, the rounding bits and the k-RR's q.
  using Report = uint32_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(levels_); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::sd, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::sd))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(levels_)
                .byte(static_cast<uint8_t>(rounding_bits_))
                .dyadic(krr_.other_probability())
                .value()};
  }
  constexpr void pack(Report level, uint8_t* payload) const { krr_.pack(level, payload); }
  constexpr Report unpack(const uint8_t* payload) const { return krr_.unpack(payload); }

  // The level v rounds to for the rounding draw u (exposed for tests and the collector).
  constexpr uint32_t round(int32_t value, uint64_t u) const {
    const auto offset = static_cast<uint32_t>(int64_t{value} - int64_t{lo_});  // ≤ W < 2^31 if valid
    // Products of the value and the noise through ct::mul_wide: no long multiply (u < 2^24).
    const uint64_t position = (ct::mul_wide(offset, levels_ - 1u) << rounding_bits_) +
                              ct::mul_wide(static_cast<uint32_t>(u), width_);
    const uint64_t step = uint64_t{width_} << rounding_bits_;
    uint32_t level = 0;
    uint64_t boundary = 0;
    for (uint32_t j = 1; j < levels_; ++j) {  // fixed trip count: one comparison per boundary
      boundary += step;
      level += static_cast<uint32_t>(ct::less64(position, boundary) ^ 1u);
    }
    return level;
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, uint32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const auto [safe, in_domain] = detail::in_range_or_low(value, lo_, width_);
    const uint64_t u = rng.draw(rounding_bits_);
    const uint32_t y = krr_.randomize(round(safe, u), rng);
    return release<stack_scrub_bytes(216)>(rng, in_domain, y, report);
  }

 private:
  int32_t lo_ = 0;
  uint32_t width_ = 1;
  uint32_t levels_ = 2;
  unsigned rounding_bits_ = default_rounding_bits;
  KaryRr krr_{};
};

}  // namespace tinyldp

#endif
