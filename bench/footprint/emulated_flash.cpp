// Port: a storage Record (the core's two-slot layer) on the NOR-flash model — write 32 bytes, read
// them back. The 4 sectors of 256 bytes are the application's RAM (app_flash).
#include "footprint.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/storage.hpp"

uint8_t app_flash[4 * 256];

extern "C" int footprint_run() {
  tinyldp::port::EmulatedFlash device(app_flash, {256, 4, 4, 0xFF});
  device.format();
  tinyldp::Record<tinyldp::port::EmulatedFlash> record(device, 0, 1);
  uint8_t value[32];
  platform_trng_fill(value, sizeof value);
  if (record.write(value, sizeof value) != tinyldp::StorageResult::ok) return 1;
  size_t length = 0;
  if (record.read(value, sizeof value, &length) != tinyldp::StorageResult::ok) return 1;
  platform_radio_send(value, length);
  return 0;
}
