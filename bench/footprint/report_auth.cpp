// SPDX-License-Identifier: Apache-2.0
// Port: authenticated reports (report_auth.hpp) on RAM storage — load the device's key and
// counter at boot (provisioned once from the TRNG if nothing is stored, as the factory would
// with the key it derived), then seal one version-1 report of OUE's size at d = 256 (device id
// and epoch fields: 15 + 32 bytes) in place and send it, 67 bytes. The row includes the Record,
// the ChaCha20 block and Poly1305; the report itself is a stand-in (its payload from the sensor).
#include "footprint.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"

uint8_t app_flash[4 * 256];

extern "C" int footprint_run() {
  using tinyldp::port::ReportAuthResult;
  tinyldp::port::RamStorage device(app_flash, {256, 4, 4, 0xFF});
  tinyldp::Record<tinyldp::port::RamStorage> record(device, 0, 1);
  tinyldp::port::ReportAuth<tinyldp::port::RamStorage> auth;
  constexpr uint32_t device_id = 17;
  ReportAuthResult r = auth.load(record);
  if (r == ReportAuthResult::not_provisioned) {
    uint8_t key[tinyldp::port::device_key_bytes];
    if (platform_trng_fill(key, sizeof key) != TINYLDP_ENTROPY_OK) return 1;
    r = auth.provision(record, device_id, key);
    tinyldp::wipe(key, sizeof key);
  }
  if (r != ReportAuthResult::ok) return 1;
  constexpr uint8_t fields = tinyldp::wire::authenticated_fields;
  constexpr size_t report_bytes = tinyldp::wire::Description::header_bytes(fields) + 32;
  uint8_t frame[report_bytes + tinyldp::wire::authenticated_trailer_bytes] = {tinyldp::wire::format_version, 4};
  frame[6] = fields;
  tinyldp::put_le(frame + 7, device_id);
  const uint32_t value = platform_sensor_value();
  for (size_t i = 0; i < 32; ++i) frame[15 + i] = static_cast<uint8_t>(value >> (i % 4 * 8));
  size_t written = 0;
  if (auth.seal(frame, report_bytes, frame, sizeof frame, &written) != ReportAuthResult::ok) return 1;
  platform_radio_send(frame, written);
  return 0;
}
