// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/nrf51_rng.hpp — entropy from the nRF51 RNG peripheral (register level, base
// 0x4000D000; runs on real nRF51 parts and on QEMU's `microbit` machine).
//
// The peripheral produces one byte per VALRDY event (Nordic: ~677 us per byte with bias
// correction, 167 us without). Blocking requests wait for each byte, bounded by a spin limit
// after which the peripheral is declared dead (`failed`). NONBLOCKING and FROM_ISR requests
// never wait: bytes that are ready are collected into a 32-byte pool and the request is served
// once the pool holds enough, else `not_ready` (the pool and that loop: polled_rng.hpp). Bias correction (CONFIG.DERCEN) is on unless
// configured off. The min-entropy estimate is the integrator's claim (default 4 bits per byte
// with bias correction, 2 without: an assumption, not a vendor figure); wrap the source in
// HealthTested with the same claim.
// Registers go through a Bus (read/write by offset), so the same code runs against a register
// model in host tests. One instance per peripheral; not for concurrent ISR and thread use.
// Cost: RAM 44 bytes; code ~ 300 bytes (Cortex-M0, -Os); stack < 32 bytes.
#ifndef TINYLDP_PORT_NRF51_RNG_HPP
#define TINYLDP_PORT_NRF51_RNG_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/port/entropy/polled_rng.hpp"

namespace tinyldp::port {

namespace nrf51_rng {
inline constexpr uintptr_t base = 0x4000D000u;
inline constexpr uint32_t tasks_start = 0x000;
inline constexpr uint32_t tasks_stop = 0x004;
inline constexpr uint32_t events_valrdy = 0x100;
inline constexpr uint32_t shorts = 0x200;
inline constexpr uint32_t intenclr = 0x308;
inline constexpr uint32_t config = 0x504;
inline constexpr uint32_t value = 0x508;
inline constexpr uint32_t config_dercen = 1u << 0;  // digital error (bias) correction

// The real peripheral: volatile 32-bit accesses at base + offset.
struct Mmio {
  static uint32_t read(uint32_t offset) {
    return *reinterpret_cast<volatile uint32_t*>(base + offset);
  }
  static void write(uint32_t offset, uint32_t v) {
    *reinterpret_cast<volatile uint32_t*>(base + offset) = v;
  }
};

struct Config {
  bool bias_correction = true;
  uint16_t min_entropy_q8 = 1024;  // claimed per byte; 512 is suggested without correction
  uint32_t max_spins_per_byte = 1000000;
};
}  // namespace nrf51_rng

template <class Bus = nrf51_rng::Mmio>
class Nrf51RngT {
 public:
  explicit Nrf51RngT(const nrf51_rng::Config& config = {}, Bus bus = Bus{})
      : bus_(bus), config_(config) {}
  Nrf51RngT(const Nrf51RngT&) = delete;
  Nrf51RngT& operator=(const Nrf51RngT&) = delete;

  // Configures and starts the peripheral (fill does it on first use). Also re-initialises a
  // source that declared the peripheral dead.
  void start() {
    using namespace nrf51_rng;
    bus_.write(tasks_stop, 1);
    bus_.write(shorts, 0);
    bus_.write(intenclr, 1);
    bus_.write(config, config_.bias_correction ? config_dercen : 0u);
    bus_.write(events_valrdy, 0);
    bus_.write(tasks_start, 1);
    started_ = true;
    dead_ = false;
  }
  void stop() {
    bus_.write(nrf51_rng::tasks_stop, 1);
    started_ = false;
  }

  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    if (dead_) return EntropyResult::failed;
    if (length == 0) return EntropyResult::ok;
    if (!started_) start();
    return pool_.serve(
        out, length, flags, config_.max_spins_per_byte,
        [this](uint32_t& byte) {
          if (!ready()) return polled_rng::Poll::empty;
          byte = take();
          return polled_rng::Poll::unit;
        },
        [this] { dead_ = true; });
  }

  uint16_t min_entropy_q8() const { return config_.min_entropy_q8; }

 private:
  bool ready() { return bus_.read(nrf51_rng::events_valrdy) != 0; }
  // VALUE first, then clear the event: a byte arriving in between is skipped, never read twice.
  uint8_t take() {
    const uint8_t v = static_cast<uint8_t>(bus_.read(nrf51_rng::value));
    bus_.write(nrf51_rng::events_valrdy, 0);
    return v;
  }

  [[no_unique_address]] Bus bus_;
  nrf51_rng::Config config_;
  polled_rng::Pool<1> pool_;
  bool started_ = false;
  bool dead_ = false;
};

// The nRF51's own RNG.
using Nrf51Rng = Nrf51RngT<>;

// Every port is checked against its contract where it is declared.
static_assert(EntropySource<Nrf51Rng> && EntropyEstimating<Nrf51Rng>);

}  // namespace tinyldp::port

#endif
