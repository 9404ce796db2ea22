// SPDX-License-Identifier: Apache-2.0
// The fleet device (device.hpp): TRNG → health tests → DRBG; memo key and ledger in flash;
// L-OSUE → wire → sealed (report key, counter) → serial frame → UART.
#include "device.hpp"

#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/serial_frame.hpp"
#include "tinyldp/wire.hpp"

namespace fleet {
namespace {

constexpr auto description = mechanism.description();
constexpr uint8_t header_fields =
    tinyldp::wire::field_device_id | tinyldp::wire::field_epoch | tinyldp::wire::field_memo_generation;
constexpr size_t report_bytes = description.report_bytes(header_fields);
constexpr size_t sealed_bytes = report_bytes + tinyldp::wire::authenticated_trailer_bytes;
constexpr auto health = tinyldp::port::HealthPlan::make(tinyldp::port::HealthConfig{});

// The TRNG as a C++ entropy source; the claim (full entropy) is the driver's to make, and the
// health tests check it at that rate.
struct Trng {
  tinyldp::EntropyResult fill(uint8_t* out, size_t length, uint32_t) {
    return static_cast<tinyldp::EntropyResult>(platform_trng_fill(out, length));
  }
  uint16_t min_entropy_q8() const { return TINYLDP_ENTROPY_ESTIMATE_FULL; }
};

}  // namespace

__attribute__((noinline)) Result Device::boot(uint32_t epoch) {
  Trng raw;
  tinyldp::port::HealthTested<Trng> checked(raw, health);
  return boot(tinyldp::CEntropySource(tinyldp::to_c_source(checked), tinyldp::entropy_estimate(checked)), epoch);
}

Result Device::provision(uint32_t device_id, const uint8_t report_key[tinyldp::port::device_key_bytes]) {
  Trng raw;
  tinyldp::port::HealthTested<Trng> checked(raw, health);
  return provision(tinyldp::CEntropySource(tinyldp::to_c_source(checked), tinyldp::entropy_estimate(checked)),
                   device_id, report_key);
}

Result Device::provision(tinyldp::CEntropySource seed_source, uint32_t device_id,
                         const uint8_t report_key[tinyldp::port::device_key_bytes]) {
  // The report key first: a zero key is refused before anything is written.
  const tinyldp::port::ReportAuthResult a = auth_.provision(auth_record_, device_id, report_key);
  if (a == tinyldp::port::ReportAuthResult::zero_key) return Result::bad_report_key;
  if (a != tinyldp::port::ReportAuthResult::ok) return Result::storage_failed;
  if (drbg_.seed(seed_source) != tinyldp::EntropyResult::ok) return Result::entropy_failed;
  if (tinyldp::port::provision_memo_key(drbg_, key_record_, 0, key_) != tinyldp::port::MemoKeyResult::ok)
    return Result::storage_failed;
  if (ledger_.provision(0, 0, tinyldp::Epsilon{0}, tinyldp::Epsilon{0}) != tinyldp::LedgerResult::ok)
    return Result::storage_failed;
  return Result::ok;
}

__attribute__((noinline)) Result Device::boot(tinyldp::CEntropySource seed_source, uint32_t epoch) {
  if (drbg_.seed(seed_source) != tinyldp::EntropyResult::ok) return Result::entropy_failed;
  const tinyldp::port::MemoKeyResult k = tinyldp::port::load_memo_key(key_record_, key_);
  if (k == tinyldp::port::MemoKeyResult::not_provisioned) return Result::not_provisioned;
  if (k != tinyldp::port::MemoKeyResult::ok) return Result::storage_failed;
  const tinyldp::LedgerResult l = ledger_.open();
  if (l == tinyldp::LedgerResult::not_provisioned) return Result::not_provisioned;
  if (l != tinyldp::LedgerResult::ok) return Result::storage_failed;
  const tinyldp::port::ReportAuthResult a = auth_.load(auth_record_);
  if (a == tinyldp::port::ReportAuthResult::not_provisioned) return Result::not_provisioned;
  if (a != tinyldp::port::ReportAuthResult::ok) return Result::storage_failed;
  if (ledger_.advance_epoch(epoch) != tinyldp::LedgerResult::ok) return Result::storage_failed;
  return Result::ok;
}

// The ledger checks the report (key, value) and charges first, durably; only then is the report
// made, sealed in place and sent. The report is privatized straight into the frame, after the
// wire header; the seal appends the counter and tag behind it.
__attribute__((noinline)) Result Device::report(uint32_t value) {
  const tinyldp::LedgerResult charged = ledger_.charge_memo(0, mechanism, key_, value);
  if (charged == tinyldp::LedgerResult::budget_exhausted) return Result::budget_exhausted;
  if (charged == tinyldp::LedgerResult::key_not_provisioned) return Result::not_provisioned;
  if (charged == tinyldp::LedgerResult::bad_report) return Result::report_failed;
  if (charged != tinyldp::LedgerResult::ok) return Result::storage_failed;
  uint8_t frame[tinyldp::serial::frame_bytes(sealed_bytes)];
  uint8_t* wire_report = frame + 4;  // after the serial frame's sync and length
  uint8_t* payload = wire_report + tinyldp::wire::Description::header_bytes(header_fields);
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(drbg_);  // the DRBG buffers already
  if (mechanism.privatize(value, key_, rng, payload, mechanism.report_bytes()) != tinyldp::Status::ok)
    return Result::report_failed;
  tinyldp::wire::Header header;
  header.fields = header_fields;
  header.device_id = auth_.device_id();
  header.epoch = ledger_.epoch();
  header.memo_generation = key_.generation();
  size_t written = 0;
  if (tinyldp::wire::encode(description, header, payload, wire_report, report_bytes, written) !=
      tinyldp::Status::ok)
    return Result::report_failed;
  // A storage failure here (the next counter window not durable) sends nothing, like the ledger's.
  const tinyldp::port::ReportAuthResult sealed = auth_.seal(wire_report, written, wire_report, sealed_bytes, &written);
  if (sealed == tinyldp::port::ReportAuthResult::storage_failed) return Result::storage_failed;
  if (sealed != tinyldp::port::ReportAuthResult::ok) return Result::report_failed;
  if (tinyldp::serial::encode(wire_report, written, frame, sizeof frame, written) != tinyldp::Status::ok)
    return Result::report_failed;
  platform_uart_send(frame, written);
  return Result::ok;
}

}  // namespace fleet
