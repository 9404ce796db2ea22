// SPDX-License-Identifier: Apache-2.0
// tinyldp/dbitflip.hpp — dBitFlip (Ding, Kulkarni, Yekhanin, NeurIPS 2017): the histogram of a
// numeric counter x ∈ {0, …, m} over k buckets, reported again and again by the same devices.
//
// Why: 1BitMean (one_bit_mean.hpp) estimates a mean; dBitFlip estimates the distribution.
// Each device samples d of the k buckets once and reports, per sampled bucket, a randomized bit
// of "my value is in this bucket" — d bits, not k. Memoized as in the paper: the response
// depends only on which sampled bucket holds the value (or none), so a device holds at most
// d + 1 memos whatever its counter does, and the bits are flipped with probability γ per report
// so that a change of memo is not revealed with certainty.
//
// A report of x (grid step s dividing m, k = m/s + 1 buckets: the grid points 0, s, …, m):
//   α, S     from key.memo_stream(a, 0xFFFFFFFF), a = memo_attribute(dbitflip, attribute)
//            (memo.hpp), once per device: α uniform in {0, …, s − 1} (alpha_rounding.hpp), then
//            S = d distinct buckets of k, uniform (Floyd's algorithm, mask-and-reject draws),
//            ascending
//   j        ⌊(x + α)/s⌋: α-point rounding, E[j·s] = x (shared with 1BitMean)
//   slot     t if S_t = j, else d (computed without a branch on j)
//   memo     from key.memo_stream(a, slot): for t < d, bit t = the memo stage of [t = slot],
//            a binary RR keeping its input w.p. p1 = 1 − q1
//   y        each memo bit flipped w.p. γ (fresh, from the caller's Rng)
//   sent     S (d bucket indices) and y (d bits)
// The two stages per bit are GrrChain over [2] (longitudinal_grr.hpp). Two values differ in at
// most c = min(d, 2) of the d inputs, and the sample is independent of the value, so
//   ε∞ = c·ln(p1/q1),   ε₁ = c·ln(p*/q*),   p* = p1(1 − γ) + q1·γ, q* = 1 − p*
// (the paper: each bit at ε/2), the chain configured at ε∞/c and ε₁/c, both realized from its
// Dyadic integers (rounded up) and multiplied exactly. A history spends at most (d + 1)·ε∞.
//
// Estimator (collector): a report supports bucket v if v ∈ S and its bit is 1:
// P(support v | x in v) = (d/k)·p*, P(support v | x elsewhere) = (d/k)·q*, so the usual
// estimator with that channel, f̂(v) = (C(v) − n·(d/k)q*) / (n·(d/k)(p* − q*)), is unbiased —
// the paper's (k/(nd))·Σ_{i: v ∈ S_i}(b_iv − q*)/(p* − q*) — with Var f̂(v) = σ(1 − σ) /
// (n·((d/k)(p* − q*))²), σ = (d/k)(q* + f(v)(p* − q*)): each report's support of v is one
// Bernoulli(σ). One round's reports are independent; rounds share memos (estimate per round).
// Branch-free in the value: the rounding, the slot (d masked compares), the memo stream keyed by
// the slot (ChaCha20), the stages (KaryRr::randomize per bit). The sample's draws and sorting
// branch on the sample, which the report sends in the clear.
// Cost: context 136 bytes; report d·⌈log2 k⌉ + d bits (a Report of 34 bytes here); per report
// two ChaCha20 blocks or more (the device stream: α and S, ~2d words; the memo's: d words),
// fresh d·γ.bits. Limits: d ≤ 16, k ≤ 2^16, m ≤ 2^30. Run-time configure works on 384-bit
// integers on the stack (make(): none).
#ifndef TINYLDP_DBITFLIP_HPP
#define TINYLDP_DBITFLIP_HPP

#include <stdint.h>

#include "tinyldp/alpha_rounding.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/uniform.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

// A dBitFlip report: the sampled buckets (ascending) and one bit per sampled bucket.
struct DBitFlipReport {
  static constexpr uint32_t max_sampled = 16;
  uint16_t bucket[max_sampled] = {};
  uint16_t bits = 0;  // bit t: the report for bucket[t]
};
constexpr void store_masked(DBitFlipReport& report, const DBitFlipReport& drawn, uint32_t mask) {
  for (uint32_t t = 0; t < DBitFlipReport::max_sampled; ++t)
    report.bucket[t] = static_cast<uint16_t>(drawn.bucket[t] & mask);
  report.bits = static_cast<uint16_t>(drawn.bits & mask);
}

class DBitFlip : public detail::PackedMemoPrivatize<DBitFlip> {
 public:
  static constexpr uint32_t max_sampled = DBitFlipReport::max_sampled;
  static constexpr uint32_t max_buckets = uint32_t{1} << 16;

