// SPDX-License-Identifier: Apache-2.0
// tinyldp/histogram_encoding.hpp — histogram encoding over {0, …, d−1} (Wang et al. 2017,
// "Locally differentially private protocols for frequency estimation"), both of its forms:
//
//  - SHE (SummationHistogram, wire id she): the value v becomes the one-hot vector x and every
//    component is reported with integer Laplace noise, y_i = clamp(x_i + Z_i, −T, T + 1),
//    Pr[Z = z] ∝ e^(−ε|z|/2). Each component *is* the discrete Laplace mechanism
//    (discrete_laplace.hpp) on the range [−T, T + 1] with Δ = 1 at ε/2, reused as it is: its
//    integer weights, its branch-free scan, its fewest-bits precision. Two neighbouring values
//    differ in two components (one 1 → 0, one 0 → 1), so the privacy loss is
//      ε_SHE = ln max_y r(y) + ln max_y 1/r(y),   r(y) = Pr[y | x = 1] / Pr[y | x = 0],
//    computed exactly from the weights (both maxima, the folded ends included: the two tails
//    may differ by one unit) and rounded up; it is attained, so it is the true loss, and it is
//    ≤ the request because every adjacent weight ratio is ≤ e^(ε/2).
//    T, the truncation: the clamp exists only so that a report has a finite size; the default
//    is the smallest T with e^(−εT/2) ≤ 2^-10, T = ⌈20·ln 2/ε⌉ (ε = 1: T = 14, 5 bits per
//    component), so that noise beyond ±T has mass below 2^-10 and the clamp barely changes
//    the law. It costs nothing in privacy or bias either way — the collector debiases with
//    the exact clamped expectations — only variance (a smaller T lowers E[y|1] − E[y|0] and
//    Var y alike). Any T in [0, max_truncation] may be given instead.
//    Estimator (collector): S_i = Σ (y_i + T) over n reports,
//      ĉ_i = (S_i − n·E[y + T | 0]) / (E[y | 1] − E[y | 0]),
//      Var ĉ_i = [c_i·Var(y | 1) + (n − c_i)·Var(y | 0)] / (E[y | 1] − E[y | 0])²,
//    ≈ n·8/ε² for an item nobody holds (the BRIEF's figure; the clamp makes it a little less).
//
//  - THE (ThresholdHistogram, wire id the): report bit i = [x_i + L_i > θ] with L_i Laplace of
//    scale 2/ε. That report's law is exactly unary encoding with
//      p = Pr[1 + L > θ] = 1 − ½·e^(−ε(1−θ)/2),   q = Pr[L > θ] = ½·e^(−εθ/2),
//    so THE samples nothing Laplace: it *is* UnaryEncoding (unary_encoding.hpp: the bit-sliced
//    Bernoulli ladder, its constant-time splice, its exact realized ε) configured with these
//    (p, q), under its own wire id and with θ in its digest. θ is the paper's choice, the one
//    minimizing the estimator's variance q(1−q)/(p−q)², taken on the grid θ = j/64,
//    j = 33 … 63 (the variance is flat near its minimum). p and q come
//    from exp_lower_bound with p rounded down and q rounded up, so their likelihood ratio is
//    ≤ that of the real-valued law, whose loss ln((2e^(ε(1−θ)/2) − 1)(2e^(εθ/2) − 1)) is < ε:
//    thresholding throws part of the Laplace mechanism's budget away, and the realized ε
//    (UE's, from the Dyadics) says how much is actually spent. Like UE's presets, each
//    probability is then moved by at most Precision::tolerance's worth of ε (to the value
//    with the fewest bits), on the safe side.
//
// Costs. SHE: context 72 bytes plus a caller-owned table of 2T + 2 uint64_t (table_entries());
// report ⌈d·⌈log2(2T + 2)⌉/8⌉ bytes (caller-owned, report_bytes()); random bits d·B (B the
// noise precision, 48 by default); time d scans of 4T + 2 compare-and-adds. Run-time configure:
// the discrete Laplace one (≈ 1.3 KiB of stack) plus an O(T) pass for ε; compile time with
// SummationHistogramTable<N>::make, which puts the weights in flash.
// THE: context 56 bytes (UE's and θ); report as UE's (⌈d/8⌉ bytes); configure evaluates 62 exp bounds for θ plus
// UE's (≈ 1.3 KiB of stack; make() at compile time). Measured: docs/footprint.md (code, stack
// per target); variances against the other mechanisms: docs/accuracy.md.
#ifndef TINYLDP_HISTOGRAM_ENCODING_HPP
#define TINYLDP_HISTOGRAM_ENCODING_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class SummationHistogram {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 24;
  // The range [−T, T + 1] must stay within the discrete Laplace's widest (2T + 1 ≤ 65535).
  static constexpr uint32_t max_truncation = (DiscreteLaplace::max_width - 1) / 2;

  // ⌈20·ln 2/ε⌉ (at least 1, at most max_truncation): e^(−εT/2) ≤ 2^-10. ln 2 · 2^32 rounded up.
  static constexpr uint32_t default_truncation(Epsilon eps) {
    if (eps.q32 == 0) return max_truncation;
    const uint64_t t = (uint64_t{20} * 2977044472u + eps.q32 - 1) / eps.q32;
    return t < 1 ? 1u : t > max_truncation ? max_truncation : static_cast<uint32_t>(t);
  }
  static constexpr size_t table_entries(uint32_t truncation) { return 2 * size_t{truncation} + 2; }
  static constexpr unsigned component_bits_for(uint32_t truncation) {
    return wire::bits_for_values(2 * truncation + 2);
  }
  static constexpr size_t report_bytes_for(uint32_t d, uint32_t truncation) {
    return (size_t{d} * component_bits_for(truncation) + 7) / 8;
  }

  // table: caller-owned storage of table_entries(T) weights, kept for the context's life.
  // truncation 0 … max_truncation, or use_default_truncation; noise_bits 2 … 62, or 0 for
  // the fewest (≥ 48) that keep the noise's ε within 1e-6 of ε/2
  // (DiscreteLaplace::configure_fewest_bits).
  static constexpr uint32_t use_default_truncation = ~uint32_t{0};
  static constexpr Status configure(Epsilon eps, uint32_t d, uint64_t* table, size_t table_size,
                                    SummationHistogram& out,
                                    uint32_t truncation = use_default_truncation,
                                    unsigned noise_bits = 0) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    if (d < 2 || d > max_domain) return Status::bad_parameter;
    const uint32_t t = truncation == use_default_truncation ? default_truncation(eps) : truncation;
    if (t > max_truncation) return Status::bad_parameter;
    if (table == nullptr || table_size < table_entries(t)) return Status::buffer_too_small;
    const Epsilon half{eps.q32 / 2};  // each component's noise: its share, at least min_epsilon
    if (half < min_epsilon) return Status::epsilon_too_small;
    const int32_t lo = -static_cast<int32_t>(t), hi = static_cast<int32_t>(t) + 1;
    SummationHistogram r;
    const Status s =
        noise_bits == 0
            ? DiscreteLaplace::configure_fewest_bits(half, lo, hi, 1, table, table_size, r.noise_)
            : DiscreteLaplace::configure(half, lo, hi, 1, table, table_size, r.noise_, noise_bits);
    if (s != Status::ok) return s;
    r.d_ = d;
    r.truncation_ = t;
    const Status e = r.compute_realized(eps);
    if (e == Status::ok) out = r;
    return e;
  }

  // Set by a configure that succeeded (d ≥ 2, the weights bound); privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0 && noise_.configured(); }
  constexpr uint32_t domain() const { return d_; }
  constexpr uint32_t truncation() const { return truncation_; }
  constexpr unsigned component_bits() const { return component_bits_for(truncation_); }
  constexpr size_t report_bytes() const { return report_bytes_for(d_, truncation_); }
  constexpr uint64_t random_bits_per_report() const {
    return uint64_t{d_} * noise_.random_bits_per_report();
  }
  constexpr unsigned noise_bits() const { return noise_.random_bits_per_report(); }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  // One component: the discrete Laplace on [−T, T + 1] at ε/2.
  constexpr const DiscreteLaplace& noise() const { return noise_; }

  // Pr[y_i = y | x_i = x] · 2^B for x ∈ {0, 1} and y ∈ [−T, T + 1] (0 outside), from the
  // integer weights: interior outputs w_|y−x|, the two ends the folded sums.
  constexpr uint64_t probability(uint32_t x, int32_t y) const {
    const uint32_t width = 2 * truncation_ + 1;
    const int64_t j64 = int64_t{y} + truncation_;  // output offset from −T
    if (x > 1 || j64 < 0 || j64 > int64_t{width}) return 0;
    const auto j = static_cast<uint32_t>(j64);
    const uint32_t s = x + truncation_;  // input offset from −T
    if (j > 0 && j < width) return noise_.weight(j > s ? j - s : s - j);
    uint64_t c = j == 0 ? noise_.tail_low() : noise_.tail_high();
    for (uint32_t k = j == 0 ? s : width - s; k < width; ++k) c += noise_.weight(k);
    return c;
  }

  // On the wire (wire.hpp): id she; the payload is component i's y_i + T (0 … 2T + 1) in
  // component_bits() bits at bit i·component_bits(), LSB first; the digest covers d, T, the
  // noise precision B and the realized ε (the weights follow from ε/2, the range and B).
  constexpr wire::Description description() const {
    return {wire::MechanismId::she, static_cast<uint32_t>(d_ * component_bits()),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::she))
                .u32(d_)
                .u32(truncation_)
                .byte(static_cast<uint8_t>(noise_bits()))
                .u64(realized_.q32)
                .value()};
  }
  // Component i of a payload as written (y_i + T; may exceed 2T + 1 in a forged payload).
  constexpr uint32_t shifted_component(const uint8_t* payload, uint32_t i) const {
    const unsigned k = component_bits();
    const uint64_t first = uint64_t{i} * k;
    uint32_t v = 0;
    for (unsigned b = 0; b < k; ++b) {
      const uint64_t at = first + b;
      v |= static_cast<uint32_t>((payload[at / 8] >> (at % 8)) & 1u) << b;
    }
    return v;
  }
  constexpr int32_t component(const uint8_t* payload, uint32_t i) const {
    return static_cast<int32_t>(int64_t{shifted_component(payload, i)} - truncation_);
  }

  // Writes report_bytes() bytes (the payload above). The value picks no branch and no address:
  // every component runs the same noise scan on x_i = [i == v], computed without branches.
  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, uint8_t* report, size_t report_size) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    const size_t n = report_bytes();
    if (refuse_small_buffer(report, report_size, n)) return Status::buffer_too_small;
    clear_report(report, n);  // the components are ORed in
    const uint32_t in_domain = ct::less(value, d_);
    const unsigned k = component_bits();
    // Component i's first bit, i·k, as a running sum: a product here is a long multiply (UMULL,
    // variable latency on Cortex-M3; __aeabi_lmul on M0) wherever k is not a compile-time
    // constant, i.e. in every context configured at run time.
    uint64_t first = 0;
    for (uint32_t i = 0; i < d_; ++i, first += k) {
      // x_i + T: x_i ∈ {0, 1}, so the offset into the noise's range [−T, T + 1] is always in it.
      const uint32_t x = ct::is_zero(i ^ value);
      const uint32_t shifted = noise_.noisy_offset(uint64_t{x} + truncation_, rng) & ct::mask(in_domain);
      for (unsigned b = 0; b < k; ++b) {
        const uint64_t at = first + b;
        report[at / 8] = static_cast<uint8_t>(report[at / 8] | (((shifted >> b) & 1u) << (at % 8)));
      }
    }
    return release_in_place<stack_scrub_bytes(272)>(rng, in_domain, report, n);
  }

 private:
  template <size_t Entries>
  friend class SummationHistogramTable;

  // max_y Pr[y|1]/Pr[y|0] and max_y Pr[y|0]/Pr[y|1], each attained, from the integers used;
  // their product's ln, rounded up, is the loss between any two values.
  constexpr Status compute_realized(Epsilon requested) {
    using detail::Wide;
    uint64_t up_num = 1, up_den = 1, down_num = 1, down_den = 1;
    for (int64_t y = -int64_t{truncation_}; y <= int64_t{truncation_} + 1; ++y) {
      const uint64_t one = probability(1, static_cast<int32_t>(y));
      const uint64_t none = probability(0, static_cast<int32_t>(y));
      if (one == 0 || none == 0) return Status::precision_too_low;
      if (Wide::from(one) * Wide::from(up_den) > Wide::from(up_num) * Wide::from(none)) {
        up_num = one;
        up_den = none;
      }
      if (Wide::from(none) * Wide::from(down_den) > Wide::from(down_num) * Wide::from(one)) {
        down_num = none;
        down_den = one;
      }
    }
    Epsilon realized{};
    if (!ln_upper_bound(Wide::from(up_num) * Wide::from(down_num),
                        Wide::from(up_den) * Wide::from(down_den), realized))
      return Status::precision_too_low;
    // As for the discrete Laplace: never met in practice, kept so that the claim is always ≤
    // the request.
    if (requested < realized) return Status::precision_too_low;
    realized_ = realized;
    return Status::ok;
  }
  constexpr SummationHistogram with_table(const uint64_t* table) const {
    SummationHistogram r = *this;
    r.noise_ = noise_.with_table(table);
    return r;
  }

  DiscreteLaplace noise_{};
  uint32_t d_ = 0;
  uint32_t truncation_ = 0;
  Epsilon realized_{};
};

