// SPDX-License-Identifier: Apache-2.0
// tinyldp.h's longitudinal k-RR family: L-GRR (longitudinal_grr.hpp), LOLOHA and BiLOLOHA
// (loloha.hpp), 1BitMean (one_bit_mean.hpp) and dBitFlip (dbitflip.hpp), stamped by
// forwards.hpp's macros, and the ledger's charge of an L-GRR report.
#include "forwards.hpp"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::c_api;

static_assert(TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES == sizeof(DBitFlipReport) &&
              TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES ==
                  (DBitFlip::max_sampled * (wire::bits_for_values(DBitFlip::max_buckets) + 1) + 7) / 8);

}  // namespace

TINYLDP_C_MEMOIZED(tinyldp_l_grr, LongitudinalGrr, uint32_t)
TINYLDP_C_MEMOIZED(tinyldp_loloha, Loloha, uint32_t)
TINYLDP_C_MEMOIZED(tinyldp_one_bit_mean, OneBitMean, uint32_t)
TINYLDP_C_MEMOIZED(tinyldp_dbitflip, DBitFlip, uint32_t)

extern "C" {

// Each configure and its _precise twin, each with a body of its own (tinyldp_c.cpp says why).
tinyldp_status tinyldp_l_grr_configure_precise(tinyldp_l_grr* ctx, uint64_t epsilon_infinity_q32,
                                              uint64_t epsilon_one_q32, uint32_t k,
                                              uint32_t attribute, tinyldp_precision precision) {
  return configure_memoized<LongitudinalGrr>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return LongitudinalGrr::configure(inf, one, k, r, from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_l_grr_configure(tinyldp_l_grr* ctx, uint64_t epsilon_infinity_q32,
                                      uint64_t epsilon_one_q32, uint32_t k, uint32_t attribute) {
  return configure_memoized<LongitudinalGrr>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return LongitudinalGrr::configure(inf, one, k, r, {}, attribute);
  });
}
tinyldp_status tinyldp_loloha_configure_precise(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                                uint64_t epsilon_one_q32, uint32_t d, uint32_t g,
                                                uint32_t attribute, tinyldp_precision precision) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure(inf, one, d, g, r, from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_loloha_configure(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                        uint64_t epsilon_one_q32, uint32_t d, uint32_t g,
                                        uint32_t attribute) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure(inf, one, d, g, r, {}, attribute);
  });
}
tinyldp_status tinyldp_loloha_configure_optimal_precise(tinyldp_loloha* ctx,
                                                        uint64_t epsilon_infinity_q32,
                                                        uint64_t epsilon_one_q32, uint32_t d,
                                                        uint32_t attribute,
                                                        tinyldp_precision precision) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure_optimal(inf, one, d, r, from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_loloha_configure_optimal(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                                uint64_t epsilon_one_q32, uint32_t d,
                                                uint32_t attribute) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure_optimal(inf, one, d, r, {}, attribute);
  });
}
tinyldp_status tinyldp_loloha_configure_binary_precise(tinyldp_loloha* ctx,
                                                       uint64_t epsilon_infinity_q32,
                                                       uint64_t epsilon_one_q32, uint32_t d,
                                                       uint32_t attribute,
                                                       tinyldp_precision precision) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure_binary(inf, one, d, r, from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_loloha_configure_binary(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                               uint64_t epsilon_one_q32, uint32_t d,
                                               uint32_t attribute) {
  return configure_memoized<Loloha>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return Loloha::configure_binary(inf, one, d, r, {}, attribute);
  });
}
tinyldp_status tinyldp_one_bit_mean_configure_precise(tinyldp_one_bit_mean* ctx,
                                                     uint64_t epsilon_infinity_q32,
                                                     uint64_t epsilon_one_q32, uint32_t max_value,
                                                     uint32_t step, uint32_t rounding_bits,
                                                     uint32_t attribute,
                                                     tinyldp_precision precision) {
  return configure_memoized<OneBitMean>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return OneBitMean::configure(inf, one, {max_value, step, rounding_bits, attribute}, r, from_c(precision));
  });
}
tinyldp_status tinyldp_one_bit_mean_configure(tinyldp_one_bit_mean* ctx, uint64_t epsilon_infinity_q32,
                                          uint64_t epsilon_one_q32, uint32_t max_value,
                                          uint32_t step, uint32_t rounding_bits,
                                          uint32_t attribute) {
  return configure_memoized<OneBitMean>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return OneBitMean::configure(inf, one, {max_value, step, rounding_bits, attribute}, r);
  });
}
tinyldp_status tinyldp_dbitflip_configure_precise(tinyldp_dbitflip* ctx, uint64_t epsilon_infinity_q32,
                                                  uint64_t epsilon_one_q32, uint32_t max_value,
                                                  uint32_t step, uint32_t sampled, uint32_t attribute,
                                                  tinyldp_precision precision) {
  return configure_memoized<DBitFlip>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return DBitFlip::configure(inf, one, {max_value, step, sampled, attribute}, r, from_c(precision));
  });
}
tinyldp_status tinyldp_dbitflip_configure(tinyldp_dbitflip* ctx, uint64_t epsilon_infinity_q32,
                                          uint64_t epsilon_one_q32, uint32_t max_value,
                                          uint32_t step, uint32_t sampled, uint32_t attribute) {
  return configure_memoized<DBitFlip>(ctx, epsilon_infinity_q32, epsilon_one_q32, [&](auto inf, auto one, auto& r) {
    return DBitFlip::configure(inf, one, {max_value, step, sampled, attribute}, r);
  });
}
tinyldp_ledger_result tinyldp_ledger_charge_memo_l_grr(tinyldp_ledger* ledger, uint32_t attribute,
                                                      const tinyldp_l_grr* mechanism,
                                                      const tinyldp_memo_key* key, uint32_t value) {
  return charge_memo<LongitudinalGrr>(ledger, attribute, mechanism, key, value);
}

}  // extern "C"
