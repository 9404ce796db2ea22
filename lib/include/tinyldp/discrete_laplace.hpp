// SPDX-License-Identifier: Apache-2.0
// tinyldp/discrete_laplace.hpp — the discrete Laplace (two-sided geometric) mechanism for an
// integer v ∈ [lo, hi]: report clamp(v + Z, lo, hi) with Pr[Z = z] ∝ α^|z|, α = e^(−ε/Δ).
//
// Integers only, exact. The noise weights are integers w_0 ≥ w_1 ≥ … ≥ w_W (W = hi − lo) built so
// that every adjacent ratio w_{k−1}/w_k ≤ e^(ε/Δ), with the mass beyond ±W folded into w_W — the
// clamp turns it into the end points' probabilities exactly — and tails heavy enough that every
// end-point ratio stays within e^(ε/Δ) too. The weights, with the two folded tails, sum to 2^B
// exactly; a report draws B bits u and finds Z by scanning *all* 2W + 1 cumulative weights with
// branch-free comparisons: the loop's trip count never depends on the noise or the value.
//
// Privacy, from the integers actually used: realized_epsilon() is ln of the largest ratio
// Pr[y | v]/Pr[y | v'] over every output y and every pair of inputs with |v − v'| ≤ Δ, computed
// exactly from the weights (O(W), see worst_ratio) and rounded up; it is ≤ the requested ε
// because every adjacent ratio is ≤ e^(ε/Δ). local_epsilon() is the same over *all* pairs of
// the range — the LDP guarantee, equal to realized_epsilon() when Δ = W (W·ε_step, with ε_step
// the adjacent-pair figure, when that ratio is beyond e^20). Closeness: at the default B = 48
// the smallest weights' rounding can leave the realized ε up to 4.6e-3 below the request
// (W = Δ = 1024, ε = 20); configure_fewest_bits raises B (up to 62) until it is within 1e-6,
// which test_realized_epsilon_grid checks over ε ≤ 20, W ≤ 1024, every Δ kind.
// Configure at run time into a caller-owned table, or at compile time with
// DiscreteLaplaceTable<N>::make (below), which puts the weights in flash.
// Cost: context 56 bytes plus a caller-owned table of W + 1 uint64_t (table_entries()); report
// one int32_t; random bits per report = B (precision bits, ≤ 62; default 48); time ~2W + 1
// 64-bit compare-and-adds per report. Run-time configuration (integer: ~50·W 64×64→128-bit
// multiplications and two ln bounds) can run on the device. Limits: 1 ≤ W ≤ 65535,
// 1 ≤ Δ ≤ W. Run-time configure needs ≈ 1.3 KiB of stack (384-bit temporaries). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
#ifndef TINYLDP_DISCRETE_LAPLACE_HPP
#define TINYLDP_DISCRETE_LAPLACE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class SummationHistogram;

class DiscreteLaplace : public detail::PackedPrivatize<DiscreteLaplace, int32_t> {
 public:
  static constexpr uint32_t max_width = 65535;
  static constexpr unsigned default_bits = 48;
  // The library's promise: the realized ε is at most 1e-6 below the request (README).
  static constexpr uint64_t promised_gap_q32 = 4294;  // ⌊1e-6 · 2^32⌋

  static constexpr size_t table_entries(int32_t lo, int32_t hi) {
    return hi > lo ? static_cast<size_t>(int64_t{hi} - int64_t{lo}) + 1 : 0;
  }

