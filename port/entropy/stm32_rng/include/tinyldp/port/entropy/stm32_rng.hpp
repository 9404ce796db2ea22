// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/stm32_rng.hpp — entropy from the STM32 RNG peripheral (register level: CR, SR,
// DR; the F2/F4/F7/L4 family layout). Base address is a template parameter (0x50060800 on
// STM32F4; check your part's reference manual).
//
// Each DRDY delivers a 32-bit word. Errors fail closed:
// - seed error (SR.SECS/SEIS: the noise source's own health test failed) and
// - clock error (SR.CECS/CEIS: RNG clock too slow)
// make the source answer `failed` — buffered words are discarded, the request's bytes zeroed —
// until init(), which runs the reference manual's recovery (clear SEIS/CEIS, disable and
// re-enable the RNG) and succeeds only if no error persists. SR is checked again after every
// DR read and at the start of every request, so a word read while an error arose, or pooled
// before it, is never used; a DR of 0 is discarded (some
// parts zero DR on a noise-source error). Blocking requests spin on DRDY up to a limit, then
// declare the peripheral dead (`failed`); NONBLOCKING and FROM_ISR requests never wait: ready
// words go to a 32-byte pool, and the request is served once the pool holds enough (the pool
// and that loop: polled_rng.hpp).
// Min-entropy estimate: the integrator's claim (default full: ST conditions the output; use
// HealthTested on the raw words if your part's certification says otherwise).
// Registers go through a Bus (read/write by offset): the host tests run this code against a
// register model, since QEMU's STM32 machines do not model the RNG.
// Cost: RAM 44 bytes; code ~ 400 bytes (Cortex-M3, -Os); stack < 32 bytes.
#ifndef TINYLDP_PORT_STM32_RNG_HPP
#define TINYLDP_PORT_STM32_RNG_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/port/entropy/polled_rng.hpp"

namespace tinyldp::port {

namespace stm32_rng {
inline constexpr uint32_t cr = 0x0;
inline constexpr uint32_t sr = 0x4;
inline constexpr uint32_t dr = 0x8;
inline constexpr uint32_t cr_rngen = 1u << 2;
inline constexpr uint32_t cr_ie = 1u << 3;
inline constexpr uint32_t cr_ced = 1u << 5;  // 1 disables clock error detection (kept 0)
inline constexpr uint32_t sr_drdy = 1u << 0;
inline constexpr uint32_t sr_cecs = 1u << 1;
inline constexpr uint32_t sr_secs = 1u << 2;
inline constexpr uint32_t sr_ceis = 1u << 5;
inline constexpr uint32_t sr_seis = 1u << 6;
inline constexpr uint32_t sr_errors = sr_cecs | sr_secs | sr_ceis | sr_seis;

template <uintptr_t Base>
struct Mmio {
  static uint32_t read(uint32_t offset) {
    return *reinterpret_cast<volatile uint32_t*>(Base + offset);
  }
  static void write(uint32_t offset, uint32_t v) {
    *reinterpret_cast<volatile uint32_t*>(Base + offset) = v;
  }
};

struct Config {
  uint16_t min_entropy_q8 = TINYLDP_ENTROPY_ESTIMATE_FULL;
  uint32_t max_spins_per_word = 100000;
};

enum class Error : uint8_t { none, seed, clock, timeout };
}  // namespace stm32_rng

template <class Bus>
class Stm32RngT {
 public:
  explicit Stm32RngT(const stm32_rng::Config& config = {}, Bus bus = Bus{})
      : bus_(bus), config_(config) {}
  Stm32RngT(const Stm32RngT&) = delete;
  Stm32RngT& operator=(const Stm32RngT&) = delete;

  // Enables the RNG, or recovers it after an error: clears the interrupt flags, toggles RNGEN,
  // and reports `failed` if a seed or clock error is still present.
  EntropyResult init() {
    using namespace stm32_rng;
    pool_.discard();
    bus_.write(cr, 0);
    bus_.write(sr, ~(sr_ceis | sr_seis));  // rc_w0: writing 0 clears
    bus_.write(cr, cr_rngen);
    started_ = true;
    const uint32_t status = bus_.read(sr);
    if ((status & sr_secs) != 0) return fail(Error::seed);
    if ((status & sr_cecs) != 0) return fail(Error::clock);
    error_ = Error::none;
    return EntropyResult::ok;
  }

  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    if (error_ != stm32_rng::Error::none) return EntropyResult::failed;
    if (length == 0) return EntropyResult::ok;
    if (!started_ && init() != EntropyResult::ok) return EntropyResult::failed;
    // An error now also condemns words pooled before it (they are discarded, not served).
    if (error_in(bus_.read(stm32_rng::sr))) return EntropyResult::failed;
    return pool_.serve(
        out, length, flags, config_.max_spins_per_word, [this](uint32_t& word) { return poll(word); },
        [this] { latch(Error::timeout); });
  }

  uint16_t min_entropy_q8() const { return config_.min_entropy_q8; }
  stm32_rng::Error error() const { return error_; }

 private:
  using Poll = polled_rng::Poll;
  using Error = stm32_rng::Error;

  // One attempt at a word: checks SR before and after reading DR.
  Poll poll(uint32_t& word) {
    const uint32_t before = bus_.read(stm32_rng::sr);
    if (error_in(before)) return Poll::error;
    if ((before & stm32_rng::sr_drdy) == 0) return Poll::empty;
    word = bus_.read(stm32_rng::dr);
    if (error_in(bus_.read(stm32_rng::sr))) {
      word = 0;
      return Poll::error;
    }
    return word == 0 ? Poll::empty : Poll::unit;
  }

  bool error_in(uint32_t status) {
    using namespace stm32_rng;
    if ((status & (sr_secs | sr_seis)) != 0) {
      latch(Error::seed);
      return true;
    }
    if ((status & (sr_cecs | sr_ceis)) != 0) {
      latch(Error::clock);
      return true;
    }
    return false;
  }

  // Latches the error (final until reset) and drops pooled bytes.
  void latch(Error e) {
    error_ = e;
    pool_.discard();
  }
  EntropyResult fail(Error e) {
    latch(e);
    return EntropyResult::failed;
  }

  [[no_unique_address]] Bus bus_;
  stm32_rng::Config config_;
  polled_rng::Pool<4> pool_;
  bool started_ = false;
  Error error_ = Error::none;
};

// An STM32 RNG at a fixed address, e.g. Stm32Rng<0x50060800> on STM32F4.
template <uintptr_t Base>
using Stm32Rng = Stm32RngT<stm32_rng::Mmio<Base>>;

// Every port is checked against its contract where it is declared (any address will do).
static_assert(EntropySource<Stm32Rng<0x50060800>> && EntropyEstimating<Stm32Rng<0x50060800>>);

}  // namespace tinyldp::port

#endif
