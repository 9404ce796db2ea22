// SPDX-License-Identifier: Apache-2.0
// tinyldp/gate/authenticated_report.hpp — the collector's side of authenticated reports (wire
// format version 2, docs/wire-format.md "Authenticated reports"): the fleet secret, the device
// keys derived from it, verifying a report's tag, and stripping what identifies its sender.
//
// A version-2 report is a version-1 report (byte 0 = 2, device id and epoch fields present)
// followed by the device's report counter (u32) and a 16-byte ChaCha20-Poly1305 tag (RFC 8439,
// empty plaintext) under the device key, nonce "TLDP" ‖ counter (u64), AAD everything before
// the tag. Device key = the first 32 bytes of ChaCha20(fleet secret, block 0, nonce "TLDK" ‖
// device id ‖ 0). This side uses OpenSSL's libcrypto — a second implementation beside the
// device's (port/auth/report_auth). Host only.
// Cost: one ChaCha20 block and a Poly1305 over the report per verify (about 1 µs on this
// machine); tags compared in constant time (CRYPTO_memcmp).
#ifndef TINYLDP_GATE_AUTHENTICATED_REPORT_HPP
#define TINYLDP_GATE_AUTHENTICATED_REPORT_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/report_parser.hpp"

namespace tinyldp::gate {

// The protocol's constants are the wire format's (wire.hpp), shared with the device's sealing.
inline constexpr std::uint8_t authenticated_version = wire::authenticated_version;
inline constexpr std::size_t counter_bytes = wire::report_counter_bytes;
inline constexpr std::size_t tag_bytes = wire::report_tag_bytes;
inline constexpr std::size_t trailer_bytes = wire::authenticated_trailer_bytes;
static_assert(trailer_bytes == counter_bytes + tag_bytes && trailer_bytes == collector::authenticated_trailer_bytes);
static_assert(authenticated_version != wire::format_version);
// A counter the device never uses (its counter is exhausted before it).
inline constexpr std::uint32_t exhausted_counter = wire::exhausted_report_counter;

using Key = std::array<std::uint8_t, 32>;

// The fleet's 32-byte secret: from the factory, never on a device. Read from a file of exactly
// 32 bytes; an all-zero secret is refused (no default key).
class FleetSecret {
 public:
  static std::optional<FleetSecret> read(const std::string& path, std::string& error);
  static std::optional<FleetSecret> from_bytes(std::span<const std::uint8_t> bytes, std::string& error);
  // The key of one device: what the factory writes into it at provisioning.
  Key device_key(std::uint32_t device_id) const;
  // A public fingerprint (SHA-256 of a label and the secret): the gate's database records it
  // so that a gate is never reopened with another fleet's secret. Not the secret.
  std::array<std::uint8_t, 32> fingerprint() const;
  ~FleetSecret();
  FleetSecret(const FleetSecret&) = default;
  FleetSecret& operator=(const FleetSecret&) = default;

 private:
  FleetSecret() = default;
  Key secret_{};
};

enum class AuthError : std::uint8_t {
  none = 0,
  unauthenticated,   // a version-1 report: no tag
  malformed,         // version 2 but not a well-formed report of the expected mechanism
  missing_identity,  // version 2 without the device id or the epoch field
  exhausted_counter, // the reserved counter value
  bad_tag,           // the tag does not verify under the device's key
};
const char* to_string(AuthError e);

// A version-2 report split into its parts (views into the caller's bytes) and its version-1
// body (the same header and payload with byte 0 = 1), parsed strictly for `expected`.
struct AuthenticatedReport {
  AuthError error = AuthError::none;
  collector::ParseError parse_error = collector::ParseError::none;  // when malformed
  std::vector<std::uint8_t> body;  // the version-1 report: header with identities, payload
  collector::ParsedReport parsed;  // its parse (payload a view into body)
  std::uint32_t counter = 0;
  bool ok() const { return error == AuthError::none; }
};

// Parses a report for `expected` without checking its tag (that needs the key, from the device
// id it names). A version-1 report with device id and epoch is parsed too and comes back with
// error `unauthenticated` (body and parsed set): a caller that admits such reports may use it.
AuthenticatedReport split_authenticated(std::span<const std::uint8_t> bytes, const wire::Description& expected);
// Whether the report's tag verifies under key (constant time in the tag).
bool tag_verifies(std::span<const std::uint8_t> bytes, const Key& key);
// The tag of a version-2 report's bytes up to its counter (what a device appends): the
// simulated fleets of `tinyldp simulate --fleet-secret`, and tests.
std::array<std::uint8_t, tag_bytes> compute_tag(std::span<const std::uint8_t> signed_bytes, std::uint32_t counter,
                                                const Key& key);
// A version-1 report (device id and epoch fields present) sealed as the device would: version
// 2, the counter, the tag. Empty if the report lacks the fields or the counter is exhausted.
std::vector<std::uint8_t> seal(std::span<const std::uint8_t> v1_report, std::uint32_t counter, const Key& key);

// The version-1 report an analyst may see: the parsed report without its device id and memo
// generation (they name or link the sender); epoch and cohort stay (they partition the batch).
std::vector<std::uint8_t> anonymous_report(const collector::ParsedReport& parsed, const wire::Description& what);

}  // namespace tinyldp::gate

#endif
