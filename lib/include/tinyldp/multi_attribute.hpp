// SPDX-License-Identifier: Apache-2.0
// tinyldp/multi_attribute.hpp — a record of d categorical attributes, one-way marginals
// wanted, without memo: the three standard protocols (Arcolezi et al., CIKM 2021), each over
// GRR (k-RR) or OUE per attribute (attribute_slot.hpp).
//
//  SPL  (SplitRecord)      every attribute reported, each with ε/d (the budget split);
//  SMP  (SampledAttribute) one attribute j drawn uniformly per report, reported with the whole
//                          ε; the report carries j;
//  RS+FD (FakeDataRecord)  one attribute j drawn uniformly, reported with the amplified
//                          ε' = ln(d·(e^ε − 1) + 1); every other attribute is fake data (GRR:
//                          a uniform value; OUE: the zero vector or a uniform one-hot vector
//                          through OUE at ε'); j is *not* in the report.
//
// Privacy, exact from the integers the slots sample with (rounded up to 2^-32):
//  SPL   ε per report = Σ_j ε_j ≤ ε (each ε_j ≤ ⌊ε·2^32/d⌋/2^32).
//  SMP   ε per report = max_j ε_j ≤ ε (the index is independent of the record).
//  RS+FD two figures, because the paper's ε is not a bound for whole records:
//        epsilon_attribute(): records that differ in one attribute — the paper's guarantee;
//          for a common domain it is ln((d − 1 + e^ε')/d) = ε, in general it is computed
//          (GRR: max_j ln((Q + k_j(p_j − q_j))/Q), Q = Σ_i k_i q_i; OUE-z:
//          ln((d − 1 + e^ε')/d); OUE-r: a fixed-point upper bound of its ratio, tight to
//          2^-60).
//        realized_epsilon(): any two records, the local-DP bound — the likelihood of a report
//          is ∝ Σ_j w_j(y_j | x_j), and records that differ in every attribute move every term
//          to its extreme at once: GRR ln(Σ_j k_j p_j / Σ_j k_j q_j), OUE ε' itself.
//        (tests/privacy/test_exhaustive_multi_attribute enumerates every random string and
//        finds both, tight.)
//  None keeps a memo: every report spends its ε again — n reports of one record cost n × ε.
//
// Layout of the payload (LSB first): SPL and RS+FD the d slots in attribute order (GRR
// ⌈log2 k_j⌉ bits each, packed; OUE ⌈k_j/8⌉ bytes each); SMP one byte with j, then slot j
// (GRR: max_j ⌈log2 k_j⌉ bits, OUE: max_j ⌈k_j/8⌉ bytes; its bits above k_j are 0).
// Fail closed: every value of the record is checked (a mask, not a branch); one out of its
// domain, a short buffer or an entropy failure leaves a zero payload and the status.
// Random bits: SPL the sum of the slots'; SMP ⌈log2 d⌉ per try of the index, then slot j's;
// RS+FD the index, then every slot's, with fake data's uniform draws. Which attribute RS+FD
// sampled decides neither a branch nor an address: every slot draws both its true and its
// fake report. SMP's index is public (it is in the report), so only slot j runs.
// Cost: context MaxAttributes × slot (40 bytes GRR, 48 OUE) + 16 bytes, RS+FD + 48 bytes
// (tests/core/test_context_sizes); configure is configuration-time arithmetic (RS+FD: three ln
// bounds over 384-bit integers, ≈ 100 exp series: make() at compile time on a device).
#ifndef TINYLDP_MULTI_ATTRIBUTE_HPP
#define TINYLDP_MULTI_ATTRIBUTE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/attribute_slot.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/fail_closed.hpp"

namespace tinyldp {

namespace detail {

// The attributes' slots and their layout, shared by the three protocols.
template <class Slot, uint32_t MaxAttributes>
class AttributeSlots {
  static_assert(MaxAttributes >= 1 && MaxAttributes <= 256, "1 to 256 attributes");

 public:
  static constexpr uint32_t max_record_bits = uint32_t{1} << 20;

  static constexpr Status configure(Epsilon eps, const uint32_t* domains, uint32_t d, AttributeSlots& out,
                                    Precision precision) {
    if (domains == nullptr || d == 0 || d > MaxAttributes) return Status::bad_parameter;
    AttributeSlots s;
    uint64_t bits = 0;
    for (uint32_t j = 0; j < d; ++j) {
      const Status st = Slot::configure(eps, domains[j], s.slots_[j], precision);
      if (st != Status::ok) return st;
      bits += s.slots_[j].bits();
      if (bits > max_record_bits) return Status::bad_parameter;
    }
    s.d_ = d;
    s.bits_ = static_cast<uint32_t>(bits);
    out = s;
    return Status::ok;
  }