  // table: caller-owned storage of table_entries(lo, hi) weights, kept for the context's life.
  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t sensitivity,
                                    uint64_t* table, size_t table_size, DiscreteLaplace& out,
                                    unsigned bits = default_bits) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    if (hi <= lo) return Status::bad_parameter;
    const uint64_t width64 = static_cast<uint64_t>(int64_t{hi} - int64_t{lo});
    if (width64 > max_width || sensitivity < 1 || sensitivity > width64 || bits < 2 || bits > 62)
      return Status::bad_parameter;
    const uint32_t width = static_cast<uint32_t>(width64);
    if (table == nullptr || table_size < width + 1u) return Status::buffer_too_small;
    using detail::Wide;
    const Epsilon step{eps.q32 / sensitivity};  // rounded down: never more loss per step
    if (step.q32 == 0) return Status::bad_epsilon;
    const Wide one = detail::one_fixed();
    const Wide L = exp_lower_bound(step);  // ≤ e^(ε/Δ)
    // decay ≥ 1/L and tail ≥ 1/(L − 1), both with 64 fraction bits, rounded up (a 32-bit
    // fraction would cost up to ~5e-6 of ε at ε = 10). L ≥ 1 + 2^-32, so tail < 2^97.
    const Wide decay_wide = ceil_div(one.shl(64), L);
    const Wide tail_wide = ceil_div(one.shl(64), L - one);
    if (tail_wide.bit_length() > 97) return Status::precision_too_low;
    const Fraction decay = to_fraction(decay_wide);
    const Fraction tail = to_fraction(tail_wide);
    const uint64_t total = uint64_t{1} << bits;
    // Largest centre weight whose weights fit in 2^B; the rest of 2^B goes to the two tails.
    uint64_t lo_m = 1, hi_m = total;
    if (weights_sum(1, width, decay, tail, table) > total) return Status::precision_too_low;
    detail::bisect(lo_m, hi_m, [&](uint64_t m) { return weights_sum(m, width, decay, tail, table) > total; });
    const uint64_t sum = weights_sum(lo_m, width, decay, tail, table);
    DiscreteLaplace r;
    r.lo_ = lo;
    r.width_ = width;
    r.sensitivity_ = sensitivity;
    r.bits_ = bits;
    r.table_ = table;
    // Both folded tails hold table[width]; the deficit is added to them (more tail only helps).
    const uint64_t deficit = total - sum;
    r.tail_low_ = table[width] + deficit / 2;
    r.tail_high_ = table[width] + deficit - deficit / 2;
    const Status s = r.compute_realized(eps);
    if (s == Status::ok) out = r;
    return s;
  }

  // The fewest noise bits B of default_bits, default_bits + 2, …, 62 whose realized ε is at most
  // promised_gap_q32 below the request (at large ε and wide ranges 48 bits cannot resolve the
  // far weights: 4.6e-3 below at W = 1024, ε = 20); 62 bits if none is. Configurations that
  // meet the promise at default_bits are configured exactly as configure() would.
  static constexpr Status configure_fewest_bits(Epsilon eps, int32_t lo, int32_t hi,
                                                uint32_t sensitivity, uint64_t* table,
                                                size_t table_size, DiscreteLaplace& out) {
    Status s = Status::bad_parameter;
    for (unsigned bits = default_bits; bits <= 62; bits += 2) {
      s = configure(eps, lo, hi, sensitivity, table, table_size, out, bits);
      if (s != Status::ok && s != Status::precision_too_low) return s;
      if (s == Status::ok && eps.q32 - out.realized_epsilon().q32 <= promised_gap_q32) return s;
    }
    return s;
  }

  // Set by a configure that succeeded (or a table's bind()): the weights are there; privatize
  // refuses otherwise.
  constexpr bool configured() const { return table_ != nullptr; }
  constexpr int32_t low() const { return lo_; }
  constexpr int32_t high() const { return static_cast<int32_t>(int64_t{lo_} + width_); }
  constexpr uint32_t sensitivity() const { return sensitivity_; }
  constexpr unsigned random_bits_per_report() const { return bits_; }
  // Loss between values at distance ≤ Δ (≤ the requested ε).
  constexpr Epsilon realized_epsilon() const { return realized_; }
  // Loss between any two values of [lo, hi]: the local-DP guarantee.
  constexpr Epsilon local_epsilon() const { return local_; }
  // The integer noise weight of |z| = k (k < W), and the folded end masses: Pr = weight / 2^B.
  constexpr uint64_t weight(uint32_t k) const { return table_[k]; }
  constexpr uint64_t tail_low() const { return tail_low_; }
  constexpr uint64_t tail_high() const { return tail_high_; }

  // On the wire (wire.hpp): id dlaplace, report − lo in ⌈log2 (W+1)⌉ bits; the digest covers the
  // weights' defining numbers (range, Δ, B) and the realized ε between inputs within Δ.
  using Report = int32_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(width_ + 1u); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::dlaplace, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::dlaplace))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(sensitivity_)
                .byte(static_cast<uint8_t>(bits_))
                .u64(realized_.q32)
                .value()};
  }
  constexpr void pack(Report report, uint8_t* payload) const {
    wire::pack_value(static_cast<uint32_t>(report) - static_cast<uint32_t>(lo_),
                     wire::bits_for_values(width_ + 1u), payload);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    const auto offset = static_cast<uint32_t>(wire::unpack_bits(payload, wire::bits_for_values(width_ + 1u)));
    return static_cast<Report>(static_cast<uint32_t>(lo_) + offset);
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, int32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint64_t offset = static_cast<uint64_t>(int64_t{value} - int64_t{lo_});
    const uint32_t in_domain = static_cast<uint32_t>(ct::less64(offset, uint64_t{width_} + 1));
    const uint32_t y = noisy_offset(offset & ct::mask64(in_domain), rng);
    return release<stack_scrub_bytes(152)>(rng, in_domain, static_cast<int32_t>(int64_t{lo_} + int64_t{y}), report);
  }

 private:
  // y − lo = clamp(offset + Z, 0, W) for an offset in [0, W]: the noise draw and its scan, without
  // the fail-closed end (histogram encoding runs one per component and ends the report once).
  template <class Rng>
  uint32_t noisy_offset(uint64_t offset, Rng& rng) const {
    const uint64_t u = rng.draw(bits_);
    // Z = −W + #{cumulative weights ≤ u}, scanning z = −W … W−1: a fixed 2W comparisons.
    uint64_t cumulative = tail_low_;
    uint32_t steps = 0;
    for (uint32_t i = 0; i < 2 * width_; ++i) {
      steps += static_cast<uint32_t>(ct::less64(u, cumulative) ^ 1u);
      const uint32_t z_next = i + 1 <= width_ ? width_ - (i + 1) : (i + 1) - width_;  // |z| of next
      cumulative += z_next == width_ ? tail_high_ : table_[z_next];
    }
    // offset + Z = offset + steps − W, in [−W, 2W].
    const int64_t shifted = static_cast<int64_t>(offset) + steps - width_;
    const uint64_t below = static_cast<uint64_t>(shifted) >> 63;          // shifted < 0
    const uint64_t above = ct::less64(uint64_t{width_}, static_cast<uint64_t>(shifted)) & (below ^ 1u);
    uint64_t y = static_cast<uint64_t>(shifted) & ct::mask64(below ^ 1u);  // 0 if below
    y = (y & ct::mask64(above ^ 1u)) | (uint64_t{width_} & ct::mask64(above));
    return static_cast<uint32_t>(y);
  }

 private:
  struct Fraction {  // whole + frac/2^64: a factor below 2^33
    uint64_t whole = 0;
    uint64_t frac = 0;
  };

  // Fills table[0..W−1] from w_0 = centre, w_k = ⌈w_{k−1}·decay/2^64⌉, and table[W] with the
  // folded tail ⌈w_{W−1}·tail/2^64⌉; returns w_0 + 2·(w_1 + … + w_{W−1}) + 2·table[W].
  static constexpr uint64_t weights_sum(uint64_t centre, uint32_t width, const Fraction& decay,
                                        const Fraction& tail, uint64_t* table) {
    uint64_t w = centre;
    uint64_t sum = centre;
    table[0] = centre;
    for (uint32_t k = 1; k < width; ++k) {
      w = mul_shift_ceil(w, decay);
      table[k] = w;
      sum += 2 * w;
      if (sum > (uint64_t{1} << 62)) return ~uint64_t{0};
    }
    const uint64_t t = mul_shift_ceil(w, tail);
    table[width] = t;
    return t > (uint64_t{1} << 62) ? ~uint64_t{0} : sum + 2 * t;
  }
  static constexpr Fraction to_fraction(const detail::Wide& w) {
    return Fraction{w.shr(64).low64(), w.low64()};
  }
  // ⌈a·f⌉ for f = whole + frac/2^64, or ~0 when above 2^62 (a < 2^63). Plain 64-bit pieces:
  // this runs ~50·W times per configuration, also inside the compiler for compile-time tables.
  static constexpr uint64_t mul_shift_ceil(uint64_t a, const Fraction& f) {
    constexpr uint64_t limit = uint64_t{1} << 62;
    if (f.whole != 0 && a > limit / f.whole) return ~uint64_t{0};
    const uint64_t a_hi = a >> 32, a_lo = a & 0xFFFFFFFFu;
    const uint64_t f_hi = f.frac >> 32, f_lo = f.frac & 0xFFFFFFFFu;
    const uint64_t ll = a_lo * f_lo, lh = a_lo * f_hi, hl = a_hi * f_lo, hh = a_hi * f_hi;
    const uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    const uint64_t low = (ll & 0xFFFFFFFFu) | (mid << 32);
    const uint64_t high = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);  // ⌊a·frac/2^64⌋ < 2^63
    const uint64_t result = a * f.whole + high + (low != 0 ? 1u : 0u);
    return result > limit ? ~uint64_t{0} : result;
  }

  // The largest likelihood ratio between inputs at distance ≤ D, over every output, from the
  // integers used. Pr[y | v]·2^B is w_{|y−v|} for an interior y, and at the end points a suffix
  // S(s) = w_s + … + w_{W−1} + tail with s = v − lo (y = lo) or s = hi − v (y = hi). For each y
  // this is unimodal in v, so over |v − v'| ≤ D the largest ratio sits at distance D or at the
  // range's end: interior max_a w_a / w_{min(a+D, W−1)}, end points max_s S(s)/S(min(s+D, W)).
  // Every candidate is attained by some pair of inputs, so the maximum is exact. O(W).
  constexpr bool worst_ratio(uint32_t distance, detail::Wide& out_num, detail::Wide& out_den) const {
    using R = UInt<4>;  // products of two values < 2^63
    uint64_t worst_num = 1, worst_den = 1;
    bool ok = true;
    auto consider = [&](uint64_t num, uint64_t den) {
      if (den == 0) {
        ok = false;
        return;
      }
      if (R::from(num).times(worst_den) > R::from(worst_num).times(den)) {
        worst_num = num;
        worst_den = den;
      }
    };
    for (uint32_t a = 0; a + 1 < width_; ++a) {
      const uint32_t b = distance < width_ - 1 - a ? a + distance : width_ - 1;
      consider(table_[a], table_[b]);
    }
    const uint64_t tails[2] = {tail_low_, tail_high_};
    for (uint64_t tail : tails) {
      uint64_t whole = tail;  // S(0)
      for (uint32_t k = 0; k < width_; ++k) whole += table_[k];
      uint64_t head = 0, ahead = 0;  // w_0 + … + w_{s−1} and w_0 + … + w_{j−1}
      uint32_t j = 0;
      for (; j < distance && j < width_; ++j) ahead += table_[j];
      for (uint32_t s = 0; s < width_; ++s) {
        consider(whole - head, whole - ahead);  // S(s) / S(j), j = min(s + D, W)
        head += table_[s];
        if (j < width_) ahead += table_[j++];
      }
    }
    out_num = detail::Wide::from(worst_num);
    out_den = detail::Wide::from(worst_den);
    return ok;
  }

  // realized ε: ln of the worst ratio at distance ≤ Δ, rounded up; local ε: the same at
  // distance ≤ W (or W·ε_step, ε_step from distance 1, when that ratio exceeds e^20).
  // Both are ≤ the requested ε's bound because every adjacent ratio is ≤ L ≤ e^(ε/Δ).
  constexpr Status compute_realized(Epsilon requested) {
    detail::Wide num, den;
    Epsilon realized{}, local{};
    if (!worst_ratio(sensitivity_, num, den) || !ln_upper_bound(num, den, realized))
      return Status::precision_too_low;
    // Never met in practice (the weights' ratios sit ≥ 2^-33 below L); kept so that the claim
    // is always both ≤ the request and verifiable with exp_lower_bound.
    if (requested < realized) return Status::precision_too_low;
    if (sensitivity_ == width_) {
      local = realized;
    } else {
      if (!worst_ratio(width_, num, den)) return Status::precision_too_low;
      if (!ln_upper_bound(num, den, local)) {  // beyond e^20: W·ε_step, from adjacent inputs
        Epsilon step{};
        if (!worst_ratio(1, num, den) || !ln_upper_bound(num, den, step)) return Status::precision_too_low;
        local = Epsilon{step.q32 * width_};
      }
    }
    realized_ = realized;
    local_ = local;
    return Status::ok;
  }

  template <size_t Entries>
  friend class DiscreteLaplaceTable;
  friend class SummationHistogram;  // composes one per component, rebinding its table likewise
  constexpr DiscreteLaplace with_table(const uint64_t* table) const {
    DiscreteLaplace r = *this;
    r.table_ = table;
    return r;
  }

  int32_t lo_ = 0;
  uint32_t width_ = 1;
  uint32_t sensitivity_ = 1;
  unsigned bits_ = default_bits;
  const uint64_t* table_ = nullptr;
  uint64_t tail_low_ = 0, tail_high_ = 0;
  Epsilon realized_{}, local_{};
};

