// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/test/storage_conformance.hpp — the conformance suite every storage backend runs:
// tinyldp's own on the host and on each QEMU target where the backend exists, and an
// out-of-tree flash driver from its own test program (link tinyldp::port_conformance). Like the
// entropy suite it returns the number of violations (writing each through options.output), so
// a test can require 0 for a real backend and > 0 for a deliberately broken one.
//
// Device level (uses the device's first `sectors` sectors, default all): erase really erases;
// program then read returns the bytes; a zero-length read or program answers ok and writes
// nothing (null buffer included); reads write no byte outside the requested range (sentinels,
// lengths 1..64 at odd offsets); out-of-range reads, programs and erases and misaligned
// programs are refused and change nothing. Record level: a blank device reads not_found and
// leaves the buffer alone; values of length 0..capacity read back exactly, with the byte after
// the buffer untouched; a too-small buffer or a too-large value answers too_large and writes
// nothing; a fresh Record (a reboot) finds the newest value and the sequence number advances
// by one per write; an injected device failure is reported by write and read (no record bytes
// left in the buffer) and, once the device is back, the record reads as the old or new value.
// Storage is never called from an interrupt handler, so there is no ISR path to check.
#ifndef TINYLDP_PORT_TEST_STORAGE_CONFORMANCE_HPP
#define TINYLDP_PORT_TEST_STORAGE_CONFORMANCE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/port/test/conformance.hpp"
#include "tinyldp/storage.hpp"

