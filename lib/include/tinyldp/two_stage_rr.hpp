// SPDX-License-Identifier: Apache-2.0
// tinyldp/two_stage_rr.hpp — memoized two-stage randomized response (RAPPOR's permanent and
// instantaneous RR; the longitudinal unary-encoding chains L-SUE, L-OSUE, …) over a one-hot
// encoding of {0, …, k−1} or a Bloom filter of k bits with h hashes and m cohorts.
//
// Why: a device that reports the same value again and again with a fresh ε-LDP report each
// time hands an observer independent samples to average. Here each value's bits first pass
// a *permanent* randomized response (PRR) that is the same every time the value is reported,
// and each report applies a fresh *instantaneous* one (IRR) to those memoized bits. An
// observer of unlimited reports of one value learns at most ε∞ (the PRR's loss; the IRR is
// post-processing of it); one report alone costs ε₁ (the composed channel's loss).
//
// The channel, per bit of the encoding (set = the value's bit(s), unset = the others):
//   PRR  memo bit = 1 with probability p1 if set, q1 if unset        (p1 > q1)
//   IRR  report bit = 1 with probability p2 if memo bit = 1, q2 if 0  (p2 > q2)
// RAPPOR's (f, p, q): p1 = 1 − f/2, q1 = f/2, p2 = q, q2 = p. The chains of Arcolezi et al.:
// stage 1 is SUE or OUE at ε∞, stage 2 SUE or OUE chosen so that the composition is ε₁
// (L-OSUE = OUE then SUE). Every probability is a Dyadic; from those integers:
//   ε∞ = h · ln(p1(1 − q1) / (q1(1 − p1)))
//   ε₁ = h · ln(q*(1 − p*) / (p*(1 − q*))),  q* = p1·p2 + (1 − p1)·q2,  p* = q1·p2 + (1 − q1)·q2
// (h = 1 for one-hot), each rounded up on the 2^-32 grid (epsilon.hpp). A device that reports
// m distinct values over its life (per memo key) spends at most m · ε∞.
//
// No table, no per-value state: the PRR bits are drawn from a keyed pseudo-random stream —
// key.memo_stream(memo_attribute(wire id, attribute), value) (memo.hpp), a PRF of the device
// secret, the mechanism, the attribute, the value and the key's re-key counter
// (port/entropy/chacha20_drbg/…/memo_key.hpp) — so a reboot, a power
// cut or the value coming back gives the same memo, and nothing but the secret is stored.
// The IRR draws from the caller's Rng. Both stages run word by word over 32-lane words (the
// same random-bit order on every machine, so reports are bit-identical on MCUs and hosts):
// per lane a uniform number U is compared with the lane's threshold, U < (bit ? a : b), by an
// AND/OR ladder over the thresholds' bits whose per-lane choice is a mask — the value and the
// memo bits only ever enter masks, never a branch or an address.
//
// Random bits per report: fresh k·B2 (B2 = max(p2.bits, q2.bits)); memo words ⌈k/32⌉·B1 (B1
// likewise; one word per 32 lanes and ladder step, the tail's high bits unused).
// Bloom positions: position j of a value in cohort c is a public 32-bit mix of (c, value, j)
// whose top 16 bits are scaled to [0, k) by a multiply (the collector computes the same); a
// value is any uint32_t.
// Cost: context 128 bytes (test_context_sizes); report ⌈k/8⌉ bytes (caller-owned); stack: the memo stream (with its
// block buffer, 64 bytes for ChaCha20); Bloom positions are recomputed per word (h hashes per
// 32 bits), so no array of them is kept. Footprint and
// instructions per bit on every target: docs/footprint.md, docs/target-costs.md.
// Estimator (collector): per bit, t = (c − N·p*) / (q* − p*).
#ifndef TINYLDP_TWO_STAGE_RR_HPP
#define TINYLDP_TWO_STAGE_RR_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

enum class MemoEncoding : uint8_t { one_hot = 0, bloom = 1 };

// Stage 1 and stage 2 of the longitudinal unary-encoding chains.
enum class UeStage : uint8_t { sue = 0, oue = 1 };

