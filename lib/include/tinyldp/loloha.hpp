// SPDX-License-Identifier: Apache-2.0
// tinyldp/loloha.hpp — LOLOHA (Arcolezi et al., EDBT 2023): longitudinal local hashing, for
// values of a large domain that change over time.
//
// Why: L-GRR and the UE chains memoize per *value*, so a device whose value keeps changing
// spends ε∞ per distinct value — up to k·ε∞. LOLOHA hashes the value to [g] with a hash fixed
// per device and memoizes per *hashed* value: at most g memos, so the longitudinal budget is
// at most g·ε∞ whatever the value does (BiLOLOHA, g = 2: 2ε∞).
//
// A report of value v (< d):
//   seed s   32 bits, the first word of key.memo_stream(a, 0xFFFFFFFF), a = memo_attribute(wire
//            id, attribute) (memo.hpp): fixed per device
//            and key generation, independent of every value (that reserved stream value is
//            never a hashed value, g ≤ 2^24)
//   h        local_hash(s, v, g) — local_hashing.hpp's hash, which the collector recomputes
//   memo     GRR over [g] at ε∞ of h, drawn from key.memo_stream(a, h)
//   y        a fresh GRR over [g] of the memo (GrrChain, longitudinal_grr.hpp: the chain is ε₁)
//   sent     {s, y}, like OLH's {seed, value}
// Privacy: s is independent of v, and for each s the report is the chain applied to h, so one
// report costs the chain's ε₁ and unlimited reports of one hashed value its ε∞ (both realized
// from the Dyadic integers, rounded up); min(distinct values, g)·ε∞ bounds a history.
// g: OLOLOHA takes the paper's closed form (the real root of its variance's derivative; the
// same expression as `LDP/protocols.py` in hharcolezi/LOLOHA), with a = e^ε∞, b = e^ε₁:
//   g = max(2, rint((√(a⁴ − 14a² − 12a²b² + 12ab + 12a³b + 1) − a² + 6a − 6b + 1) / (6(a − b))))
// evaluated here in integers (48 fraction bits of e^ε from below, an integer square root) — 8
// at ε∞ = 5, ε₁ = 2; 2 at ε∞ = 1, ε₁ = 0.5. g only affects utility.
//
// Estimator (collector), per round over n reports: support C(v) = #{j : H(s_j, v) = y_j};
//   ĉ(v) = (C(v) − n/g) / (p* − 1/g),  p* − 1/g = (p1 − 1/g)(p2 − q2)
//   Var ĉ(v) = n·σ(1 − σ) / (p* − 1/g)²,  σ = 1/g + f(v)·(p* − 1/g)
// with p* = p1·p2 + (g − 1)q1·q2 the chain's P(y = h) (GrrChain::composed) and f(v) the true
// frequency; a value other than v collides with it under a random seed with probability 1/g.
// Cost: context 112 bytes; report 32 + ⌈log2 g⌉ bits (a LocalHashingReport here); per report
// two ChaCha20 blocks (the seed stream, the memo stream: one word each), fresh q2.bits; the
// hash is one 32×32→64 multiply-high and a few shift-XORs. Stack: two memo streams (64-byte
// block buffers). Run-time configure works on 384-bit integers on the stack (make_*: none).
#ifndef TINYLDP_LOLOHA_HPP
#define TINYLDP_LOLOHA_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class Loloha : public detail::PackedMemoPrivatize<Loloha> {
 public:
  static constexpr uint32_t max_domain = LocalHashing::max_domain;
  static constexpr uint32_t max_range = LocalHashing::max_range;
  static constexpr unsigned seed_bits = 32;

  // The paper's optimal g for (ε∞, ε₁), ε₁ < ε∞ (2 for invalid budgets), capped at max_range.
  static constexpr uint32_t optimal_range(Epsilon eps_inf, Epsilon eps_one) {
    using detail::Wide;
    if (!is_valid_epsilon(eps_inf) || !is_valid_epsilon(eps_one) || !(eps_one < eps_inf)) return 2;
    constexpr int F = 48;  // fraction bits: a⁴ < 2^(4·(29 + 48)) fits the 384-bit integers
    const Wide a = exp_lower_bound(eps_inf).shr(detail::exp_fraction_bits - F);
    const Wide b = exp_lower_bound(eps_one).shr(detail::exp_fraction_bits - F);
    if (a <= b) return max_range;
    const Wide one = Wide::power_of_two(F), one2 = Wide::power_of_two(2 * F);
    const Wide a2 = a * a, ab = a * b;
    // Every term at scale 2^(4F).
    const Wide positive = a2 * a2 + (ab * one2).times(12) + (a2 * ab).times(12) + one2 * one2;
    const Wide negative = (a2 * one2).times(14) + (ab * ab).times(12);
    const Wide root = positive > negative ? square_root(positive - negative) : Wide{};  // 2^(2F)
    const Wide up = root + (a * one).times(6) + one2, down = a2 + (b * one).times(6);
    if (up <= down) return 2;
    const Wide den = ((a - b) * one).times(6);
    const Wide g = floor_div((up - down).times(2) + den, den.times(2));  // rint
    if (!g.fits_u64() || g.low64() > max_range) return max_range;
    return g.low64() < 2 ? 2u : static_cast<uint32_t>(g.low64());
  }

  // Any g in [2, 2^24] (on the wire as loloha), over {0, …, d − 1}.
  static constexpr Status configure(Epsilon eps_inf, Epsilon eps_one, uint32_t d, uint32_t g,
                                    Loloha& out, Precision precision = {},
                                    uint32_t attribute = 0) {
    if (d < 2 || d > max_domain || g < 2 || g > max_range || attribute > max_memo_attribute)
      return Status::bad_parameter;
    GrrChain chain;
    const Status s = GrrChain::configure(eps_inf, eps_one, g, chain, precision);
    if (s != Status::ok) return s;
    out.d_ = d;
    out.attribute_ = attribute;
    out.chain_ = chain;
    out.id_ = wire::MechanismId::loloha;
    return Status::ok;
  }
  // OLOLOHA: g = optimal_range(ε∞, ε₁).
  static constexpr Status configure_optimal(Epsilon eps_inf, Epsilon eps_one, uint32_t d,
                                            Loloha& out, Precision precision = {},
                                            uint32_t attribute = 0) {
    return configure(eps_inf, eps_one, d, optimal_range(eps_inf, eps_one), out, precision,
                     attribute);
  }
  // BiLOLOHA: g = 2 (wire id biloloha).
  static constexpr Status configure_binary(Epsilon eps_inf, Epsilon eps_one, uint32_t d,
                                           Loloha& out, Precision precision = {},
                                           uint32_t attribute = 0) {
    const Status s = configure(eps_inf, eps_one, d, 2, out, precision, attribute);
    if (s == Status::ok) out.id_ = wire::MechanismId::biloloha;
    return s;
  }
  static consteval Loloha make_optimal(Epsilon eps_inf, Epsilon eps_one, uint32_t d,
                                       Precision precision = {}, uint32_t attribute = 0) {
    return detail::configured<Loloha>(
        [&](auto& r) { return configure_optimal(eps_inf, eps_one, d, r, precision, attribute); });
  }
  static consteval Loloha make_binary(Epsilon eps_inf, Epsilon eps_one, uint32_t d,
                                      Precision precision = {}, uint32_t attribute = 0) {
    return detail::configured<Loloha>(
        [&](auto& r) { return configure_binary(eps_inf, eps_one, d, r, precision, attribute); });
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0 && chain_.configured(); }
  constexpr uint32_t domain() const { return d_; }
  constexpr uint32_t range() const { return chain_.range(); }
  constexpr uint32_t attribute() const { return attribute_; }
  // The memos' attribute word (memo.hpp): loloha's or biloloha's wire id and the attribute.
  constexpr uint32_t memo_attribute_word() const { return memo_attribute(id_, attribute_); }
  constexpr const GrrChain& chain() const { return chain_; }
  constexpr Epsilon epsilon_infinity() const { return chain_.epsilon_infinity(); }
  constexpr Epsilon epsilon_one() const { return chain_.epsilon_one(); }
  constexpr Epsilon realized_epsilon() const { return chain_.epsilon_one(); }
  // The budget over a history with `distinct_values` values: at most g memos.
  constexpr Epsilon lifetime_epsilon(uint32_t distinct_values) const {
    return saturating_times(epsilon_infinity(), distinct_values < range() ? distinct_values : range());
  }
  // Bits from the memo streams (the seed's and the hashed value's), and fresh bits.
  constexpr unsigned memo_bits_per_report() const { return seed_bits + chain_.memo_bits(); }
  constexpr unsigned random_bits_per_report() const { return chain_.fresh_bits(); }

  // On the wire (wire.hpp): id loloha or biloloha as configured, the seed (32 bits, LSB first)
  // then the reported hashed value (⌈log2 g⌉ bits); the digest covers d, g, the attribute and
  // both stages' q.
  using Report = LocalHashingReport;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return Report::payload_bits(seed_bits, range()); }
  constexpr wire::Description description() const {
    return {id_, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(id_))
                .u32(d_)
                .u32(range())
                .u32(attribute_)
                .dyadic(chain_.memo_stage().other_probability())
                .dyadic(chain_.fresh_stage().other_probability())
                .value()};
  }
  constexpr void pack(const Report& r, uint8_t* payload) const { r.pack(seed_bits, range(), payload); }
  constexpr Report unpack(const uint8_t* payload) const { return Report::unpack(payload, seed_bits, range()); }

  // The hash seed, drawn from `seeds` — privatize draws it from
  // key.memo_stream(memo_attribute_word(), 0xFFFFFFFF) (MemoDraws), so it is the same in every report of the device.
  template <class SeedRng>
  static uint32_t hash_seed(SeedRng& seeds) {
    return static_cast<uint32_t>(seeds.draw(seed_bits));
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedMemoPrivatize::privatize;

  // A report of `value` (< d): the seed and the memo from `key`, the fresh stage from rng.
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, Report& report) const {
    return detail::privatize_with_device_draw(
        *this, key, report, [](auto& seeds) { return hash_seed(seeds); },
        [&](uint32_t seed) { return local_hash(seed, value, range()); },
        [&](uint32_t seed, auto& memo) { return privatize_with_memo(value, seed, memo, rng, report); });
  }

  // The same with the seed and the memo's random stream given: `memo` must be the stream keyed
  // by local_hash(seed, value, g) (privatize does that). Exposed for the exhaustive tests.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(uint32_t value, uint32_t seed, MemoRng& memo, Rng& rng,
                             Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = ct::less(value, d_);
    const uint32_t y = chain_.refresh(chain_.memoize(local_hash(seed, value, range()), memo), rng);
    forget_drawn(memo);
    return release<stack_scrub_bytes(392, 480)>(rng, in_domain, LocalHashingReport{seed, y}, report);
  }

 private:
  // ⌊√x⌋, bit by bit (configuration time only).
  static constexpr detail::Wide square_root(const detail::Wide& x) {
    detail::Wide r{};
    for (int bit = x.bit_length() / 2 + 1; bit >= 0; --bit) {
      const detail::Wide c = r + detail::Wide::power_of_two(bit);
      if (c * c <= x) r = c;
    }
    return r;
  }

  uint32_t d_ = 0;
  uint32_t attribute_ = 0;
  wire::MechanismId id_ = wire::MechanismId::loloha;
  GrrChain chain_{};
};

}  // namespace tinyldp

#endif
