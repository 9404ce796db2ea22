// SPDX-License-Identifier: Apache-2.0
// tinyldp/storage.hpp — the storage contract: a few small records that must survive power loss
// (a device secret, counters, the privacy-budget ledger, a DRBG seed).
//
// Two layers:
//  - a StorageDevice (the port): flash-like read / program / erase of sectors. C++ backends
//    are checked against the concept at compile time; C firmware fills a
//    `tinyldp_storage_device` (function pointers + context), wrapped by CStorageDevice.
//    Backends live in port/ (RAM, host file, emulated flash with power-cut injection).
//  - a Record<Device>: one record in two slots of its own, each slot a header (magic, sequence
//    number, length, CRC-32 over sequence, length and payload) followed by the payload. A write
//    goes to the slot *not* holding the newest valid copy — erase, payload, header last — so a
//    power cut at any point leaves the old value or the new one, never a mix: a torn slot
//    fails its CRC (or its magic) and the other slot wins. Mounting picks the valid slot with
//    the larger sequence number (serial arithmetic, so the 32-bit counter may wrap).
// A record whose loss would reset privacy state (the memo key, the privacy ledger) is written
// with write_both(): the value goes to one slot and then to the other, so at rest both slots
// hold it and damage to either one — any byte corrupted or erased — still reads the newest
// value from the other; a power cut in between leaves the new value in one slot (and the call
// fails, so nothing was acknowledged). The price: two slot writes per change.
// Reads return not_found when neither slot holds a valid copy. On any result but ok, the
// caller's read buffer holds no bytes of the record (what was read is zeroed). Storage calls
// may take milliseconds (a flash erase) and are never made from an interrupt handler.
// No heap, no static state, no floating point.
// Cost (Cortex-M0, -Os): RAM sizeof(Record) = 28 bytes on 32-bit targets (a device reference
// + 5 words + a flag); code ~1.2 KiB per device type; stack ~230 bytes for a write (write ->
// verify -> layout check) plus the device's own; a write erases one slot
// (sectors_per_slot sectors) and programs ceil(length / program_size) units + 16 header
// bytes in at most 3 program calls, then reads the slot back once to verify; a mount reads both
// slots. CRC-32 is bitwise (no table, 8 shift-xor steps per byte): fine for records of a few
// hundred bytes. Flash cost per record: two slots of whole erase sectors.
#ifndef TINYLDP_STORAGE_HPP
#define TINYLDP_STORAGE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"  // is_same_type
#include "tinyldp/storage.h"   // the C contract: result codes, geometry, the device struct

namespace tinyldp {

enum class [[nodiscard]] StorageResult : uint8_t {
  ok = TINYLDP_STORAGE_OK,
  not_found = TINYLDP_STORAGE_NOT_FOUND,
  too_large = TINYLDP_STORAGE_TOO_LARGE,
  bad_geometry = TINYLDP_STORAGE_BAD_GEOMETRY,
  io_error = TINYLDP_STORAGE_IO_ERROR,
};
using StorageGeometry = tinyldp_storage_geometry;

template <class D>
concept StorageDevice = requires(D& d, uint32_t address, uint8_t* out, const uint8_t* in,
                                 size_t length, uint32_t sector) {
  requires is_same_type<decltype(d.read(address, out, length)), StorageResult>;
  requires is_same_type<decltype(d.program(address, in, length)), StorageResult>;
  requires is_same_type<decltype(d.erase(sector)), StorageResult>;
  requires is_same_type<decltype(d.geometry()), StorageGeometry>;
};

// Adapts a C storage driver. A missing function is an I/O error.
class CStorageDevice {
 public:
  explicit constexpr CStorageDevice(tinyldp_storage_device device) : device_(device) {}
  StorageResult read(uint32_t address, uint8_t* out, size_t length) {
    if (device_.read == nullptr) return StorageResult::io_error;
    return convert(device_.read(device_.context, address, out, length));
  }
  StorageResult program(uint32_t address, const uint8_t* data, size_t length) {
    if (device_.program == nullptr) return StorageResult::io_error;
    return convert(device_.program(device_.context, address, data, length));
  }
  StorageResult erase(uint32_t sector) {
    if (device_.erase == nullptr) return StorageResult::io_error;
    return convert(device_.erase(device_.context, sector));
  }
  StorageGeometry geometry() const { return device_.geometry; }

