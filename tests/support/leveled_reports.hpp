// SPDX-License-Identifier: Apache-2.0
// The shapes the shared checks (mechanism_checks.hpp) take, for a mechanism whose device reports
// one level drawn from its memo key (hierarchical_histogram.hpp, haar_hrr.hpp): a report of Bytes
// bytes, the reports of one level given (privatize_at_level), and a fleet of devices — each report
// another device's key (TestMemoKey{1}, {2}, …) — and the refusals every such mechanism makes,
// checked once for both.
#ifndef TINYLDP_TESTS_SUPPORT_LEVELED_REPORTS_HPP
#define TINYLDP_TESTS_SUPPORT_LEVELED_REPORTS_HPP

#include <stddef.h>
#include <stdint.h>

#include "check.hpp"
#include "digest.hpp"
#include "mechanism_checks.hpp"
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

// Every level fail-closed (values out of [lo, hi] on both sides, a failing source), and through
// the key; levels 0 and h + 1 refused; a buffer one byte short or null refused, zeroed as far as
// it goes; an unprovisioned key refused before anything is drawn; an unconfigured mechanism
// refused, the whole buffer zeroed, through both entry points. m: values lo … hi, 0 ≤ lo < hi.
template <size_t Bytes, class Mechanism>
void check_leveled_refusals(const Mechanism& m) {
  const int32_t lo = m.low(), hi = m.high(), mid = lo + (hi - lo) / 2;
  for (uint32_t level = 1; level <= m.levels(); ++level) {
    const AtLevel<Mechanism, Bytes> at{m, level};
    check_fail_closed(at, mid, hi + 1);
    check_fail_closed(at, mid, lo - 1);
    check_fail_closed(at, hi, INT32_MAX);
    check_fail_closed(at, lo, INT32_MIN);
  }
  check_fail_closed(Fleet<Mechanism, Bytes>{m}, lo, hi + 1);
  check_fail_closed(Fleet<Mechanism, Bytes>{m}, hi, lo - 1);
  port::InsecureTestSource src(4);
  Rng rng(src);
  uint8_t report[Bytes + 2];
  const auto poisoned = [&] {
    for (uint8_t& b : report) b = 0xA5;
    return report;
  };
  const auto zero = [&](size_t n) {
    uint32_t any = 0;
    for (size_t i = 0; i < n; ++i) any |= report[i];
    return any == 0;
  };
  CHECK_EQ(m.privatize_at_level(mid, 0, rng, poisoned(), Bytes), Status::bad_parameter);
  CHECK(zero(Bytes));
  CHECK_EQ(m.privatize_at_level(mid, m.levels() + 1, rng, poisoned(), Bytes), Status::bad_parameter);
  CHECK(zero(Bytes));
  CHECK_EQ(m.privatize(mid, TestMemoKey{}, rng, poisoned(), Bytes - 1), Status::buffer_too_small);
  CHECK(zero(Bytes - 1) && report[Bytes - 1] == 0xA5);
  CHECK_EQ(m.privatize_at_level(mid, 1, rng, poisoned(), Bytes - 1), Status::buffer_too_small);
  CHECK(zero(Bytes - 1));
  CHECK_EQ(m.privatize(mid, TestMemoKey{}, rng, nullptr, 64), Status::buffer_too_small);
  const uint64_t drawn = rng.bits_drawn();
  CHECK_EQ(m.privatize(mid, TestMemoKey{7, 0, false}, rng, poisoned(), Bytes), Status::key_not_provisioned);
  CHECK(zero(Bytes));
  CHECK_EQ(rng.bits_drawn(), drawn);
  const Mechanism none{};
  CHECK_EQ(none.privatize(mid, TestMemoKey{}, rng, poisoned(), sizeof report), Status::not_configured);
  CHECK(zero(sizeof report));
  CHECK_EQ(none.privatize_at_level(mid, 1, rng, poisoned(), sizeof report), Status::not_configured);
  CHECK(zero(sizeof report));
  CHECK_EQ(rng.bits_drawn(), drawn);
}

}  // namespace tinyldp::test

#endif
