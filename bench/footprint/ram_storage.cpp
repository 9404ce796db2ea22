// SPDX-License-Identifier: Apache-2.0
// Port: a storage Record (the core's two-slot layer) on a RAM array — write 32 bytes, read
// them back. The 4 sectors of 256 bytes are the application's RAM (app_flash).
#include "footprint.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"

uint8_t app_flash[4 * 256];

extern "C" int footprint_run() {
  tinyldp::port::RamStorage device(app_flash, {256, 4, 4, 0xFF});
  return footprint_record(device);
}