  constexpr uint32_t attributes() const { return d_; }
  constexpr const Slot& slot(uint32_t j) const { return slots_[j]; }
  constexpr uint32_t slot_bits() const { return bits_; }  // all slots
  constexpr uint32_t widest_slot_bits() const {
    uint32_t w = 0;
    for (uint32_t j = 0; j < d_; ++j) w = slots_[j].bits() > w ? slots_[j].bits() : w;
    return w;
  }
  constexpr uint32_t bit_offset(uint32_t j) const {
    uint32_t o = 0;
    for (uint32_t i = 0; i < j && i < d_; ++i) o += slots_[i].bits();
    return o;
  }
  // 1 if every value is in its attribute's domain, else 0 (no branch on the values).
  constexpr uint32_t in_domain(const uint32_t* values) const {
    uint32_t all = 1;
    for (uint32_t j = 0; j < d_; ++j) all &= ct::less(values[j], slots_[j].domain());
    return all;
  }
  constexpr wire::Digest digest(wire::MechanismId id) const {
    wire::Digest digest;
    digest.byte(static_cast<uint8_t>(id)).u32(d_);
    for (uint32_t j = 0; j < d_; ++j) digest.u32(slots_[j].digest());
    return digest;
  }

 private:
  Slot slots_[MaxAttributes]{};
  uint32_t d_ = 0, bits_ = 0;
};

constexpr wire::MechanismId multi_attribute_id(const GrrSlot*, wire::MechanismId grr, wire::MechanismId) {
  return grr;
}
constexpr wire::MechanismId multi_attribute_id(const OueSlot*, wire::MechanismId, wire::MechanismId oue) {
  return oue;
}

// Starts a record report: values and buffer checked, the payload zeroed. False: refused
// (status set, what there is of the buffer zeroed).
constexpr bool start_record(bool configured, const uint32_t* values, uint8_t* report,
                            size_t report_size, size_t n, Status& status) {
  if (!configured) {
    status = refuse_unconfigured(report, report_size);
    return false;
  }
  if (values == nullptr || refuse_small_buffer(report, report_size, n)) {
    if (report != nullptr) clear_report(report, report_size < n ? report_size : n);
    status = values == nullptr ? Status::bad_parameter : Status::buffer_too_small;
    return false;
  }
  clear_report(report, n);
  return true;
}

// Ends a record report: the drawn bits forgotten and ScrubBytes of stack scrubbed (each
// protocol's measured size, wipe.hpp); after an entropy failure the payload is zero and the
// status is the Rng's; else the payload is masked by in_domain.
template <size_t ScrubBytes, class Rng>
Status finish_record(Rng& rng, uint32_t in_domain, uint8_t* report, size_t n) {
  forget_drawn<ScrubBytes>(rng);
  if (!rng.ok()) {
    clear_report(report, n);
    return rng.status();
  }
  const uint8_t keep = static_cast<uint8_t>(ct::mask(in_domain));
  for (size_t i = 0; i < n; ++i) report[i] &= keep;
  return domain_status(in_domain);
}

// A record report, the same frame for the three protocols (configured: the record's own
// configured(), so a refusal follows it): start_record, then write() fills the
// zeroed payload of n bytes, then finish_record with every value's domain. Always inlined (the
// write too): each protocol's scrub is measured on the frame of its own privatize.
template <size_t ScrubBytes, class Slots, class Rng, class Write>
__attribute__((always_inline)) inline Status record_report(bool configured, const Slots& slots, const uint32_t* values,
                                                           Rng& rng, uint8_t* report, size_t report_size, size_t n,
                                                           Write write) {
  Status refused = Status::ok;
  if (!start_record(configured, values, report, report_size, n, refused)) return refused;
  write();
  return finish_record<ScrubBytes>(rng, slots.in_domain(values), report, n);
}

constexpr bool add_epsilon(Epsilon& sum, Epsilon e) {
  if (sum.q32 > ~uint64_t{0} - e.q32) return false;
  sum.q32 += e.q32;
  return true;
}

// ε' = ln(d·(e^ε − 1) + 1), rounded down on the grid (two steps under the smallest grid value
// whose exp bound reaches d·(⌊e^ε⌋ − 1) + 1, so e^ε' stays below d·(e^ε − 1) + 1).
constexpr bool amplified_epsilon(Epsilon eps, uint32_t d, Epsilon& out) {
  const Wide one = one_fixed();
  const Wide r = (exp_lower_bound(eps) - one).times(d) + one;
  Epsilon up;
  if (!ln_upper_bound(r, one, up) || up.q32 <= 2) return false;
  out = Epsilon{up.q32 - 2};
  return is_valid_epsilon(out);
}

}  // namespace detail

// SPL: every attribute with ε/d. Slot is GrrSlot (wire id spl_grr) or OueSlot (spl_oue).
template <class Slot, uint32_t MaxAttributes>
class SplitRecord {
  using Slots = detail::AttributeSlots<Slot, MaxAttributes>;

