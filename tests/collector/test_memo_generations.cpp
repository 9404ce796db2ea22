// SPDX-License-Identifier: Apache-2.0
// The reports per memo key generation (memo_generations.hpp), as `tinyldp inspect` prints them:
// a device provisioned again after its key was lost reports a later generation, and the
// collector counts it.
#include "tinyldp/collector/memo_generations.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

TEST(MemoGenerations, CountsTheReportsOfEachGeneration) {
  Mechanism m;
  ASSERT_EQ(Mechanism::configure({MechanismId::krr, Epsilon::from_ratio(1, 1), 8, {}}, m), Status::ok);
  port::InsecureTestSource src(5);
  RandomBits<port::InsecureTestSource> rng(src);
  MemoGenerationCounts counts;
  EXPECT_EQ(counts.summary(), "");
  const std::uint32_t generations[] = {0, 0, 2, 0, 2, 7};
  for (std::uint32_t g : generations) {
    wire::Header h;
    h.fields = wire::field_device_id | wire::field_memo_generation;
    h.device_id = 3;
    h.memo_generation = g;
    std::vector<std::uint8_t> bytes;
    ASSERT_EQ(m.privatize(1, rng, h, bytes), Status::ok);
    const ParseResult r = parse_report(bytes, m.description());
    ASSERT_TRUE(r.ok());
    counts.add(r.report.header);
  }
  wire::Header without;  // no generation field: not counted
  counts.add(without);
  const std::map<std::uint32_t, std::uint64_t> expected{{0, 3}, {2, 2}, {7, 1}};
  EXPECT_EQ(counts.counts(), expected);
  EXPECT_EQ(counts.summary(), "generation 0: 3 reports, generation 2: 2 reports, generation 7: 1 report");
}

}  // namespace
}  // namespace tinyldp::collector
