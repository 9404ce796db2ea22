// SPDX-License-Identifier: Apache-2.0
// tinyldp/hybrid.hpp — the Hybrid Mechanism (Wang et al., ICDE 2019) for a bounded integer
// v ∈ [lo, hi]: the Piecewise Mechanism (piecewise.hpp) with probability α, Duchi's mechanism
// (stochastic_discretization.hpp with two levels: the value rounded to lo or hi, then binary
// RR) otherwise — the mean's mechanism with the smallest worst-case variance at every ε.
//
// α = 1 − e^{−ε/2} (24 bits) above ε* ≈ 0.6094, where the paper's mixture stops being better
// than Duchi's alone; 0 at and below it (every report then takes the Duchi branch). With that
// α the worst-case variance is flat in the value: at ε = 4 it is 0.219 per report on [−1, 1],
// 4.9× below Duchi's 1.076 (the grid's figures: tests/core/test_hybrid.cpp).
//
// Both branches report at the full ε and their outputs are disjoint — cells 0 … M − 1 for PM,
// M and M + 1 for Duchi's low and high — and the branch is drawn independently of the value,
// so every likelihood ratio is one branch's: realized_epsilon() is the larger of the two
// realized ε (of a branch that can occur), computed from their integers as they are.
//
// Constant time: both branches are computed for every report and the report selected by a
// mask; α's draw, PM's two draws and Duchi's two always happen, in the same order.
// Cost: context 160 bytes; report ⌈log2 (M + 2)⌉ bits (12 at the default M = 2048; a uint32_t
// here); random bits per report = α's 24 + PM's (24 + m's bits) + Duchi's (24 + q's bits), 131
// at ε = 4 (tests/core/test_hybrid.cpp); time: PM's plus a comparison and a k-RR draw. Limits:
// PM's. Run-time configure runs PM's, then sd's (make(): nothing at run time). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
#ifndef TINYLDP_HYBRID_HPP
#define TINYLDP_HYBRID_HPP

#include <stdint.h>

