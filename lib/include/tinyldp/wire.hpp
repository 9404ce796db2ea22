// SPDX-License-Identifier: Apache-2.0
// tinyldp/wire.hpp — the report wire format, encoder side (runs on the device).
//
// A report is a 7-byte header, optional fields, then the mechanism's payload, bit-packed
// least significant bit first (the full specification is docs/wire-format.md):
//   0      format version (1)
//   1      mechanism id (MechanismId)
//   2..5   parameter digest, u32 little-endian: FNV-1a over the mechanism's realized
//          parameters, so a collector never mixes reports made with different probabilities
//   6      fields present: bit 0 device id (u32), bit 1 epoch (u32), bit 2 cohort (u16),
//          bit 3 memo generation (u32, the memo key's re-key counter); other bits are 0
//   7..    the present fields, in that order, little-endian; then ⌈payload_bits/8⌉ bytes
//          of payload whose unused high bits are 0.
// This header is the format only: header, ids, parameter digest, bit packing, framing. Each
// mechanism's header says how it goes on the wire — its id (stored in the configured object,
// never inferred), its payload layout (pack/unpack) and what its digest covers — through a
// constexpr description() built from the pieces here; the arrow runs mechanism → wire.
// Cost: encoding copies header + payload into a caller buffer (no other RAM, ≈ 40 bytes of
// stack); everything else is constexpr.
#ifndef TINYLDP_WIRE_HPP
#define TINYLDP_WIRE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"

namespace tinyldp::wire {

inline constexpr uint8_t format_version = 1;
inline constexpr size_t fixed_header_bytes = 7;

// Ids are never reused. Their names (the same in the CLI and the docs) are the collector's
// table of mechanisms (mechanism_table() in collector/include/tinyldp/collector/mechanism.hpp).
enum class MechanismId : uint8_t {
  rr = 1,
  krr = 2,
  sue = 3,
  oue = 4,
  ue = 5,  // unary encoding with custom (p, q)
  blh = 6,
  olh = 7,
  hr = 8,
  sd = 9,        // stochastic discretization + randomized response
  dlaplace = 10, // discrete Laplace
  she = 11,      // summation with histogram encoding (histogram_encoding.hpp)
  the = 12,      // thresholding with histogram encoding (histogram_encoding.hpp)
  rappor = 13,     // memoized two-stage randomized response (two_stage_rr.hpp): RAPPOR's f, p, q
  l_sue = 14,      // the longitudinal UE chains (two_stage_rr.hpp): SUE then SUE (= basic RAPPOR)
  l_osue = 15,     // OUE then SUE
  l_oue = 16,      // OUE then OUE
  l_soue = 17,     // SUE then OUE
  l_grr = 18,       // longitudinal k-RR: memoized k-RR, then a fresh one (longitudinal_grr.hpp)
  loloha = 19,     // longitudinal local hashing, g from the closed form (loloha.hpp)
  biloloha = 20,   // longitudinal local hashing with g = 2 (loloha.hpp)
  one_bit_mean = 21,   // 1BitMean with α-point rounding and output perturbation (one_bit_mean.hpp)
  record_rr = 22,  // a record of d attributes, each a memoized one-hot two-stage RR, concatenated (record_rr.hpp)
  // Records of d attributes without memo (multi_attribute.hpp): SPL, SMP and RS+FD over GRR or OUE.
  spl_grr = 23,     // every attribute by k-RR at ε/d
  spl_oue = 24,     // every attribute by OUE at ε/d
  smp_grr = 25,     // one sampled attribute (its index sent) by k-RR at ε
  smp_oue = 26,     // one sampled attribute (its index sent) by OUE at ε
  rsfd_grr = 27,    // RS+FD: one secret sampled attribute by k-RR at ε', uniform fake values
  rsfd_oue_z = 28,  // RS+FD over OUE at ε', fake data: the zero vector through OUE
  rsfd_oue_r = 29,  // RS+FD over OUE at ε', fake data: a uniform one-hot vector through OUE
  dbitflip = 30,   // dBitFlip: d sampled buckets of α-rounded counters, memoized bits flipped by γ (dbitflip.hpp)
  pm = 31,         // the Piecewise Mechanism on a grid of cells (piecewise.hpp)
  hm = 32,         // the Hybrid Mechanism: PM or Duchi's, drawn per report (hybrid.hpp)
  sw = 33,         // Square Wave over bucketed input and output (square_wave.hpp)
  hh = 34,         // a hierarchical histogram: one level of a B-ary tree per device (hierarchical_histogram.hpp)
  haar_hrr = 35,   // HaarHRR: one level of Haar coefficients per device by Hadamard RR (haar_hrr.hpp)
};

enum Field : uint8_t {
  field_device_id = 1u << 0,
  field_epoch = 1u << 1,
  field_cohort = 1u << 2,
  field_memo_generation = 1u << 3,  // the memo key's re-key counter (two_stage_rr.hpp)
};
inline constexpr uint8_t known_fields =
    field_device_id | field_epoch | field_cohort | field_memo_generation;

// Authenticated reports (format version 2, docs/wire-format.md "Authenticated reports"): a
// version-1 report with byte 0 = 2 whose device id and epoch fields are present, then the
// device's report counter (u32 little-endian) and a ChaCha20-Poly1305 tag (RFC 8439, empty
// plaintext, AAD every byte before the tag) under the device key, nonce "TLDP" ‖ counter (u64
// little-endian). Sealed on the device by port/auth/report_auth, verified by the gate
// (gate/authenticated_report.hpp); this header only names the constants both sides share.
inline constexpr uint8_t authenticated_version = 2;
inline constexpr uint8_t authenticated_fields = field_device_id | field_epoch;  // required
inline constexpr size_t report_counter_bytes = 4;
inline constexpr size_t report_tag_bytes = 16;
inline constexpr size_t authenticated_trailer_bytes = report_counter_bytes + report_tag_bytes;
// The counter value never used: a device whose next counter is this one seals no more.
inline constexpr uint32_t exhausted_report_counter = 0xFFFFFFFFu;
static_assert(report_counter_bytes == sizeof(uint32_t) && exhausted_report_counter == ~uint32_t{0});

struct Header {
  uint8_t fields = 0;  // which of the optional fields below are sent
  uint32_t device_id = 0;
  uint32_t epoch = 0;
  uint16_t cohort = 0;
  uint32_t memo_generation = 0;  // which memo key made the report: ε∞ is accounted per key
};

constexpr size_t optional_bytes(uint8_t fields) {
  return ((fields & field_device_id) ? 4u : 0u) + ((fields & field_epoch) ? 4u : 0u) +
         ((fields & field_cohort) ? 2u : 0u) + ((fields & field_memo_generation) ? 4u : 0u);
}

// What the wire needs to know about a configured mechanism.
struct Description {
  MechanismId id{};
  uint32_t payload_bits = 0;
  uint32_t digest = 0;