namespace tinyldp::conformance {

struct StorageConformanceOptions {
  const char* name = "device";
  Output output = nullptr;  // where violations are written (null: only counted)
  bool print_violations = true;
  // Makes the device fail (power cut, closed file, …) and brings it back; null: skip.
  void (*inject_failure)(void* context) = nullptr;
  void (*restore)(void* context) = nullptr;
  void* context = nullptr;
};

namespace storage_conformance_detail {
using conformance::sentinel;
constexpr size_t max_length = 64;
using Guarded = conformance::GuardedBuffer<max_length>;

inline void report(uint32_t& violations, const Channel* name, const char* what, size_t n) {
  conformance::report(violations, "storage conformance", name, what, "", n);
}

inline uint8_t pattern(uint32_t seed, size_t i) {
  uint32_t x = seed * 0x9E3779B9u + static_cast<uint32_t>(i) * 0x85EBCA6Bu;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<uint8_t>(x >> 8);
}

template <StorageDevice D>
bool read_equals(D& device, uint32_t address, size_t n, uint32_t seed) {
  Guarded g;
  g.prepare(n, 0);
  if (device.read(address, g.out(), n) != StorageResult::ok || !g.guards_intact()) return false;
  for (size_t i = 0; i < n; ++i)
    if (g.out()[i] != pattern(seed, i)) return false;
  return true;
}

template <StorageDevice D>
bool sector_erased(D& device, uint32_t sector) {
  const StorageGeometry g = device.geometry();
  uint8_t chunk[32];
  for (uint32_t offset = 0; offset < g.sector_size; offset += sizeof chunk) {
    const uint32_t n = g.sector_size - offset < sizeof chunk ? g.sector_size - offset : 32u;
    if (device.read(sector * g.sector_size + offset, chunk, n) != StorageResult::ok) return false;
    for (uint32_t i = 0; i < n; ++i)
      if (chunk[i] != g.erased_value) return false;
  }
  return true;
}

template <StorageDevice D>
void device_checks(D& device, uint32_t& v, const Channel* name) {
  const StorageGeometry g = device.geometry();
  const uint32_t unit = g.program_size;
  if (unit == 0 || g.sector_size % unit != 0 || g.sector_count < 4 || g.sector_size < 64) {
    report(v, name, "geometry unusable for the suite (needs 4 sectors of >= 64 bytes)", 0);
    return;
  }
  const uint32_t size = g.sector_size * g.sector_count;
  // Erase really erases (after programming something non-erased).
  if (device.erase(0) != StorageResult::ok) report(v, name, "erase failed", 0);
  uint8_t data[max_length];
  const size_t n = max_length / unit * unit;
  for (size_t i = 0; i < n; ++i) data[i] = pattern(1, i);
  if (device.program(0, data, n) != StorageResult::ok) report(v, name, "program failed", n);
  if (!read_equals(device, 0, n, 1)) report(v, name, "programmed bytes do not read back", n);
  if (device.erase(0) != StorageResult::ok) report(v, name, "erase failed", 0);
  if (!sector_erased(device, 0)) report(v, name, "sector not erased", 0);
  // Zero-length requests.
  {
    Guarded gd;
    gd.prepare(0, 0);
    if (device.read(0, gd.out(), 0) != StorageResult::ok) report(v, name, "zero read not ok", 0);
    if (!gd.guards_intact()) report(v, name, "zero-length read wrote", 0);
    if (device.read(0, nullptr, 0) != StorageResult::ok) report(v, name, "null zero read", 0);
    if (device.program(0, nullptr, 0) != StorageResult::ok) report(v, name, "null zero program", 0);
    if (!sector_erased(device, 0)) report(v, name, "zero-length program wrote", 0);
  }
  // Sentinels around reads of every length 1..64 at odd buffer offsets, odd addresses.
  if (device.erase(1) != StorageResult::ok) report(v, name, "erase failed", 1);
  for (size_t i = 0; i < n; ++i) data[i] = pattern(2, i);
  if (device.program(g.sector_size, data, n) != StorageResult::ok) report(v, name, "program", n);
  for (size_t length = 1; length <= max_length; ++length) {
    Guarded gd;
    gd.prepare(length, 0x5A);
    const uint32_t address = g.sector_size + static_cast<uint32_t>(length % 3);
    if (device.read(address, gd.out(), length) != StorageResult::ok)
      report(v, name, "read failed", length);
    if (!gd.guards_intact()) report(v, name, "read wrote outside the buffer", length);
    for (size_t i = 0; i < length && address - g.sector_size + i < n; ++i) {
      if (gd.out()[i] != pattern(2, address - g.sector_size + i)) {
        report(v, name, "read returned wrong bytes", length);
        break;
      }
    }
  }
  // Out of range and misaligned: refused, nothing changes, nothing written to the buffer.
  {
    Guarded gd;
    gd.prepare(16, 0x5A);
    if (device.read(size - 8, gd.out(), 16) == StorageResult::ok)
      report(v, name, "read past the end accepted", 16);
    if (!gd.guards_intact() || !gd.all(0x5A)) report(v, name, "refused read wrote", 16);
    if (device.read(0xFFFFFFF0u, gd.out(), 32) == StorageResult::ok)
      report(v, name, "read at a wrapping address accepted", 32);
    if (device.erase(g.sector_count) == StorageResult::ok)
      report(v, name, "erase past the end accepted", g.sector_count);
    if (device.program(size, data, unit) == StorageResult::ok)
      report(v, name, "program past the end accepted", unit);
    if (unit > 1) {
      if (device.erase(2) != StorageResult::ok) report(v, name, "erase failed", 2);
      if (device.program(2 * g.sector_size + 1, data, unit) == StorageResult::ok)
        report(v, name, "misaligned program accepted", unit);
      if (device.program(2 * g.sector_size, data, unit + 1) == StorageResult::ok)
        report(v, name, "program of a partial unit accepted", unit + 1);
      if (!sector_erased(device, 2)) report(v, name, "refused program changed the device", 2);
    }
  }
}

template <StorageDevice D>
void record_checks(D& device, uint32_t& v, const Channel* name,
                   const StorageConformanceOptions& options) {
  const StorageGeometry g = device.geometry();
  for (uint32_t s = 0; s < 4; ++s)
    if (device.erase(s) != StorageResult::ok) report(v, name, "erase failed", s);
  Record<D> record(device, 2, 1);
  // Blank device.
  {
    Guarded gd;
    gd.prepare(16, 0x5A);
    size_t length = 99;
    if (record.read(gd.out(), 16, &length) != StorageResult::not_found)
      report(v, name, "blank device does not read not_found", 0);
    if (!gd.guards_intact() || !gd.all(0x5A) || length != 99)
      report(v, name, "not_found read wrote", 0);
  }
  const uint32_t capacity = record.capacity();
  if (capacity != g.sector_size - Record<D>::header_bytes)
    report(v, name, "unexpected capacity", capacity);
  // Round trips over lengths 0..min(capacity, 64), then the full capacity.
  uint8_t value[max_length];
  uint32_t writes = 0;
  const size_t top = capacity < max_length ? capacity : max_length;
  for (size_t length = 0; length <= top; length += length < 20 ? 1 : 11) {
    for (size_t i = 0; i < length; ++i) value[i] = pattern(static_cast<uint32_t>(100 + length), i);
    if (record.write(value, length) != StorageResult::ok) {
      report(v, name, "record write failed", length);
      continue;
    }
    ++writes;
    Guarded gd;
    gd.prepare(length, 0x5A);
    size_t got = 99;
    if (record.read(gd.out(), length, &got) != StorageResult::ok || got != length)
      report(v, name, "record read failed", length);
    if (!gd.guards_intact()) report(v, name, "record read wrote past the buffer", length);
    if (!bytes_equal(gd.out(), value, length)) report(v, name, "record value differs", length);
    // A buffer one byte short: too_large, nothing written.
    if (length > 0) {
      Guarded small;
      small.prepare(length - 1, 0x5A);
      if (record.read(small.out(), length - 1, &got) != StorageResult::too_large)
        report(v, name, "short buffer not too_large", length);
      if (!small.guards_intact() || !small.all(0x5A)) report(v, name, "short read wrote", length);
    }
    // A reboot finds it again.
    Record<D> again(device, 2, 1);
    gd.prepare(length, 0x5A);
    if (again.read(gd.out(), length, &got) != StorageResult::ok || got != length ||
        !bytes_equal(gd.out(), value, length))
      report(v, name, "value lost across a remount", length);
    if (again.sequence() != writes) report(v, name, "sequence does not count writes", writes);
  }
  // The full capacity (for slots up to 512 bytes), then one byte more.
  if (capacity <= 496) {
    uint8_t full[496 + 1];
    for (size_t i = 0; i < capacity; ++i) full[i] = pattern(5, i);
    if (record.write(full, capacity) != StorageResult::ok)
      report(v, name, "full-capacity write failed", capacity);
    full[capacity] = sentinel;
    for (size_t i = 0; i < capacity; ++i) full[i] = 0;
    size_t got = 0;
    if (record.read(full, capacity, &got) != StorageResult::ok || got != capacity)
      report(v, name, "full-capacity read failed", capacity);
    for (size_t i = 0; i < capacity; ++i) {
      if (full[i] != pattern(5, i)) {
        report(v, name, "full-capacity value differs", capacity);
        break;
      }
    }
    if (full[capacity] != sentinel) report(v, name, "full-capacity read overran", capacity);
  }
  {
    uint8_t dummy[1] = {0};
    if (record.write(dummy, size_t{capacity} + 1) != StorageResult::too_large)
      report(v, name, "oversized value not too_large", capacity + 1);
  }
  // Injected failure: reported by write and by read; afterwards old or new.
  if (options.inject_failure != nullptr) {
    for (size_t i = 0; i < 24; ++i) value[i] = pattern(7, i);
    if (record.write(value, 24) != StorageResult::ok) report(v, name, "write failed", 24);
    options.inject_failure(options.context);
    uint8_t next[24];
    for (size_t i = 0; i < 24; ++i) next[i] = pattern(8, i);
    if (record.write(next, 24) == StorageResult::ok) report(v, name, "failed write reported ok", 24);
    Record<D> during(device, 2, 1);
    Guarded gd;
    gd.prepare(24, 0x5A);
    size_t got = 0;
    const StorageResult r = during.read(gd.out(), 24, &got);
    if (r == StorageResult::ok) report(v, name, "read on a failed device reported ok", 24);
    for (size_t i = 0; i < 24 && r != StorageResult::ok; ++i) {
      if (gd.out()[i] != 0x5A && gd.out()[i] != 0) {
        report(v, name, "failed read left record bytes", 24);
        break;
      }
    }
    options.restore(options.context);
    Record<D> after(device, 2, 1);
    gd.prepare(24, 0x5A);
    if (after.read(gd.out(), 24, &got) != StorageResult::ok || got != 24 ||
        !(bytes_equal(gd.out(), value, 24) || bytes_equal(gd.out(), next, 24)))
      report(v, name, "after a failure the record is neither old nor new", 24);
  }
}

}  // namespace storage_conformance_detail

template <StorageDevice D>
uint32_t storage_conformance(D& device, const StorageConformanceOptions& options = {}) {
  using namespace storage_conformance_detail;
  uint32_t v = 0;
  const Channel channel{options.output, options.name};
  const Channel* name = options.print_violations ? &channel : nullptr;
  device_checks(device, v, name);
  if (v == 0) record_checks(device, v, name, options);
  return v;
}

}  // namespace tinyldp::conformance

#endif
