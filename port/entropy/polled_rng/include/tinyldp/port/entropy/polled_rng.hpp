// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/polled_rng.hpp — the part every polled RNG peripheral driver shares: a
// 32-byte pool and the fill() loop over a device that is polled for one unit (a byte, a
// 32-bit word) at a time. Registers, bits, start-up and error latching stay in each driver
// (nrf51_rng.hpp, stm32_rng.hpp); this is not an entropy source by itself.
//
// Pool<UnitBytes>::serve(out, length, flags, max_spins, poll, timeout):
// - NONBLOCKING and FROM_ISR requests never wait: units that are ready go into the pool, and
//   the request is served from it once it holds `length` bytes, else `not_ready`.
// - Blocking requests take pooled bytes first, then poll for each further unit up to
//   `max_spins` times; after that the driver's timeout() latches the peripheral as dead.
// - poll(unit) is one attempt: Poll::unit (with `unit` set), Poll::empty, or Poll::error (the
//   driver has latched it). On any error the bytes already written are zeroed: `failed`.
// A unit's bytes are handed out least significant first. Pooled bytes are wiped as they are
// served, by discard() and on destruction.
// Cost: RAM 33 bytes.
#ifndef TINYLDP_PORT_POLLED_RNG_HPP
#define TINYLDP_PORT_POLLED_RNG_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"

namespace tinyldp::port::polled_rng {

enum class Poll : uint8_t { unit, empty, error };

template <size_t UnitBytes>
class Pool {
  static_assert(UnitBytes >= 1 && UnitBytes <= 4, "a unit is one to four bytes of a uint32_t");

 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { discard(); }

  // Wipes the pooled bytes.
  void discard() {
    volatile uint8_t* p = pool_;
    for (size_t i = 0; i < sizeof pool_; ++i) p[i] = 0;
    pooled_ = 0;
  }

  template <class PollUnit, class Timeout>
  EntropyResult serve(uint8_t* out, size_t length, uint32_t flags, uint32_t max_spins,
                      PollUnit poll, Timeout timeout) {
    const bool may_wait = (flags & (TINYLDP_ENTROPY_NONBLOCKING | TINYLDP_ENTROPY_FROM_ISR)) == 0;
    if (!may_wait) {
      while (pooled_ + UnitBytes <= sizeof pool_) {
        uint32_t unit = 0;
        const Poll p = poll(unit);
        if (p == Poll::error) return EntropyResult::failed;
        if (p == Poll::empty) break;
        put_le(pool_ + pooled_, unit, UnitBytes);
        pooled_ = static_cast<uint8_t>(pooled_ + UnitBytes);
      }
      if (pooled_ < length) return EntropyResult::not_ready;
    }
    size_t done = 0;
    while (done < length && pooled_ > 0) {
      out[done++] = pool_[--pooled_];
      pool_[pooled_] = 0;
    }
    while (done < length) {
      uint32_t unit = 0;
      uint32_t spins = 0;
      Poll p;
      while ((p = poll(unit)) == Poll::empty) {
        if (++spins > max_spins) {
          timeout();
          p = Poll::error;
          break;
        }
      }
      if (p == Poll::error) {
        for (size_t i = 0; i < done; ++i) out[i] = 0;
        return EntropyResult::failed;
      }
      for (size_t i = 0; i < UnitBytes && done < length; ++i)
        out[done++] = static_cast<uint8_t>(unit >> (8 * i));
    }
    return EntropyResult::ok;
  }

 private:
  uint8_t pool_[32] = {};
  uint8_t pooled_ = 0;
};

}  // namespace tinyldp::port::polled_rng

#endif
