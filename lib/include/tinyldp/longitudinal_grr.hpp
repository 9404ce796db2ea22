// SPDX-License-Identifier: Apache-2.0
// tinyldp/longitudinal_grr.hpp — L-GRR: memoized k-ary randomized response for values that
// are reported again and again (Arcolezi et al.'s longitudinal GRR), and GrrChain, the two
// GRR stages it is made of (also the core of LOLOHA, loloha.hpp, and 1BitMean,
// one_bit_mean.hpp).
//
// Why: a fresh k-RR report per collection lets an observer average the reports of an
// unchanged value. Here a value first passes a *memoized* k-RR at ε∞ — the memo, the same
// every time the value is reported — and each report applies a *fresh* k-RR to the memo, with
// its probabilities chosen so that one report costs ε₁ < ε∞. Unlimited reports of one value
// cost at most ε∞ (the fresh stage is post-processing of the memo); a device that reports m
// distinct values spends at most min(m, k)·ε∞.
//
// The chain over [g] (g = k here):
//   stage 1 (memo)  P(memo = x) = p1,  P(memo = z) = q1 for each z ≠ x,  p1 = 1 − (g − 1)q1
//   stage 2 (fresh) P(y = memo) = p2,  P(y = z) = q2,                    p2 = 1 − (g − 1)q2
//   composed        P(y = x) = p* = p1·p2 + (g − 1)·q1·q2
//                   P(y = z) = q* = p1·q2 + q1·p2 + (g − 2)·q1·q2,   p* − q* = (p1 − q1)(p2 − q2)
//   ε∞ = ln(p1/q1),  ε₁ = ln(p*/q*)
// Each stage is a KaryRr (its exact construction: q rounded so that the ratio is ≤ e^ε, one
// draw, no branch on the value). Stage 1 is KaryRr at ε∞. Stage 2's q2 = n/2^b is found by
// bisection over n with exact integer comparisons (p*·2^128 ≤ exp_lower_bound(ε₁)·q*): the
// smallest admissible n, then among the n whose ε₁ lies within the precision's tolerance below
// ε₁ the one with the fewest bits. ε∞ and ε₁ are realized from those integers (rounded up).
// (multi-freq-ldpy and LOLOHA's code take p2 from a closed form that falls short of ε₁ for
// g > 2 — ε₁ = 1.68 instead of 2 at k = 74, ε∞ = 5 — so at the same nominal ε₁ their L-GRR
// is noisier than this one.)
//
// The memo is drawn from key.memo_stream(memo_attribute(l_grr, attribute), value) (memo.hpp; the ChaCha20 PRF of the
// device secret in port/entropy/chacha20_drbg/…/memo_key.hpp), the fresh stage from the
// caller's Rng: no table, no per-value state. Branch-free in the value: the stream keyed by it
// is ChaCha20 (constant time), both stages are KaryRr::randomize.
//
// Estimator (collector), per round over n reports: C(v) = #{y = v},
//   ĉ(v) = (C(v) − n·q*) / (p* − q*),  Var ĉ(v) = n·σ(1 − σ) / (p* − q*)²,  σ = q* + f(v)·(p* − q*)
// with f(v) the true frequency (σ(1 − σ) ≤ 1/4 bounds it). Reports of one device in different
// rounds are correlated through the memo; each round's estimate is unbiased on its own.
// Cost: context 104 bytes; report ⌈log2 k⌉ bits (a uint32_t here); random bits per report:
// memo q1.bits (≤ 32: one word of the memo stream, one ChaCha20 block), fresh q2.bits; two
// fixed-trip restoring divisions (krr.hpp). Stack: the memo stream (its 64-byte block buffer).
// Run-time configure works on 384-bit integers like krr.hpp's, on the stack (make(): none).
#ifndef TINYLDP_LONGITUDINAL_GRR_HPP
#define TINYLDP_LONGITUDINAL_GRR_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wipe.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