// Compile-time SHE: the compiler computes the weights and ε, the table lives in flash.
//   constexpr tinyldp::Epsilon eps = tinyldp::Epsilon::from_double(1.0);
//   static constexpr auto she = tinyldp::SummationHistogramTable<
//       tinyldp::SummationHistogram::table_entries(
//           tinyldp::SummationHistogram::default_truncation(eps))>::make(eps, 16);
//   constexpr tinyldp::SummationHistogram m = she.bind();  // points into `she`: keep it static
// Entries must equal table_entries(T) for the T used, or the build fails.
template <size_t Entries>
class SummationHistogramTable {
 public:
  static consteval SummationHistogramTable make(
      Epsilon eps, uint32_t d, uint32_t truncation = SummationHistogram::use_default_truncation,
      unsigned noise_bits = 0) {
    SummationHistogramTable t;
    const uint32_t used = truncation == SummationHistogram::use_default_truncation
                              ? SummationHistogram::default_truncation(eps)
                              : truncation;
    detail::require_ok(SummationHistogram::table_entries(used) == Entries ? Status::ok
                                                                          : Status::buffer_too_small);
    SummationHistogram configured;
    detail::require_ok(SummationHistogram::configure(eps, d, t.weights_, Entries, configured,
                                                     used, noise_bits));
    t.parameters_ = configured.with_table(nullptr);
    return t;
  }
  constexpr SummationHistogram bind() const { return parameters_.with_table(weights_); }

