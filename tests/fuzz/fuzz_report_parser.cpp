// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for everything the collector reads from untrusted input: single reports
// (strict parse + ingest), aggregate state, merges of two states, and report-file headers.
// Invariants checked: a rejected report leaves the aggregator byte-for-byte unchanged; an
// accepted one adds exactly one report and keeps every support count ≤ the report count (times
// the most one report supports: 2T + 1 for she);
// deserialized state is self-consistent; a merge either adds the counts exactly (no wrap-around,
// every support ≤ the report count) or is refused and changes nothing. Built with clang (-fsanitize=fuzzer,address,undefined) by the `fuzz` preset.
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "fuzz_mechanisms.hpp"

namespace tinyldp::collector {
namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

int test_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {  // one report against each mechanism
      for (const Mechanism& m : fuzz_mechanisms()) {
        Aggregator a(m);
        const auto before = a.serialize();
        const ParseError e = a.ingest(input);
        if (e == ParseError::none) {
          require(a.reports() == 1);
          for (std::uint64_t s : a.support()) require(s <= m.max_support_per_report());
        } else {
          require(a.serialize() == before);
        }
      }
      break;
    }
    case 1: {  // aggregate state
      std::string error;
      const auto a = Aggregator::deserialize(input, error);
      if (a) {
        for (std::uint64_t s : a->support()) require(a->mechanism().support_possible(s, a->reports()));
        // The current version has one encoding: it serializes back to the input. An older one
        // (TLDPAGG1–3) is rewritten as the current one, which reads back to itself.
        const auto again = a->serialize();
        if (input.size() >= 8 && std::memcmp(input.data(), "TLDPAGG4", 8) == 0) {
          require(std::equal(again.begin(), again.end(), input.begin(), input.end()));
        } else {
          const auto back = Aggregator::deserialize(again, error);
          require(back && back->serialize() == again);
        }
      } else {
        require(!error.empty());
      }
      break;
    }
    case 3: {  // two aggregate states, merged: u16 length of the first, the first, the second
      if (input.size() < 2) break;
      const std::size_t first = input[0] | std::size_t{input[1]} << 8;
      if (input.size() < 2 + first) break;
      std::string error;
      auto a = Aggregator::deserialize(input.subspan(2, first), error);
      const auto b = Aggregator::deserialize(input.subspan(2 + first), error);
      if (!a || !b) break;
      const auto before = a->serialize();
      const std::uint64_t a_reports = a->reports();
      const std::vector<std::uint64_t> a_support = a->support();
      if (a->merge(*b)) {
        require(a->reports() - a_reports == b->reports() && a->reports() >= a_reports);
        for (std::size_t i = 0; i < a_support.size(); ++i) {
          require(a->support()[i] == a_support[i] + b->support()[i]);
          require(a->mechanism().support_possible(a->support()[i], a->reports()));
        }
      } else {
        require(a->serialize() == before);
      }
      break;
    }
    default: {  // report-file header
      std::string error;
      const auto m = parse_report_file_header(input, error);
      require(m.has_value() || !error.empty());
      break;
    }
  }
  return 0;
}

}  // namespace
}  // namespace tinyldp::collector

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tinyldp::collector::test_one_input(data, size);
}
