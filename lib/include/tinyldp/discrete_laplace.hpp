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
// Privacy, from the integers actually used: ε_step = ln(max adjacent ratio, end points
// included), rounded up. Values at distance ≤ Δ are then e^(Δ·ε_step)-indistinguishable
// (realized_epsilon(), ≤ the requested ε), and any two values of the range are
// e^(W·ε_step)-indistinguishable (local_epsilon(): the LDP guarantee; equal when Δ = W).
// Cost: context 56 bytes plus a caller-owned table of W + 1 uint64_t (table_entries()); report
// one int32_t; random bits per report = B (precision bits, ≤ 62; default 48); time ~2W + 1
// 64-bit compare-and-adds per report. Configuration (integer, ~W wide multiplications) can run
// on the device. Limits: 1 ≤ W ≤ 65535, 1 ≤ Δ ≤ W. Stack (Cortex-M0, -Os, -fstack-usage, per
// function): privatize ≈ 80 B plus RandomBits::draw ≈ 56 B and the caller's RandomBits (80 B);
// configure ≈ 1.3 KiB (384-bit temporaries).
#ifndef TINYLDP_DISCRETE_LAPLACE_HPP
#define TINYLDP_DISCRETE_LAPLACE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"

namespace tinyldp {

class DiscreteLaplace {
 public:
  static constexpr uint32_t max_width = 65535;
  static constexpr unsigned default_bits = 48;

  static constexpr size_t table_entries(int32_t lo, int32_t hi) {
    return hi > lo ? static_cast<size_t>(int64_t{hi} - int64_t{lo}) + 1 : 0;
  }

  // table: caller-owned storage of table_entries(lo, hi) weights, kept for the context's life.
  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t sensitivity,
                                    uint64_t* table, size_t table_size, DiscreteLaplace& out,
                                    unsigned bits = default_bits) {
    if (!is_valid_epsilon(eps)) return Status::bad_epsilon;
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
    // decay ≥ 1/L and tail ≥ 1/(L − 1), both as 32-bit fractions rounded up.
    const Wide decay_wide = ceil_div(one.shl(32), L);
    const Wide tail_wide = ceil_div(one.shl(32), L - one);
    if (!tail_wide.fits_u64()) return Status::precision_too_low;  // ε/Δ below ~2^-31
    const uint64_t decay = decay_wide.low64();
    const uint64_t tail = tail_wide.low64();
    const uint64_t total = uint64_t{1} << bits;
    // Largest centre weight whose weights fit in 2^B; the rest of 2^B goes to the two tails.
    uint64_t lo_m = 1, hi_m = total;
    if (weights_sum(1, width, decay, tail, table) > total) return Status::precision_too_low;
    while (hi_m - lo_m > 1) {
      const uint64_t mid = lo_m + (hi_m - lo_m) / 2;
      if (weights_sum(mid, width, decay, tail, table) <= total)
        lo_m = mid;
      else
        hi_m = mid;
    }
    const uint64_t sum = weights_sum(lo_m, width, decay, tail, table);
    out.lo_ = lo;
    out.width_ = width;
    out.sensitivity_ = sensitivity;
    out.bits_ = bits;
    out.table_ = table;
    // Both folded tails hold table[width]; the deficit is added to them (more tail only helps).
    const uint64_t deficit = total - sum;
    out.tail_low_ = table[width] + deficit / 2;
    out.tail_high_ = table[width] + deficit - deficit / 2;
    return out.compute_realized();
  }

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

