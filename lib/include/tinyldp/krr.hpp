// SPDX-License-Identifier: Apache-2.0
// tinyldp/krr.hpp — k-ary randomized response (direct encoding) over {0, …, k−1}, k ≥ 2:
// report the true value with probability p = e^ε/(e^ε+k−1), else one of the k−1 others,
// each with probability q = 1/(e^ε+k−1).
//
// Realized: q = m/2^b is a Dyadic rounded *up*, and p = 1 − (k−1)q exactly, so p/q ≤ e^ε.
// One draw u of b bits decides everything: keep if u < T = 2^b − (k−1)m, otherwise the
// report is value + 1 + ⌊(u − T)/m⌋ (mod k) — each other value exactly m/2^b. No rejection
// loop, no branch or index on the value or on the noise: the quotient comes from a restoring
// division with a fixed trip count (one branch-free 64-bit compare-and-subtract per bit of
// k − 2, set by the configuration alone), not from a 64-bit `/` — a variable-time libgcc call
// on 32-bit cores whose operand is the draw, and the draw with the report reveals the value.
// realized_epsilon() = ln(T/m), rounded up.
// Cost: context 40 bytes; report ⌈log2 k⌉ bits (a uint32_t here); random bits per report =
// other_probability().bits (≤ 64); ⌈log2(k − 1)⌉ compare-and-subtract steps (≤ 30).
// Run-time configure needs ≈ 1.3 KiB of stack (use make() at compile time to avoid it).
// Measured: docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
// Estimator (collector): ĉ(v) = (C(v) − nq)/(p − q), Var = n(e^ε+k−2)/(e^ε−1)².
#ifndef TINYLDP_KRR_HPP
#define TINYLDP_KRR_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class KaryRr : public detail::PackedPrivatize<KaryRr, uint32_t> {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 30;

  static constexpr Status configure(Epsilon eps, uint32_t k, KaryRr& out,
                                    Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    if (k < 2 || k > max_domain) return Status::bad_parameter;
    return from_other_probability(
        k, detail::other_at_least(eps, detail::loosened(eps, precision), precision.max_bits, k - 1), out);
  }

  // Uses q as given; p = 1 − (k−1)q must exceed q.
  static constexpr Status from_other_probability(uint32_t k, Dyadic q, KaryRr& out) {
    if (k < 2 || k > max_domain || q.num == 0) return Status::bad_parameter;
    const detail::Wide m = detail::Wide::from(q.num);
    const detail::Wide others = m.times(k - 1);
    const detail::Wide whole = detail::scale(q.bits);
    if (others >= whole) return Status::precision_too_low;
    const detail::Wide keep = whole - others;
    if (keep <= m) return Status::precision_too_low;
    Epsilon realized;
    if (!detail::realized_epsilon_of(keep, m, realized)) return Status::bad_epsilon;
    out.k_ = k;
    out.q_ = q;
    out.keep_threshold_ = keep.low64();  // < 2^64 because others ≥ 1
    out.realized_ = realized;
    return Status::ok;
  }

  static consteval KaryRr make(Epsilon eps, uint32_t k, Precision precision = {}) {
    return detail::configured<KaryRr>([&](auto& r) { return configure(eps, k, r, precision); });
  }

  // Set by a configure that succeeded (k ≥ 2); privatize refuses otherwise.
  constexpr bool configured() const { return k_ != 0; }
  constexpr uint32_t domain() const { return k_; }
  constexpr Dyadic other_probability() const { return q_; }
  // p = keep_numerator() / 2^other_probability().bits.
  constexpr uint64_t keep_numerator() const { return keep_threshold_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr unsigned random_bits_per_report() const { return q_.bits; }

  // On the wire (wire.hpp): id krr, the value in ⌈log2 k⌉ bits, the digest covers k and q.
  using Report = uint32_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(k_); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::krr, payload_bits(),
            wire::Digest().byte(static_cast<uint8_t>(wire::MechanismId::krr)).u32(k_).dyadic(q_).value()};
  }
  constexpr void pack(Report report, uint8_t* payload) const {
    wire::pack_value(report, wire::bits_for_values(k_), payload);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    return static_cast<Report>(wire::unpack_bits(payload, wire::bits_for_values(k_)));
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, uint32_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = ct::less(value, k_);
    const uint32_t y = randomize(value, rng);
    return release<stack_scrub_bytes(168)>(rng, in_domain, y, report);
  }

  // The k-RR step alone, for mechanisms that randomize an internal value (a hash, a level):
  // value < domain() gives the report (for other values the result is meaningless but drawn
  // the same way). rng.ok() tells whether the draw succeeded.
  template <class Rng>
  uint32_t randomize(uint32_t value, Rng& rng) const {
    const uint64_t m = q_.num;
    const uint64_t u = rng.draw(q_.bits);
    const uint32_t keep = static_cast<uint32_t>(ct::less64(u, keep_threshold_));
    // With u ≥ T the remainder u − T < (k − 1)m, so every shifted divisor m·2^i (2^i ≤ k − 2)
    // stays below 2^64 and the quotient is the other value's index, ≤ k − 2.
    uint64_t rest = (u - keep_threshold_) & ct::mask64(keep ^ 1u);  // 0 when kept
    uint32_t index = 0;
    for (unsigned i = index_bits(); i-- > 0;) {
      const uint64_t step = m << i;
      const uint32_t fits = static_cast<uint32_t>(ct::less64(rest, step)) ^ 1u;
      rest -= step & ct::mask64(fits);
      index |= fits << i;
    }
    const uint32_t offset = (index + 1u) & ct::mask(keep ^ 1u);
    uint32_t y = value + offset;                  // < 2k for an in-domain value
    y -= k_ & ct::mask(ct::less(y, k_) ^ 1u);     // y mod k
    return y;
  }

 private:
  // Bit length of k − 2: the public trip count of the index division.
  constexpr unsigned index_bits() const {
    unsigned n = 0;
    for (uint32_t x = k_ - 2; x != 0; x >>= 1) ++n;
    return n;
  }

  uint32_t k_ = 0;
  Dyadic q_{};
  uint64_t keep_threshold_ = 0;
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
