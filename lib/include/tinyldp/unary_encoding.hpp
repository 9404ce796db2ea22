// SPDX-License-Identifier: Apache-2.0
// tinyldp/unary_encoding.hpp — unary encoding UE(p, q) over {0, …, d−1}, with the SUE
// (symmetric, = basic one-time RAPPOR) and OUE (optimized) presets; any d ≥ 2.
//
// The report is d bits: bit v (the true value) is 1 with probability p, every other bit is 1
// with probability q, all independent. ε = ln(p(1−q)/((1−p)q)).
//  - SUE: p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p.   - OUE: p = 1/2, q = 1/(e^ε+1).
// Realized p is rounded down and q up (as Dyadics), so the ratio stays ≤ e^ε.
//
// How a report is made, and why it leaks nothing through time or memory:
//  1. one Bernoulli(p) bit for the true position (p.bits random bits);
//  2. all d bits as Bernoulli(q) by the bit-sliced sampler (bernoulli_bits.hpp), written
//     into the report buffer itself — d·q.bits random bits, step-major, so the report is the
//     same on every machine word;
//  3. every word is rewritten with the true position's bit spliced in under a mask
//     computed without branches — the value picks neither a branch nor an address.
// Random bits per report: p.bits + d·q.bits, the same for every value.
// Cost: context 48 bytes (test_context_sizes); report ⌈d/8⌉ bytes (caller-owned,
// report_bytes()); no other RAM on 32-bit targets. Run-time configure needs ≈ 1.3 KiB of stack
// (use make_oue/make_sue at compile time). Stack, flash and instructions per output bit on
// every target: docs/footprint.md, docs/target-costs.md; host speed: docs/benchmarks.md.
// Estimator (collector): ĉ(i) = (c(i) − nq)/(p − q), Var = n q(1−q)/(p−q)².
#ifndef TINYLDP_UNARY_ENCODING_HPP
#define TINYLDP_UNARY_ENCODING_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/bernoulli.hpp"
#include "tinyldp/bernoulli_bits.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

namespace detail {

// OUE with fewer bits per slot. A report's randomness is d draws of q and one of p, so at a
// coarse tolerance q is rounded to the fewest bits b (below `below_bits`, the plain rounding's)
// for which some p makes a UE(p, q) with
//   - ε' = ln(p(1−q)/((1−p)q)) in [loose, ε] (p/(1−p) between e^loose·q/(1−q) and e^ε·q/(1−q)),
//   - variance q(1−q)/(p−q)² at most exact OUE's at `loose`, 4e^loose/(e^loose − 1)²
//     (OUE's variance is flat in p around 1/2, so q can move far at little cost).
// At each b the two b-bit neighbours of 1/(e^ε + 1) are tried, the nearer first; p takes the
// fewest bits of its window at a scale of min(max_bits, 40) bits. e^ε is taken from below at 32
// fraction bits (p's upper end stays on the safe side; the caller checks the realized ε, which
// it computes exactly, against both ends). False when no b works (plain rounding stands).
constexpr bool fit_oue(Epsilon eps, Epsilon loose, unsigned max_bits, unsigned below_bits,
                       Dyadic& p, Dyadic& q) {
  const Wide one = Wide::power_of_two(32);
  const Wide e_hi = exp_lower_bound(eps).shr(exp_fraction_bits - 32);    // ≤ e^ε
  const Wide e_lo = exp_lower_bound(loose).shr(exp_fraction_bits - 32);  // ≤ e^loose
  const unsigned p_bits = max_bits < 40 ? max_bits : 40;
  const unsigned q_limit = max_bits < 32 ? max_bits : 32;
  const Wide p_scale = scale(p_bits);
  for (unsigned b = 1; b < below_bits && b <= q_limit; ++b) {
    const Wide q_scale = scale(b);
    // 1/(e^ε + 1) · 2^(b + 32): its integer part and the fraction say which neighbour is nearer.
    const uint64_t x = floor_div(q_scale.shl(64), e_hi + one).low64();
    const uint64_t below = x >> 32;
    const bool lower_first = (x & 0xffffffffu) < 0x80000000u;
    const uint64_t candidates[2] = {lower_first ? below : below + 1, lower_first ? below + 1 : below};
    for (const uint64_t qn : candidates) {
      if (qn == 0 || qn >= (uint64_t{1} << b)) continue;
      const Wide qw = Wide::from(qn), rest = (q_scale - qw).shl(32);
      const uint64_t hi = floor_div(p_scale * e_hi * qw, e_hi * qw + rest).low64();
      const uint64_t lo = ceil_div(p_scale * e_lo * qw, e_lo * qw + rest).low64();
      if (lo > hi || lo == 0) continue;
      const uint64_t pn = fewest_bits_in(lo, hi);
      const Wide pw = Wide::from(pn);
      if (!(pw * q_scale > qw * p_scale) || !(pw < p_scale)) continue;  // q < p < 1
      const Wide gap = pw * q_scale - qw * p_scale;                    // (p − q)·2^(P + b)
      const Wide spread = e_lo - one;                                  // (e^loose − 1)·2^32
      // q(1−q)/(p−q)² ≤ 4e^loose/(e^loose − 1)², over common denominators.
      if (qw * (q_scale - qw) * p_scale * p_scale * spread * spread >
          e_lo.shl(34) * gap * gap)
        continue;
      p = make_dyadic(pn, p_bits);
      q = make_dyadic(qn, b);
      return true;
    }
  }
  return false;
}

}  // namespace detail

