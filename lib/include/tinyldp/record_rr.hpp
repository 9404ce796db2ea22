// SPDX-License-Identifier: Apache-2.0
// tinyldp/record_rr.hpp — a record of d categorical attributes in one memoized report (the
// RR-LDP of the seed paper, its algorithm 1): attribute j's value goes through its own
// memoized two-stage RR over a one-hot encoding of its domain (two_stage_rr.hpp, with j in
// the memo's PRF input), and the d encodings are concatenated bit by bit into one report.
//
// Why: a collector that wants the joint distribution of attributes needs them in one report
// (separate reports cannot be linked back into records without an identifier).
//
// Privacy, exact from the integers each attribute samples with. Two records may differ in
// every attribute, and the attributes' channels are independent, so the worst likelihood
// ratio of a record report is the product of the attributes' worst ratios:
//   ε₁ (one report)                       = Σ_j ε₁(j)   (d · ε₁ for a common channel)
//   ε∞ (unlimited reports of one record)  = Σ_j ε∞(j)
// Each term is rounded up on the 2^-32 grid, so the sums are upper bounds, tight to d · 2^-32.
// The IRR is post-processing of the memos: ε∞ bounds every report of a fixed record (no ε₂
// on top). A record that changes in m_j values of attribute j over a device's life spends at
// most Σ_j m_j · ε∞(j).
//
// Layout: attribute 0's k_0 bits first, then attribute 1's, …: bit o_j + i of the report
// (byte (o_j + i) / 8, bit (o_j + i) % 8; o_j = k_0 + … + k_{j−1}) is bit i of attribute j's
// two-stage report. ⌈Σ k_j / 8⌉ bytes, caller-owned.
// Fail closed: every attribute is drawn (the same bits whatever the values); if any value is
// out of its domain or a draw failed, the whole report is zero and the first such status is
// returned.
// Cost: context d_max · sizeof(TwoStageRr) (128 bytes) + 24; random bits per report the sum of
// the attributes'; stack: one attribute's memo stream at a time.
#ifndef TINYLDP_RECORD_RR_HPP
#define TINYLDP_RECORD_RR_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp {

template <uint32_t MaxAttributes>
class RecordRr {
  static_assert(MaxAttributes >= 1 && MaxAttributes <= 256, "1 to 256 attributes");

 public:
  static constexpr uint32_t max_attributes = MaxAttributes;
  static constexpr uint32_t max_record_bits = uint32_t{1} << 20;

  // From the attributes' own channels: attribute j must be a one-hot TwoStageRr whose
  // encoding names attribute j. Its memos are keyed by (record_rr, j) (memo.hpp): a record's,
  // not those of a stand-alone report of attribute j.
  static constexpr Status configure(const TwoStageRr* attributes, uint32_t d, RecordRr& out) {
    if (attributes == nullptr || d == 0 || d > MaxAttributes) return Status::bad_parameter;
    RecordRr r;
    uint64_t bits = 0;
    for (uint32_t j = 0; j < d; ++j) {
      const TwoStageRr& a = attributes[j];
      if (a.encoding().kind != MemoEncoding::one_hot || a.encoding().attribute != j)
        return Status::bad_parameter;
      bits += a.bits();
      if (bits > max_record_bits) return Status::bad_parameter;
      if (!add(r.eps_one_, a.epsilon_one()) || !add(r.eps_inf_, a.epsilon_infinity()))
        return Status::bad_epsilon;
      r.attr_[j] = a.memoized_as(wire::MechanismId::record_rr);  // a record's own memos
    }
    r.d_ = d;
    r.bits_ = static_cast<uint32_t>(bits);
    out = r;
    return Status::ok;
  }

  // The paper's setting: RAPPOR's (f, p, q) for every attribute; domain_sizes[j] = |Ω_j| ≥ 2.
  static constexpr Status configure_rappor(Dyadic f, Dyadic p, Dyadic q, const uint32_t* domain_sizes,
                                           uint32_t d, RecordRr& out) {
    if (domain_sizes == nullptr || d == 0 || d > MaxAttributes) return Status::bad_parameter;
    TwoStageRr attributes[MaxAttributes];
    for (uint32_t j = 0; j < d; ++j) {
      const Status s = TwoStageRr::configure_rappor(f, p, q, TwoStageRr::one_hot(domain_sizes[j], j),
                                                    attributes[j]);
      if (s != Status::ok) return s;
    }
    return configure(attributes, d, out);
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0; }
  constexpr uint32_t attributes() const { return d_; }
  constexpr const TwoStageRr& attribute(uint32_t j) const { return attr_[j]; }
  constexpr uint32_t record_bits() const { return bits_; }
  // Where attribute j's bits start in the report.
  constexpr uint32_t bit_offset(uint32_t j) const {
    uint32_t o = 0;
    for (uint32_t i = 0; i < j && i < d_; ++i) o += attr_[i].bits();
    return o;
  }
  constexpr size_t report_bytes() const { return (size_t{bits_} + 7) / 8; }
  constexpr Epsilon epsilon_one() const { return eps_one_; }
  constexpr Epsilon epsilon_infinity() const { return eps_inf_; }
  constexpr Epsilon realized_epsilon() const { return eps_one_; }
  constexpr uint64_t memo_bits_per_report() const {
    uint64_t n = 0;
    for (uint32_t j = 0; j < d_; ++j) n += attr_[j].memo_bits_per_report();
    return n;
  }
  constexpr uint64_t random_bits_per_report() const {
    uint64_t n = 0;
    for (uint32_t j = 0; j < d_; ++j) n += attr_[j].random_bits_per_report();
    return n;
  }

