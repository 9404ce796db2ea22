// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/serial_capture.hpp"

#include "tinyldp/serial_frame.hpp"

namespace tinyldp::collector {

SerialCapture::SerialCapture(std::size_t max_report, Sink on_report)
    : max_report_(max_report < serial::max_report ? max_report : serial::max_report),
      sink_(std::move(on_report)) {}

void SerialCapture::feed(std::span<const std::uint8_t> bytes) {
  pending_.insert(pending_.end(), bytes.begin(), bytes.end());
  scan(false);
}

void SerialCapture::finish() {
  scan(true);
  counts_.skipped_bytes += pending_.size();
  pending_offset_ += pending_.size();
  pending_.clear();
}

void SerialCapture::scan(bool at_end) {
  std::size_t at = 0;  // first byte not yet resolved
  const std::size_t n = pending_.size();
  while (at < n) {
    if (pending_[at] != serial::sync0 || (at + 1 < n && pending_[at + 1] != serial::sync1)) {
      ++counts_.skipped_bytes;
      ++at;
      continue;
    }
    if (at + 4 > n) break;  // the sync's rest or the length has not arrived
    const std::size_t length = get_le<std::uint16_t>(&pending_[at + 2]);
    if (length == 0 || length > max_report_) {
      ++counts_.bad_frames;
      counts_.skipped_bytes += 1;
      ++at;  // resume one byte after this sync
      continue;
    }
    const std::size_t size = serial::frame_bytes(length);
    if (at + size > n) break;  // wait for the rest of the frame
    const std::uint32_t crc = crc32_update(0, &pending_[at + 2], length + 2);
    if (crc != get_le<std::uint32_t>(&pending_[at + 4 + length])) {
      ++counts_.bad_frames;
      counts_.skipped_bytes += 1;
      ++at;
      continue;
    }
    ++counts_.frames;
    sink_(std::span<const std::uint8_t>(&pending_[at + 4], length), pending_offset_ + at);
    at += size;
  }
  (void)at_end;
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(at));
  pending_offset_ += at;
}

}  // namespace tinyldp::collector
