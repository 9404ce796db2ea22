// SPDX-License-Identifier: Apache-2.0
// The size of a statistical test where it runs: the sanitizer build (host-sanitize, some ten
// times slower) draws fewer samples against bounds derived from the same σ.
#ifndef TINYLDP_TESTS_SUPPORT_SAMPLE_SIZE_HPP
#define TINYLDP_TESTS_SUPPORT_SAMPLE_SIZE_HPP

#include <stdint.h>

namespace tinyldp::test {

// `full` in the plain build, `sanitized` under ASan/UBSan.
constexpr uint32_t sample_size(uint32_t full, uint32_t sanitized) {
#ifdef TINYLDP_TEST_SANITIZED
  (void)full;
  return sanitized;
#else
  (void)sanitized;
  return full;
#endif
}

}  // namespace tinyldp::test

#endif