 private:
  uint64_t weights_[Entries] = {};
  SummationHistogram parameters_{};
};

class ThresholdHistogram {
 public:
  static constexpr uint32_t max_domain = UnaryEncoding::max_domain;
  // θ = theta_numerator() / theta_denominator, chosen among 33/64 … 63/64.
  static constexpr uint32_t theta_denominator = 64;

  static constexpr Status configure(Epsilon eps, uint32_t d, ThresholdHistogram& out,
                                    Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    if (d < 2 || d > max_domain) return Status::bad_parameter;
    using detail::Wide;
    // θ: the least variance q(1−q)/(p−q)² on the grid, from 64-bit safe (p, q); first on ties.
    uint32_t best = 0;
    Wide best_p{}, best_q{};
    for (uint32_t j = theta_denominator / 2 + 1; j < theta_denominator; ++j) {
      const Wide p = Wide::from(safe_p(eps, j, 64)), q = Wide::from(safe_q(eps, j, 64));
      if (p <= q) continue;
      const Wide full = detail::scale(64);
      if (best == 0 || q * (full - q) * (best_p - best_q) * (best_p - best_q) <
                           best_q * (full - best_q) * (p - q) * (p - q)) {
        best = j;
        best_p = p;
        best_q = q;
      }
    }
    if (best == 0) return Status::bad_epsilon;  // ε so small that no θ separates p from q
    // The device's (p, q) at the requested precision: safe, then at most tolerance's worth of ε
    // further on the safe side, to the value with the fewest bits. Moving p by δ changes
    // ln(p/(1−p)) by ≈ δ/(p(1−p)): half the tolerance goes to p, half to q.
    const unsigned b = precision.max_bits;
    const uint64_t p_safe = safe_p(eps, best, b), q_safe = safe_q(eps, best, b);
    const uint64_t p_slack = slack(p_safe, b, precision.tolerance_q32);
    const uint64_t q_slack = slack(q_safe, b, precision.tolerance_q32);
    const uint64_t p_num = detail::pick_at_most(p_safe, p_safe - p_slack);
    const uint64_t q_num = detail::pick_at_least(q_safe, q_safe + q_slack);
    ThresholdHistogram r;
    const Status s = UnaryEncoding::configure(make_dyadic(p_num, b), make_dyadic(q_num, b), d, r.ue_);
    if (s != Status::ok) return s;
    if (eps < r.ue_.realized_epsilon()) return Status::precision_too_low;  // cannot happen
    r.theta_ = best;
    out = r;
    return Status::ok;
  }

