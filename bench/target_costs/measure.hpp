// SPDX-License-Identifier: Apache-2.0
// What target_costs.cpp and whole_reports.cpp share: the instruction counter (calibrated by
// target_costs.cpp's main), the output lines, the failure flag, timing N reports and the Rng a
// report draws through. Bare metal only (board.h); see target_costs.cpp for the method.
#ifndef TINYLDP_BENCH_TARGET_COSTS_MEASURE_HPP
#define TINYLDP_BENCH_TARGET_COSTS_MEASURE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::target_costs {

uint32_t counter_read();
// Elapsed counter units between two reads.
uint32_t counter_elapsed(uint32_t before, uint32_t after);
// Counter units per 1024 instructions (calibrated before any measurement).
extern uint32_t units_per_kilo_instruction;

// A CSV line "name,parameter,unit,value": numerator / denominator with one decimal.
void write_value_line(const char* name, uint32_t parameter, const char* unit, uint64_t numerator,
                      uint64_t denominator);
// The same with instructions per unit, from counter units over `units` units.
void write_line(const char* name, uint32_t parameter, const char* unit, uint64_t counter_units, uint64_t units);
// An "error,what" line; the run then ends with exit code 1.
void fail(const char* what);
extern bool failed;

// Counter units for `reports` calls of body(i) (each must return Status::ok).
template <class Body>
uint32_t time_reports(int reports, Body body) {
  const uint32_t before = counter_read();
  for (int i = 0; i < reports; ++i)
    if (body(i) != Status::ok) failed = true;
  return counter_elapsed(before, counter_read());
}

// How many reports take about 2^20 instructions (at most 256), from one report's counter units:
// every measurement then stays within SysTick's 24 bits.
inline int reports_for(uint64_t first) {
  int reports = 256;
  while (reports > 1 && first * static_cast<uint64_t>(reports) > (uint64_t{1} << 10) * units_per_kilo_instruction)
    reports /= 2;
  return reports;
}

// The Rng a report draws through: unary encoding's ladder takes whole words from a 128-byte
// buffer, every other mechanism RandomBits' default 32 bytes.
template <class Mechanism, class Source = port::InsecureTestSource>
struct ReportRng {
  using type = RandomBits<Source>;
};
template <class Source>
struct ReportRng<UnaryEncoding, Source> {
  using type = RandomBits<Source, 128>;
};

// The "whole" section (whole_reports.cpp): every report with the ChaCha20 DRBG as its source.
void whole_reports(const port::MemoKey& key);

}  // namespace tinyldp::target_costs

#endif
