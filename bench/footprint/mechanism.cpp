// SPDX-License-Identifier: Apache-2.0
// The footprint program of one entry of the device list (tests/support/device_mechanisms.hpp),
// the entry called TINYLDP_FOOTPRINT_ENTRY: CMakeLists.txt compiles this file once per entry.
// One report of the sensor's value (the entry's from_sensor) by the entry's example
// configuration (constexpr), through the one report shape, framed and sent. A fresh-noise
// mechanism draws from RandomBits<PlatformTrng>; a memoized one boots as losue_firmware does
// (memo_boot.hpp: the TRNG seeds the application's ChaCha20 DRBG, the memo key is loaded from
// or provisioned into its emulated flash) and draws from the DRBG — its row includes that boot.
#include "device_mechanisms.hpp"
#include "footprint.hpp"
#include "memo_boot.hpp"

namespace {
using tinyldp::device::Mechanisms;
constexpr size_t index = Mechanisms::index_of(TINYLDP_FOOTPRINT_ENTRY);
static_assert(index < Mechanisms::size, "TINYLDP_FOOTPRINT_ENTRY names no entry of the device list");
using Entry = Mechanisms::At<index>;
constexpr auto description = Entry::mechanism.description();

// Privatizes the sensor's value into the payload and sends the framed report (always inlined:
// the report path is the program's own code, as when each program wrote it out).
template <class E, class Key, class Rng>
__attribute__((always_inline)) inline int report(const Key& key, Rng& rng) {
  uint8_t payload[description.payload_bytes()];
  tinyldp::Status status;
  if constexpr (requires { E::from_sensor(0u); }) {
    const typename E::Value value = E::from_sensor(platform_sensor_value());
    status = tinyldp::device::privatize<E>(value, key, rng, payload, sizeof payload);
  } else {  // a record: a byte of the sensor word per attribute
    uint32_t record[tinyldp::device::attributes];
    tinyldp::device::record_from_sensor(platform_sensor_value(), record);
    status = tinyldp::device::privatize<E>(record, key, rng, payload, sizeof payload);
  }
  if (status != tinyldp::Status::ok) return 1;
  return footprint_send<description.report_bytes(0)>(description, payload);
}
}  // namespace

extern "C" int footprint_run() {
  if constexpr (Entry::memoized) {
    tinyldp::port::MemoKey key;
    if (!footprint_memo_boot(key)) return 1;
    tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg, 8> rng(app_drbg);
    return report<Entry>(key, rng);
  } else {
    PlatformTrng trng;
    tinyldp::RandomBits<PlatformTrng> rng(trng);
    return report<Entry>(0, rng);
  }
}
