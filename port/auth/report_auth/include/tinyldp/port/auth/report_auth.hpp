// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/auth/report_auth.hpp — authenticated reports from the device: a version-1 report
// sealed into wire format version 2 (docs/wire-format.md, "Authenticated reports") with a
// persisted report counter and a ChaCha20-Poly1305 tag under the device's own key, so that the
// gate (gate/authenticated_report.hpp) can refuse forged, changed and replayed reports.
//
// What a sealed report is: the version-1 report (its device id and epoch fields present) with
// byte 0 = 2, then the counter (u32 little-endian), then the 16-byte tag of RFC 8439's AEAD
// construction with an empty plaintext: AAD = every byte before the tag, key = the device key,
// nonce = "TLDP" ‖ counter (u64 little-endian). The Poly1305 key is the first 32 bytes of
// ChaCha20 block 0 under (device key, nonce) — the RFC 8439 block function of the DRBG's port,
// reused. Device key = the first 32 bytes of ChaCha20 block 0 under the fleet secret, nonce
// "TLDK" ‖ device id (u32 LE) ‖ 0: the factory derives it (derive_device_key) and the device
// stores only its own.
//
// The counter never repeats, power cuts included: counters are reserved in windows of
// report_counter_window; the start of the next window goes to both slots of the record
// (Record::write_both) before any counter of the current window is used, and a boot starts at
// the stored window start. A reboot skips the unused rest of a window (at most 15 counters);
// it never reuses one. The counter runs from the provisioned first counter to 0xFFFFFFFE; then
// the device seals no more (counter_exhausted).
//
// Constant time: Poly1305 in 26-bit limbs with every 32 × 32 → 64-bit product through
// ct::mul_wide (Cortex-M0 has no long multiply and libgcc's __aeabi_lmul branches on its
// operands), its final reduction a masked select; nothing branches on the key or the report's
// bytes, only on their lengths and the public counter (tests/constant_time_on_target).
// Key material (the key words, the Poly1305 key and state, the ChaCha20 block) is wiped from
// the stack before a call returns. No heap, no static state, no exceptions.
// Cost: RAM sizeof(ReportAuth) = 48 bytes on 32-bit targets (key, id, counters, the record's
// address); a seal of an n-byte report runs one ChaCha20 block (the one-time Poly1305 key) and
// ⌈(n + 4) / 16⌉ + 1 Poly1305 blocks, and writes the record (both slots: two erases) once every
// 16 reports; stack: the Poly1305 state and a ChaCha20 block (docs/footprint.md's report_auth). Storage: a Record with a 40-byte payload. Measured flash, stack and
// instructions per target: docs/footprint.md and docs/target-costs.md.
#ifndef TINYLDP_PORT_AUTH_REPORT_AUTH_HPP
#define TINYLDP_PORT_AUTH_REPORT_AUTH_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/storage.hpp"
#include "tinyldp/wipe.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::port {

inline constexpr size_t poly1305_key_bytes = 32;
inline constexpr size_t poly1305_tag_bytes = 16;
inline constexpr size_t device_key_bytes = 32;
inline constexpr size_t fleet_secret_bytes = 32;
static_assert(poly1305_tag_bytes == wire::report_tag_bytes);

// Poly1305 (RFC 8439 §2.5), one message at a time: init, update any number of times, finish.
// pad16 zero-pads what was absorbed to a multiple of 16 bytes (the AEAD construction's padding).
// A one-time authenticator: never use a key for two messages.
class Poly1305 {
 public:
  void init(const uint8_t key[poly1305_key_bytes]);
  void update(const uint8_t* data, size_t length);
  void pad16();
  // Writes the tag and wipes the state.
  void finish(uint8_t tag[poly1305_tag_bytes]);
  void wipe();

 private:
  void block(const uint8_t b[16], uint32_t high_bit);
  uint32_t r_[5] = {};  // the clamped r in 26-bit limbs
  uint32_t s_[4] = {};
  uint32_t h_[5] = {};  // the accumulator, 26-bit limbs (partly reduced)
  uint8_t buffer_[16] = {};
  size_t used_ = 0;
};

// RFC 8439 §2.6: the one-time Poly1305 key, the first 32 bytes of ChaCha20 block 0.
void poly1305_key_gen(const uint32_t key[chacha20_key_words], const uint32_t nonce[chacha20_nonce_words],
                      uint8_t out[poly1305_key_bytes]);

