// SPDX-License-Identifier: Apache-2.0
// A progress line on stderr for long passes over files, only when stderr is a terminal:
// "\r<what>: 41% of 612 MB, 2.05 M rows, 180 MB/s, ETA 2 s", redrawn at most four times a
// second from the bytes read so far and the total size. Costs a clock read per update; call
// it per chunk, not per row.
#ifndef TINYLDP_TOOLS_PROGRESS_HPP
#define TINYLDP_TOOLS_PROGRESS_HPP

#include <chrono>
#include <cstdint>
#include <string>

namespace tinyldp::tools {

bool stderr_is_terminal();

class Progress {
 public:
  // `what`: "reading adult.csv"; `unit`: what is counted ("rows", "reports"); `total_bytes`: 0
  // if unknown (no percentage or ETA then).
  Progress(std::string what, const char* unit, std::uint64_t total_bytes);
  ~Progress();  // ends the line if one was drawn
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::uint64_t bytes_done, std::uint64_t items) { draw(bytes_done, items, false); }
  // The last figures, if a line was drawn (so it ends at 100 %).
  void finish(std::uint64_t bytes_done, std::uint64_t items) { draw(bytes_done, items, true); }

 private:
  using Clock = std::chrono::steady_clock;
  void draw(std::uint64_t bytes_done, std::uint64_t items, bool last);
  std::string what_;
  const char* unit_;
  std::uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

}  // namespace tinyldp::tools

#endif
