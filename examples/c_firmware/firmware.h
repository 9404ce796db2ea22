/* SPDX-License-Identifier: Apache-2.0 */
/* The telemetry firmware of examples/oue_firmware, written in C against tinyldp.h: a hardware
 * TRNG, checked by the SP 800-90B health tests, seeds the ChaCha20 DRBG; each report privatizes
 * the sensor's value with OUE (ε = 1, d = 256) straight into its wire frame, which goes to the
 * radio. main.c runs it on every QEMU board (and the host); bench/footprint measures exactly
 * this code (the `c_firmware` row of docs/footprint.md). Its platform — TRNG, sensor, radio — is
 * examples/common/platform.h.
 *
 * Every tinyldp context the firmware keeps is in one struct the application owns; main.c makes
 * it a plain global, zero-initialized (.bss: no flash, nothing to construct or destroy). */
#ifndef TINYLDP_EXAMPLES_C_FIRMWARE_H
#define TINYLDP_EXAMPLES_C_FIRMWARE_H

#include "tinyldp.h"

typedef struct c_firmware {
  tinyldp_chacha20_drbg drbg; /* 328 B on 32-bit targets */
  tinyldp_ue oue;             /* 48 B */
} c_firmware;

/* Status codes of the steps (0 = done). */
enum { C_FIRMWARE_OK = 0, C_FIRMWARE_ENTROPY_FAILED = 1, C_FIRMWARE_REPORT_FAILED = 2,
       C_FIRMWARE_CONFIG_FAILED = 3 };

/* At boot: makes the DRBG (unseeded) and configures OUE from ε = 1 (as ε · 2^32). */
int c_firmware_boot(c_firmware* fw);
/* Before each report: seeds the DRBG at boot, and reseeds it from the TRNG (through fresh
 * health tests, start-up test included) when the reseed interval is about to run out; so no
 * reseed nests inside a report. */
int c_firmware_maintain(c_firmware* fw);
/* One report: the sensor's value, privatized into the frame, framed, sent. On any failure
 * nothing is sent. */
int c_firmware_report(c_firmware* fw);

#endif
