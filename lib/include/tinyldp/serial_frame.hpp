// SPDX-License-Identifier: Apache-2.0
// tinyldp/serial_frame.hpp — reports over a byte stream (a UART, a log, a radio without its own
// packets): each wire report (wire.hpp) travels as a frame the receiver can find again after
// noise, a lost byte or a device that reset mid-frame.
//
//   0xA5 0x5A   sync
//   u16 LE      length n of the report (1 … max_serial_report)
//   n bytes     the wire report
//   u32 LE      CRC-32 (IEEE, as zlib) over the length bytes and the report
//
// The collector (`tinyldp wrap`) scans a raw capture for sync bytes, checks length and CRC,
// resynchronizes one byte after the sync on any mismatch, and writes the reports it finds to a
// report file, counting what it skipped (docs/wire-format.md, "Serial frames").
// Cost: 8 bytes per report; encoding is a copy and a bitwise CRC (8 shift-xor steps per
// byte), no RAM beyond the caller's buffer.
#ifndef TINYLDP_SERIAL_FRAME_HPP
#define TINYLDP_SERIAL_FRAME_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/storage.hpp"  // crc32_update

namespace tinyldp::serial {

inline constexpr uint8_t sync0 = 0xA5, sync1 = 0x5A;
inline constexpr size_t overhead_bytes = 8;  // sync, length, CRC
inline constexpr size_t max_report = 65535;

constexpr size_t frame_bytes(size_t report_bytes) { return report_bytes + overhead_bytes; }

// Frames report[0..n) into out; written = frame_bytes(n). Nothing is written on an error.
// The report may already sit at its place in the frame (report == out + 4): a firmware can
// build it there and needs no second copy. Any other overlap is not allowed.
constexpr Status encode(const uint8_t* report, size_t n, uint8_t* out, size_t out_size,
                        size_t& written) {
  written = 0;
  if (n == 0 || n > max_report) return Status::bad_parameter;
  if (out == nullptr || out_size < frame_bytes(n)) return Status::buffer_too_small;
  out[0] = sync0;
  out[1] = sync1;
  put_le(out + 2, static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) out[4 + i] = report[i];
  put_le(out + 4 + n, crc32_update(0, out + 2, n + 2));
  written = frame_bytes(n);
  return Status::ok;
}

}  // namespace tinyldp::serial

#endif
