// SPDX-License-Identifier: Apache-2.0
// target_costs' "whole" section (issue #32): a report's whole cost, the ChaCha20 DRBG counted in —
// every entry of the device list at its configuration and at its `coarse` one (an ε tolerance of
// 10⁻³), and OUE and SUE over d = 1024. Its own translation unit so that its instantiations do not
// move GCC's -Os inlining choices in target_costs.cpp, whose figures are budgeted as they were.
#include <stddef.h>
#include <stdint.h>

#include "device_mechanisms.hpp"
#include "measure.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"

namespace tinyldp::target_costs {
namespace {

constexpr Epsilon eps = Epsilon::from_double(1.0);

// Issue #32: a report's whole cost, the ChaCha20 DRBG counted in. The DRBG (seeded once from the
// test source; no reseed falls due) is the report's source through the same RandomBits as the list's rows;
// the rows are instructions per report and the DRBG bytes one report pulls (RandomBits' buffer
// refills, averaged), at the configuration `m` (an entry's own, or its `coarse` one).
template <class Entry, class M>
void measure_whole(const M& configured, const port::MemoKey& key, const char* report_unit,
                   const char* bytes_unit) {
  auto m = configured;
  __asm__ __volatile__("" : : "r"(&m) : "memory");
  port::InsecureTestSource seed_source(9);
  port::ChaCha20Drbg drbg;
  if (drbg.seed(seed_source) != EntropyResult::ok) return fail("drbg seed");
  typename ReportRng<M, port::ChaCha20Drbg>::type rng(drbg);
  constexpr size_t list_bytes = device::Mechanisms::max_payload_bytes();
  alignas(4) uint8_t report[list_bytes > 128 ? list_bytes : 128];  // the UE rows below: d = 1024
  const size_t n = m.description().payload_bytes();
  auto one = [&](int i) { return device::privatize<Entry>(m, Entry::values[i % 4], key, rng, report, n); };
  const uint64_t first = time_reports(1, one);
  const int reports = reports_for(first);
  const uint64_t pulled_before = rng.bytes_pulled();
  write_line(Entry::name, Entry::d, report_unit, time_reports(reports, one), static_cast<uint64_t>(reports));
  write_value_line(Entry::name, Entry::d, bytes_unit, rng.bytes_pulled() - pulled_before,
                   static_cast<uint64_t>(reports));
}

template <class Entry>
__attribute__((noinline)) void whole_entry(const port::MemoKey& key) {
  measure_whole<Entry>(Entry::mechanism, key, "whole report", "drbg bytes");
  if constexpr (requires { Entry::coarse; })
    measure_whole<Entry>(Entry::coarse, key, "whole report at 1e-3", "drbg bytes at 1e-3");
}

// UE over d = 1024, whole reports with the DRBG at the default and the coarse precision (the
// issue #32 goal: OUE at 10⁻³ within 45 % of the default's instructions on Cortex-M3).
struct UeWhole : device::Category {
  static constexpr uint32_t d = 1024;
  static constexpr Value values[4] = {0, 5, 333, 1023};
};
struct OueWhole : UeWhole {
  static constexpr char name[] = "oue";
  static constexpr UnaryEncoding mechanism = UnaryEncoding::make_oue(eps, 1024);
  static constexpr UnaryEncoding coarse = UnaryEncoding::make_oue(eps, 1024, device::coarse_precision);
};
struct SueWhole : UeWhole {
  static constexpr char name[] = "sue";
  static constexpr UnaryEncoding mechanism = UnaryEncoding::make_sue(eps, 1024);
  static constexpr UnaryEncoding coarse = UnaryEncoding::make_sue(eps, 1024, device::coarse_precision);
};

}  // namespace

void whole_reports(const port::MemoKey& key) {
  device::Mechanisms::for_each([&]<class Entry>() { whole_entry<Entry>(key); });
  whole_entry<OueWhole>(key);
  whole_entry<SueWhole>(key);
}

}  // namespace tinyldp::target_costs