class TwoStageRr {
 public:
  static constexpr uint32_t max_bits = uint32_t{1} << 16;  // k, the encoding's bits
  static constexpr uint32_t max_hashes = 16;
  static constexpr uint32_t max_cohorts = uint32_t{1} << 16;
  // Each stage's thresholds share one denominator of at most 2^32: 32-bit thresholds keep the
  // ladders in single words on 32-bit cores (the fewest-bits choice within the tolerance picks
  // fewer: `tinyldp plan` prints the realized fractions).
  static constexpr unsigned max_stage_bits = 32;

  struct Encoding {
    MemoEncoding kind = MemoEncoding::one_hot;
    uint32_t bits = 2;     // k: one-hot: the domain size; Bloom: the filter's bits
    uint32_t hashes = 1;   // h (Bloom), 1 for one-hot
    uint32_t cohorts = 1;  // m (Bloom), 1 for one-hot
    uint32_t attribute = 0;  // which attribute of a record: part of the memo's PRF input
  };
  static constexpr Encoding one_hot(uint32_t k, uint32_t attribute = 0) {
    return {MemoEncoding::one_hot, k, 1, 1, attribute};
  }
  static constexpr Encoding bloom(uint32_t k, uint32_t hashes, uint32_t cohorts,
                                  uint32_t attribute = 0) {
    return {MemoEncoding::bloom, k, hashes, cohorts, attribute};
  }

  // The general channel: PRR (p1, q1), IRR (p2, q2); 0 < q1 < p1 < 1, 0 ≤ q2 < p2 ≤ 1.
  static constexpr Status configure(Dyadic p1, Dyadic q1, Dyadic p2, Dyadic q2, Encoding e,
                                    TwoStageRr& out) {
    if (!valid_encoding(e)) return Status::bad_parameter;
    if (!below(q1, p1) || q1.num == 0 || !below_one(p1) || !below(q2, p2) || !at_most_one(p2))
      return Status::bad_parameter;
    const unsigned b1 = common_bits(p1, q1), b2 = common_bits(p2, q2);
    if (b1 > max_stage_bits || b2 > max_stage_bits) return Status::precision_too_low;
    TwoStageRr m;
    m.enc_ = e;
    m.p1_ = p1, m.q1_ = q1, m.p2_ = p2, m.q2_ = q2;
    m.b1_ = static_cast<uint8_t>(b1), m.b2_ = static_cast<uint8_t>(b2);
    m.a1_ = aligned32(p1, b1), m.c1_ = aligned32(q1, b1);
    m.a2_ = aligned32(p2, b2), m.c2_ = aligned32(q2, b2);
    m.a2_one_ = p2.bits == 0 && p2.num == 1 ? ~0u : 0u;
    using detail::Wide;
    const Wide one1 = detail::scale(b1);
    const Wide a1 = m.aligned(p1, b1), c1 = m.aligned(q1, b1);
    if (!detail::realized_epsilon_of(a1 * (one1 - c1), c1 * (one1 - a1), m.eps_inf_))
      return Status::bad_epsilon;
    Wide qs, ps, all;
    m.composed(qs, ps, all);
    if (!detail::realized_epsilon_of(qs * (all - ps), ps * (all - qs), m.eps_one_))
      return Status::bad_epsilon;
    if (!multiply_epsilon(m.eps_inf_, e.hashes) || !multiply_epsilon(m.eps_one_, e.hashes))
      return Status::bad_epsilon;
    m.id_ = m.memo_id_ = wire::MechanismId::rappor;
    out = m;
    return Status::ok;
  }

  // RAPPOR's parameters: PRR flip probability f (0 < f < 1), IRR P(1 | 0) = p, P(1 | 1) = q.
  // f/2 and 1 − f/2 must fit the stage's 32 bits: an f of more than 31 bits (a decimal such
  // as 0.1 read to 2^-32) is rounded to the nearest multiple of 2^-31 — ε∞ and ε₁ are those
  // of the integers used, as always.
  static constexpr Status configure_rappor(Dyadic f, Dyadic p, Dyadic q, Encoding e,
                                           TwoStageRr& out) {
    if (f.num == 0 || f.bits == 0 || f.bits >= 64) return Status::bad_parameter;
    if (f.bits >= max_stage_bits) {
      const unsigned drop = f.bits - (max_stage_bits - 1u);
      const uint64_t num = (f.num + (uint64_t{1} << (drop - 1u))) >> drop;
      if (num == 0 || num >= (uint64_t{1} << (max_stage_bits - 1u))) return Status::bad_parameter;
      f = make_dyadic(num, max_stage_bits - 1u);
    }
    const unsigned b = f.bits + 1u;  // f/2 and 1 − f/2 over 2^(f.bits + 1)
    return configure(make_dyadic((uint64_t{1} << b) - f.num, b), make_dyadic(f.num, b), q, p, e,
                     out);
  }

