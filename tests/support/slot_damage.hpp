// SPDX-License-Identifier: Apache-2.0
// Every damage a record's two slots can take on the emulated flash, for the tests that show
// damage never resets or rolls back what a record holds (the memo key, the privacy ledger).
// Test-only: the sweep keeps a copy of the flash's memory on the stack.
#ifndef TINYLDP_TESTS_SUPPORT_SLOT_DAMAGE_HPP
#define TINYLDP_TESTS_SUPPORT_SLOT_DAMAGE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/port/storage/emulated_flash.hpp"

namespace tinyldp::test {

// The record's slots start at the flash's first byte, slot_bytes each; record_bytes of each
// slot are the record (header and payload). Made once the flash holds the acknowledged state.
template <size_t N>
class SlotDamage {
 public:
  SlotDamage(uint8_t (&memory)[N], port::EmulatedFlash& flash, uint32_t slot_bytes, uint32_t record_bytes)
      : memory_(memory), flash_(flash), slot_bytes_(slot_bytes), record_bytes_(record_bytes) {
    for (size_t i = 0; i < N; ++i) saved_[i] = memory_[i];
  }

  // The acknowledged state again, powered on.
  void restore() {
    for (size_t i = 0; i < N; ++i) memory_[i] = saved_[i];
    flash_.power_on();
  }

  // Each case on the restored state, then boot(one_slot) (one_slot: the other slot is intact):
  // each record byte of either slot, then the same byte of both slots, flipped in one bit,
  // inverted and erased (0xFF); then slot 0, slot 1 and both wholly erased. 6·record_bytes + 2
  // cases damage one slot, 3·record_bytes + 1 both.
  template <class Boot>
  void sweep(Boot boot) {
    for (uint32_t slot = 0; slot < 2; ++slot)
      for (uint32_t i = 0; i < record_bytes_; ++i)
        for (int mode = 0; mode < 3; ++mode) {
          restore();
          damage(slot, i, mode);
          boot(true);
        }
    for (uint32_t i = 0; i < record_bytes_; ++i)
      for (int mode = 0; mode < 3; ++mode) {
        restore();
        for (uint32_t slot = 0; slot < 2; ++slot) damage(slot, i, mode);
        boot(false);
      }
    for (uint32_t erased = 0; erased < 3; ++erased) {  // slot 0, slot 1, both
      restore();
      for (uint32_t slot = 0; slot < 2; ++slot)
        if (erased == slot || erased == 2)
          for (uint32_t i = 0; i < slot_bytes_; ++i) memory_[slot * slot_bytes_ + i] = 0xFF;
      boot(erased != 2);
    }
  }

 private:
  void damage(uint32_t slot, uint32_t i, int mode) {
    uint8_t& b = memory_[slot * slot_bytes_ + i];
    b = mode == 0 ? static_cast<uint8_t>(b ^ 0x01u) : mode == 1 ? static_cast<uint8_t>(~b) : uint8_t{0xFF};
  }

  uint8_t (&memory_)[N];
  port::EmulatedFlash& flash_;
  uint32_t slot_bytes_, record_bytes_;
  uint8_t saved_[N];
};

}  // namespace tinyldp::test

#endif
