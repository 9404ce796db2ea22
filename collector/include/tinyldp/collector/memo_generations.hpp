// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/memo_generations.hpp — how many reports came with each memo key generation.
//
// A memoized report's header carries its memo key's generation (wire::field_memo_generation).
// A device whose generation moves was re-keyed — on purpose, or provisioned again after its
// key record was lost (docs/reports-over-time.md, "Provisioning") — and every memo of the new
// generation is new: ε∞ is spent again, per key. `tinyldp inspect` prints these counts, so a
// fleet's re-keys are visible. Header-only; cost: one map entry per generation seen.
#ifndef TINYLDP_COLLECTOR_MEMO_GENERATIONS_HPP
#define TINYLDP_COLLECTOR_MEMO_GENERATIONS_HPP

#include <cstdint>
#include <map>
#include <string>

#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

class MemoGenerationCounts {
 public:
  // Counts `header` if it carries a memo generation.
  void add(const wire::Header& header) {
    if ((header.fields & wire::field_memo_generation) != 0) ++counts_[header.memo_generation];
  }
  // Reports per generation, in increasing generation.
  const std::map<std::uint32_t, std::uint64_t>& counts() const { return counts_; }
  // "generation 0: 12 reports, generation 1: 3 reports" (empty when no report had one).
  std::string summary() const {
    std::string s;
    for (const auto& [generation, n] : counts_) {
      if (!s.empty()) s += ", ";
      s += "generation " + std::to_string(generation) + ": " + std::to_string(n) + (n == 1 ? " report" : " reports");
    }
    return s;
  }

 private:
  std::map<std::uint32_t, std::uint64_t> counts_;
};

}  // namespace tinyldp::collector

#endif