  struct Layout {
    uint32_t max_value = 1;  // m: values are 0 … m
    uint32_t step = 1;       // s, dividing m: k = m/s + 1 buckets
    uint32_t sampled = 1;    // d ≤ k
    uint32_t attribute = 0;  // names this mechanism's memos in the key
  };
  // What a device draws once (from the stream of detail::device_draw_value): α and S.
  struct DeviceDraw {
    uint32_t alpha = 0;
    uint16_t bucket[max_sampled] = {};
  };

  // ε∞ for the memos, ε₁ (< ε∞) for one report: γ from the chain (at ε/c per bit).
  static constexpr Status configure(Epsilon eps_inf, Epsilon eps_one, Layout layout, DBitFlip& out,
                                    Precision precision = {}) {
    if (!valid(layout)) return Status::bad_parameter;
    if (!is_valid_epsilon(eps_inf) || !is_valid_epsilon(eps_one)) return Status::bad_epsilon;
    const uint32_t c = changed_bits(layout);
    if (Epsilon{eps_one.q32 / c} < min_epsilon) return Status::epsilon_too_small;  // each bit's share
    GrrChain chain;
    const Status s = GrrChain::configure(Epsilon{eps_inf.q32 / c}, Epsilon{eps_one.q32 / c}, 2, chain, precision);
    if (s != Status::ok) return s;
    return from_chain(chain, layout, out);
  }
  // Stage 1's q1 = 1 − p1 and the flip probability γ as given (q1, γ < 1/2).
  static constexpr Status configure_stages(Dyadic q1, Dyadic gamma, Layout layout, DBitFlip& out) {
    if (!valid(layout)) return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::from_stages(q1, gamma, 2, chain);
    if (s != Status::ok) return s;
    return from_chain(chain, layout, out);
  }
  static consteval DBitFlip make(Epsilon eps_inf, Epsilon eps_one, Layout layout, Precision precision = {}) {
    return detail::configured<DBitFlip>([&](auto& r) { return configure(eps_inf, eps_one, layout, r, precision); });
  }

  // Set by a configure that succeeded (the layout with the chain); privatize refuses otherwise,
  // before the device draw, whose loops a zeroed layout would not end.
  constexpr bool configured() const { return chain_.configured(); }
  constexpr const Layout& layout() const { return layout_; }
  constexpr AlphaRounding rounding() const { return {layout_.max_value, layout_.step, buckets_ - 1}; }
  constexpr uint32_t buckets() const { return buckets_; }  // k = m/s + 1, stored at configuration
  constexpr uint32_t sampled() const { return layout_.sampled; }         // d
  constexpr const GrrChain& chain() const { return chain_; }
  constexpr Dyadic flip_probability() const { return chain_.fresh_stage().other_probability(); }
  constexpr Epsilon epsilon_infinity() const { return eps_inf_; }
  constexpr Epsilon epsilon_one() const { return eps_one_; }
  constexpr Epsilon realized_epsilon() const { return eps_one_; }
  // The budget over a history whose memo slots visit `slots` of the d + 1.
  constexpr Epsilon lifetime_epsilon(uint32_t slots) const {
    return saturating_times(eps_inf_, slots < sampled() + 1 ? slots : sampled() + 1);
  }
  constexpr uint32_t memo_attribute_word() const {
    return memo_attribute(wire::MechanismId::dbitflip, layout_.attribute);
  }
  // Memo-stream bits of the memo's d bits (the device draw of α and S comes on top: its
  // mask-and-reject draws vary with the device, never with the value); fresh bits.
  constexpr unsigned memo_bits_per_report() const { return sampled() * chain_.memo_bits(); }
  constexpr unsigned random_bits_per_report() const { return sampled() * chain_.fresh_bits(); }