// Compile-time configuration: the compiler computes the weights and the parameters, so the
// device runs no configuration code and the table lives in flash.
//   static constexpr auto noise =
//       tinyldp::DiscreteLaplaceTable<tinyldp::DiscreteLaplace::table_entries(-50, 50)>::make(
//           tinyldp::Epsilon::from_double(1.0), -50, 50, 1);
//   constexpr tinyldp::DiscreteLaplace dl = noise.bind();  // points into `noise`: keep it static
// Entries must equal table_entries(lo, hi), or the build fails. Within GCC's default constant-
// evaluation budget up to W ≈ 1000 (about 1 s of compile time); beyond, raise the budget
// (GCC -fconstexpr-ops-limit=, Clang -fconstexpr-steps=) or configure at run time.
template <size_t Entries>
class DiscreteLaplaceTable {
 public:
  static consteval DiscreteLaplaceTable make(Epsilon eps, int32_t lo, int32_t hi,
                                             uint32_t sensitivity,
                                             unsigned bits = DiscreteLaplace::default_bits) {
    DiscreteLaplaceTable t;
    detail::require_ok(DiscreteLaplace::table_entries(lo, hi) == Entries ? Status::ok
                                                                         : Status::buffer_too_small);
    DiscreteLaplace configured;
    detail::require_ok(
        DiscreteLaplace::configure(eps, lo, hi, sensitivity, t.weights_, Entries, configured, bits));
    t.parameters_ = configured.with_table(nullptr);  // a constant may not point at this local
    return t;
  }
  // The mechanism reading this table; valid while the table object lives.
  constexpr DiscreteLaplace bind() const { return parameters_.with_table(weights_); }
  constexpr uint64_t weight(size_t k) const { return weights_[k]; }

 private:
  uint64_t weights_[Entries] = {};
  DiscreteLaplace parameters_{};
};

}  // namespace tinyldp

#endif