namespace detail {
// The report of a mechanism with a per-device draw and a memo (LOLOHA, 1BitMean, dBitFlip):
// d = draw(draws from the stream of device_draw_value) (a word, or a struct of them), the memo
// stream keyed by memo_of(d), then run(d, memo) makes the report; `attribute` is the memos'
// attribute word (memo.hpp's memo_attribute). (Memo streams never fail; each wipes itself.) The
// device draw is wiped after the report: α with the bucket it rounds to, or dBitFlip's sampled
// buckets, would tell an observer of RAM which memo the value took.
template <MemoKey Key, class Draw, class MemoOf, class Run>
Status report_with_device_draw(const Key& key, uint32_t attribute, Draw draw, MemoOf memo_of, Run run) {
  auto device_stream = key.memo_stream(attribute, device_draw_value);
  MemoDraws<decltype(device_stream)> device(device_stream);
  auto d = draw(device);
  Status s;
  {
    auto stream = key.memo_stream(attribute, memo_of(d));
    MemoDraws<decltype(stream)> memo(stream);
    s = run(d, memo);
  }
  wipe(&d, sizeof d);
  return s;
}

// Their typed privatize: an unconfigured mechanism or an unprovisioned key refused (`report`
// zeroed), else the report above with the mechanism's memo_attribute_word(). Always inlined
// (the report itself need not be): its refusals meet privatize_packed's, which the compiler
// then drops as already made.
template <class Mechanism, MemoKey Key, class Report, class Draw, class MemoOf, class Run>
__attribute__((always_inline)) inline Status privatize_with_device_draw(const Mechanism& mechanism, const Key& key,
                                                                        Report& report, Draw draw, MemoOf memo_of,
                                                                        Run run) {
  if (!mechanism.configured()) return refuse_unconfigured(report);
  if (refuse_unprovisioned(key, report)) return Status::key_not_provisioned;
  return report_with_device_draw(key, mechanism.memo_attribute_word(), draw, memo_of, run);
}
}  // namespace detail

class GrrChain {
 public:
  static constexpr uint32_t max_range = KaryRr::max_domain;

  // Stage 1 at ε∞, stage 2 such that ε₁ − tolerance ≤ realized ε₁ ≤ ε₁ (ε₁ < ε∞).
  static constexpr Status configure(Epsilon eps_inf, Epsilon eps_one, uint32_t g, GrrChain& out,
                                    Precision precision = {}) {
    if (const Status s = detail::check_chain_epsilons(eps_inf, eps_one); s != Status::ok) return s;
    if (g < 2 || g > max_range || !is_valid_precision(precision)) return Status::bad_parameter;
    // The memo stage draws from a memo stream, one word (≤ 32 bits) per draw (memo.hpp).
    KaryRr first;
    const Status s = KaryRr::configure(
        eps_inf, g, first, Precision{precision.max_bits < 32 ? precision.max_bits : uint8_t{32}, precision.tolerance_q32});
    if (s != Status::ok) return s;
    const unsigned b = precision.max_bits;
    // q2 = n/2^b needs p2 = 1 − (g − 1)q2 > q2, that is n·g < 2^b.
    const uint64_t last = (b == 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1) / g;
    // The smallest n whose chain stays within `limit` (ε₁ falls as n grows), or 0.
    auto smallest = [&](Epsilon limit) -> uint64_t {
      const detail::Wide bound = exp_lower_bound(limit);
      auto admissible = [&](uint64_t n) {
        detail::Wide same, other;
        const detail::Wide n2 = detail::Wide::from(n);
        composed_counts(first, detail::scale(b) - n2.times(g - 1u), n2, g, same, other);
        return same.shl(detail::exp_fraction_bits) <= bound * other;
      };
      if (last == 0 || !admissible(last)) return 0;
      uint64_t lo = 0, hi = last;  // not admissible(lo) (or lo = 0), admissible(hi)
      detail::bisect(lo, hi, admissible);
      return hi;
    };
    const uint64_t safe = smallest(eps_one);
    if (safe == 0) return Status::precision_too_low;
    const uint64_t loose = smallest(detail::loosened(eps_one, precision));
    const uint64_t n = loose == 0 ? safe : detail::pick_at_least(safe, loose);
    return from_stages(first.other_probability(), make_dyadic(n, b), g, out);
  }

