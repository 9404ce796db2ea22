// SPDX-License-Identifier: Apache-2.0
// The mechanisms the fuzz target and its seed corpus use: every row of the collector's table
// that configures by name, with the row's example configuration — a new mechanism is fuzzed
// as soon as it has its row.
#ifndef TINYLDP_TESTS_FUZZ_FUZZ_MECHANISMS_HPP
#define TINYLDP_TESTS_FUZZ_FUZZ_MECHANISMS_HPP

#include <cstdlib>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

inline const std::vector<Mechanism>& fuzz_mechanisms() {
  static const std::vector<Mechanism> all = [] {
    std::vector<Mechanism> v;
    for (const auto& row : mechanism_table()) {
      if (row.configure == nullptr) continue;
      Mechanism m;
      if (Mechanism::configure(row.example, m) != Status::ok) std::abort();
      v.push_back(m);
    }
    return v;
  }();
  return all;
}

}  // namespace tinyldp::collector

#endif