  constexpr size_t payload_bytes() const { return (size_t{payload_bits} + 7) / 8; }
  // Where the payload starts in a report with these optional fields.
  static constexpr size_t header_bytes(uint8_t fields) {
    return fixed_header_bytes + optional_bytes(fields);
  }
  constexpr size_t report_bytes(uint8_t fields) const { return header_bytes(fields) + payload_bytes(); }
};

// FNV-1a, 32-bit, over a canonical little-endian serialization of the parameters.
class Digest {
 public:
  constexpr Digest& byte(uint8_t b) {
    state_ = (state_ ^ b) * 16777619u;
    return *this;
  }
  constexpr Digest& u32(uint32_t v) { return le(v); }
  constexpr Digest& u64(uint64_t v) { return le(v); }
  constexpr Digest& dyadic(Dyadic p) { return u64(p.num).byte(p.bits); }
  constexpr uint32_t value() const { return state_; }

 private:
  template <class T>
  constexpr Digest& le(T v) {
    uint8_t bytes[sizeof(T)] = {};
    put_le(bytes, v);
    for (uint8_t b : bytes) byte(b);
    return *this;
  }
  uint32_t state_ = 2166136261u;
};

constexpr unsigned bits_for_values(uint32_t count) {  // bits to hold 0 … count−1
  return count <= 1 ? 0u : 32u - static_cast<unsigned>(__builtin_clz(count - 1u));
}

// Packs up to 64 bits (LSB first) into ⌈bits/8⌉ payload bytes.
constexpr void pack_bits(uint64_t value, unsigned bits, uint8_t* payload) {
  put_le(payload, value, (bits + 7) / 8);
}
// The same for payloads of at most 32 bits, with 32-bit shifts only (no 64-bit shift helper
// on 32-bit cores).
constexpr void pack_value(uint32_t value, unsigned bits, uint8_t* payload) {
  put_le(payload, value, (bits + 7) / 8);
}
constexpr uint64_t unpack_bits(const uint8_t* payload, unsigned bits) {
  const uint64_t v = get_le<uint64_t>(payload, (bits + 7) / 8);
  return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
}
// Writes header + payload into out. The payload holds payload_bits bits, LSB first; its
// unused high bits must be zero. On any error nothing is left in out. The payload may already
// sit at its place in out (payload == out + header_bytes(header.fields)): a firmware can
// privatize straight into its frame and needs no second copy of the report (it is not moved).
// Any other overlap is not allowed.
constexpr Status encode(const Description& what, const Header& header, const uint8_t* payload,
                        uint8_t* out, size_t out_size, size_t& written) {
  written = 0;
  const size_t n = what.report_bytes(header.fields);
  if (out == nullptr || out_size < n) {
    for (size_t i = 0; out != nullptr && i < out_size; ++i) out[i] = 0;
    return Status::buffer_too_small;
  }
  if ((header.fields & ~known_fields) != 0) return Status::bad_parameter;
  size_t at = 0;
  out[at++] = format_version;
  out[at++] = static_cast<uint8_t>(what.id);
  put_le(out + at, what.digest, 4);
  at += 4;
  out[at++] = header.fields;
  // The optional fields, in this order, each where its flag is set (always inlined: encode is
  // on every device's report path, whose flash and stack are budgeted).
  const auto optional = [&](uint8_t field, uint32_t value, size_t bytes) __attribute__((always_inline)) {
    if ((header.fields & field) == 0) return;
    put_le(out + at, value, bytes);
    at += bytes;
  };
  optional(field_device_id, header.device_id, 4);
  optional(field_epoch, header.epoch, 4);
  optional(field_cohort, header.cohort, 2);
  optional(field_memo_generation, header.memo_generation, 4);
  const size_t payload_bytes = what.payload_bytes();
  for (size_t i = 0; i < payload_bytes; ++i) out[at++] = payload[i];
  const unsigned spare = static_cast<unsigned>(payload_bytes * 8 - what.payload_bits);
  if (spare != 0) out[at - 1] &= static_cast<uint8_t>(0xFFu >> spare);
  written = at;
  return Status::ok;
}

}  // namespace tinyldp::wire

#endif