 public:
  static constexpr uint32_t max_attributes = MaxAttributes;
  static constexpr wire::MechanismId id =
      detail::multi_attribute_id(static_cast<const Slot*>(nullptr), wire::MechanismId::spl_grr,
                                 wire::MechanismId::spl_oue);

  static constexpr Status configure(Epsilon eps, const uint32_t* domains, uint32_t d, SplitRecord& out,
                                    Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    if (d == 0 || d > MaxAttributes) return Status::bad_parameter;
    const Epsilon share{eps.q32 / d};
    if (share < min_epsilon) return Status::epsilon_too_small;
    SplitRecord r;
    const Status s = Slots::configure(share, domains, d, r.slots_, precision);
    if (s != Status::ok) return s;
    for (uint32_t j = 0; j < d; ++j)
      if (!detail::add_epsilon(r.realized_, r.slots_.slot(j).realized_epsilon())) return Status::bad_epsilon;
    out = r;
    return Status::ok;
  }
  static consteval SplitRecord make(Epsilon eps, const uint32_t* domains, uint32_t d, Precision precision = {}) {
    return detail::configured<SplitRecord>([&](auto& r) { return configure(eps, domains, d, r, precision); });
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return slots_.attributes() != 0; }
  constexpr uint32_t attributes() const { return slots_.attributes(); }
  constexpr const Slot& slot(uint32_t j) const { return slots_.slot(j); }
  constexpr uint32_t bit_offset(uint32_t j) const { return slots_.bit_offset(j); }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr size_t report_bytes() const { return (size_t{slots_.slot_bits()} + 7) / 8; }
  // On the wire: the d slots; the digest covers the id, d and every slot's oracle digest.
  constexpr wire::Description description() const {
    return {id, slots_.slot_bits(), slots_.digest(id).value()};
  }

  template <class Rng>
  Status privatize(const uint32_t* values, Rng& rng, uint8_t* report, size_t report_size) const {
    return detail::record_report<stack_scrub_bytes(200)>(
        configured(), slots_, values, rng, report, report_size, report_bytes(), [&]() __attribute__((always_inline)) {
          for (uint32_t j = 0, offset = 0; j < attributes(); offset += slot(j).bits(), ++j)
            slot(j).write(values[j], rng, report, offset);
        });
  }

 private:
  Slots slots_{};
  Epsilon realized_{};
};

// SMP: one attribute, drawn uniformly, with the whole ε; its index is the payload's first byte.
template <class Slot, uint32_t MaxAttributes>
class SampledAttribute {
  using Slots = detail::AttributeSlots<Slot, MaxAttributes>;

 public:
  static constexpr uint32_t max_attributes = MaxAttributes;
  static constexpr uint32_t index_bits = 8;
  static constexpr wire::MechanismId id =
      detail::multi_attribute_id(static_cast<const Slot*>(nullptr), wire::MechanismId::smp_grr,
                                 wire::MechanismId::smp_oue);

