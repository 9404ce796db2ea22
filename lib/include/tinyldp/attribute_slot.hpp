// SPDX-License-Identifier: Apache-2.0
// tinyldp/attribute_slot.hpp — one attribute's frequency oracle inside a multi-attribute
// report (multi_attribute.hpp): k-RR (GRR) or OUE, written at the attribute's place in the
// record's payload.
//
// A slot is the inner oracle configured for one attribute (its domain k, its ε) plus where its
// report sits: a GrrSlot holds the reported value in ⌈log2 k⌉ bits at any bit offset; an
// OueSlot holds the k report bits in ⌈k/8⌉ whole bytes (its offset is a multiple of 8; the
// padding bits above k are 0), so the bit-sliced sampler writes straight into the payload.
// Each slot writes either the true value's report or — for RS+FD's fake data — a report of
// data drawn independently of the value, chosen by a mask, never by a branch: the same draws,
// the same instructions, the same addresses whichever it writes.
//  - GrrSlot::write_sampled: the k-RR report of the value, and a uniform value of [k] (the
//    paper's fake data for GRR: not randomized further); kept: the first if sampled.
//  - OueSlot::write_sampled: OUE of the value if sampled; otherwise OUE of the zero vector
//    (FakeData::zero, "OUE-z": every bit Bernoulli(q)) or of a uniform one-hot vector
//    (FakeData::random, "OUE-r").
// Random bits: GRR q.bits (+ the uniform draw, ⌈log2 k⌉ bits per try, for fake data); OUE
// p.bits + k·q.bits (+ the uniform draw for OUE-r). The payload must be zero before a GrrSlot
// writes (it ORs its bits in); an OueSlot overwrites its bytes.
// Cost: a GrrSlot is a KaryRr (40 bytes), an OueSlot a UnaryEncoding (48 bytes).
#ifndef TINYLDP_ATTRIBUTE_SLOT_HPP
#define TINYLDP_ATTRIBUTE_SLOT_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/bernoulli.hpp"
#include "tinyldp/bernoulli_bits.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/uniform.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

// What RS+FD sends for an attribute it did not sample (OUE; GRR's fake data is uniform).
enum class FakeData : uint8_t { zero = 0, random = 1 };

namespace detail {
// ORs the low `bits` bits of v into payload at bit `offset` (LSB first): one step per bit,
// addresses from the offset alone.
constexpr void or_bits(uint8_t* payload, uint32_t offset, uint32_t v, unsigned bits) {
  for (unsigned i = 0; i < bits; ++i) {
    const uint32_t at = offset + i;
    payload[at / 8] = static_cast<uint8_t>(payload[at / 8] | (((v >> i) & 1u) << (at % 8)));
  }
}
constexpr uint32_t read_bits(const uint8_t* payload, uint32_t offset, unsigned bits) {
  uint32_t v = 0;
  for (unsigned i = 0; i < bits; ++i) {
    const uint32_t at = offset + i;
    v |= ((static_cast<uint32_t>(payload[at / 8]) >> (at % 8)) & 1u) << i;
  }
  return v;
}

// What a slot tells of its oracle (GrrSlot's KaryRr, OueSlot's UnaryEncoding), which it holds.
template <class Oracle>
class OracleSlot {
 public:
  constexpr const Oracle& oracle() const { return oracle_; }
  constexpr uint32_t domain() const { return oracle_.domain(); }
  constexpr Epsilon realized_epsilon() const { return oracle_.realized_epsilon(); }
  constexpr uint32_t digest() const { return oracle_.description().digest; }

 protected:
  Oracle oracle_{};
};
}  // namespace detail

class GrrSlot : public detail::OracleSlot<KaryRr> {
 public:
  static constexpr Status configure(Epsilon eps, uint32_t k, GrrSlot& out, Precision precision = {}) {
    return KaryRr::configure(eps, k, out.oracle_, precision);
  }
  constexpr uint32_t bits() const { return wire::bits_for_values(oracle_.domain()); }
  // The value held in a payload's slot at bit `offset` (it may be ≥ domain() in a bad payload).
  constexpr uint32_t read(const uint8_t* payload, uint32_t offset) const {
    return detail::read_bits(payload, offset, bits());
  }

  template <class Rng>
  void write(uint32_t value, Rng& rng, uint8_t* payload, uint32_t offset) const {
    detail::or_bits(payload, offset, oracle_.randomize(value, rng), bits());
  }
  template <class Rng>
  void write_sampled(uint32_t value, uint32_t sampled, FakeData, Rng& rng, uint8_t* payload,
                     uint32_t offset) const {
    const uint32_t reported = oracle_.randomize(value, rng);
    const uint32_t fake = static_cast<uint32_t>(uniform_below(oracle_.domain(), rng));
    detail::or_bits(payload, offset, ct::select(sampled, reported, fake), bits());
  }
};

class OueSlot : public detail::OracleSlot<UnaryEncoding> {
 public:
  static constexpr Status configure(Epsilon eps, uint32_t k, OueSlot& out, Precision precision = {}) {
    return UnaryEncoding::configure_oue_half(eps, k, out.oracle_, precision);  // p = 1/2: RS+FD's ε
  }
  constexpr uint32_t bits() const { return 8 * static_cast<uint32_t>(oracle_.report_bytes()); }
  // Bit i of the slot at bit `offset` (a multiple of 8).
  static constexpr uint32_t bit(const uint8_t* payload, uint32_t offset, uint32_t i) {
    return (static_cast<uint32_t>(payload[(offset + i) / 8]) >> ((offset + i) % 8)) & 1u;
  }

  template <class Rng>
  void write(uint32_t value, Rng& rng, uint8_t* payload, uint32_t offset) const {
    splice(value, 1u, rng, payload + offset / 8);
  }
  template <class Rng>
  void write_sampled(uint32_t value, uint32_t sampled, FakeData fake, Rng& rng, uint8_t* payload,
                     uint32_t offset) const {
    if (fake == FakeData::random) {  // configuration, not private
      const uint32_t other = static_cast<uint32_t>(uniform_below(oracle_.domain(), rng));
      splice(ct::select(sampled, value, other), 1u, rng, payload + offset / 8);
    } else {
      splice(value, sampled, rng, payload + offset / 8);
    }
  }

 private:
  // UnaryEncoding's report (the same draws in the same order: the true bit, then the lanes)
  // with the true bit spliced in at `position` only where `present` is 1.
  template <class Rng>
  void splice(uint32_t position, uint32_t present, Rng& rng, uint8_t* slot) const {
    const uint32_t true_bit = bernoulli(oracle_.p(), rng);
    BernoulliBits::fill(oracle_.q(), oracle_.domain(), rng, slot);
    const uint32_t at_byte = position / 8, at_bit = position % 8;
    const uint8_t true_bits = static_cast<uint8_t>(ct::mask(true_bit));
    const size_t n = oracle_.report_bytes();
    for (size_t b = 0; b < n; ++b) {
      const uint32_t here = ct::is_zero(static_cast<uint32_t>(b) ^ at_byte) & present;
      const uint8_t m = static_cast<uint8_t>(here << at_bit);
      slot[b] = static_cast<uint8_t>((slot[b] & ~m) | (true_bits & m));
    }
  }
};

}  // namespace tinyldp

#endif
