// SPDX-License-Identifier: Apache-2.0
// What the QEMU platform's radio saw, for main() to print.
#ifndef TINYLDP_EXAMPLES_OUE_FIRMWARE_PLATFORM_QEMU_HPP
#define TINYLDP_EXAMPLES_OUE_FIRMWARE_PLATFORM_QEMU_HPP

#include <stddef.h>
#include <stdint.h>

struct RadioLog {
  uint32_t frames = 0;
  uint32_t checksum = 0;
  uint8_t last[48] = {};
  size_t last_length = 0;
};
const RadioLog& radio_log_so_far();

#endif