 private:
  static StorageResult convert(tinyldp_storage_result r) {
    switch (r) {
      case TINYLDP_STORAGE_OK: return StorageResult::ok;
      case TINYLDP_STORAGE_NOT_FOUND: return StorageResult::not_found;
      case TINYLDP_STORAGE_TOO_LARGE: return StorageResult::too_large;
      case TINYLDP_STORAGE_BAD_GEOMETRY: return StorageResult::bad_geometry;
      case TINYLDP_STORAGE_IO_ERROR: break;
    }
    return StorageResult::io_error;
  }
  tinyldp_storage_device device_;
};

// CRC-32 (IEEE 802.3, reflected, as zlib): continue with crc32_update(crc, …), start at 0.
constexpr uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t length) {
  crc = ~crc;
  for (size_t i = 0; i < length; ++i) {
    crc ^= data[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// One record in two slots: slot s occupies sectors first_sector + s * sectors_per_slot ….
// Give each record its own sectors (several small values may share one record as a struct).
template <StorageDevice Device>
class Record {
 public:
  static constexpr uint32_t header_bytes = 16;
  static constexpr uint32_t magic = 0x52444C54u;  // "TLDR"

  Record(Device& device, uint32_t first_sector, uint32_t sectors_per_slot)
      : device_(&device), first_sector_(first_sector), sectors_per_slot_(sectors_per_slot) {}

  // Largest payload a slot holds (0 if the layout is unusable).
  uint32_t capacity() const {
    if (!geometry_ok()) return 0;
    return device_->geometry().sector_size * sectors_per_slot_ - header_bytes;
  }

  // Finds the newest valid copy. Called by read/write as needed; call again after a reboot.
  StorageResult mount() {
    mounted_ = false;
    current_ = no_slot;
    length_ = 0;
    if (!geometry_ok()) return StorageResult::bad_geometry;
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t seq = 0, length = 0;
      const StorageResult r = validate(s, seq, length);
      if (r == StorageResult::not_found) continue;
      if (r != StorageResult::ok) {
        current_ = no_slot;
        return r;
      }
      if (current_ == no_slot || static_cast<int32_t>(seq - sequence_) > 0) {
        current_ = s;
        sequence_ = seq;
        length_ = length;
      }
    }
    if (current_ == no_slot) sequence_ = 0;
    mounted_ = true;
    return StorageResult::ok;
  }

  // Copies the newest value into out[0..out_capacity) and its length into *length.
  StorageResult read(uint8_t* out, size_t out_capacity, size_t* length) {
    if (!mounted_) {
      const StorageResult r = mount();
      if (r != StorageResult::ok) return r;
    }
    if (current_ == no_slot) return StorageResult::not_found;
    if (length_ > out_capacity) return StorageResult::too_large;
    const uint32_t base = slot_address(current_);
    StorageResult r = device_->read(base + header_bytes, out, length_);
    // Re-check against the header (the device may have changed since the mount).
    uint8_t header[header_bytes];
    if (r == StorageResult::ok) r = device_->read(base, header, header_bytes);
    if (r == StorageResult::ok) {
      const uint32_t crc = crc32_update(crc32_update(0, header + 4, 8), out, length_);
      if (load32(header) != magic || load32(header + 4) != sequence_ ||
          load32(header + 8) != length_ || crc != load32(header + 12))
        r = StorageResult::io_error;
    }
    if (r != StorageResult::ok) {
      for (size_t i = 0; i < length_; ++i) out[i] = 0;
      mounted_ = false;
      return r;
    }
    *length = length_;
    return StorageResult::ok;
  }

  // Replaces the value. On ok the new value is durable; on any error (power loss included) a
  // later read returns either this value or the previous one.
  StorageResult write(const uint8_t* data, size_t length) {
    if (!mounted_) {
      const StorageResult r = mount();
      if (r != StorageResult::ok) return r;
    }
    if (length > capacity()) return StorageResult::too_large;
    const StorageGeometry g = device_->geometry();
    const uint32_t target = current_ == 0 ? 1u : 0u;
    const uint32_t seq = current_ == no_slot ? 1u : sequence_ + 1u;
    const uint32_t base = slot_address(target);
    const uint32_t n = static_cast<uint32_t>(length);
    mounted_ = false;  // whatever happens next, re-read the slots before trusting them
    StorageResult r = StorageResult::ok;
    for (uint32_t i = 0; i < sectors_per_slot_ && r == StorageResult::ok; ++i)
      r = device_->erase(first_sector_ + target * sectors_per_slot_ + i);
    // Payload: the whole program units straight from the caller, then the last one padded.
    const uint32_t step = g.program_size;
    const uint32_t whole = n / step * step;
    if (r == StorageResult::ok && whole > 0) r = device_->program(base + header_bytes, data, whole);
    if (r == StorageResult::ok && whole < n) {
      uint8_t unit[max_program_size];
      for (uint32_t i = 0; i < step; ++i) unit[i] = whole + i < n ? data[whole + i] : g.erased_value;
      r = device_->program(base + header_bytes + whole, unit, step);
    }
    // Header last: until all of it is programmed the slot is invalid.
    if (r == StorageResult::ok) {
      uint8_t header[header_bytes];
      store32(header, magic);
      store32(header + 4, seq);
      store32(header + 8, n);
      store32(header + 12, crc32_update(crc32_update(0, header + 4, 8), data, length));
      r = device_->program(base, header, header_bytes);
    }
    if (r != StorageResult::ok) return r;
    // Verify what the device now holds.
    uint32_t seq_read = 0, length_read = 0;
    r = validate(target, seq_read, length_read);
    if (r != StorageResult::ok || seq_read != seq || length_read != n)
      return r == StorageResult::ok || r == StorageResult::not_found ? StorageResult::io_error : r;
    current_ = target;
    sequence_ = seq;
    length_ = n;
    mounted_ = true;
    return StorageResult::ok;
  }

  // The same value written to both slots in turn (see the top of this file): on ok both hold
  // it; on an error a later read returns this value or the previous one.
  StorageResult write_both(const uint8_t* data, size_t length) {
    const StorageResult r = write(data, length);
    return r == StorageResult::ok ? write(data, length) : r;
  }

  // Sequence number of the newest copy (0: none; after a mount).
  uint32_t sequence() const { return sequence_; }

 private:
  static constexpr uint32_t no_slot = 2;
  static constexpr uint32_t max_program_size = 16;

  static constexpr uint32_t load32(const uint8_t* p) { return get_le<uint32_t>(p); }
  static constexpr void store32(uint8_t* p, uint32_t v) { put_le(p, v); }

  // Program unit 1..16 dividing the header and the sector; both slots inside the device; the
  // device no larger than the 32-bit address space; room for the header and a byte.
  bool geometry_ok() const {
    if (device_ == nullptr) return false;  // a C context never initialised (all-zero bytes)
    const StorageGeometry g = device_->geometry();
    if (g.program_size < 1 || g.program_size > max_program_size) return false;
    if (header_bytes % g.program_size != 0 || g.sector_size % g.program_size != 0) return false;
    const uint64_t device_bytes = uint64_t{g.sector_size} * g.sector_count;
    const uint64_t slot_bytes = uint64_t{g.sector_size} * sectors_per_slot_;
    return sectors_per_slot_ >= 1 && device_bytes <= (uint64_t{1} << 32) &&
           uint64_t{first_sector_} + 2 * uint64_t{sectors_per_slot_} <= g.sector_count &&
           slot_bytes > header_bytes;
  }

  uint32_t slot_address(uint32_t slot) const {
    return (first_sector_ + slot * sectors_per_slot_) * device_->geometry().sector_size;
  }

  // ok if the slot holds a complete, CRC-correct copy; not_found if it does not.
  StorageResult validate(uint32_t slot, uint32_t& seq, uint32_t& length) {
    const uint32_t base = slot_address(slot);
    uint8_t header[header_bytes];
    StorageResult r = device_->read(base, header, header_bytes);
    if (r != StorageResult::ok) return r;
    if (load32(header) != magic) return StorageResult::not_found;
    seq = load32(header + 4);
    length = load32(header + 8);
    if (length > capacity()) return StorageResult::not_found;
    uint32_t crc = crc32_update(0, header + 4, 8);
    uint8_t chunk[32];
    for (uint32_t offset = 0; offset < length; offset += sizeof chunk) {
      const uint32_t n = length - offset < sizeof chunk ? length - offset : uint32_t{sizeof chunk};
      r = device_->read(base + header_bytes + offset, chunk, n);
      if (r != StorageResult::ok) return r;
      crc = crc32_update(crc, chunk, n);
    }
    return crc == load32(header + 12) ? StorageResult::ok : StorageResult::not_found;
  }

  // A pointer, not a reference: the bytes of a C context never initialised are all zero, and a
  // null device then reads as an unusable layout (bad_geometry) instead of a crash.
  Device* device_;
  uint32_t first_sector_;
  uint32_t sectors_per_slot_;
  uint32_t current_ = no_slot;
  uint32_t sequence_ = 0;
  uint32_t length_ = 0;
  bool mounted_ = false;
};

}  // namespace tinyldp

#endif
