// SPDX-License-Identifier: Apache-2.0
// tinyldp.h's histogram encodings (SHE, THE: histogram_encoding.hpp), stamped by forwards.hpp's
// macros. A file of its own, as each family: a firmware's mechanism compiles as it would alone.
#include "forwards.hpp"
#include "tinyldp/histogram_encoding.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::c_api;

// SHE's table and default truncation: the core's, across ε.
constexpr bool she_truncation_is_the_cores(uint64_t eps_q32) {
  return TINYLDP_SHE_DEFAULT_TRUNCATION(eps_q32) ==
             SummationHistogram::default_truncation(Epsilon::from_q32(eps_q32)) &&
         TINYLDP_SHE_TABLE_ENTRIES(TINYLDP_SHE_DEFAULT_TRUNCATION(eps_q32)) ==
             SummationHistogram::table_entries(SummationHistogram::default_truncation(Epsilon::from_q32(eps_q32)));
}
static_assert(she_truncation_is_the_cores(0) && she_truncation_is_the_cores(1) &&
              she_truncation_is_the_cores(TINYLDP_EPSILON_MIN_Q32) &&
              she_truncation_is_the_cores(TINYLDP_EPSILON_Q32(1, 3)) &&
              she_truncation_is_the_cores(TINYLDP_EPSILON_Q32(1, 1)) &&
              she_truncation_is_the_cores(TINYLDP_EPSILON_MAX_Q32) &&
              32767 == SummationHistogram::max_truncation);

}  // namespace

TINYLDP_C_MECHANISM(tinyldp_she, SummationHistogram, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_the, ThresholdHistogram, uint32_t)

extern "C" {

// No precision: SHE's noise is a discrete Laplace table with bits of its own.
tinyldp_status tinyldp_she_configure(tinyldp_she* ctx, uint64_t epsilon_q32, uint32_t d,
                                     uint32_t truncation, uint64_t* table, size_t table_entries) {
  return configure_into<SummationHistogram>(ctx, [&](SummationHistogram& r) {
    return SummationHistogram::configure(Epsilon::from_q32(epsilon_q32), d, table, table_entries,
                                         r, truncation);
  });
}
tinyldp_status tinyldp_the_configure_precise(tinyldp_the* ctx, uint64_t epsilon_q32, uint32_t d,
                                             tinyldp_precision precision) {
  return configure_into<ThresholdHistogram>(ctx, [&](ThresholdHistogram& r) {
    return ThresholdHistogram::configure(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_the_configure(tinyldp_the* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<ThresholdHistogram>(ctx, [&](ThresholdHistogram& r) {
    return ThresholdHistogram::configure(Epsilon::from_q32(epsilon_q32), d, r);
  });
}

}  // extern "C"