  // A longitudinal UE chain: stage 1 (memoized) is `first` at ε∞, stage 2 is `second` with its
  // probabilities chosen so that one report costs at most ε₁ (< ε∞) and at least
  // ε₁ − precision.tolerance, with the fewest bits in that range. With a Bloom encoding of h
  // hashes, each bit is configured at ε∞/h and ε₁/h, so the whole report meets ε∞ and ε₁ as
  // asked (each ÷ h below min_epsilon: epsilon_too_small).
  static constexpr Status configure_chain(UeStage first, UeStage second, Epsilon eps_inf,
                                          Epsilon eps_one, Encoding e, TwoStageRr& out,
                                          Precision precision = {}) {
    if (const Status s = detail::check_chain_epsilons(eps_inf, eps_one); s != Status::ok) return s;
    if (!valid_encoding(e)) return Status::bad_parameter;
    if (!is_valid_precision(precision)) return Status::bad_parameter;
    if (precision.max_bits > max_stage_bits) precision.max_bits = max_stage_bits;
    // A Bloom encoding sets h bits per value, so each bit gets ε∞/h and ε₁/h (and 1/h of the
    // tolerance): h times the per-bit figures is then what was asked, never h times it.
    const Epsilon inf_share{eps_inf.q32 / e.hashes};
    if (Epsilon{eps_one.q32 / e.hashes} < min_epsilon) return Status::epsilon_too_small;
    const Precision per_bit{precision.max_bits, precision.tolerance_q32 / e.hashes};
    UnaryEncoding s1;
    const Status s = first == UeStage::sue ? UnaryEncoding::configure_sue(inf_share, 2, s1, per_bit)
                                           : UnaryEncoding::configure_oue(inf_share, 2, s1, per_bit);
    if (s != Status::ok) return s;
    // Stage 2 over its own denominator 2^b (b ≤ 32): SUE moves p2 = n/2^b (q2 = 1 − p2) up from 1/2,
    // OUE moves q2 = n/2^b (p2 = 1/2) down from 1/2; either way ε₁ grows monotonically along
    // the search, so the largest admissible step is found by bisection.
    const unsigned b = precision.max_bits;
    const uint64_t half = uint64_t{1} << (b - 1);
    auto stage2 = [&](uint64_t n) {
      const uint64_t other = (uint64_t{1} << b) - n;
      return second == UeStage::sue ? Stage{make_dyadic(n, b), make_dyadic(other, b)}
                                    : Stage{Dyadic{1, 1}, make_dyadic(other, b)};
    };
    // step t: SUE n = half + t, OUE n = half + t as well (q2 = 2^b − n = half − t). The
    // composed ratio is compared with e^(limit/h) directly (exp_lower_bound, one per limit): the
    // realized ε₁ is ≤ limit exactly when that holds (ln_upper_bound's definition).
    const unsigned b1 = common_bits(s1.p(), s1.q());
    auto admissible = [&](uint64_t t, const detail::Wide& bound) {
      const Stage st = stage2(half + t);
      const unsigned b2 = common_bits(st.p, st.q);
      detail::Wide qs, ps, all;
      composed_of(s1.p(), s1.q(), b1, st.p, st.q, b2, qs, ps, all);
      return (qs * (all - ps)).shl(detail::exp_fraction_bits) <= bound * (ps * (all - qs));
    };
    const uint64_t last = half - 1;  // t ≤ half − 1 keeps q2 > 0 and p2 < 1
    auto largest = [&](Epsilon limit) -> uint64_t {
      const detail::Wide bound = exp_lower_bound(Epsilon{limit.q32 / e.hashes});
      if (!admissible(1, bound)) return 0;
      uint64_t lo = 1, hi = last + 1;  // admissible(lo), not admissible(hi) or hi = last + 1
      detail::bisect(lo, hi, [&](uint64_t t) { return !admissible(t, bound); });
      return lo;
    };
    const uint64_t safe = largest(eps_one);
    if (safe == 0) return Status::precision_too_low;
    const uint64_t loose = largest(detail::loosened(eps_one, precision));
    const uint64_t t = loose == 0 ? safe : detail::pick_at_most(safe, loose);
    const Stage st = stage2(half + t);
    const Status r = configure(s1.p(), s1.q(), st.p, st.q, e, out);
    if (r == Status::ok) out.id_ = out.memo_id_ = chain_id(first, second);
    return r;
  }

