// SPDX-License-Identifier: Apache-2.0
// The platform stubs and main(), linked into every footprint program and into the baseline.
#include "footprint.hpp"

namespace {
volatile uint32_t platform_state = 0x2545F491u;  // the stand-ins' "hardware registers"
volatile uint32_t radio_sink = 0;
}  // namespace

extern "C" __attribute__((noinline)) void platform_radio_send(const uint8_t* data, size_t length) {
  uint32_t sum = 0;
  for (size_t i = 0; i < length; ++i) sum = sum * 31u + data[i];
  radio_sink = sum;
}

extern "C" __attribute__((noinline)) uint32_t platform_sensor_value() { return platform_state; }

// Not random: a stand-in for a TRNG register (xorshift32), enough to run the programs.
extern "C" __attribute__((noinline)) tinyldp_entropy_result platform_trng_fill(uint8_t* out,
                                                                             size_t length) {
  uint32_t x = platform_state;
  for (size_t i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = static_cast<uint8_t>(x);
  }
  platform_state = x;
  return TINYLDP_ENTROPY_OK;
}

int main() {
  const int r = footprint_run();
  // Keep every stub in every image (the baseline too), whether the program uses it or not.
  uint8_t byte = 0;
  platform_trng_fill(&byte, 1);
  platform_radio_send(&byte, platform_sensor_value() & 1u);
  return r;
}
