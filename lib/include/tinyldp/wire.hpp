// tinyldp/wire.hpp — the report wire format, encoder side (runs on the device).
//
// A report is a 7-byte header, optional fields, then the mechanism's payload, bit-packed
// least significant bit first (the full specification is docs/wire-format.md):
//   0      format version (1)
//   1      mechanism id (MechanismId)
//   2..5   parameter digest, u32 little-endian: FNV-1a over the mechanism's realized
//          parameters, so a collector never mixes reports made with different probabilities
//   6      fields present: bit 0 device id (u32), bit 1 epoch (u32), bit 2 cohort (u16);
//          other bits are 0
//   7..    the present fields, in that order, little-endian; then ⌈payload_bits/8⌉ bytes
//          of payload whose unused high bits are 0.
// Cost: encoding copies header + payload into a caller buffer (no other RAM, ≈ 40 bytes of
// stack); describe() is constexpr.
#ifndef TINYLDP_WIRE_HPP
#define TINYLDP_WIRE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::wire {

inline constexpr uint8_t format_version = 1;
inline constexpr size_t fixed_header_bytes = 7;

// The same names as the CLI and the docs. Ids are never reused.
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
};

constexpr const char* name_of(MechanismId id) {
  switch (id) {
    case MechanismId::rr: return "rr";
    case MechanismId::krr: return "krr";
    case MechanismId::sue: return "sue";
    case MechanismId::oue: return "oue";
    case MechanismId::ue: return "ue";
    case MechanismId::blh: return "blh";
    case MechanismId::olh: return "olh";
    case MechanismId::hr: return "hr";
    case MechanismId::sd: return "sd";
    case MechanismId::dlaplace: return "dlaplace";
  }
  return "unknown";
}

enum Field : uint8_t {
  field_device_id = 1u << 0,
  field_epoch = 1u << 1,
  field_cohort = 1u << 2,
};
inline constexpr uint8_t known_fields = field_device_id | field_epoch | field_cohort;

struct Header {
  uint8_t fields = 0;  // which of the optional fields below are sent
  uint32_t device_id = 0;
  uint32_t epoch = 0;
  uint16_t cohort = 0;
};

constexpr size_t optional_bytes(uint8_t fields) {
  return ((fields & field_device_id) ? 4u : 0u) + ((fields & field_epoch) ? 4u : 0u) +
         ((fields & field_cohort) ? 2u : 0u);
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
  constexpr Digest& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  constexpr Digest& u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  constexpr Digest& dyadic(Dyadic p) { return u64(p.num).byte(p.bits); }
  constexpr uint32_t value() const { return state_; }

 private:
  uint32_t state_ = 2166136261u;
};

constexpr unsigned bits_for_values(uint32_t count) {  // bits to hold 0 … count−1
  unsigned b = 0;
  while (b < 32 && (uint64_t{1} << b) < count) ++b;
  return b;
}

constexpr Description describe(const BinaryRr& m) {
  return {MechanismId::rr, 1,
          Digest().byte(static_cast<uint8_t>(MechanismId::rr)).dyadic(m.keep_probability()).value()};
}
constexpr Description describe(const KaryRr& m) {
  return {MechanismId::krr, bits_for_values(m.domain()),
          Digest()
              .byte(static_cast<uint8_t>(MechanismId::krr))
              .u32(m.domain())
              .dyadic(m.other_probability())
              .value()};
}
// `as` tells SUE, OUE and custom UE apart (the probabilities alone would too, but the name is
// part of the contract).
constexpr Description describe(const UnaryEncoding& m, MechanismId as) {
  return {as, m.domain(),
          Digest().byte(static_cast<uint8_t>(as)).u32(m.domain()).dyadic(m.p()).dyadic(m.q()).value()};
}

// OLH/BLH: payload = seed (seed_bits, LSB first) then the hashed value (⌈log2 g⌉ bits).
constexpr Description describe(const LocalHashing& m) {
  const MechanismId id = m.range() == 2 ? MechanismId::blh : MechanismId::olh;
  return {id, m.seed_bits() + bits_for_values(m.range()),
          Digest()
              .byte(static_cast<uint8_t>(id))
              .u32(m.domain())
              .u32(m.range())
              .byte(static_cast<uint8_t>(m.seed_bits()))
              .dyadic(m.randomizer().other_probability())
              .value()};
}
// HR: payload = row (log2 K bits) then the bit.
constexpr Description describe(const HadamardResponse& m) {
  return {MechanismId::hr, m.row_bits() + 1,
          Digest()
              .byte(static_cast<uint8_t>(MechanismId::hr))
              .u32(m.domain())
              .dyadic(m.randomizer().keep_probability())
              .value()};
}