  static constexpr Status configure(Epsilon eps, const uint32_t* domains, uint32_t d, SampledAttribute& out,
                                    Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    if (d < 2 || d > MaxAttributes) return Status::bad_parameter;
    SampledAttribute r;
    const Status s = Slots::configure(eps, domains, d, r.slots_, precision);
    if (s != Status::ok) return s;
    for (uint32_t j = 0; j < d; ++j)
      if (r.realized_ < r.slots_.slot(j).realized_epsilon()) r.realized_ = r.slots_.slot(j).realized_epsilon();
    out = r;
    return Status::ok;
  }
  static consteval SampledAttribute make(Epsilon eps, const uint32_t* domains, uint32_t d,
                                         Precision precision = {}) {
    return detail::configured<SampledAttribute>([&](auto& r) { return configure(eps, domains, d, r, precision); });
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return slots_.attributes() != 0; }
  constexpr uint32_t attributes() const { return slots_.attributes(); }
  constexpr const Slot& slot(uint32_t j) const { return slots_.slot(j); }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr uint32_t payload_bits() const { return index_bits + slots_.widest_slot_bits(); }
  constexpr size_t report_bytes() const { return (size_t{payload_bits()} + 7) / 8; }
  constexpr wire::Description description() const { return {id, payload_bits(), slots_.digest(id).value()}; }

  template <class Rng>
  Status privatize(const uint32_t* values, Rng& rng, uint8_t* report, size_t report_size) const {
    // 184 B: the deepest residue test_no_noise_left found on Cortex-M0 for SMP over OUE with the
    // device list's four attributes (issue #27; three attributes had found none).
    return detail::record_report<stack_scrub_bytes(184)>(
        configured(), slots_, values, rng, report, report_size, report_bytes(), [&]() __attribute__((always_inline)) {
          // The index is published: choosing the slot by it reveals nothing the report does not.
          const uint32_t j = static_cast<uint32_t>(uniform_below(attributes(), rng));
          report[0] = static_cast<uint8_t>(j);
          slot(j).write(values[j], rng, report, index_bits);
        });
  }

 private:
  Slots slots_{};
  Epsilon realized_{};
};

// RS+FD: one attribute, drawn uniformly and kept secret, with ε'; fake data for the others.
// GrrSlot: wire id rsfd_grr; OueSlot: rsfd_oue_z (FakeData::zero) or rsfd_oue_r (random).
template <class Slot, uint32_t MaxAttributes>
class FakeDataRecord {
  using Slots = detail::AttributeSlots<Slot, MaxAttributes>;
  static constexpr bool grr = detail::multi_attribute_id(static_cast<const Slot*>(nullptr), wire::MechanismId::rsfd_grr,
                                                         wire::MechanismId::rsfd_oue_z) == wire::MechanismId::rsfd_grr;

 public:
  static constexpr uint32_t max_attributes = MaxAttributes;

  // eps: the paper's ε (ε' is derived from it); fake: what OUE sends for an unsampled
  // attribute (ignored for GRR).
  static constexpr Status configure(Epsilon eps, const uint32_t* domains, uint32_t d, FakeDataRecord& out,
                                    FakeData fake = FakeData::zero, Precision precision = {}) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    if (d < 2 || d > MaxAttributes) return Status::bad_parameter;
    FakeDataRecord r;
    r.fake_ = grr ? FakeData::random : fake;
    r.requested_ = eps;
    if (!detail::amplified_epsilon(eps, d, r.amplified_)) return Status::bad_epsilon;
    const Status s = Slots::configure(r.amplified_, domains, d, r.slots_, precision);
    if (s != Status::ok) return s;
    if (!r.compute_epsilons()) return Status::bad_epsilon;
    out = r;
    return Status::ok;
  }
  static consteval FakeDataRecord make(Epsilon eps, const uint32_t* domains, uint32_t d,
                                       FakeData fake = FakeData::zero, Precision precision = {}) {
    return detail::configured<FakeDataRecord>(
        [&](auto& r) { return configure(eps, domains, d, r, fake, precision); });
  }

  // Set by a configure that succeeded; privatize refuses otherwise.
  constexpr bool configured() const { return slots_.attributes() != 0; }
  constexpr uint32_t attributes() const { return slots_.attributes(); }
  constexpr const Slot& slot(uint32_t j) const { return slots_.slot(j); }
  constexpr uint32_t bit_offset(uint32_t j) const { return slots_.bit_offset(j); }
  constexpr FakeData fake_data() const { return fake_; }
  constexpr Epsilon requested_epsilon() const { return requested_; }
  constexpr Epsilon amplified_epsilon() const { return amplified_; }
  // Any two records (the local-DP guarantee of one report).
  constexpr Epsilon realized_epsilon() const { return record_; }
  // Records that differ in one attribute (the paper's claim).
  constexpr Epsilon epsilon_attribute() const { return attribute_; }
  constexpr size_t report_bytes() const { return (size_t{slots_.slot_bits()} + 7) / 8; }
  constexpr wire::MechanismId wire_id() const {
    return grr ? wire::MechanismId::rsfd_grr
               : (fake_ == FakeData::random ? wire::MechanismId::rsfd_oue_r : wire::MechanismId::rsfd_oue_z);
  }
  constexpr wire::Description description() const {
    return {wire_id(), slots_.slot_bits(), slots_.digest(wire_id()).value()};
  }

