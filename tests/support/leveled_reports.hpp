// SPDX-License-Identifier: Apache-2.0
// The shapes the shared checks (mechanism_checks.hpp) take, for a mechanism whose device reports
// one level drawn from its memo key (hierarchical_histogram.hpp, haar_hrr.hpp): a report of Bytes
// bytes, the reports of one level given (privatize_at_level), and a fleet of devices — each report
// another device's key (TestMemoKey{1}, {2}, …).
#ifndef TINYLDP_TESTS_SUPPORT_LEVELED_REPORTS_HPP
#define TINYLDP_TESTS_SUPPORT_LEVELED_REPORTS_HPP

#include <stddef.h>
#include <stdint.h>

#include "digest.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/status.hpp"

namespace tinyldp::test {

template <size_t Bytes>
struct LeveledReport {
  uint8_t bytes[Bytes];
  friend void fold(Digest& d, const LeveledReport& r) { d.add(r.bytes, Bytes); }
};

template <class Mechanism, size_t Bytes>
struct AtLevel {
  using Report = LeveledReport<Bytes>;
  const Mechanism& m;
  uint32_t level;
  template <class R>
  Status privatize(int32_t value, R& rng, Report& r) const {
    return m.privatize_at_level(value, level, rng, r.bytes, Bytes);
  }
  uint64_t random_bits_per_report() const { return m.random_bits_at(level); }
};

template <class Mechanism, size_t Bytes>
struct Fleet {
  using Report = LeveledReport<Bytes>;
  const Mechanism& m;
  mutable uint64_t device = 0;
  template <class R>
  Status privatize(int32_t value, R& rng, Report& r) const {
    return m.privatize(value, TestMemoKey{++device}, rng, r.bytes, Bytes);
  }
};

}  // namespace tinyldp::test

#endif
