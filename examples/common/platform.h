/* SPDX-License-Identifier: Apache-2.0 */
/* What the example firmwares (oue_firmware in C++, c_firmware in C) need from their platform:
 * a TRNG, a sensor, a radio — your drivers. platform_qemu.cpp has the QEMU boards' (and the
 * host's); bench/footprint/platform.cpp the measured stand-ins. Not part of tinyldp. */
#ifndef TINYLDP_EXAMPLES_COMMON_PLATFORM_H
#define TINYLDP_EXAMPLES_COMMON_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills out[0..length) from the hardware TRNG; anything but TINYLDP_ENTROPY_OK makes the
 * firmware send nothing. */
tinyldp_entropy_result platform_trng_fill(uint8_t* out, size_t length);
/* The private value to report, a category in [0, 256). */
uint32_t platform_sensor_value(void);
/* Sends one finished frame (header + payload). */
void platform_radio_send(const uint8_t* frame, size_t length);

/* What the QEMU platform's radio saw, for the examples' main() to print: the frames sent, and
 * the last one (its first bytes, up to 48). */
uint32_t platform_radio_frames(void);
size_t platform_radio_last_frame(const uint8_t** frame);

#ifdef __cplusplus
}
#endif

#endif
