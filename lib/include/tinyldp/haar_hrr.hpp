// SPDX-License-Identifier: Apache-2.0
// tinyldp/haar_hrr.hpp — HaarHRR (Cormode, Kulkarni, Srivastava, VLDB 2019): the Haar wavelet
// transform of a bounded integer v ∈ [lo, hi], one level per device, each through Hadamard
// randomized response — the mechanism for range queries, the CDF and quantiles at small ε (the
// collector inverts the transform, collector/wavelet_estimate.hpp).
//
// The d = hi − lo + 1 values are the leaves of a binary tree of D = 2^h ≥ d leaves (h ≥ 1). Level
// ℓ = 1 … h has 2^(ℓ−1) internal nodes, each with a Haar coefficient: (share in its left half) −
// (share in its right half). A value sits in one node per level, node = (v − lo) >> (h − ℓ + 1),
// on its left (sign bit s = 0) or right (s = 1) side: bit h − ℓ of v − lo. Each device reports one
// level, the same in every report: ℓ = 1 + a uniform draw below h from its memo key's device
// stream (as hierarchical_histogram.hpp's level; the report itself is fresh and charged ε). A
// report draws a uniform row j ∈ [0, 2^(ℓ−1)) (ℓ − 1 fresh bits), takes x = s XOR parity(j AND
// node) — the sign times the Hadamard entry H[j][node], as a bit — and sends {ℓ, j, binary RR(x)}.
// Level and row do not depend on the value, so the realized ε is the binary RR's; the value
// decides no branch and no address (shifts by public amounts, a folded parity).
// Payload: byte 0 the level ℓ, then j in h − 1 bits (LSB first; zero above its ℓ − 1) and the bit:
// 8 + h bits. A value outside [lo, hi], a failed draw, an unconfigured mechanism or an
// unprovisioned key: an all-zero payload (level 0, which no report has).
// Cost: context 40 bytes; report 8 + h bits (≤ 4 bytes); random bits per report ℓ − 1 + the RR's;
// the level from the key's device stream (a rejection draw: its time depends on the key, never
// the value; a block of the key's PRF, most of a report on a microcontroller — a firmware may keep
// level_of(key), which changes only with a re-key, and call privatize_at_level). Limits: 2 ≤ d ≤ 2^24. Run-time configure is BinaryRr's (≈ 1.3 KiB of stack;
// make(): none). Measured: docs/footprint.md, docs/target-costs.md.
#ifndef TINYLDP_HAAR_HRR_HPP
#define TINYLDP_HAAR_HRR_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

struct HaarReport {
  uint8_t level = 0;  // 1 … h (0: no report)
  uint32_t row = 0;   // j < 2^(level − 1)
  uint8_t bit = 0;    // the randomized sign · H[j][node]
};
constexpr void store_masked(HaarReport& report, HaarReport drawn, uint32_t mask) {
  store_masked(report.level, drawn.level, mask);
  report.row = drawn.row & mask;
  store_masked(report.bit, drawn.bit, mask);
}

class HaarHrr {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 24;