  // The two stages' q1, q2 as given (q1 < 1/g, q2 < 1/g; q1 of at most 32 bits).
  static constexpr Status from_stages(Dyadic q1, Dyadic q2, uint32_t g, GrrChain& out) {
    if (g < 2 || g > max_range || q1.bits > 32) return Status::bad_parameter;
    GrrChain c;
    Status s = KaryRr::from_other_probability(g, q1, c.first_);
    if (s == Status::ok) s = KaryRr::from_other_probability(g, q2, c.second_);
    if (s != Status::ok) return s;
    c.eps_inf_ = c.first_.realized_epsilon();
    detail::Wide same, other;
    composed_counts(c.first_, detail::Wide::from(c.second_.keep_numerator()), detail::Wide::from(q2.num), g,
                    same, other);
    // other ≥ 1: q2 > 0 and p1 > 0.
    if (!detail::realized_epsilon_of(same, other, c.eps_one_)) return Status::bad_epsilon;
    out = c;
    return Status::ok;
  }

  static consteval GrrChain make(Epsilon eps_inf, Epsilon eps_one, uint32_t g,
                                 Precision precision = {}) {
    return detail::configured<GrrChain>(
        [&](auto& r) { return configure(eps_inf, eps_one, g, r, precision); });
  }

  // Set by a configure that succeeded (both stages are).
  constexpr bool configured() const { return first_.configured() && second_.configured(); }
  constexpr uint32_t range() const { return first_.domain(); }
  constexpr const KaryRr& memo_stage() const { return first_; }
  constexpr const KaryRr& fresh_stage() const { return second_; }
  constexpr Epsilon epsilon_infinity() const { return eps_inf_; }
  constexpr Epsilon epsilon_one() const { return eps_one_; }
  constexpr unsigned memo_bits() const { return first_.random_bits_per_report(); }
  constexpr unsigned fresh_bits() const { return second_.random_bits_per_report(); }

  // The composed channel as integers over 2^(memo_bits + fresh_bits): same = p*, other = q*.
  constexpr void composed(detail::Wide& same, detail::Wide& other, detail::Wide& all) const {
    composed_counts(first_, detail::Wide::from(second_.keep_numerator()),
                    detail::Wide::from(second_.other_probability().num), range(), same, other);
    all = detail::scale(memo_bits() + fresh_bits());
  }

  // The memo of x (< g) drawn from `memo`, and a fresh report of a memo drawn from `rng`.
  template <class MemoRng>
  uint32_t memoize(uint32_t x, MemoRng& memo) const {
    return first_.randomize(x, memo);
  }
  template <class Rng>
  uint32_t refresh(uint32_t memo, Rng& rng) const {
    return second_.randomize(memo, rng);
  }

 private:
  // p* and q* (see the header) over 2^(q1.bits + b) for a stage 2 of (k2, n2) over 2^b.
  static constexpr void composed_counts(const KaryRr& first, const detail::Wide& k2,
                                        const detail::Wide& n2, uint32_t g, detail::Wide& same,
                                        detail::Wide& other) {
    using detail::Wide;
    const Wide k1 = Wide::from(first.keep_numerator()), m1 = Wide::from(first.other_probability().num);
    const Wide q1q2 = m1 * n2;
    same = k1 * k2 + q1q2.times(g - 1u);
    other = k1 * n2 + m1 * k2 + q1q2.times(g - 2u);
  }

  KaryRr first_{}, second_{};
  Epsilon eps_inf_{}, eps_one_{};
};

class LongitudinalGrr : public detail::PackedMemoPrivatize<LongitudinalGrr> {
 public:
  static constexpr uint32_t max_domain = KaryRr::max_domain;