  // On the wire (wire.hpp): id dbitflip; the payload is the d bucket indices (⌈log2 k⌉ bits
  // each, LSB first, ascending) then the d bits; the digest covers m, s, d, the attribute and
  // both stages' q.
  using Report = DBitFlipReport;
  constexpr unsigned bucket_bits() const { return wire::bits_for_values(buckets()); }
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return sampled() * (bucket_bits() + 1u); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::dbitflip, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::dbitflip))
                .u32(layout_.max_value)
                .u32(layout_.step)
                .u32(layout_.sampled)
                .u32(layout_.attribute)
                .dyadic(chain_.memo_stage().other_probability())
                .dyadic(flip_probability())
                .value()};
  }
  // The payload's bytes must be zero before pack (it ORs bits in).
  constexpr void pack(const Report& r, uint8_t* payload) const {
    unsigned at = 0;
    for (uint32_t t = 0; t < sampled(); ++t) put_bits(r.bucket[t], bucket_bits(), payload, at);
    put_bits(r.bits, sampled(), payload, at);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    Report r;
    unsigned at = 0;
    for (uint32_t t = 0; t < sampled(); ++t) r.bucket[t] = static_cast<uint16_t>(get_bits(payload, bucket_bits(), at));
    r.bits = static_cast<uint16_t>(get_bits(payload, sampled(), at));
    return r;
  }
  // Whether an unpacked report could come from a device: buckets ascending (so distinct) and < k.
  constexpr bool well_formed(const Report& r) const {
    for (uint32_t t = 0; t < sampled(); ++t)
      if (r.bucket[t] >= buckets() || (t > 0 && r.bucket[t] <= r.bucket[t - 1])) return false;
    return true;
  }

  // α and S from `draws` (privatize: the device stream, so the same in every report).
  template <class DrawRng>
  DeviceDraw device_draw(DrawRng& draws) const {
    DeviceDraw out;
    out.alpha = rounding().offset(draws);
    // Floyd: for i = k − d … k − 1, t uniform in [0, i]; add t, or i if t is already in S —
    // every d-subset equally likely; kept ascending by insertion.
    const uint32_t k = buckets(), d = sampled();
    uint32_t n = 0;
    for (uint32_t i = k - d; i < k; ++i) {
      uint32_t t = static_cast<uint32_t>(uniform_below(uint64_t{i} + 1u, draws));
      for (uint32_t u = 0; u < n; ++u)
        if (out.bucket[u] == t) t = i;
      uint32_t at = n++;
      for (; at > 0 && out.bucket[at - 1] > t; --at) out.bucket[at] = out.bucket[at - 1];
      out.bucket[at] = static_cast<uint16_t>(t);
    }
    return out;
  }
  // The memo slot of grid index j: t if S_t = j, else d — without a branch on j.
  constexpr uint32_t slot(uint32_t j, const DeviceDraw& draw) const {
    uint32_t s = sampled();
    for (uint32_t t = 0; t < sampled(); ++t) s = ct::select(ct::is_zero(draw.bucket[t] ^ j), t, s);
    return s;
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedMemoPrivatize::privatize;

  // A report of `value` (≤ m): α, S and the memo from `key`, the flips from rng.
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, Report& report) const {
    return detail::privatize_with_device_draw(
        *this, key, report, [&](auto& draws) { return device_draw(draws); },
        [&](const DeviceDraw& d) { return slot(rounding().index(rounding().clamped(value), d.alpha), d); },
        [&](const DeviceDraw& d, auto& memo) { return privatize_with_memo(value, d, memo, rng, report); });
  }

  // The same with the device draw and the memo's random stream given: `memo` must be the stream
  // keyed by slot(j, draw) (privatize does that). Exposed for the exhaustive tests.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(uint32_t value, const DeviceDraw& draw, MemoRng& memo, Rng& rng,
                             Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = rounding().in_range(value);
    const uint32_t s = slot(rounding().index(rounding().clamped(value), draw.alpha), draw);
    Report r;
    for (uint32_t t = 0; t < sampled(); ++t) {
      r.bucket[t] = draw.bucket[t];
      const uint32_t memo_bit = chain_.memoize(ct::is_zero(t ^ s), memo);
      r.bits = static_cast<uint16_t>(r.bits | (chain_.refresh(memo_bit, rng) << t));
    }
    forget_drawn(memo);
    return release<stack_scrub_bytes(0, 656)>(rng, in_domain, r, report);
  }

 private:
  static constexpr bool valid(const Layout& l) {
    if (!AlphaRounding::valid(l.max_value, l.step) || l.attribute > max_memo_attribute) return false;
    const uint32_t k = l.max_value / l.step + 1u;  // m/s ≤ 2^30: no overflow
    return k >= 2 && k <= max_buckets && l.sampled >= 1 && l.sampled <= max_sampled && l.sampled <= k;
  }
  static constexpr uint32_t changed_bits(const Layout& l) { return l.sampled >= 2 ? 2u : 1u; }
  static constexpr Status from_chain(const GrrChain& chain, const Layout& layout, DBitFlip& out) {
    DBitFlip m;
    m.layout_ = layout;
    m.buckets_ = AlphaRounding(layout.max_value, layout.step).cells() + 1;
    m.chain_ = chain;
    m.eps_inf_ = chain.epsilon_infinity();
    m.eps_one_ = chain.epsilon_one();
    const uint32_t c = changed_bits(layout);
    if (!multiply_epsilon(m.eps_inf_, c) || !multiply_epsilon(m.eps_one_, c)) return Status::bad_epsilon;
    out = m;
    return Status::ok;
  }
  static constexpr void put_bits(uint32_t value, unsigned bits, uint8_t* payload, unsigned& at) {
    for (unsigned i = 0; i < bits; ++i, ++at)
      payload[at / 8] = static_cast<uint8_t>(payload[at / 8] | (((value >> i) & 1u) << (at % 8)));
  }
  static constexpr uint32_t get_bits(const uint8_t* payload, unsigned bits, unsigned& at) {
    uint32_t v = 0;
    for (unsigned i = 0; i < bits; ++i, ++at) v |= ((uint32_t{payload[at / 8]} >> (at % 8)) & 1u) << i;
    return v;
  }

  Layout layout_{};
  uint32_t buckets_ = 2;  // k = m/s + 1: no division on the report path, however configured
  GrrChain chain_{};
  Epsilon eps_inf_{}, eps_one_{};
};

}  // namespace tinyldp

#endif
