// SPDX-License-Identifier: Apache-2.0
// The golden authenticated report, fixed once from an independent implementation (Python's
// `cryptography`, OpenSSL's ChaCha20 and ChaCha20-Poly1305): a fleet secret, a device id, a
// version-1 report with the device id and epoch fields (OUE's id, a made-up digest, a 16-bit
// payload) and its sealed form under counters 5 and 6. tests/port/test_report_auth seals it on
// every target; tests/collector/test_report_auth_gate verifies it with the gate (OpenSSL).
#ifndef TINYLDP_TESTS_SUPPORT_REPORT_AUTH_GOLDEN_HPP
#define TINYLDP_TESTS_SUPPORT_REPORT_AUTH_GOLDEN_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp::test::golden_auth {

inline constexpr uint8_t fleet_secret[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                             17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
inline constexpr uint32_t device_id = 0x00C0FFEEu;
// ChaCha20(fleet secret, block 0, "TLDK" ‖ device id ‖ 0)[0..32).
inline constexpr const char* device_key_hex = "1cc6351eae08a2f6220b964dcc29b072ec52712ecede780e29ab2c5e18e7aa66";
// Version 1, mechanism 4 (OUE), digest 0x12345678, fields device id | epoch, id, epoch 7,
// payload a5 3c (16 bits).
inline constexpr uint8_t mechanism = 4;
inline constexpr uint32_t digest = 0x12345678u;
inline constexpr uint32_t payload_bits = 16;
inline constexpr uint8_t v1_report[17] = {0x01, 0x04, 0x78, 0x56, 0x34, 0x12, 0x03, 0xEE, 0xFF,
                                          0xC0, 0x00, 0x07, 0x00, 0x00, 0x00, 0xA5, 0x3C};
inline constexpr uint32_t first_counter = 5;
inline constexpr size_t sealed_bytes = 37;
inline constexpr const char* sealed_hex[2] = {
    "02047856341203eeffc00007000000a53c05000000fbce9328005a8dae13ff054d586162fc",  // counter 5
    "02047856341203eeffc00007000000a53c060000000b1e28f728a5237dd1ad7f5482cdfe54",  // counter 6
};

}  // namespace tinyldp::test::golden_auth

#endif