  static consteval TwoStageRr make_chain(UeStage first, UeStage second, Epsilon eps_inf,
                                         Epsilon eps_one, Encoding e, Precision precision = {}) {
    return detail::configured<TwoStageRr>(
        [&](auto& r) { return configure_chain(first, second, eps_inf, eps_one, e, r, precision); });
  }
  static consteval TwoStageRr make_rappor(Dyadic f, Dyadic p, Dyadic q, Encoding e) {
    return detail::configured<TwoStageRr>(
        [&](auto& r) { return configure_rappor(f, p, q, e, r); });
  }

  // Set by a configure that succeeded (the memo stage has at least one bit); privatize refuses
  // otherwise.
  constexpr bool configured() const { return b1_ != 0; }
  constexpr const Encoding& encoding() const { return enc_; }
  // Whether privatize would report `value`: the mechanism configured, the value in its domain
  // (one-hot: < k; Bloom: any). The privacy ledger asks before it charges (charge_memo); the
  // answer is the one privatize's status would make public.
  constexpr bool accepts(uint32_t value) const {
    return eps_inf_.q32 != 0 && enc_.bits >= 1 && (enc_.kind == MemoEncoding::bloom || value < enc_.bits);
  }
  constexpr uint32_t bits() const { return enc_.bits; }
  constexpr Dyadic p1() const { return p1_; }
  constexpr Dyadic q1() const { return q1_; }
  constexpr Dyadic p2() const { return p2_; }
  constexpr Dyadic q2() const { return q2_; }
  // One report's loss (the composed channel) and the loss of unlimited reports of one value.
  constexpr Epsilon epsilon_one() const { return eps_one_; }
  constexpr Epsilon epsilon_infinity() const { return eps_inf_; }
  constexpr Epsilon realized_epsilon() const { return eps_one_; }
  // The budget a device spends over a history with `distinct_values` memoized values.
  constexpr Epsilon lifetime_epsilon(uint32_t distinct_values) const {
    return saturating_times(eps_inf_, distinct_values);
  }
  // The memos' attribute word: memo_attribute(wire id, attribute) (memo.hpp) — the wire id
  // is this configuration's, or the one memoized_as gave (a record's attributes: record_rr).
  constexpr uint32_t memo_attribute_word() const { return memo_attribute(memo_id_, enc_.attribute); }
  // The same channel whose memos are those of mechanism `id` (RecordRr: a record's attribute
  // never shares its memos with a stand-alone report of the same attribute index).
  constexpr TwoStageRr memoized_as(wire::MechanismId id) const {
    TwoStageRr copy = *this;
    copy.memo_id_ = id;
    return copy;
  }
  // The wire id names the configuration: rappor (the probabilities given directly, or
  // RAPPOR's f, p, q), or the UE chain (l_sue, l_osue, l_oue, l_soue).
  static constexpr wire::MechanismId chain_id(UeStage first, UeStage second) {
    if (first == UeStage::sue) return second == UeStage::sue ? wire::MechanismId::l_sue : wire::MechanismId::l_soue;
    return second == UeStage::sue ? wire::MechanismId::l_osue : wire::MechanismId::l_oue;
  }
  constexpr size_t report_bytes() const { return (size_t{enc_.bits} + 7) / 8; }
  constexpr uint64_t memo_bits_per_report() const { return uint64_t{enc_.bits} * b1_; }
  constexpr uint64_t random_bits_per_report() const { return uint64_t{enc_.bits} * b2_; }

  // The composed per-bit channel as integers over 2^(B1 + B2): P(1 | set), P(1 | unset).
  constexpr void composed(detail::Wide& q_star, detail::Wide& p_star, detail::Wide& all) const {
    composed_of(p1_, q1_, b1_, p2_, q2_, b2_, q_star, p_star, all);
  }