#include "tinyldp/bernoulli.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class HybridMechanism : public detail::PackedPrivatize<HybridMechanism, int32_t> {
 public:
  static constexpr unsigned alpha_bits = 24;
  // ε* ≈ 0.6093525 (·2^32): below it PM's variance at the value 0, (e^{ε/2} + 3)/(3(e^{ε/2} − 1)²),
  // exceeds Duchi's C_D² = ((e^ε + 1)/(e^ε − 1))², so no α > 0 lowers the worst case.
  static constexpr Epsilon mixing_threshold = Epsilon{2617149029u};

  // The paper's α = 1 − e^{−ε/2} for ε > ε*, else 0, in alpha_bits bits (any α is as private:
  // the branch does not depend on the value; this one makes the variance flat in the value).
  static constexpr Dyadic alpha_for(Epsilon eps) {
    if (eps.q32 <= mixing_threshold.q32) return Dyadic{};
    const uint64_t inverse = detail::floor_scaled_inverse(Epsilon{eps.q32 / 2}, alpha_bits, 0);
    return make_dyadic((uint64_t{1} << alpha_bits) - inverse, alpha_bits);
  }

  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t cells,
                                    HybridMechanism& out, Precision precision = {},
                                    unsigned rounding_bits = PiecewiseMechanism::default_rounding_bits) {
    PiecewiseMechanism pm;
    if (const Status s = PiecewiseMechanism::configure(eps, lo, hi, cells, pm, precision, rounding_bits);
        s != Status::ok)
      return s;
    StochasticDiscretization duchi;
    if (const Status s = StochasticDiscretization::configure(eps, lo, hi, 2, duchi, precision, rounding_bits);
        s != Status::ok)
      return s;
    return from_parts(pm, duchi, alpha_for(eps), out);
  }
  static consteval HybridMechanism make(Epsilon eps, int32_t lo, int32_t hi,
                                        uint32_t cells = PiecewiseMechanism::default_cells,
                                        Precision precision = {}) {
    return detail::configured<HybridMechanism>(
        [&](auto& r) { return configure(eps, lo, hi, cells, r, precision); });
  }

  // Two configured branches over the same range and rounding bits (Duchi's with two levels)
  // and the PM branch's probability α; the tests build tiny ones this way to enumerate draws.
  static constexpr Status from_parts(const PiecewiseMechanism& pm, const StochasticDiscretization& duchi,
                                     Dyadic alpha, HybridMechanism& out) {
    if (!pm.configured() || !duchi.configured() || duchi.levels() != 2 || pm.low() != duchi.low() ||
        pm.high() != duchi.high() || pm.rounding_bits() != duchi.rounding_bits() || alpha.bits > 32 ||
        alpha.num > (uint64_t{1} << alpha.bits))
      return Status::bad_parameter;
    const bool pm_occurs = alpha.num != 0;
    const bool duchi_occurs = alpha.num != (uint64_t{1} << alpha.bits);
    const Epsilon a = pm_occurs ? pm.realized_epsilon() : Epsilon{};
    const Epsilon b = duchi_occurs ? duchi.realized_epsilon() : Epsilon{};
    out.pm_ = pm;
    out.duchi_ = duchi;
    out.alpha_ = alpha;
    out.realized_ = a < b ? b : a;
    return Status::ok;
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return pm_.configured() && duchi_.configured(); }
  constexpr int32_t low() const { return pm_.low(); }
  constexpr int32_t high() const { return pm_.high(); }
  constexpr uint32_t cells() const { return pm_.cells(); }
  constexpr const PiecewiseMechanism& piecewise() const { return pm_; }
  constexpr const StochasticDiscretization& duchi() const { return duchi_; }
  // The probability of the PM branch.
  constexpr Dyadic alpha() const { return alpha_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr unsigned random_bits_per_report() const {
    return alpha_.bits + pm_.random_bits_per_report() + duchi_.random_bits_per_report();
  }

  // On the wire (wire.hpp): id hm, the output in ⌈log2 (M + 2)⌉ bits — a PM cell below M, then
  // Duchi's level (M: lo, M + 1: hi); the digest covers the range, M, W_b, the rounding bits,
  // PM's m, Duchi's q and α.
  using Report = uint32_t;
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(pm_.cells() + 2); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::hm, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::hm))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(pm_.cells())
                .u32(pm_.band_cells())
                .byte(static_cast<uint8_t>(pm_.rounding_bits()))
                .dyadic(pm_.outside_probability())
                .dyadic(duchi_.randomizer().other_probability())
                .dyadic(alpha_)
                .value()};
  }
  constexpr void pack(Report y, uint8_t* payload) const { wire::pack_value(y, payload_bits(), payload); }
  constexpr Report unpack(const uint8_t* payload) const {
    return static_cast<Report>(wire::unpack_bits(payload, payload_bits()));
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, uint32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const auto [safe, in_domain] = detail::in_range_or_low(
        value, pm_.low(), static_cast<uint32_t>(int64_t{pm_.high()} - int64_t{pm_.low()}));
    const uint32_t use_pm = bernoulli(alpha_, rng);
    const uint64_t u_start = rng.draw(pm_.rounding_bits());
    const uint64_t u_cell = rng.draw(pm_.outside_probability().bits);
    const uint32_t pm_cell = pm_.cell(pm_.start(safe, u_start), u_cell);
    const uint64_t u_level = rng.draw(duchi_.rounding_bits());
    const uint32_t level = duchi_.randomizer().randomize(duchi_.round(safe, u_level), rng);
    const uint32_t y = ct::select(use_pm, pm_cell, pm_.cells() + level);
    return release<stack_scrub_bytes(256)>(rng, in_domain, y, report);
  }

 private:
  PiecewiseMechanism pm_{};
  StochasticDiscretization duchi_{};
  Dyadic alpha_{};
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
