// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/storage/emulated_flash.hpp — a NOR-flash model over a caller's RAM array that can lose
// power before, during or after any single program or erase step: the device the storage
// layer's power-cut tests run on, usable on the host and on every target.
//
// Model: erase sets a whole sector to erased_value; program works in program_size units and
// refuses (io_error, counted as a violation) a unit whose bytes are not all erased — as ECC
// flash does — so a caller that programs twice without erasing is caught. One step = one
// sector erase or one program unit. cut_power(step, when) arms a power failure at the
// step-th step from now:
//   before — the step does not happen;
//   during — it happens in part: a torn erase leaves a prefix erased and the next byte with a
//            random mix of old and erased bits (or every bit at random), a torn program leaves
//            a prefix of the unit programmed and the next byte half-programmed at random;
//   after  — it happens in full, but the caller never learns it (the call fails).
// From then on every call answers io_error until power_on() (the reboot). Deterministic for a
// given seed. Counts erases and program units (the wear and time a real part would spend).
// Cost: RAM sizeof(EmulatedFlash) = 48 bytes on 32-bit targets plus the caller's array
// (sector_size * sector_count bytes); code 712 bytes and stack <= 40 bytes (Cortex-M0, -Os);
// time: a few operations per byte.
#ifndef TINYLDP_PORT_EMULATED_FLASH_HPP
#define TINYLDP_PORT_EMULATED_FLASH_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/storage.hpp"

namespace tinyldp::port {

enum class PowerCut : uint8_t { before, during, after };

struct FlashCounters {
  uint32_t erases = 0;         // sector erases (a torn one included)
  uint32_t program_units = 0;  // program units (a torn one included)
  uint32_t violations = 0;     // refused programs of bytes that were not erased
};

class EmulatedFlash {
 public:
  // `memory` holds geometry.sector_size * geometry.sector_count bytes and outlives this
  // object; its contents are kept (format() for a blank part). `seed` drives torn steps.
  EmulatedFlash(uint8_t* memory, StorageGeometry geometry, uint32_t seed = 1)
      : memory_(memory), geometry_(geometry), random_(seed == 0 ? 1u : seed) {}

  StorageResult read(uint32_t address, uint8_t* out, size_t length);
  StorageResult program(uint32_t address, const uint8_t* data, size_t length);
  StorageResult erase(uint32_t sector);
  StorageGeometry geometry() const { return geometry_; }

  // Every sector erased, power on, nothing armed (counters are kept).
  void format();
  // Arms a power failure at the step-th program/erase step from now (0: the next one).
  void cut_power(uint32_t step, PowerCut when);
  // Power fails now.
  void cut_power_now() { powered_ = false; }
  // Power returns (a reboot); a pending cut is disarmed; the step count restarts.
  void power_on();
  bool powered() const { return powered_; }
  // Steps taken since the last power_on/cut_power/format.
  uint32_t steps() const { return steps_; }
  const FlashCounters& counters() const { return counters_; }

 private:
  bool in_range(uint32_t address, size_t length) const;
  uint32_t next_random();
  // Decides the fate of the next step: 0 = do it, 1 = skip it (power gone), 2 = tear it,
  // 3 = do it and then lose power.
  uint32_t take_step();
  void tear(uint8_t* bytes, size_t n, const uint8_t* target);

  uint8_t* memory_;
  StorageGeometry geometry_;
  FlashCounters counters_;
  uint32_t steps_ = 0;
  uint32_t cut_step_ = 0;
  uint32_t random_;
  PowerCut cut_when_ = PowerCut::before;
  bool armed_ = false;
  bool powered_ = true;
};

static_assert(StorageDevice<EmulatedFlash>);

}  // namespace tinyldp::port

#endif