  // On the wire: id rappor or the chain's; the payload is the k report bits (bit i of byte
  // i / 8); the digest covers the id, the encoding (kind, k, h, m, attribute) and the four
  // probabilities.
  constexpr wire::Description description() const {
    return {id_, enc_.bits,
            wire::Digest()
                .byte(static_cast<uint8_t>(id_))
                .byte(static_cast<uint8_t>(enc_.kind))
                .u32(enc_.bits)
                .u32(enc_.hashes)
                .u32(enc_.cohorts)
                .u32(enc_.attribute)
                .dyadic(p1_)
                .dyadic(q1_)
                .dyadic(p2_)
                .dyadic(q2_)
                .value()};
  }

  // Bloom position j (< h) of `value` in `cohort`: public, the same on device and collector.
  static constexpr uint32_t bloom_position(uint32_t value, uint32_t cohort, uint32_t j, uint32_t k) {
    uint32_t x = value ^ (cohort * 0x9E3779B9u) ^ ((j + 1u) * 0x85EBCA6Bu);
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return ((x >> 16) * k) >> 16;  // k ≤ 2^16: a 32-bit product (fixed-latency MUL everywhere)
  }

  // A report of `value` (one-hot: < k; Bloom: any) with its memo keyed by `key`. Writes
  // report_bytes() bytes. The cohort (Bloom) is key.cohort(m): send it in the report header.
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, uint8_t* report,
                   size_t report_size) const {
    if (refuse_unprovisioned(key, report, report_size < report_bytes() ? report_size : report_bytes()))
      return Status::key_not_provisioned;
    auto stream = key.memo_stream(memo_attribute_word(), value);
    MemoDraws<decltype(stream)> memo(stream);
    const uint32_t cohort = enc_.kind == MemoEncoding::bloom ? key.cohort(enc_.cohorts) : 0u;
    return privatize_with_memo(value, cohort, memo, rng, report, report_size);
  }

  // The same with the memo's random stream given: `memo` must be the stream keyed by this
  // value (privatize does that). Exposed for the exhaustive privacy tests, which enumerate it.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(uint32_t value, uint32_t cohort, MemoRng& memo, Rng& rng,
                             uint8_t* report, size_t report_size) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    const size_t n = report_bytes();
    if (refuse_small_buffer(report, report_size, n)) {
      forget_drawn(memo);
      return Status::buffer_too_small;
    }
    const uint32_t in_domain = enc_.kind == MemoEncoding::bloom  // configuration, not private
                                   ? ct::less(cohort, enc_.cohorts)
                                   : ct::less(value, enc_.bits);
    write_words(value, cohort, in_domain, memo, rng, report);
    forget_drawn(memo);
    return release_in_place<stack_scrub_bytes(392, 576)>(rng, in_domain, report, n);
  }

 private:
  struct Stage {
    Dyadic p, q;
  };

  // The report, word by word (zero unless in_domain). Out of line, so that the draws its ladders
  // spill stay in a frame below privatize's, which privatize's scrub then covers (inlined, RV32
  // kept an IRR word in privatize's own frame, above the scrubbed stretch).
  template <class MemoRng, class Rng>
  __attribute__((noinline)) void write_words(uint32_t value, uint32_t cohort, uint32_t in_domain,
                                             MemoRng& memo, Rng& rng, uint8_t* report) const {
    const bool bloom = enc_.kind == MemoEncoding::bloom;  // configuration, not private
    const uint32_t count = bloom ? enc_.hashes : 1u;
    const uint32_t keep = ct::mask(in_domain);
    const uint32_t words = (enc_.bits + 31) / 32;
    for (uint32_t w = 0; w < words; ++w) {
      const unsigned lanes = w + 1 < words || enc_.bits % 32 == 0 ? 32u : enc_.bits % 32;
      uint32_t set = 0;  // the encoding's bits in this word, built without branches (a Bloom
      for (uint32_t j = 0; j < count; ++j) {  // position is recomputed per word: no array of them)
        const uint32_t position = bloom ? bloom_position(value, cohort, j, enc_.bits) : value;
        set |= (ct::is_zero(w ^ (position / 32)) & in_domain) << (position % 32);
      }
      const uint32_t memo_bits = ladder(set, a1_, c1_, b1_, memo, lanes);
      const uint32_t out = (ladder(memo_bits, a2_, c2_, b2_, rng, lanes) | (memo_bits & a2_one_)) & keep;
      for (unsigned i = 0; i * 8 < lanes; ++i) report[4 * w + i] = static_cast<uint8_t>(out >> (8 * i));
    }
  }

  // Per lane: 1 if U < (mask bit ? a : b), U uniform over `steps` bits drawn LSB first; the
  // thresholds a, b are numerators over 2^steps. The choice per lane is a mask; the step's
  // "or"/"and" per lane is too — no branch on the mask or on the draws.
  template <class Rng>
  static uint32_t ladder(uint32_t mask, uint32_t a, uint32_t b, unsigned steps, Rng& rng,
                         unsigned lanes) {
    uint32_t r = 0;
    for (unsigned s = 0; s < steps; ++s) {
      const uint32_t u = static_cast<uint32_t>(rng.draw(lanes));
      const uint32_t t = (mask & ct::mask(static_cast<uint32_t>(a & 1u))) |
                         (~mask & ct::mask(static_cast<uint32_t>(b & 1u)));
      r = (r & u) | (t & (r | u));
      a >>= 1;
      b >>= 1;
    }
    // (A threshold of 1, p2 = 1, is every U: its numerator 2^steps does not fit a word; it is
    // stored as 0 and the caller ORs in the memo bits under a2_one_.)
    return r;
  }

  static constexpr void composed_of(Dyadic p1, Dyadic q1, unsigned b1, Dyadic p2, Dyadic q2,
                                    unsigned b2, detail::Wide& q_star, detail::Wide& p_star,
                                    detail::Wide& all) {
    using detail::Wide;
    const Wide one1 = detail::scale(b1);
    const Wide a1 = aligned(p1, b1), c1 = aligned(q1, b1);
    const Wide a2 = aligned(p2, b2), c2 = aligned(q2, b2);
    q_star = a1 * a2 + (one1 - a1) * c2;
    p_star = c1 * a2 + (one1 - c1) * c2;
    all = detail::scale(b1 + b2);
  }
  static constexpr bool below(Dyadic x, Dyadic y) {  // x < y as fractions
    using detail::Wide;
    return Wide::from(x.num) * detail::scale(y.bits) < Wide::from(y.num) * detail::scale(x.bits);
  }
  static constexpr bool below_one(Dyadic x) { return x.bits <= 64 && (x.bits == 64 || x.num < (uint64_t{1} << x.bits)); }
  static constexpr bool at_most_one(Dyadic x) {
    return x.bits <= 64 && (x.bits == 64 || x.num <= (uint64_t{1} << x.bits));
  }
  static constexpr unsigned common_bits(Dyadic a, Dyadic b) { return a.bits > b.bits ? a.bits : b.bits; }
  static constexpr detail::Wide aligned(Dyadic x, unsigned bits) {
    return detail::Wide::from(x.num).shl(static_cast<int>(bits - x.bits));
  }
  // x's numerator over 2^bits (bits ≤ 32; 0 for x = 1, flagged by a2_one_).
  static constexpr uint32_t aligned32(Dyadic x, unsigned bits) {
    return x.bits == 0 ? 0u : static_cast<uint32_t>(x.num << (bits - x.bits));
  }
  static constexpr bool valid_encoding(const Encoding& e) {
    if (e.bits < 2 || e.bits > max_bits || e.attribute > max_memo_attribute) return false;
    if (e.kind == MemoEncoding::one_hot) return e.hashes == 1 && e.cohorts == 1;
    return e.kind == MemoEncoding::bloom && e.hashes >= 1 && e.hashes <= max_hashes &&
           e.cohorts >= 1 && e.cohorts <= max_cohorts;
  }
  Encoding enc_{};
  wire::MechanismId id_ = wire::MechanismId::rappor;
  wire::MechanismId memo_id_ = wire::MechanismId::rappor;  // in the memos' attribute word
  uint8_t b1_ = 0, b2_ = 0;
  // The thresholds as numerators over 2^b1 and 2^b2 (the ladders' words); a2_one_ is all ones
  // when p2 = 1 (only p2 can be 1: p1 < 1 and q2 < p2).
  uint32_t a1_ = 0, c1_ = 0, a2_ = 0, c2_ = 0, a2_one_ = 0;
  Dyadic p1_{}, q1_{}, p2_{}, q2_{};
  Epsilon eps_inf_{}, eps_one_{};
};

}  // namespace tinyldp

#endif
