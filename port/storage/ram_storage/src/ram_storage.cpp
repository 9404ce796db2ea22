// SPDX-License-Identifier: Apache-2.0
// A storage device over a caller's RAM array.
#include "tinyldp/port/storage/ram_storage.hpp"

namespace tinyldp::port {

bool RamStorage::in_range(uint32_t address, size_t length) const {
  const uint64_t size = uint64_t{geometry_.sector_size} * geometry_.sector_count;
  return memory_ != nullptr && uint64_t{address} <= size && length <= size - address;
}

StorageResult RamStorage::read(uint32_t address, uint8_t* out, size_t length) {
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  for (size_t i = 0; i < length; ++i) out[i] = memory_[address + i];
  return StorageResult::ok;
}

StorageResult RamStorage::program(uint32_t address, const uint8_t* data, size_t length) {
  const uint32_t unit = geometry_.program_size;
  if (unit == 0 || address % unit != 0 || length % unit != 0) return StorageResult::bad_geometry;
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  for (size_t i = 0; i < length; ++i) memory_[address + i] = data[i];
  return StorageResult::ok;
}

StorageResult RamStorage::erase(uint32_t sector) {
  if (memory_ == nullptr || sector >= geometry_.sector_count) return StorageResult::bad_geometry;
  uint8_t* p = memory_ + size_t{sector} * geometry_.sector_size;
  for (uint32_t i = 0; i < geometry_.sector_size; ++i) p[i] = geometry_.erased_value;
  return StorageResult::ok;
}

void RamStorage::format() {
  // Every sector index is in range here, so erase cannot fail (bad_geometry only when no
  // memory was given, and then there is nothing to format).
  for (uint32_t s = 0; s < geometry_.sector_count; ++s) static_cast<void>(erase(s));
}

}  // namespace tinyldp::port