  static consteval ThresholdHistogram make(Epsilon eps, uint32_t d, Precision precision = {}) {
    ThresholdHistogram r;
    detail::require_ok(configure(eps, d, r, precision));
    return r;
  }

  // Set by a configure that succeeded; privatize refuses otherwise (UnaryEncoding's check).
  constexpr bool configured() const { return ue_.configured(); }
  constexpr uint32_t domain() const { return ue_.domain(); }
  constexpr uint32_t theta_numerator() const { return theta_; }
  constexpr Dyadic p() const { return ue_.p(); }
  constexpr Dyadic q() const { return ue_.q(); }
  constexpr Epsilon realized_epsilon() const { return ue_.realized_epsilon(); }
  constexpr size_t report_bytes() const { return ue_.report_bytes(); }
  constexpr uint64_t random_bits_per_report() const { return ue_.random_bits_per_report(); }
  // The unary encoding this is (its report, sampler and ε).
  constexpr const UnaryEncoding& unary() const { return ue_; }

  // On the wire (wire.hpp): id the; the payload is the UE report (d bits, bit i of byte i / 8);
  // the digest covers d, θ, p and q.
  constexpr wire::Description description() const {
    return {wire::MechanismId::the, ue_.domain(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::the))
                .u32(ue_.domain())
                .byte(static_cast<uint8_t>(theta_))
                .dyadic(ue_.p())
                .dyadic(ue_.q())
                .value()};
  }

  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, uint8_t* report, size_t report_size) const {
    return ue_.privatize(value, rng, report, report_size);
  }

 private:
  // 2^bits · ½·e^(−ε·j/128) rounded up: q at θ = j/64 (an upper bound: the exponent is
  // rounded down and e^x bounded from below).
  static constexpr uint64_t safe_q(Epsilon eps, uint32_t j, unsigned bits) {
    const detail::Wide L = exp_lower_bound(Epsilon{eps.q32 * j / (2 * theta_denominator)});
    return ceil_div(detail::scale(bits) * detail::one_fixed(), L.times(2)).low64();
  }
  // 2^bits · (1 − ½·e^(−ε(64 − j)/128)) rounded down: p at θ = j/64 (a lower bound).
  static constexpr uint64_t safe_p(Epsilon eps, uint32_t j, unsigned bits) {
    const detail::Wide L =
        exp_lower_bound(Epsilon{eps.q32 * (theta_denominator - j) / (2 * theta_denominator)});
    return (detail::scale(bits) - ceil_div(detail::scale(bits) * detail::one_fixed(), L.times(2))).low64();
  }
  // tolerance/2 of ε in numerator units: ⌊num·(2^bits − num)·tol_q32 / 2^(bits + 33)⌋.
  static constexpr uint64_t slack(uint64_t num, unsigned bits, uint64_t tolerance_q32) {
    using detail::Wide;
    return (Wide::from(num) * (detail::scale(bits) - Wide::from(num)) * Wide::from(tolerance_q32))
        .shr(static_cast<int>(bits) + 33)
        .low64();
  }

  UnaryEncoding ue_{};
  uint32_t theta_ = 0;
};

}  // namespace tinyldp

#endif
