// SPDX-License-Identifier: Apache-2.0
// The example firmwares' platform (platform.h) on the QEMU boards and the host: the TRNG, a
// sensor, a radio. Replace these three functions with your drivers.
//  - TRNG: QEMU's micro:bit has the nRF51 RNG peripheral, used here for real. The mps2 and virt
//    boards have no TRNG: there a DETERMINISTIC stand-in (xorshift32, NOT RANDOM) lets the
//    program run; a real device must never ship that. On the host, getrandom(2).
//  - Sensor: a value that changes from report to report.
//  - Radio: keeps a count and a checksum of the frames, and the last frame, for main() to print.
// Its state is zero-initialized (.bss): the static placement test requires the examples' images
// to have no .data at all.
#include "platform.h"

#if defined(TINYLDP_BOARD_MICROBIT)
#include "tinyldp/port/entropy/nrf51_rng.hpp"
#elif !defined(__arm__) && !defined(__riscv)
#include "tinyldp/port/entropy/host_os_source.hpp"
#endif

namespace {
struct RadioLog {
  uint32_t frames;
  uint32_t checksum;
  uint8_t last[48];
  size_t last_length;
};
uint32_t sensor_state;  // starts at 0
RadioLog radio_log;
}  // namespace

extern "C" uint32_t platform_radio_frames() { return radio_log.frames; }
extern "C" size_t platform_radio_last_frame(const uint8_t** frame) {
  *frame = radio_log.last;
  return radio_log.last_length;
}

extern "C" tinyldp_entropy_result platform_trng_fill(uint8_t* out, size_t length) {
#if defined(TINYLDP_BOARD_MICROBIT)
  // QEMU's RNG model makes a byte per 660 µs of *host* time while the guest spins at full
  // speed: on a busy host one byte may take far more spins than the 1 000 000 a real nRF51
  // ever needs. Emulation only: a device keeps the default limit.
  tinyldp::port::nrf51_rng::Config emulated;
  emulated.max_spins_per_byte = 200000000;
  tinyldp::port::Nrf51Rng rng(emulated);  // starts the peripheral, stops it when done
  return static_cast<tinyldp_entropy_result>(rng.fill(out, length, TINYLDP_ENTROPY_BLOCKING));
#elif defined(__arm__) || defined(__riscv)
  static uint32_t x;  // NOT RANDOM: a stand-in on boards without a TRNG
  if (x == 0) x = 0x2545F491u;
  for (size_t i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = static_cast<uint8_t>(x);
  }
  return TINYLDP_ENTROPY_OK;
#else
  tinyldp::port::HostOsSource os;
  return static_cast<tinyldp_entropy_result>(os.fill(out, length, TINYLDP_ENTROPY_BLOCKING));
#endif
}

extern "C" uint32_t platform_sensor_value() {
  sensor_state = sensor_state * 1103515245u + 12345u;
  return (sensor_state >> 16) % 40u;  // a few dozen categories in use out of 256
}

extern "C" void platform_radio_send(const uint8_t* frame, size_t length) {
  for (size_t i = 0; i < length; ++i) radio_log.checksum = radio_log.checksum * 31u + frame[i];
  radio_log.frames += 1;
  radio_log.last_length = length < sizeof radio_log.last ? length : sizeof radio_log.last;
  for (size_t i = 0; i < radio_log.last_length; ++i) radio_log.last[i] = frame[i];
}
