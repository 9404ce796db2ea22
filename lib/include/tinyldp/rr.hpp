// SPDX-License-Identifier: Apache-2.0
// tinyldp/rr.hpp — binary randomized response (Warner): report the true bit with
// probability p = e^ε/(e^ε+1), else its complement.
//
// Realized p is a Dyadic rounded down, so p/(1−p) ≤ e^ε; realized_epsilon() is ln(p/(1−p))
// from those integers, rounded up to 2^-32. The bit decides nothing: the report is
// bit ^ ¬Bernoulli(p), branch-free.
// Cost: context 24 bytes; report 1 bit (one byte here); random bits per report =
// keep_probability().bits (≤ 64; 1–25 at the default precision). Run-time configure needs
// ≈ 1.3 KiB of stack for its 384-bit temporaries — configure with make() at compile time to
// avoid it. Measured: docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
// Estimator (collector): x̃ = (s + pN − N)/(2p − 1), Var = N·p(1−p)/(2p−1)².
#ifndef TINYLDP_RR_HPP
#define TINYLDP_RR_HPP

#include <stdint.h>

#include "tinyldp/bernoulli.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class BinaryRr : public detail::PackedPrivatize<BinaryRr, uint32_t> {
 public:
  static constexpr Status configure(Epsilon eps, BinaryRr& out, Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    return from_keep_probability(detail::keep_at_most(eps, detail::loosened(eps, precision), precision.max_bits), out);
  }

  // Uses p as given (p in [1/2, 1)); the realized ε follows from it.
  static constexpr Status from_keep_probability(Dyadic p, BinaryRr& out) {
    if (p.bits == 0) return Status::precision_too_low;  // p ∈ {0, 1}: not a valid mechanism
    const detail::Wide num = detail::Wide::from(p.num);
    const detail::Wide rest = detail::scale(p.bits) - num;
    if (num < rest) return Status::bad_parameter;  // p < 1/2
    Epsilon realized;
    if (!detail::realized_epsilon_of(num, rest, realized)) return Status::bad_epsilon;
    out.keep_ = p;
    out.realized_ = realized;
    return Status::ok;
  }

  static consteval BinaryRr make(Epsilon eps, Precision precision = {}) {
    return detail::configured<BinaryRr>([&](auto& r) { return configure(eps, r, precision); });
  }

  // Set by a configure that succeeded (p has at least one bit); privatize refuses otherwise.
  constexpr bool configured() const { return keep_.bits != 0; }
  constexpr Dyadic keep_probability() const { return keep_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr unsigned random_bits_per_report() const { return keep_.bits; }

  // On the wire (wire.hpp): id rr, a 1-bit payload, the digest covers p.
  using Report = uint8_t;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return 1; }
  constexpr wire::Description description() const {
    return {wire::MechanismId::rr, payload_bits(),
            wire::Digest().byte(static_cast<uint8_t>(wire::MechanismId::rr)).dyadic(keep_).value()};
  }
  constexpr void pack(Report report, uint8_t* payload) const { payload[0] = report; }
  static constexpr Report unpack(const uint8_t* payload) { return payload[0] & 1u; }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  // report ← bit with probability p, else 1 − bit. bit must be 0 or 1.
  template <class Rng>
  Status privatize(uint32_t bit, Rng& rng, uint8_t& report) const {
    if (!configured()) return refuse_unconfigured(report);
    return release<stack_scrub_bytes(0)>(rng, ct::less(bit, 2), randomize(bit, rng), report);
  }

  // The RR step alone, for mechanisms that randomize an internal bit (Hadamard response): the
  // kept or flipped bit, without the fail-closed end (the caller's report has one).
  template <class Rng>
  uint8_t randomize(uint32_t bit, Rng& rng) const {
    const uint32_t keep = bernoulli(keep_, rng);
    return static_cast<uint8_t>(bit ^ keep ^ 1u);
  }

 private:
  Dyadic keep_{};
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
