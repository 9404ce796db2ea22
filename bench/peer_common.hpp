// SPDX-License-Identifier: Apache-2.0
// What tinyldp's sides of experiments/compare-peers share (peer_workload, peer_rounds): the clock
// and the exit on bad input, with the program's name and the reason.
#ifndef TINYLDP_BENCH_PEER_COMMON_HPP
#define TINYLDP_BENCH_PEER_COMMON_HPP

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

namespace tinyldp::bench {

using Clock = std::chrono::steady_clock;

[[noreturn]] inline void fail(const char* program, const std::string& why) {
  std::cerr << program << ": " << why << "\n";
  std::exit(2);
}

}  // namespace tinyldp::bench

#endif