class UnaryEncoding {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 24;

  static constexpr size_t report_bytes_for(uint32_t d) { return (size_t{d} + 7) / 8; }

  // SUE: p = e^{ε/2}/(e^{ε/2}+1) rounded down, q = 1 − p.
  static constexpr Status configure_sue(Epsilon eps, uint32_t d, UnaryEncoding& out,
                                        Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    const Epsilon half{eps.q32 / 2};
    const Epsilon half_loose{detail::loosened(eps, precision).q32 / 2};
    if (half.q32 == 0) return Status::bad_epsilon;
    const Dyadic p = detail::keep_at_most(half, half_loose, precision.max_bits);
    const Dyadic q = make_dyadic(((p.bits == 64 ? 0 : (uint64_t{1} << p.bits)) - p.num), p.bits);
    const Status s = configure(p, q, d, out);
    if (s == Status::ok) out.id_ = wire::MechanismId::sue;
    return s;
  }

  // OUE: p = 1/2, q = 1/(e^ε+1) rounded up. At a tolerance coarser than the default, q may
  // instead take fewer bits with p fitted to ε (detail::fit_oue): the realized ε stays in
  // [ε − tolerance, ε] and the variance at most exact OUE's at ε − tolerance. The default keeps
  // p = 1/2 exactly (the reports of every earlier release).
  static constexpr Status configure_oue(Epsilon eps, uint32_t d, UnaryEncoding& out,
                                        Precision precision) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    const Epsilon loose = detail::loosened(eps, precision);
    const Dyadic q = detail::other_at_least(eps, loose, precision.max_bits, 1);
    Dyadic fitted_p, fitted_q;
    if (detail::is_coarse(precision) &&
        detail::fit_oue(eps, loose, precision.max_bits, q.bits, fitted_p, fitted_q)) {
      UnaryEncoding fitted;
      if (configure(fitted_p, fitted_q, d, fitted) == Status::ok && fitted.realized_ <= eps &&
          loose <= fitted.realized_) {
        out = fitted;
        out.id_ = wire::MechanismId::oue;
        return Status::ok;
      }
    }
    return with_half(q, d, out);
  }
  // At the default precision: the same as above, without the fit's code (a firmware that
  // configures OUE at run time at the default precision links none of it: the C API's plain
  // tinyldp_ue_configure_oue).
  static constexpr Status configure_oue(Epsilon eps, uint32_t d, UnaryEncoding& out) {
    return configure_oue_half(eps, d, out);
  }
  // OUE with p = 1/2 exactly at any precision (q rounded alone): for the records' OUE slots,
  // whose fake-data ε (multi_attribute.hpp) is derived for p = 1/2.
  static constexpr Status configure_oue_half(Epsilon eps, uint32_t d, UnaryEncoding& out,
                                             Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    return with_half(detail::other_at_least(eps, detail::loosened(eps, precision), precision.max_bits, 1), d, out);
  }

  // Generic UE(p, q) with 0 < q < p < 1 (on the wire as ue).
  static constexpr Status configure(Dyadic p, Dyadic q, uint32_t d, UnaryEncoding& out) {
    if (d < 2 || d > max_domain) return Status::bad_parameter;
    if (p.bits == 0 || q.bits == 0 || q.num == 0) return Status::precision_too_low;
    using detail::Wide;
    const Wide pn = Wide::from(p.num), qn = Wide::from(q.num);
    const Wide p_rest = detail::scale(p.bits) - pn;  // (1 − p)·2^pb
    const Wide q_rest = detail::scale(q.bits) - qn;  // (1 − q)·2^qb
    // p > q  ⇔  pn·2^qb > qn·2^pb
    if (pn * detail::scale(q.bits) <= qn * detail::scale(p.bits)) return Status::bad_parameter;
    Epsilon realized;
    if (!detail::realized_epsilon_of(pn * q_rest, p_rest * qn, realized))
      return Status::bad_epsilon;
    out.d_ = d;
    out.id_ = wire::MechanismId::ue;
    out.p_ = p;
    out.q_ = q;
    out.realized_ = realized;
    return Status::ok;
  }

  static consteval UnaryEncoding make_oue(Epsilon eps, uint32_t d, Precision precision = {}) {
    return detail::configured<UnaryEncoding>(
        [&](auto& r) { return configure_oue(eps, d, r, precision); });
  }
  static consteval UnaryEncoding make_sue(Epsilon eps, uint32_t d, Precision precision = {}) {
    return detail::configured<UnaryEncoding>(
        [&](auto& r) { return configure_sue(eps, d, r, precision); });
  }

  // Set by a configure that succeeded (d ≥ 2); privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0; }
  constexpr uint32_t domain() const { return d_; }
  constexpr Dyadic p() const { return p_; }
  constexpr Dyadic q() const { return q_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr size_t report_bytes() const { return report_bytes_for(d_); }
  // The same p and q over another domain (2 ≤ d ≤ max_domain): ε does not depend on d, so
  // nothing is recomputed (hierarchical_histogram.hpp's levels).
  constexpr UnaryEncoding with_domain(uint32_t d) const {
    UnaryEncoding out = *this;
    out.d_ = d >= 2 && d <= max_domain ? d : 0;
    return out;
  }
  constexpr uint64_t random_bits_per_report() const {
    return p_.bits + uint64_t{d_} * q_.bits;
  }

  // On the wire (wire.hpp): id sue, oue or ue as configured; the payload is the report itself
  // (d bits, bit i of byte i / 8); the digest covers the id, d, p and q.
  constexpr wire::Description description() const {
    return {id_, d_,
            wire::Digest().byte(static_cast<uint8_t>(id_)).u32(d_).dyadic(p_).dyadic(q_).value()};
  }

  // Writes report_bytes() bytes: bit i of the report is bit (i % 8) of byte i / 8.
  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, uint8_t* report, size_t report_size) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    const size_t n = report_bytes();
    if (refuse_small_buffer(report, report_size, n)) return Status::buffer_too_small;
    const uint32_t in_domain = ct::less(value, d_);
    const uint32_t true_bit = bernoulli(p_, rng);
    // Bernoulli(q) on every lane (the sampler's random bits: d·q.bits, step-major).
    BernoulliBits::fill(q_, d_, rng, report);
    // Whole lane words: d / word_bits, which never exceeds what the caller's buffer holds (the
    // bound is written out so that the compiler sees it too once this is inlined into a caller
    // with a small buffer).
    const size_t buffer_words = report_size / sizeof(Word);
    const uint32_t full_words = d_ / word_bits < buffer_words ? d_ / word_bits
                                                              : static_cast<uint32_t>(buffer_words);
    const unsigned tail_lanes = d_ % word_bits;
    // Splice in the true position's bit, touching every word the same way.
    const Word true_bits = static_cast<Word>(Word{0} - true_bit);
    const Word keep_mask = static_cast<Word>(Word{0} - in_domain);
    const uint32_t true_word = value / word_bits;
    const unsigned true_lane = value % word_bits;
    const auto spliced = [&](uint32_t w, Word r) __attribute__((always_inline, flatten)) {
      const Word position = static_cast<Word>(static_cast<Word>(ct::is_zero(w ^ true_word) & in_domain) << true_lane);
      return static_cast<Word>(((r & ~position) | (true_bits & position)) & keep_mask);
    };
    for (uint32_t w = 0; w < full_words; ++w) {
      uint8_t* word = report + w * sizeof(Word);
      store_le<Word>(word, spliced(w, load_le<Word>(word)));
    }
    if (tail_lanes != 0) {
      uint8_t* word = report + full_words * sizeof(Word);
      store_tail(word, tail_lanes, spliced(full_words, load_tail(word, tail_lanes)));
    }
    return release_in_place<stack_scrub_bytes(232)>(rng, in_domain, report, n);
  }

 private:
  static constexpr Status with_half(Dyadic q, uint32_t d, UnaryEncoding& out) {
    const Status s = configure(Dyadic{1, 1}, q, d, out);
    if (s == Status::ok) out.id_ = wire::MechanismId::oue;
    return s;
  }

  using Word = BernoulliBits::Word;
  static constexpr unsigned word_bits = BernoulliBits::word_bits;
  static Word load_tail(const uint8_t* p, unsigned lanes) { return BernoulliBits::load_tail(p, lanes); }
  static void store_tail(uint8_t* p, unsigned lanes, Word w) { BernoulliBits::store_tail(p, lanes, w); }

  uint32_t d_ = 0;
  wire::MechanismId id_ = wire::MechanismId::ue;
  Dyadic p_{};
  Dyadic q_{};
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
