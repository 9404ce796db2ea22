// SPDX-License-Identifier: Apache-2.0
// A memo key for the collector's record tests (test_joint, test_multi_attribute_counts): its
// streams are the insecure test source per (device, attribute, value) — deterministic, NOT private.
#ifndef TINYLDP_TESTS_COLLECTOR_RECORD_TEST_KEY_HPP
#define TINYLDP_TESTS_COLLECTOR_RECORD_TEST_KEY_HPP

#include <cstdint>

#include "tinyldp/endian.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::collector {

struct TestStream {
  port::InsecureTestSource source;
  std::uint32_t next_word() {
    std::uint8_t b[4];
    (void)source.fill(b, 4, 0);
    return get_le<std::uint32_t>(b);
  }
};
struct TestKey {
  std::uint64_t device = 0;
  TestStream memo_stream(std::uint32_t attribute, std::uint32_t value) const {
    return {port::InsecureTestSource(device * 0x9E3779B97F4A7C15u + (std::uint64_t{attribute} << 40) + value + 1)};
  }
  std::uint32_t cohort(std::uint32_t) const { return 0; }
  std::uint32_t generation() const { return 0; }
};

}  // namespace tinyldp::collector

#endif