  template <class Rng>
  Status privatize(const uint32_t* values, Rng& rng, uint8_t* report, size_t report_size) const {
    return detail::record_report<stack_scrub_bytes(344)>(
        configured(), slots_, values, rng, report, report_size, report_bytes(), [&]() __attribute__((always_inline)) {
          const uint32_t sampled = static_cast<uint32_t>(uniform_below(attributes(), rng));
          for (uint32_t j = 0, offset = 0; j < attributes(); offset += slot(j).bits(), ++j)
            slot(j).write_sampled(values[j], ct::is_zero(j ^ sampled), fake_, rng, report, offset);
        });
  }

 private:
  using Wide = detail::Wide;

  // The exact worst-case ratios (see the header comment), as ln bounds.
  constexpr bool compute_epsilons() {
    const uint32_t d = attributes();
    if constexpr (grr) {
      // Common denominator 2^B: k_j·p_j and k_j·q_j as integers.
      unsigned top = 0;
      for (uint32_t j = 0; j < d; ++j)
        top = slot(j).oracle().other_probability().bits > top ? slot(j).oracle().other_probability().bits : top;
      Wide sum_p{}, sum_q{};
      Wide best_gap{};
      for (uint32_t j = 0; j < d; ++j) {
        const KaryRr& rr = slot(j).oracle();
        const int up = static_cast<int>(top - rr.other_probability().bits);
        const Wide kp = Wide::from(rr.keep_numerator()).times(rr.domain()).shl(up);
        const Wide kq = Wide::from(rr.other_probability().num).times(rr.domain()).shl(up);
        sum_p = sum_p + kp;
        sum_q = sum_q + kq;
        if (kp - kq > best_gap) best_gap = kp - kq;
      }
      return ln_upper_bound(sum_p, sum_q, record_) && ln_upper_bound(sum_q + best_gap, sum_q, attribute_);
    } else {
      // Every slot has the same p = 1/2 and q = m/2^b (OUE at ε' does not depend on k).
      const Dyadic q = slot(0).oracle().q();
      const Wide m = Wide::from(q.num), u = detail::scale(q.bits) - m;
      record_ = slot(0).oracle().realized_epsilon();
      if (fake_ == FakeData::zero)  // ((d − 1)m + u)/(d m)
        return ln_upper_bound(m.times(d - 1) + u, m.times(d), attribute_);
      // OUE-r: term of attribute i in its weakest state c_i = k m/(m + (k − 1)u), of the
      // changed attribute a_j = k u/(u + (k − 1)m) over b_j = k m/(u + (k − 1)m); ratio
      // (C_j + a_j)/(C_j + b_j), C_j = Σ_{i≠j} c_i — in 2^64 fixed point, a rounded up and b, c
      // down (an upper bound: the ratio falls as C grows).
      const Wide one = Wide::power_of_two(64);
      Wide c_sum{};
      for (uint32_t i = 0; i < d; ++i) c_sum = c_sum + c_fixed(slot(i).domain(), m, u, one);
      Wide best_num = Wide::from(1), best_den = Wide::from(1);
      for (uint32_t j = 0; j < d; ++j) {
        const uint32_t k = slot(j).domain();
        const Wide den_kj = u + m.times(k - 1);
        const Wide c = c_sum - c_fixed(k, m, u, one);
        const Wide num = c + ceil_div(u.times(k) * one, den_kj);
        const Wide den = c + floor_div(m.times(k) * one, den_kj);
        if (num * best_den > best_num * den) best_num = num, best_den = den;
      }
      return ln_upper_bound(best_num, best_den, attribute_);
    }
  }
  static constexpr Wide c_fixed(uint32_t k, const Wide& m, const Wide& u, const Wide& one) {
    return floor_div(m.times(k) * one, m + u.times(k - 1));
  }

  Slots slots_{};
  FakeData fake_ = FakeData::zero;
  Epsilon requested_{}, amplified_{}, record_{}, attribute_{};
};

}  // namespace tinyldp

#endif
