// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/storage/ram_storage.hpp — a storage device over a caller's RAM array.
//
// For state that must survive a warm reset (watchdog, software reset) but not power loss:
// put the array in a section the startup code does not clear (.noinit / retained RAM) and the
// Record layer finds its last value again after the reset (garbage after a cold start fails
// the CRC and reads as not_found). Also the device for host simulations and tests.
// Behaves like ideal flash with any geometry: erase fills a sector with erased_value; program
// copies (it does not check that the bytes were erased); reads and programs outside the
// array, or programs not aligned to program_size, answer bad_geometry and touch nothing.
// Never fails otherwise. Not for use from an interrupt handler while a Record writes.
// Cost: RAM sizeof(RamStorage) = 20 bytes on 32-bit targets plus the caller's array
// (sector_size * sector_count bytes); code 272 bytes and stack <= 32 bytes (Cortex-M0, -Os);
// time: a byte copy per byte.
#ifndef TINYLDP_PORT_RAM_STORAGE_HPP
#define TINYLDP_PORT_RAM_STORAGE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/storage.hpp"

namespace tinyldp::port {

class RamStorage {
 public:
  // `memory` holds geometry.sector_size * geometry.sector_count bytes and outlives this
  // object. Its contents are kept (call format() for a blank device).
  RamStorage(uint8_t* memory, StorageGeometry geometry) : memory_(memory), geometry_(geometry) {}

  StorageResult read(uint32_t address, uint8_t* out, size_t length);
  StorageResult program(uint32_t address, const uint8_t* data, size_t length);
  StorageResult erase(uint32_t sector);
  StorageGeometry geometry() const { return geometry_; }

  // Erases every sector.
  void format();

 private:
  bool in_range(uint32_t address, size_t length) const;

  uint8_t* memory_;
  StorageGeometry geometry_;
};

static_assert(StorageDevice<RamStorage>);

}  // namespace tinyldp::port

#endif