  // On the wire: id record_rr; the payload is the record's bits; the digest covers the id, d
  // and every attribute's own description digest (its encoding, attribute index and channel).
  constexpr wire::Description description() const {
    wire::Digest digest;
    digest.byte(static_cast<uint8_t>(wire::MechanismId::record_rr)).u32(d_);
    for (uint32_t j = 0; j < d_; ++j) digest.u32(attr_[j].description().digest);
    return {wire::MechanismId::record_rr, bits_, digest.value()};
  }

  // A report of the record values[0 … d − 1], each attribute's memo keyed by `key` and its
  // index. Writes report_bytes() bytes.
  template <MemoKey Key, class Rng>
  Status privatize(const uint32_t* values, const Key& key, Rng& rng, uint8_t* report,
                   size_t report_size) const {
    if (refuse_unprovisioned(key, report, report_size < report_bytes() ? report_size : report_bytes()))
      return Status::key_not_provisioned;
    return each_attribute(values, report, report_size, [&](uint32_t j, uint8_t* at, size_t room) {
      return attr_[j].privatize(values[j], key, rng, at, room);
    });
  }

  // The same with one memo random source for all attributes in turn (attribute 0's memo draws
  // first): for the exhaustive privacy tests, which enumerate it.
  template <class MemoRng, class Rng>
  Status privatize_with_memo(const uint32_t* values, MemoRng& memo, Rng& rng, uint8_t* report,
                             size_t report_size) const {
    return each_attribute(values, report, report_size, [&](uint32_t j, uint8_t* at, size_t room) {
      return attr_[j].privatize_with_memo(values[j], 0, memo, rng, at, room);
    });
  }

 private:
  static constexpr bool add(Epsilon& sum, Epsilon e) {
    if (sum.q32 > ~uint64_t{0} - e.q32) return false;
    sum.q32 += e.q32;
    return true;
  }

  // Runs one attribute's report into place: it is written at the byte holding its first bit
  // (the earlier attributes' bits in that byte saved), then moved up by the offset's bit
  // remainder (public) and the saved bits put back. A write at byte ⌊o/8⌋ of ⌈k/8⌉ bytes ends
  // within the record's ⌈(o + k)/8⌉ bytes, so the caller's buffer suffices.
  template <class One>
  Status each_attribute(const uint32_t* values, uint8_t* report, size_t report_size, One one) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    const size_t n = report_bytes();
    if (values == nullptr || refuse_small_buffer(report, report_size, n)) {
      if (report != nullptr) clear_report(report, report_size < n ? report_size : n);
      return values == nullptr ? Status::bad_parameter : Status::buffer_too_small;
    }
    uint32_t first = 0;  // the first non-ok status, as an integer (0 = ok)
    uint32_t offset = 0;
    for (uint32_t j = 0; j < d_; ++j) {
      const uint32_t byte = offset / 8, shift = offset % 8;
      const uint32_t bytes = (attr_[j].bits() + 7) / 8;
      const uint8_t kept = static_cast<uint8_t>(report[byte] & ((1u << shift) - 1u));
      const Status s = one(j, report + byte, n - byte);
      const uint32_t code = static_cast<uint32_t>(s);
      first |= code & ct::mask(ct::is_zero(first));
      if (shift != 0) {  // move bits up by `shift` (configuration, not private)
        const uint32_t last = (offset + attr_[j].bits() - 1) / 8;
        uint8_t carry = 0;
        for (uint32_t i = byte; i <= last; ++i) {
          const uint8_t b = i < byte + bytes ? report[i] : 0;
          report[i] = static_cast<uint8_t>((b << shift) | carry);
          carry = static_cast<uint8_t>(b >> (8 - shift));
        }
        report[byte] |= kept;
      }
      offset += attr_[j].bits();
    }
    // Nothing partial escapes: a record with any failure is all zero.
    const uint8_t keep = static_cast<uint8_t>(ct::mask(ct::is_zero(first)));
    for (size_t i = 0; i < n; ++i) report[i] &= keep;
    return static_cast<Status>(first);
  }

  TwoStageRr attr_[MaxAttributes]{};
  uint32_t d_ = 0, bits_ = 0;
  Epsilon eps_one_{}, eps_inf_{};
};

}  // namespace tinyldp

#endif