  // `attribute` (< 2^24) keys the device's level, as hierarchical_histogram.hpp's.
  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, HaarHrr& out, Precision precision = {},
                                    uint32_t attribute = 0) {
    const int64_t d = int64_t{hi} - int64_t{lo} + 1;
    if (d < 2 || d > int64_t{max_domain} || attribute > max_memo_attribute) return Status::bad_parameter;
    BinaryRr rr;
    if (const Status s = BinaryRr::configure(eps, rr, precision); s != Status::ok) return s;
    out.rr_ = rr;
    out.lo_ = lo;
    out.d_ = static_cast<uint32_t>(d);
    out.levels_ = static_cast<uint8_t>(wire::bits_for_values(out.d_));
    out.attribute_ = attribute;
    return Status::ok;
  }
  static consteval HaarHrr make(Epsilon eps, int32_t lo, int32_t hi, Precision precision = {},
                                uint32_t attribute = 0) {
    return detail::configured<HaarHrr>([&](auto& r) { return configure(eps, lo, hi, r, precision, attribute); });
  }

  constexpr bool configured() const { return d_ != 0; }
  constexpr int32_t low() const { return lo_; }
  constexpr int32_t high() const { return static_cast<int32_t>(int64_t{lo_} + d_ - 1); }
  constexpr uint32_t domain() const { return d_; }
  constexpr uint32_t levels() const { return levels_; }  // h: D = 2^h leaves
  constexpr uint32_t attribute() const { return attribute_; }
  constexpr uint32_t memo_attribute_word() const { return memo_attribute(wire::MechanismId::haar_hrr, attribute_); }
  // The internal nodes of `level` (1 … h): 2^(ℓ − 1), and the rows a report of it draws from.
  constexpr uint32_t nodes(uint32_t level) const { return uint32_t{1} << (level - 1u); }
  constexpr const BinaryRr& randomizer() const { return rr_; }
  constexpr Epsilon realized_epsilon() const { return rr_.realized_epsilon(); }
  // What a report of `level` draws (its row's ℓ − 1 bits and the RR's), and the most of any level (h's).
  constexpr unsigned random_bits_at(uint32_t level) const { return level - 1u + rr_.random_bits_per_report(); }
  constexpr unsigned random_bits_per_report() const { return random_bits_at(levels_); }

  // On the wire (wire.hpp): id haar_hrr, the payload above; the digest covers lo, hi, the
  // attribute and the RR's p.
  using Report = HaarReport;
  constexpr uint32_t payload_bits() const { return 8u + levels_; }
  constexpr size_t report_bytes() const { return (size_t{payload_bits()} + 7) / 8; }
  constexpr wire::Description description() const {
    return {wire::MechanismId::haar_hrr, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::haar_hrr))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .u32(attribute_)
                .dyadic(rr_.keep_probability())
                .value()};
  }
  constexpr void pack(const Report& r, uint8_t* payload) const {
    payload[0] = r.level;
    wire::pack_bits(uint64_t{r.row} | (uint64_t{r.bit} << (levels_ - 1u)), levels_, payload + 1);
  }
  constexpr Report unpack(const uint8_t* payload) const {
    const uint64_t bits = wire::unpack_bits(payload + 1, levels_);
    return {payload[0], static_cast<uint32_t>(bits & ((uint64_t{1} << (levels_ - 1u)) - 1u)),
            static_cast<uint8_t>(bits >> (levels_ - 1u))};
  }

  // The device's level, 1 … h: uniform, from its memo key's device stream for this attribute.
  template <MemoKey Key>
  uint32_t level_of(const Key& key) const {
    return detail::device_level(key, memo_attribute_word(), levels_);
  }

  // A report of `value` ∈ [lo, hi] at the device's level, the row and the RR fresh from rng: the
  // typed report, and the wire payload in the caller's buffer (fail_closed.hpp).
  template <MemoKey Key, class Rng>
  Status privatize(int32_t value, const Key& key, Rng& rng, Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    if (refuse_unprovisioned(key, report)) return Status::key_not_provisioned;
    return privatize_at_level(value, level_of(key), rng, report);
  }
  template <MemoKey Key, class Rng>
  Status privatize(int32_t value, const Key& key, Rng& rng, uint8_t* report, size_t report_size) const {
    return detail::privatize_packed(*this, report, report_size, [&](Report& r) __attribute__((always_inline)) {
      return privatize(value, key, rng, r);
    });
  }

  // The same at a level given (1 … h; else bad_parameter, the report zeroed): for the tests and
  // for a caller that assigns levels some other way (each level must be independent of the value).
  template <class Rng>
  Status privatize_at_level(int32_t value, uint32_t level, Rng& rng, Report& report) const {
    if (!configured()) return refuse_unconfigured(report);
    if (level < 1 || level > levels_) {
      report = Report{};
      return Status::bad_parameter;
    }
    const detail::InRange in = detail::in_range_or_low(value, lo_, d_ - 1u);
    const auto offset = static_cast<uint32_t>(int64_t{in.value} - lo_);
    const unsigned below = levels_ - level;  // the node's half holds 2^below leaves
    const uint32_t node = offset >> (below + 1u);
    const uint32_t sign = (offset >> below) & 1u;
    const auto row = static_cast<uint32_t>(rng.draw(level - 1u));
    const uint8_t bit = rr_.randomize(sign ^ hadamard_bit(row, node), rng);
    return release<stack_scrub_bytes(96)>(rng, in.in_domain, Report{static_cast<uint8_t>(level), row, bit}, report);
  }
  template <class Rng>
  Status privatize_at_level(int32_t value, uint32_t level, Rng& rng, uint8_t* report, size_t report_size) const {
    return detail::privatize_packed(*this, report, report_size, [&](Report& r) __attribute__((always_inline)) {
      return privatize_at_level(value, level, rng, r);
    });
  }

 private:
  BinaryRr rr_{};
  int32_t lo_ = 0;
  uint32_t d_ = 0;
  uint32_t attribute_ = 0;
  uint8_t levels_ = 0;
};

}  // namespace tinyldp

#endif
