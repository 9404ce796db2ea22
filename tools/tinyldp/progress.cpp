// SPDX-License-Identifier: Apache-2.0
#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace tinyldp::tools {

bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

Progress::Progress(std::string what, const char* unit, std::uint64_t total_bytes)
    : what_(std::move(what)), unit_(unit), total_(total_bytes), enabled_(stderr_is_terminal()),
      start_(Clock::now()), last_(start_) {}

Progress::~Progress() {
  if (drawn_) std::fputc('\n', stderr);
}

void Progress::draw(std::uint64_t bytes_done, std::uint64_t items, bool last) {
  if (!enabled_ || (last && !drawn_)) return;
  const auto now = Clock::now();
  if (!last && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double mb = 1e-6 * static_cast<double>(bytes_done);
  const double rate = seconds > 0 ? mb / seconds : 0;
  std::fprintf(stderr, "\r%s: ", what_.c_str());
  if (total_ > 0)
    std::fprintf(stderr, "%.0f%% of %.0f MB, ", 100.0 * static_cast<double>(bytes_done) / static_cast<double>(total_),
                 1e-6 * static_cast<double>(total_));
  else
    std::fprintf(stderr, "%.0f MB, ", mb);
  std::fprintf(stderr, "%.2f M %s, %.0f MB/s", 1e-6 * static_cast<double>(items), unit_, rate);
  if (total_ > 0 && rate > 0 && bytes_done <= total_)
    std::fprintf(stderr, ", ETA %.0f s", 1e-6 * static_cast<double>(total_ - bytes_done) / rate);
  std::fprintf(stderr, "   ");  // covers the tail of a longer previous line
  drawn_ = true;
}

}  // namespace tinyldp::tools