// RFC 8439 §2.8's tag over `aad` and the (already encrypted) `ciphertext`: Poly1305 under the
// one-time key of (key, nonce) over aad ‖ pad ‖ ciphertext ‖ pad ‖ len(aad) ‖ len(ciphertext).
// A report's tag has no ciphertext; the RFC's AEAD vector has one.
void chacha20_poly1305_tag(const uint32_t key[chacha20_key_words], const uint32_t nonce[chacha20_nonce_words],
                           const uint8_t* aad, size_t aad_length, const uint8_t* ciphertext,
                           size_t ciphertext_length, uint8_t tag[poly1305_tag_bytes]);

// The device key of `device_id` under the fleet secret (see the top of this file): for the
// factory's provisioning tools and tests — a device never holds the fleet secret.
void derive_device_key(const uint8_t fleet_secret[fleet_secret_bytes], uint32_t device_id,
                       uint8_t key[device_key_bytes]);

enum class [[nodiscard]] ReportAuthResult : uint8_t {
  ok = 0,
  not_provisioned,      // no readable record (never provisioned, erased, corrupt), or not loaded
  storage_failed,       // the record could not be read, or the counter window not made durable
  already_provisioned,  // provision: the record holds a readable one (counters would repeat)
  zero_key,             // an all-zero device key (provisioned or stored): no default key
  wrong_device,         // the report names another device id than the provisioned one
  not_a_report,         // not a version-1 report (too short, another version)
  missing_identity,     // the report lacks its device id or epoch field
  buffer_too_small,     // the output holds less than the report and its 20-byte trailer
  counter_exhausted,    // the next counter would be 0xFFFFFFFF: no more reports
};
constexpr const char* to_string(ReportAuthResult r) {
  switch (r) {
    case ReportAuthResult::ok: return "ok";
    case ReportAuthResult::not_provisioned: return "report key not provisioned";
    case ReportAuthResult::storage_failed: return "report key storage failed";
    case ReportAuthResult::already_provisioned: return "report key already provisioned";
    case ReportAuthResult::zero_key: return "all-zero report key refused";
    case ReportAuthResult::wrong_device: return "report from another device id";
    case ReportAuthResult::not_a_report: return "not a version-1 report";
    case ReportAuthResult::missing_identity: return "report without its device id or epoch field";
    case ReportAuthResult::buffer_too_small: return "buffer too small for the sealed report";
    case ReportAuthResult::counter_exhausted: return "report counter exhausted";
  }
  return "unknown result";
}

// Counters reserved per record write.
inline constexpr uint32_t report_counter_window = 16;
// The record: device id (u32 LE), device key (32 bytes), start of the next window (u32 LE).
inline constexpr size_t report_auth_record_bytes = 4 + device_key_bytes + 4;

namespace report_auth_detail {
// Whether `report` (length bytes) can be sealed as `device_id`'s into `capacity` bytes.
ReportAuthResult check(const uint8_t* report, size_t length, size_t capacity, uint32_t device_id);
// Writes the sealed report into out (out == report, or not overlapping): version 2, counter,
// tag. `check` must have answered ok.
void write_sealed(const uint32_t key[chacha20_key_words], uint32_t counter, const uint8_t* report,
                  size_t length, uint8_t* out);
bool all_zero(const uint8_t* bytes, size_t length);
}  // namespace report_auth_detail

// The device's sealing state over a storage Record. A zero-initialised object (a C context never
// initialised) is not provisioned and refuses every seal.
template <StorageDevice D>
class ReportAuth {
 public:
  constexpr ReportAuth() = default;

  // At boot: the device id, key and the next window's start from `record` (kept by address:
  // it must outlive this object). Never creates anything: a record with nothing readable is
  // not_provisioned, an all-zero stored key zero_key.
  ReportAuthResult load(Record<D>& record) {
    wipe();
    uint8_t stored[report_auth_record_bytes];
    size_t length = 0;
    const StorageResult r = record.read(stored, sizeof stored, &length);
    ReportAuthResult result = ReportAuthResult::ok;
    if (r == StorageResult::not_found || r == StorageResult::too_large ||
        (r == StorageResult::ok && length != sizeof stored))
      result = ReportAuthResult::not_provisioned;
    else if (r != StorageResult::ok)
      result = ReportAuthResult::storage_failed;
    else if (report_auth_detail::all_zero(stored + 4, device_key_bytes))
      result = ReportAuthResult::zero_key;
    else
      take(record, stored);
    tinyldp::wipe(stored, sizeof stored);
    return result;
  }

