// SPDX-License-Identifier: Apache-2.0
// tinyldp/hadamard_response.hpp — 1-bit Hadamard response over {0, …, d−1}.
//
// With K the smallest power of two ≥ d, a report draws a uniform row j ∈ [0, K) (exactly
// log2 K bits), takes the Hadamard entry of (j, v) as a bit, x = parity(popcount(j AND v)),
// and sends {j, binary RR(x)}. The row is independent of the value, so the realized ε is the
// binary RR's. Branch-free in the value.
// Cost: context 32 bytes; report log2 K + 1 bits; random bits per report = log2 K + the RR's.
// Run-time configure needs ≈ 1.3 KiB of stack (make() at compile time: none). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
// Estimator (collector): item i is supported when the bit equals parity(j AND i); then
// Pr[support | v = i] = p and Pr[support | v ≠ i] = 1/2 exactly, so ĉ(i) = (C(i) − n/2)/(p − 1/2).
#ifndef TINYLDP_HADAMARD_RESPONSE_HPP
#define TINYLDP_HADAMARD_RESPONSE_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/rr.hpp"

namespace tinyldp {

struct HadamardReport {
  uint32_t row = 0;  // j in [0, K)
  uint8_t bit = 0;
};
constexpr void store_masked(HadamardReport& report, HadamardReport drawn, uint32_t mask) {
  report.row = drawn.row & mask;
  store_masked(report.bit, drawn.bit, mask);
}

constexpr uint32_t hadamard_bit(uint32_t row, uint32_t value) {
  uint32_t x = row & value;  // parity by folding: no table, no branch
  x ^= x >> 16;
  x ^= x >> 8;
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1u;
}

class HadamardResponse : public detail::PackedPrivatize<HadamardResponse, uint32_t> {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 30;

  static constexpr Status configure(Epsilon eps, uint32_t d, HadamardResponse& out,
                                    Precision precision = {}) {
    if (d < 2 || d > max_domain) return Status::bad_parameter;
    BinaryRr rr;
    const Status s = BinaryRr::configure(eps, rr, precision);
    if (s != Status::ok) return s;
    unsigned log_k = 0;
    while ((uint32_t{1} << log_k) < d) ++log_k;
    out.d_ = d;
    out.log_k_ = log_k;
    out.rr_ = rr;
    return Status::ok;
  }
  static consteval HadamardResponse make(Epsilon eps, uint32_t d, Precision precision = {}) {
    return detail::configured<HadamardResponse>(
        [&](auto& r) { return configure(eps, d, r, precision); });
  }

  // Set by a configure that succeeded (d ≥ 2); privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0; }
  constexpr uint32_t domain() const { return d_; }
  constexpr unsigned row_bits() const { return log_k_; }
  constexpr const BinaryRr& randomizer() const { return rr_; }
  constexpr Epsilon realized_epsilon() const { return rr_.realized_epsilon(); }
  constexpr unsigned random_bits_per_report() const {
    return log_k_ + rr_.random_bits_per_report();
  }

  // On the wire (wire.hpp): id hr, the row (log2 K bits) then the bit; the digest covers d and
  // the bit's p.
  using Report = HadamardReport;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return log_k_ + 1u; }
  constexpr wire::Description description() const {
    return {wire::MechanismId::hr, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::hr))
                .u32(d_)
                .dyadic(rr_.keep_probability())
                .value()};
  }
  constexpr void pack(const Report& r, uint8_t* payload) const {
    wire::pack_bits(uint64_t{r.row} | (uint64_t{r.bit} << log_k_), log_k_ + 1u, payload);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    const uint64_t bits = wire::unpack_bits(payload, log_k_ + 1u);
    return {static_cast<uint32_t>(bits & ((uint64_t{1} << log_k_) - 1)),
            static_cast<uint8_t>(bits >> log_k_)};
  }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, HadamardReport& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = ct::less(value, d_);
    const uint32_t row = static_cast<uint32_t>(rng.draw(log_k_));
    const uint8_t bit = rr_.randomize(hadamard_bit(row, value), rng);
    return release<stack_scrub_bytes(84)>(rng, in_domain, HadamardReport{row, bit}, report);
  }

 private:
  uint32_t d_ = 0;
  unsigned log_k_ = 0;
  BinaryRr rr_{};
};

}  // namespace tinyldp

#endif