  template <class Rng>
  Status privatize(int32_t value, Rng& rng, int32_t& report) const {
    const uint64_t offset = static_cast<uint64_t>(int64_t{value} - int64_t{lo_});
    const uint32_t in_domain = static_cast<uint32_t>(ct::less64(offset, uint64_t{width_} + 1));
    const uint64_t u = rng.draw(bits_);
    // Z = −W + #{cumulative weights ≤ u}, scanning z = −W … W−1: a fixed 2W comparisons.
    uint64_t cumulative = tail_low_;
    uint32_t steps = 0;
    for (uint32_t i = 0; i < 2 * width_; ++i) {
      steps += static_cast<uint32_t>(ct::less64(u, cumulative) ^ 1u);
      const uint32_t z_next = i + 1 <= width_ ? width_ - (i + 1) : (i + 1) - width_;  // |z| of next
      cumulative += z_next == width_ ? tail_high_ : table_[z_next];
    }
    // y − lo = clamp(offset + Z, 0, W) with offset + Z = offset + steps − W, in [−W, 2W].
    const int64_t shifted = static_cast<int64_t>(offset & ct::mask64(in_domain)) + steps - width_;
    const uint64_t below = static_cast<uint64_t>(shifted) >> 63;          // shifted < 0
    const uint64_t above = ct::less64(uint64_t{width_}, static_cast<uint64_t>(shifted)) & (below ^ 1u);
    uint64_t y = static_cast<uint64_t>(shifted) & ct::mask64(below ^ 1u);  // 0 if below
    y = (y & ct::mask64(above ^ 1u)) | (uint64_t{width_} & ct::mask64(above));
    if (!rng.ok()) {
      report = 0;
      return rng.status();
    }
    const int32_t out = static_cast<int32_t>(int64_t{lo_} + static_cast<int64_t>(y));
    report = static_cast<int32_t>(static_cast<uint32_t>(out) & ct::mask(in_domain));
    return static_cast<Status>(static_cast<uint32_t>(Status::value_out_of_domain) *
                               (1u - in_domain));
  }

 private:
  // Fills table[0..W−1] from w_0 = centre, w_k = ⌈w_{k−1}·decay/2^32⌉, and table[W] with the
  // folded tail ⌈w_{W−1}·tail/2^32⌉; returns w_0 + 2·(w_1 + … + w_{W−1}) + 2·table[W].
  static constexpr uint64_t weights_sum(uint64_t centre, uint32_t width, uint64_t decay,
                                        uint64_t tail, uint64_t* table) {
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
  // ⌈a·f/2^32⌉ without overflow (a < 2^63, f < 2^64).
  static constexpr uint64_t mul_shift_ceil(uint64_t a, uint64_t f) {
    const UInt<4> p = UInt<4>::from(a).times(f);
    const UInt<4> q = p.shr(32);
    if (!q.fits_u64() || q.low64() == ~uint64_t{0}) return ~uint64_t{0};
    return q.low64() + (p.limb[0] != 0 ? 1u : 0u);
  }

  // ε_step = ln of the largest ratio between the output distributions of neighbouring values:
  // interior outputs give w_{k−1}/w_k; the end points give 1 + w_{s−1}/(w_s + … + tail).
  constexpr Status compute_realized() {
    using detail::Wide;
    Wide worst_num = Wide::from(1), worst_den = Wide::from(1);
    auto consider = [&](const Wide& num, const Wide& den) {
      if (den.is_zero()) return false;
      if (num * worst_den > worst_num * den) {
        worst_num = num;
        worst_den = den;
      }
      return true;
    };
    for (uint32_t k = 1; k < width_; ++k)
      if (!consider(Wide::from(table_[k - 1]), Wide::from(table_[k]))) return Status::precision_too_low;
    // Tails, both sides: Σ_{z ≥ s} = weights s … W−1 plus the tail.
    const uint64_t tails[2] = {tail_low_, tail_high_};
    for (uint64_t t : tails) {
      Wide suffix = Wide::from(t);
      for (uint32_t s = width_; s >= 1; --s) {
        const Wide previous = Wide::from(table_[s - 1]);
        if (!consider(suffix + previous, suffix)) return Status::precision_too_low;
        suffix = suffix + previous;
      }
    }
    Epsilon step{};
    if (!ln_upper_bound(worst_num, worst_den, step)) return Status::precision_too_low;
    realized_ = Epsilon{step.q32 * sensitivity_};
    local_ = Epsilon{step.q32 * width_};
    return Status::ok;
  }

  int32_t lo_ = 0;
  uint32_t width_ = 1;
  uint32_t sensitivity_ = 1;
  unsigned bits_ = default_bits;
  const uint64_t* table_ = nullptr;
  uint64_t tail_low_ = 0, tail_high_ = 0;
  Epsilon realized_{}, local_{};
};

}  // namespace tinyldp

#endif
