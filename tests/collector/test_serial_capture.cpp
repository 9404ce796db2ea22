// SPDX-License-Identifier: Apache-2.0
// Finding framed reports in a raw byte stream (serial_capture.hpp): every good frame is found
// however the stream is cut into pieces; noise, a broken CRC, an impossible length, a sync
// pattern inside a report and a frame cut off at the end are skipped and counted; and a good
// frame right after a broken one is still found.
#include "tinyldp/collector/serial_capture.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tinyldp/serial_frame.hpp"

namespace tinyldp::collector {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes frame(const Bytes& report) {
  Bytes out(serial::frame_bytes(report.size()));
  std::size_t written = 0;
  EXPECT_EQ(serial::encode(report.data(), report.size(), out.data(), out.size(), written), Status::ok);
  return out;
}

void append(Bytes& to, const Bytes& b) { to.insert(to.end(), b.begin(), b.end()); }

struct Found {
  std::vector<Bytes> reports;
  std::vector<std::uint64_t> offsets;
};

Found scan(const Bytes& stream, std::size_t piece, collector::CaptureCounts* counts = nullptr) {
  Found f;
  SerialCapture c(64, [&](std::span<const std::uint8_t> r, std::uint64_t at) {
    f.reports.emplace_back(r.begin(), r.end());
    f.offsets.push_back(at);
  });
  for (std::size_t i = 0; i < stream.size(); i += piece)
    c.feed(std::span<const std::uint8_t>(stream).subspan(i, std::min(piece, stream.size() - i)));
  c.finish();
  if (counts != nullptr) *counts = c.counts();
  return f;
}

TEST(SerialCapture, FindsEveryGoodFrameAmongNoiseAndBrokenFrames) {
  const Bytes a = {1, 2, 3}, b = {0xA5, 0x5A, 0x03, 0x00, 9}, c = {7, 7, 7, 7, 7, 7};
  Bytes stream = {0x00, 0xA5, 0x13};  // noise, including a lone first sync byte
  append(stream, frame(a));
  Bytes broken = frame(c);
  broken.back() ^= 1;  // bad CRC
  append(stream, broken);
  append(stream, frame(b));  // a report that holds a sync pattern and a plausible length
  append(stream, {0xA5, 0x5A, 0xFF, 0x00});  // impossible length (255 > 64)
  append(stream, frame(c));
  const Bytes cut = frame(a);
  append(stream, Bytes(cut.begin(), cut.begin() + 5));  // a device reset mid-frame
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, stream.size()}) {
    collector::CaptureCounts counts;
    const Found f = scan(stream, piece, &counts);
    ASSERT_EQ(f.reports.size(), 3u) << "piece " << piece;
    EXPECT_EQ(f.reports[0], a);
    EXPECT_EQ(f.reports[1], b);
    EXPECT_EQ(f.reports[2], c);
    EXPECT_EQ(f.offsets[0], 3u);
    EXPECT_EQ(counts.frames, 3u);
    EXPECT_EQ(counts.bad_frames, 2u);
    // Every byte is in a good frame or skipped.
    EXPECT_EQ(counts.skipped_bytes + serial::frame_bytes(a.size()) + serial::frame_bytes(b.size()) +
                  serial::frame_bytes(c.size()),
              stream.size());
  }
}

TEST(SerialCapture, AFrameRightAfterABrokenOneIsFound) {
  // A frame whose declared length runs into the next frame: its CRC fails, and the scan resumes
  // one byte after its sync, so the next frame (inside the broken one's span) is found.
  Bytes stream = {0xA5, 0x5A, 0x10, 0x00};  // claims 16 bytes
  const Bytes good = {4, 5, 6};
  append(stream, frame(good));
  append(stream, Bytes(16, 0));
  const Found f = scan(stream, 3);
  ASSERT_EQ(f.reports.size(), 1u);
  EXPECT_EQ(f.reports[0], good);
  EXPECT_EQ(f.offsets[0], 4u);
}

}  // namespace
}  // namespace tinyldp::collector
