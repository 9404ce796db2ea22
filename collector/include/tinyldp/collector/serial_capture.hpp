// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/serial_capture.hpp — finding the devices' reports in a raw byte stream (a UART
// capture) framed by serial_frame.hpp: sync a5 5a, u16 length, the report, CRC-32.
//
// The scanner walks the stream once. At a sync it checks the length (1 … max_report) and the
// CRC; a frame that passes is handed out, one that fails is counted and the scan resumes one
// byte after the sync it tried — so a sync pattern inside a report (or noise) cannot hide the
// frame that follows. Bytes between frames are counted as skipped. It checks framing only;
// each report is then parsed strictly like any other (report_parser.hpp). Host only; the
// stream can be fed in pieces of any size (a frame may span them).
#ifndef TINYLDP_COLLECTOR_SERIAL_CAPTURE_HPP
#define TINYLDP_COLLECTOR_SERIAL_CAPTURE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace tinyldp::collector {

struct CaptureCounts {
  std::uint64_t frames = 0;         // frames with a good CRC, handed out
  std::uint64_t bad_frames = 0;     // sync found, but the length or the CRC was wrong
  std::uint64_t skipped_bytes = 0;  // bytes that belonged to no good frame
};

class SerialCapture {
 public:
  // on_report receives each framed report (the wire report, without the serial framing) and
  // the offset of its frame in the stream.
  using Sink = std::function<void(std::span<const std::uint8_t> report, std::uint64_t offset)>;
  // max_report: the largest report the configured mechanism can send (longer frames are bad).
  SerialCapture(std::size_t max_report, Sink on_report);

  void feed(std::span<const std::uint8_t> bytes);
  // The end of the stream: whatever is left (a partial frame) counts as skipped.
  void finish();
  const CaptureCounts& counts() const { return counts_; }

 private:
  void scan(bool at_end);

  std::size_t max_report_;
  Sink sink_;
  std::vector<std::uint8_t> pending_;  // bytes not yet resolved
  std::uint64_t pending_offset_ = 0;   // stream offset of pending_[0]
  CaptureCounts counts_;
};

}  // namespace tinyldp::collector

#endif