  // ε∞ for the memo, ε₁ (< ε∞) for one report, over {0, …, k−1}. `attribute` names this
  // mechanism's memos in the key (one attribute id per mechanism instance on a device).
  static constexpr Status configure(Epsilon eps_inf, Epsilon eps_one, uint32_t k,
                                    LongitudinalGrr& out, Precision precision = {},
                                    uint32_t attribute = 0) {
    if (attribute > max_memo_attribute) return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::configure(eps_inf, eps_one, k, chain, precision);
    if (s != Status::ok) return s;
    out.chain_ = chain;
    out.attribute_ = attribute;
    return Status::ok;
  }
  // The stages' q1, q2 as given (tests, and configurations carried over from elsewhere).
  static constexpr Status configure_stages(Dyadic q1, Dyadic q2, uint32_t k, LongitudinalGrr& out,
                                           uint32_t attribute = 0) {
    if (attribute > max_memo_attribute) return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::from_stages(q1, q2, k, chain);
    if (s != Status::ok) return s;
    out.chain_ = chain;
    out.attribute_ = attribute;
    return Status::ok;
  }
  static consteval LongitudinalGrr make(Epsilon eps_inf, Epsilon eps_one, uint32_t k,
                                        Precision precision = {}, uint32_t attribute = 0) {
    return detail::configured<LongitudinalGrr>(
        [&](auto& r) { return configure(eps_inf, eps_one, k, r, precision, attribute); });
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return chain_.configured(); }
  constexpr uint32_t domain() const { return chain_.range(); }
  constexpr uint32_t attribute() const { return attribute_; }
  // Whether privatize would report `value` (configured, value < k): the privacy ledger asks
  // before it charges (charge_memo).
  constexpr bool accepts(uint32_t value) const { return epsilon_infinity().q32 != 0 && value < domain(); }
  // The memos' attribute word (memo.hpp): key.memo_stream(memo_attribute_word(), value).
  constexpr uint32_t memo_attribute_word() const {
    return memo_attribute(wire::MechanismId::l_grr, attribute_);
  }
  constexpr const GrrChain& chain() const { return chain_; }
  constexpr Epsilon epsilon_infinity() const { return chain_.epsilon_infinity(); }
  constexpr Epsilon epsilon_one() const { return chain_.epsilon_one(); }
  constexpr Epsilon realized_epsilon() const { return chain_.epsilon_one(); }
  // The budget over a history with `distinct_values` memoized values (at most k of them).
  constexpr Epsilon lifetime_epsilon(uint32_t distinct_values) const {
    return saturating_times(epsilon_infinity(), distinct_values < domain() ? distinct_values : domain());
  }
  constexpr unsigned memo_bits_per_report() const { return chain_.memo_bits(); }
  constexpr unsigned random_bits_per_report() const { return chain_.fresh_bits(); }

  // On the wire (wire.hpp): id l_grr, the value in ⌈log2 k⌉ bits; the digest covers k, the
  // attribute and both stages' q.
  using Report = uint32_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return wire::bits_for_values(domain()); }
  constexpr wire::Description description() const {
    return {wire::MechanismId::l_grr, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::l_grr))
                .u32(domain())
                .u32(attribute_)
                .dyadic(chain_.memo_stage().other_probability())
                .dyadic(chain_.fresh_stage().other_probability())
                .value()};
  }
  constexpr void pack(Report report, uint8_t* payload) const {
    wire::pack_value(report, wire::bits_for_values(domain()), payload);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    return static_cast<Report>(wire::unpack_bits(payload, wire::bits_for_values(domain())));
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedMemoPrivatize::privatize;

  // A report of `value` (< k) with its memo keyed by `key`; the fresh stage draws from rng.
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, Report& report) const {
    if (refuse_unprovisioned(key, report)) return Status::key_not_provisioned;
    auto stream = key.memo_stream(memo_attribute_word(), value);
    MemoDraws<decltype(stream)> memo(stream);
    return privatize_with_memo(value, memo, rng, report);
  }

  // The same with the memo's random stream given: `memo` must be the stream keyed by this
  // value (privatize does that). Exposed for the exhaustive privacy tests, which enumerate it.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(uint32_t value, MemoRng& memo, Rng& rng, Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = ct::less(value, domain());
    const uint32_t safe = value & ct::mask(in_domain);  // out of the domain: drawn as 0, discarded
    const uint32_t y = chain_.refresh(chain_.memoize(safe, memo), rng);
    forget_drawn(memo);
    return release<stack_scrub_bytes(0, 304)>(rng, in_domain, y, report);
  }

 private:
  GrrChain chain_{};
  uint32_t attribute_ = 0;
};

}  // namespace tinyldp

#endif
