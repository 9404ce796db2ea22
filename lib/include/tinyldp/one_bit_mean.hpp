// SPDX-License-Identifier: Apache-2.0
// tinyldp/one_bit_mean.hpp — 1BitMean with α-point rounding and output perturbation (Ding,
// Kulkarni, Yekhanin, NeurIPS 2017; deployed for device telemetry): the mean of a numeric
// counter x ∈ {0, …, m} that devices report again and again.
//
// Why: a fresh 1-bit report per collection lets an observer average a device's reports of an
// unchanged counter. Here the response bit is memoized — per *rounded* value, so that small
// drifts of the counter do not create new memos — and each report flips the memoized bit with
// probability γ, so that a change of memo is not revealed with certainty either.
//
// A report of x (grid step s dividing m, J = m/s grid cells):
//   α        uniform in {0, …, s − 1}, drawn once per device: the first draws of
//            key.memo_stream(a, 0xFFFFFFFF) (mask-and-reject, uniform.hpp), a the memos'
//            attribute word memo_attribute(one_bit_mean, attribute) (memo.hpp)
//   j        ⌊(x + α)/s⌋ — α-point rounding: x = L·s + r goes up to L + 1 iff r + α ≥ s, with
//            probability r/s over α, so E[j·s] = x
//   memo     from key.memo_stream(a, j): z = 1 iff u·J < j·2^R (u: R bits), so
//            P(z = 1) = j/J (exactly when J divides 2^R, else within 2^-R), then 1BitMean's
//            randomized response of z at ε∞ — P(memo = 1) = q1 + (j/J)(p1 − q1), p1 = 1 − q1
//   y        the memo flipped with probability γ (fresh, from the caller's Rng)
// The two RR stages are GrrChain over [2] (longitudinal_grr.hpp): stage 1 is BinaryRr-like at
// ε∞ (ε∞ = ln(p1/q1)), γ = q2 is the smallest on the precision grid that makes one report
//   ε₁ = ln[((1 − 2γ)p1 + γ) / ((1 − 2γ)q1 + γ)]   (the notes' ε′)  ≤ the ε₁ asked for,
// both realized from the Dyadic integers (rounded up). For every x the memo is a mixture of
// the two rows of stage 1, so the loss of unlimited reports of one value is at most ε∞, tight
// between x = 0 and x = m; a device whose counter visits c grid points spends at most c·ε∞.
//
// Estimator (collector): with p* = p1(1 − γ) + q1·γ and q* = q1(1 − γ) + p1·γ (the chain's
// composed channel), each report gives x̂ = m·(y − q*)/(p* − q*), unbiased: E[y | x] =
// q* + (x/m)(p* − q*). Mean of n reports: (1/n)·Σ x̂_i, Var = m²/(n²(p* − q*)²)·Σ σ_i(1 − σ_i)
// with σ_i = q* + (x_i/m)(p* − q*) — at most m²/(4n(p* − q*)²).
// Branch-free in the value: the rounding is alpha_rounding.hpp's (shared with dBitFlip), z one
// 32×32→64 product and a comparison, the RR stages KaryRr::randomize; the memo stream keyed by j is ChaCha20 (constant time).
// Cost: context 120 bytes; report 1 bit (a byte here); per report two ChaCha20 blocks (α's
// stream, the memo's: a word per draw, two for the memo), fresh q2.bits. Limits: 1 ≤ m ≤ 2^30, s | m,
// 1 ≤ R ≤ 32. Run-time configure works on 384-bit integers on the stack (make(): none).
#ifndef TINYLDP_BIT_FLIP_MEAN_HPP
#define TINYLDP_BIT_FLIP_MEAN_HPP

#include <stdint.h>

