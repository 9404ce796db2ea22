/* SPDX-License-Identifier: Apache-2.0 */
/* tinyldp/storage.h — the storage contract in C: a flash-like device for a few small records that
 * must survive power loss (a device secret, counters, the budget ledger, a DRBG seed).
 *
 * C firmware fills a `tinyldp_storage_device` (three functions, a context and the geometry) over
 * its flash driver; the record layer on top (two slots, sequence number, CRC-32: power-safe
 * writes) is tinyldp_record in tinyldp.h, or Record in C++ (tinyldp/storage.hpp, which includes
 * this header). Storage calls may take milliseconds (an erase) and are never made from an
 * interrupt handler. C99, no C++ in sight. Cost: nothing of its own. */
#ifndef TINYLDP_STORAGE_H
#define TINYLDP_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tinyldp_storage_result {
  TINYLDP_STORAGE_OK = 0,
  TINYLDP_STORAGE_NOT_FOUND = 1,     /* no valid copy of the record */
  TINYLDP_STORAGE_TOO_LARGE = 2,     /* payload does not fit the slot or the caller's buffer */
  TINYLDP_STORAGE_BAD_GEOMETRY = 3,  /* slot layout outside the device, or unusable sizes */
  TINYLDP_STORAGE_IO_ERROR = 4       /* the device failed (or lost power); verify failed */
} tinyldp_storage_result;

typedef struct tinyldp_storage_geometry {
  uint32_t sector_size;   /* erase unit, bytes */
  uint32_t sector_count;
  uint32_t program_size;  /* program unit, bytes (1, 4, 8, …); programs are aligned to it */
  uint8_t erased_value;   /* byte value after erase (0xFF on NOR flash) */
} tinyldp_storage_geometry;

typedef struct tinyldp_storage_device {
  tinyldp_storage_result (*read)(void* context, uint32_t address, uint8_t* out, size_t length);
  /* Programs erased bytes; address and length are multiples of program_size. */
  tinyldp_storage_result (*program)(void* context, uint32_t address, const uint8_t* data,
                                    size_t length);
  tinyldp_storage_result (*erase)(void* context, uint32_t sector);
  void* context;
  tinyldp_storage_geometry geometry;
} tinyldp_storage_device;

#ifdef __cplusplus
}
#endif

#endif
