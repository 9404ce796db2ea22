/* SPDX-License-Identifier: Apache-2.0 */
/* The vendor's drivers (vendor_drivers.h). */
#include "vendor_drivers.h"

tinyldp_entropy_result vendor_trng_fill(void* context, uint8_t* out, size_t length,
                                        uint32_t flags) {
  vendor_trng* trng = (vendor_trng*)context;
  size_t i;
  (void)flags; /* polled, never blocks: every flag is honoured */
  if (trng->broken) {
    for (i = 0; i < length; ++i) out[i] = 0;
    return TINYLDP_ENTROPY_FAILED;
  }
  if (trng->state == 0) trng->state = 0x2545F491u;
  for (i = 0; i < length; ++i) { /* NOT RANDOM: xorshift32 stands in for the hardware */
    trng->state ^= trng->state << 13;
    trng->state ^= trng->state >> 17;
    trng->state ^= trng->state << 5;
    out[i] = (uint8_t)(trng->state >> 24);
  }
  return TINYLDP_ENTROPY_OK;
}

static tinyldp_storage_result flash_read(void* context, uint32_t address, uint8_t* out,
                                         size_t length) {
  const vendor_flash* flash = (const vendor_flash*)context;
  size_t i;
  if (flash->powered_off) return TINYLDP_STORAGE_IO_ERROR;
  if (address > sizeof flash->bytes || length > sizeof flash->bytes - address)
    return TINYLDP_STORAGE_BAD_GEOMETRY;
  for (i = 0; i < length; ++i) out[i] = flash->bytes[address + i];
  return TINYLDP_STORAGE_OK;
}

static tinyldp_storage_result flash_program(void* context, uint32_t address, const uint8_t* data,
                                            size_t length) {
  vendor_flash* flash = (vendor_flash*)context;
  size_t i;
  if (flash->powered_off) return TINYLDP_STORAGE_IO_ERROR;
  if (address > sizeof flash->bytes || length > sizeof flash->bytes - address || address % 4 != 0 ||
      length % 4 != 0)
    return TINYLDP_STORAGE_BAD_GEOMETRY;
  for (i = 0; i < length; ++i) flash->bytes[address + i] &= data[i]; /* NOR: 1 → 0 only */
  return TINYLDP_STORAGE_OK;
}

static tinyldp_storage_result flash_erase(void* context, uint32_t sector) {
  vendor_flash* flash = (vendor_flash*)context;
  size_t i;
  if (flash->powered_off) return TINYLDP_STORAGE_IO_ERROR;
  if (sector >= VENDOR_SECTORS) return TINYLDP_STORAGE_BAD_GEOMETRY;
  for (i = 0; i < VENDOR_SECTOR; ++i) flash->bytes[sector * VENDOR_SECTOR + i] = 0xFF;
  return TINYLDP_STORAGE_OK;
}

tinyldp_storage_device vendor_flash_device(vendor_flash* flash) {
  tinyldp_storage_device device;
  device.read = flash_read;
  device.program = flash_program;
  device.erase = flash_erase;
  device.context = flash;
  device.geometry.sector_size = VENDOR_SECTOR;
  device.geometry.sector_count = VENDOR_SECTORS;
  device.geometry.program_size = 4;
  device.geometry.erased_value = 0xFF;
  return device;
}
