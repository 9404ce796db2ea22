// libFuzzer target for everything the collector reads from untrusted input: single reports
// (strict parse + ingest), aggregate state, and report-file headers. Invariants checked:
// a rejected report leaves the aggregator byte-for-byte unchanged; an accepted one adds
// exactly one report and keeps every support count ≤ the report count; deserialized state is
// self-consistent. Built with clang (-fsanitize=fuzzer,address,undefined) by the `fuzz` preset.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "fuzz_mechanisms.hpp"

namespace {
using namespace tinyldp;
using namespace tinyldp::collector;

void require(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {  // one report against each mechanism
      for (const Mechanism& m : fuzz_mechanisms()) {
        Aggregator a(m);
        const auto before = a.serialize();
        const ParseError e = a.ingest(input);
        if (e == ParseError::none) {
          require(a.reports() == 1);
          for (std::uint64_t s : a.support()) require(s <= 1);
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
        for (std::uint64_t s : a->support()) require(s <= a->reports());
        require(a->serialize().size() == input.size());
      } else {
        require(!error.empty());
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
