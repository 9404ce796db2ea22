/* SPDX-License-Identifier: Apache-2.0 */
/* A vendor's drivers, in C: a TRNG (here a stand-in generator, NOT RANDOM) and a small NOR
 * flash in RAM, each exposed through tinyldp's C contracts. */
#ifndef VENDOR_DRIVERS_H
#define VENDOR_DRIVERS_H

#include "tinyldp/entropy.h"
#include "tinyldp/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vendor_trng {
  uint32_t state;
  int broken; /* set by a fault: every request fails from then on */
} vendor_trng;
tinyldp_entropy_result vendor_trng_fill(void* trng, uint8_t* out, size_t length, uint32_t flags);

enum { VENDOR_SECTOR = 256, VENDOR_SECTORS = 8 };
typedef struct vendor_flash {
  uint8_t bytes[VENDOR_SECTOR * VENDOR_SECTORS];
  int powered_off; /* set by a fault: every call fails until cleared */
} vendor_flash;
tinyldp_storage_device vendor_flash_device(vendor_flash* flash);

#ifdef __cplusplus
}
#endif

#endif