// SD: payload = the reported level (⌈log2 L⌉ bits).
constexpr Description describe(const StochasticDiscretization& m) {
  return {MechanismId::sd, bits_for_values(m.levels()),
          Digest()
              .byte(static_cast<uint8_t>(MechanismId::sd))
              .u32(static_cast<uint32_t>(m.low()))
              .u32(static_cast<uint32_t>(m.high()))
              .u32(m.levels())
              .byte(static_cast<uint8_t>(m.rounding_bits()))
              .dyadic(m.randomizer().other_probability())
              .value()};
}

// Discrete Laplace: payload = report − lo (⌈log2 (W+1)⌉ bits). The digest covers the weights'
// defining numbers (range, Δ, B) and the realized ε between inputs within Δ.
constexpr Description describe(const DiscreteLaplace& m) {
  const uint32_t width = static_cast<uint32_t>(int64_t{m.high()} - int64_t{m.low()});
  return {MechanismId::dlaplace, bits_for_values(width + 1u),
          Digest()
              .byte(static_cast<uint8_t>(MechanismId::dlaplace))
              .u32(static_cast<uint32_t>(m.low()))
              .u32(static_cast<uint32_t>(m.high()))
              .u32(m.sensitivity())
              .byte(static_cast<uint8_t>(m.random_bits_per_report()))
              .u64(m.realized_epsilon().q32)
              .value()};
}

// Packs up to 64 bits (LSB first) into ⌈bits/8⌉ payload bytes.
constexpr void pack_bits(uint64_t value, unsigned bits, uint8_t* payload) {
  for (unsigned i = 0; i < (bits + 7) / 8; ++i) payload[i] = static_cast<uint8_t>(value >> (8 * i));
}
constexpr uint64_t unpack_bits(const uint8_t* payload, unsigned bits) {
  uint64_t v = 0;
  for (unsigned i = 0; i < (bits + 7) / 8; ++i) v |= uint64_t{payload[i]} << (8 * i);
  return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
}
constexpr void pack(const LocalHashing& m, const LocalHashingReport& r, uint8_t* payload) {
  pack_bits(uint64_t{r.seed} | (uint64_t{r.value} << m.seed_bits()), describe(m).payload_bits, payload);
}
constexpr void pack(const HadamardResponse& m, const HadamardReport& r, uint8_t* payload) {
  pack_bits(uint64_t{r.row} | (uint64_t{r.bit} << m.row_bits()), m.row_bits() + 1u, payload);
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
  for (int i = 0; i < 4; ++i) out[at++] = static_cast<uint8_t>(what.digest >> (8 * i));
  out[at++] = header.fields;
  if (header.fields & field_device_id)
    for (int i = 0; i < 4; ++i) out[at++] = static_cast<uint8_t>(header.device_id >> (8 * i));
  if (header.fields & field_epoch)
    for (int i = 0; i < 4; ++i) out[at++] = static_cast<uint8_t>(header.epoch >> (8 * i));
  if (header.fields & field_cohort)
    for (int i = 0; i < 2; ++i) out[at++] = static_cast<uint8_t>(header.cohort >> (8 * i));
  const size_t payload_bytes = what.payload_bytes();
  for (size_t i = 0; i < payload_bytes; ++i) out[at++] = payload[i];
  const unsigned spare = static_cast<unsigned>(payload_bytes * 8 - what.payload_bits);
  if (spare != 0) out[at - 1] &= static_cast<uint8_t>(0xFFu >> spare);
  written = at;
  return Status::ok;
}

// Payloads of the scalar mechanisms, packed LSB first.
constexpr void pack_value(uint32_t value, unsigned bits, uint8_t* payload) {
  for (unsigned i = 0; i < (bits + 7) / 8; ++i) payload[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace tinyldp::wire

#endif
