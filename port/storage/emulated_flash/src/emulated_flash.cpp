// SPDX-License-Identifier: Apache-2.0
// A NOR-flash model with power-cut injection at any program or erase step.
#include "tinyldp/port/storage/emulated_flash.hpp"

namespace tinyldp::port {
namespace {
constexpr uint32_t step_do = 0, step_skip = 1, step_tear = 2, step_do_then_cut = 3;
}  // namespace

bool EmulatedFlash::in_range(uint32_t address, size_t length) const {
  const uint64_t size = uint64_t{geometry_.sector_size} * geometry_.sector_count;
  return memory_ != nullptr && uint64_t{address} <= size && length <= size - address;
}

uint32_t EmulatedFlash::next_random() {  // xorshift32
  uint32_t x = random_;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  random_ = x;
  return x;
}

uint32_t EmulatedFlash::take_step() {
  const bool hit = armed_ && steps_ == cut_step_;
  ++steps_;
  if (!hit) return step_do;
  armed_ = false;
  powered_ = false;
  switch (cut_when_) {
    case PowerCut::before: return step_skip;
    case PowerCut::during: return step_tear;
    case PowerCut::after: break;
  }
  return step_do_then_cut;
}

// Moves bytes[0..n) part of the way towards target[0..n) (null: the erased value).
void EmulatedFlash::tear(uint8_t* bytes, size_t n, const uint8_t* target) {
  const uint32_t r = next_random();
  const auto goal = [&](size_t i) { return target != nullptr ? target[i] : geometry_.erased_value; };
  if ((r & 1u) != 0 && target == nullptr) {
    // Every bit at random between old and erased.
    for (size_t i = 0; i < n; ++i) {
      const uint8_t change = static_cast<uint8_t>(bytes[i] ^ goal(i));
      bytes[i] = static_cast<uint8_t>(bytes[i] ^ (change & static_cast<uint8_t>(next_random())));
    }
    return;
  }
  const size_t prefix = n == 0 ? 0 : (r >> 1) % n;
  for (size_t i = 0; i < prefix; ++i) bytes[i] = goal(i);
  if (prefix < n) {
    const uint8_t change = static_cast<uint8_t>(bytes[prefix] ^ goal(prefix));
    bytes[prefix] =
        static_cast<uint8_t>(bytes[prefix] ^ (change & static_cast<uint8_t>(next_random())));
  }
}

StorageResult EmulatedFlash::read(uint32_t address, uint8_t* out, size_t length) {
  if (!powered_) return StorageResult::io_error;
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  for (size_t i = 0; i < length; ++i) out[i] = memory_[address + i];
  return StorageResult::ok;
}

StorageResult EmulatedFlash::program(uint32_t address, const uint8_t* data, size_t length) {
  if (!powered_) return StorageResult::io_error;
  const uint32_t unit = geometry_.program_size;
  if (unit == 0 || address % unit != 0 || length % unit != 0) return StorageResult::bad_geometry;
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  for (size_t offset = 0; offset < length; offset += unit) {
    uint8_t* cell = memory_ + address + offset;
    bool erased = true;
    for (uint32_t i = 0; i < unit; ++i) erased = erased && cell[i] == geometry_.erased_value;
    if (!erased) {
      ++counters_.violations;
      return StorageResult::io_error;
    }
    const uint32_t fate = take_step();
    if (fate == step_skip) return StorageResult::io_error;
    ++counters_.program_units;
    if (fate == step_tear) {
      tear(cell, unit, data + offset);
      return StorageResult::io_error;
    }
    for (uint32_t i = 0; i < unit; ++i) cell[i] = data[offset + i];
    if (fate == step_do_then_cut) return StorageResult::io_error;
  }
  return StorageResult::ok;
}

StorageResult EmulatedFlash::erase(uint32_t sector) {
  if (!powered_) return StorageResult::io_error;
  if (memory_ == nullptr || sector >= geometry_.sector_count) return StorageResult::bad_geometry;
  uint8_t* p = memory_ + size_t{sector} * geometry_.sector_size;
  const uint32_t fate = take_step();
  if (fate == step_skip) return StorageResult::io_error;
  ++counters_.erases;
  if (fate == step_tear) {
    tear(p, geometry_.sector_size, nullptr);
    return StorageResult::io_error;
  }
  for (uint32_t i = 0; i < geometry_.sector_size; ++i) p[i] = geometry_.erased_value;
  return fate == step_do_then_cut ? StorageResult::io_error : StorageResult::ok;
}

void EmulatedFlash::format() {
  power_on();
  if (memory_ == nullptr) return;
  const size_t size = size_t{geometry_.sector_size} * geometry_.sector_count;
  for (size_t i = 0; i < size; ++i) memory_[i] = geometry_.erased_value;
}

void EmulatedFlash::cut_power(uint32_t step, PowerCut when) {
  cut_step_ = step;
  cut_when_ = when;
  armed_ = true;
  steps_ = 0;
}

void EmulatedFlash::power_on() {
  powered_ = true;
  armed_ = false;
  steps_ = 0;
}

}  // namespace tinyldp::port