#include "tinyldp/alpha_rounding.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class OneBitMean : public detail::PackedMemoPrivatize<OneBitMean> {
 public:
  static constexpr uint32_t max_value = AlphaRounding::max_value;
  static constexpr unsigned default_rounding_bits = 32;

  struct Grid {
    uint32_t max_value = 1;  // m: values are 0 … m
    uint32_t step = 1;       // s, dividing m
    unsigned rounding_bits = default_rounding_bits;  // R
    uint32_t attribute = 0;  // names this mechanism's memos in the key
  };
  // ε∞ for the memo, ε₁ (< ε∞) for one report: γ from the chain.
  static constexpr Status configure(Epsilon eps_inf, Epsilon eps_one, Grid layout, OneBitMean& out,
                                    Precision precision = {}) {
    if (!valid(layout)) return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::configure(eps_inf, eps_one, 2, chain, precision);
    if (s != Status::ok) return s;
    out.grid_ = layout;
    out.cells_ = AlphaRounding(layout.max_value, layout.step).cells();
    out.chain_ = chain;
    return Status::ok;
  }
  // Stage 1's q1 = 1 − p1 and the flip probability γ as given (q1, γ < 1/2).
  static constexpr Status configure_stages(Dyadic q1, Dyadic gamma, Grid layout, OneBitMean& out) {
    if (!valid(layout)) return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::from_stages(q1, gamma, 2, chain);
    if (s != Status::ok) return s;
    out.grid_ = layout;
    out.cells_ = AlphaRounding(layout.max_value, layout.step).cells();
    out.chain_ = chain;
    return Status::ok;
  }
  static consteval OneBitMean make(Epsilon eps_inf, Epsilon eps_one, Grid layout,
                                   Precision precision = {}) {
    return detail::configured<OneBitMean>(
        [&](auto& r) { return configure(eps_inf, eps_one, layout, r, precision); });
  }

  // Set by a configure that succeeded (the grid with the chain); privatize refuses otherwise,
  // before the rounding, whose loop a zeroed grid would not end.
  constexpr bool configured() const { return chain_.configured(); }
  constexpr const Grid& grid() const { return grid_; }
  // The memos' attribute word (memo.hpp): key.memo_stream(memo_attribute_word(), …).
  constexpr uint32_t memo_attribute_word() const {
    return memo_attribute(wire::MechanismId::one_bit_mean, grid_.attribute);
  }
  constexpr uint32_t cells() const { return cells_; }  // J = m/s, stored at configuration
  constexpr const GrrChain& chain() const { return chain_; }
  constexpr Dyadic flip_probability() const { return chain_.fresh_stage().other_probability(); }
  constexpr Epsilon epsilon_infinity() const { return chain_.epsilon_infinity(); }
  constexpr Epsilon epsilon_one() const { return chain_.epsilon_one(); }
  constexpr Epsilon realized_epsilon() const { return chain_.epsilon_one(); }
  // The budget over a history whose counter visits `grid_points` rounded values.
  constexpr Epsilon lifetime_epsilon(uint32_t grid_points) const {
    const uint32_t most = cells() + 1;
    return saturating_times(epsilon_infinity(), grid_points < most ? grid_points : most);
  }
  constexpr unsigned memo_bits_per_report() const {
    return grid_.rounding_bits + chain_.memo_bits();
  }
  constexpr unsigned random_bits_per_report() const { return chain_.fresh_bits(); }

  // On the wire (wire.hpp): id one_bit_mean, a 1-bit payload; the digest covers m, s, R, the
  // attribute and both stages' q.
  using Report = uint8_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return 1; }
  constexpr wire::Description description() const {
    return {wire::MechanismId::one_bit_mean, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::one_bit_mean))
                .u32(grid_.max_value)
                .u32(grid_.step)
                .byte(static_cast<uint8_t>(grid_.rounding_bits))
                .u32(grid_.attribute)
                .dyadic(chain_.memo_stage().other_probability())
                .dyadic(flip_probability())
                .value()};
  }
  constexpr void pack(Report report, uint8_t* payload) const { payload[0] = report; }
  static constexpr Report unpack(const uint8_t* payload) { return payload[0] & 1u; }

  // The α-point rounding (alpha_rounding.hpp) of this grid.
  constexpr AlphaRounding rounding() const { return {grid_.max_value, grid_.step, cells_}; }
  // α, drawn from `offsets` — privatize draws it from key.memo_stream(memo_attribute_word(), 0xFFFFFFFF)
  // (MemoDraws), so it is the same for every report of the device.
  template <class OffsetRng>
  uint32_t rounding_offset(OffsetRng& offsets) const {
    return rounding().offset(offsets);
  }
  // The grid index j = ⌊(x + α)/s⌋ (x ≤ m, α < s), without a division instruction.
  constexpr uint32_t grid_index(uint32_t x, uint32_t alpha) const { return rounding().index(x, alpha); }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedMemoPrivatize::privatize;

  // A report of `value` (≤ m): α and the memo from `key`, the flip from rng.
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, Report& report) const {
    return detail::privatize_with_device_draw(
        *this, key, report, [&](auto& offsets) { return rounding_offset(offsets); },
        [&](uint32_t alpha) { return grid_index(in_range(value), alpha); },
        [&](uint32_t alpha, auto& memo) { return privatize_with_memo(value, alpha, memo, rng, report); });
  }

  // The same with α and the memo's random stream given: `memo` must be the stream keyed by
  // grid_index(value, alpha) (privatize does that). Exposed for the exhaustive tests.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(uint32_t value, uint32_t alpha, MemoRng& memo, Rng& rng,
                             Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = rounding().in_range(value);
    const uint32_t memo_bit = memoize(grid_index(in_range(value), alpha), memo);
    const uint8_t y = static_cast<uint8_t>(chain_.refresh(memo_bit, rng));
    forget_drawn(memo);
    return release<stack_scrub_bytes(0, 512)>(rng, in_domain, y, report);
  }

  // The memoized bit of grid index j (≤ J) drawn from `memo`.
  template <class MemoRng>
  uint32_t memoize(uint32_t j, MemoRng& memo) const {
    const uint64_t u = memo.draw(grid_.rounding_bits);
    const uint32_t z = static_cast<uint32_t>(
        ct::less64(ct::mul_wide(static_cast<uint32_t>(u), cells()), uint64_t{j} << grid_.rounding_bits));
    return chain_.memoize(z, memo);
  }

 private:
  static constexpr bool valid(const Grid& g) {
    return AlphaRounding::valid(g.max_value, g.step) && g.rounding_bits >= 1 &&
           g.rounding_bits <= 32 && g.attribute <= max_memo_attribute;
  }
  // x, or 0 when x > m (its report is discarded; 0 keeps the rounding in range).
  constexpr uint32_t in_range(uint32_t x) const { return rounding().clamped(x); }

  Grid grid_{};
  uint32_t cells_ = 1;  // J = m/s: no division on the report path, however configured
  GrrChain chain_{};
};

}  // namespace tinyldp

#endif