  // The factory's step: device id, key and first counter, durable in both slots before any
  // use; only on a record that holds nothing readable (a readable one: already_provisioned,
  // nothing written). On ok the object is loaded.
  ReportAuthResult provision(Record<D>& record, uint32_t device_id, const uint8_t key[device_key_bytes],
                             uint32_t first_counter = 0) {
    wipe();
    if (report_auth_detail::all_zero(key, device_key_bytes)) return ReportAuthResult::zero_key;
    if (first_counter == wire::exhausted_report_counter) return ReportAuthResult::counter_exhausted;
    uint8_t stored[report_auth_record_bytes];
    size_t length = 0;
    const StorageResult r = record.read(stored, sizeof stored, &length);
    tinyldp::wipe(stored, sizeof stored);
    if (r == StorageResult::ok) return ReportAuthResult::already_provisioned;
    if (r != StorageResult::not_found && r != StorageResult::too_large) return ReportAuthResult::storage_failed;
    encode(stored, device_id, key, first_counter);
    const StorageResult w = record.write_both(stored, sizeof stored);
    if (w == StorageResult::ok) take(record, stored);
    tinyldp::wipe(stored, sizeof stored);
    return w == StorageResult::ok ? ReportAuthResult::ok : ReportAuthResult::storage_failed;
  }

  // Seals the version-1 report[0..length) into out[0..capacity): *written = length + 20 on ok.
  // out may be report itself (in place: capacity counts from report) or a buffer that does not
  // overlap it. On any other result nothing is written to out (*written = 0) and no counter is
  // spent — except a storage failure, which may skip the counters of a window never used.
  ReportAuthResult seal(const uint8_t* report, size_t length, uint8_t* out, size_t capacity, size_t* written) {
    if (written != nullptr) *written = 0;
    if (record_ == nullptr) return ReportAuthResult::not_provisioned;
    ReportAuthResult r = report_auth_detail::check(report, length, capacity, device_id_);
    if (r == ReportAuthResult::ok && next_ == wire::exhausted_report_counter) r = ReportAuthResult::counter_exhausted;
    if (r == ReportAuthResult::ok && next_ == window_end_) r = reserve_window();
    if (r != ReportAuthResult::ok) return r;
    report_auth_detail::write_sealed(key_, next_++, report, length, out);
    if (written != nullptr) *written = length + wire::authenticated_trailer_bytes;
    return ReportAuthResult::ok;
  }

  bool provisioned() const { return record_ != nullptr; }
  uint32_t device_id() const { return device_id_; }
  // The counter the next seal uses.
  uint32_t next_counter() const { return next_; }
  // Forgets the key: not provisioned (load again).
  void wipe() {
    tinyldp::wipe(key_, sizeof key_);
    device_id_ = next_ = window_end_ = 0;
    record_ = nullptr;
  }

 private:
  static void encode(uint8_t out[report_auth_record_bytes], uint32_t device_id, const uint8_t* key,
                     uint32_t window_start) {
    put_le(out, device_id);
    for (size_t i = 0; i < device_key_bytes; ++i) out[4 + i] = key[i];
    put_le(out + 4 + device_key_bytes, window_start);
  }
  void take(Record<D>& record, const uint8_t stored[report_auth_record_bytes]) {
    device_id_ = get_le<uint32_t>(stored);
    for (size_t i = 0; i < chacha20_key_words; ++i) key_[i] = get_le<uint32_t>(stored + 4 + 4 * i);
    next_ = window_end_ = get_le<uint32_t>(stored + 4 + device_key_bytes);
    record_ = &record;
  }
  // Makes the start of the window after this one durable (both slots) before any counter of
  // this one is used.
  ReportAuthResult reserve_window() {
    const uint32_t room = wire::exhausted_report_counter - next_;
    const uint32_t end = next_ + (room < report_counter_window ? room : report_counter_window);
    uint8_t stored[report_auth_record_bytes];
    uint8_t key[device_key_bytes];
    for (size_t i = 0; i < chacha20_key_words; ++i) put_le(key + 4 * i, key_[i]);
    encode(stored, device_id_, key, end);
    const StorageResult w = record_->write_both(stored, sizeof stored);
    tinyldp::wipe(key, sizeof key);
    tinyldp::wipe(stored, sizeof stored);
    if (w != StorageResult::ok) return ReportAuthResult::storage_failed;
    window_end_ = end;
    return ReportAuthResult::ok;
  }

  uint32_t key_[chacha20_key_words] = {};
  uint32_t device_id_ = 0;
  uint32_t next_ = 0;        // the next counter to use
  uint32_t window_end_ = 0;  // counters [next_, window_end_) are reserved (durable beyond them)
  Record<D>* record_ = nullptr;
};

}  // namespace tinyldp::port

#endif
