// SPDX-License-Identifier: Apache-2.0
// tinyldp.h implemented over the C++ core and ports: each context's bytes hold the C++ object,
// made there by placement new; each call converts its arguments and forwards (forwards.hpp).
// Nothing here keeps state of its own, allocates, or throws. This file: the status, ε and wire
// helpers, the first mechanisms (rr … dlaplace), the DRBG, the health tests, storage, the memo
// key, the two-stage RR and the ledger; the other families in tinyldp_c_*.cpp.
#include "forwards.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/square_wave.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::c_api;

// The C++ objects behind the contexts that hold more than one.
struct HealthContext {
  // A C source has no estimate of its own: the plan's claim (per byte) is the caller's
  // statement of it, the same the health tests check.
  HealthContext(tinyldp_entropy_source source, const port::HealthPlan& plan)
      : raw(source, port::claimed_estimate_q8(plan.config)), tested(raw, plan) {}
  CEntropySource raw;
  port::HealthTested<CEntropySource> tested;
  // Made by tinyldp_health_init: its raw source carries the plan's claim, never 0 (a plan that
  // claims no entropy is bad_config, failed either way). A context of zero bytes (never
  // initialised) has 0 there and is a failed source — told without reading `tested`, whose
  // reference to its source is null in such bytes (binding it is undefined behaviour).
  bool made() const { return raw.min_entropy_q8() != 0; }
};
// The contexts that are no mechanism (the mechanisms': where their functions are stamped).
static_assert(holds<port::ChaCha20Drbg, tinyldp_chacha20_drbg>);
static_assert(holds<HealthContext, tinyldp_health>);
static_assert(holds<RecordContext, tinyldp_record>);
static_assert(holds<port::MemoKey, tinyldp_memo_key>);
static_assert(holds<CLedger, tinyldp_ledger>);

// The C enums and constants are the core's.
static_assert(TINYLDP_STATUS_OK == int(Status::ok) &&
              TINYLDP_STATUS_BAD_EPSILON == int(Status::bad_epsilon) &&
              TINYLDP_STATUS_BAD_PARAMETER == int(Status::bad_parameter) &&
              TINYLDP_STATUS_PRECISION_TOO_LOW == int(Status::precision_too_low) &&
              TINYLDP_STATUS_VALUE_OUT_OF_DOMAIN == int(Status::value_out_of_domain) &&
              TINYLDP_STATUS_BUFFER_TOO_SMALL == int(Status::buffer_too_small) &&
              TINYLDP_STATUS_ENTROPY_NOT_READY == int(Status::entropy_not_ready) &&
              TINYLDP_STATUS_ENTROPY_FAILED == int(Status::entropy_failed) &&
              TINYLDP_STATUS_ENTROPY_NOT_SUPPORTED == int(Status::entropy_not_supported) &&
              TINYLDP_STATUS_KEY_NOT_PROVISIONED == int(Status::key_not_provisioned) &&
              TINYLDP_STATUS_NOT_CONFIGURED == int(Status::not_configured) &&
              TINYLDP_STATUS_EPSILON_TOO_SMALL == int(Status::epsilon_too_small) &&
              TINYLDP_EPSILON_MIN_Q32 == min_epsilon.q32);
static_assert(TINYLDP_MECHANISM_RR == int(wire::MechanismId::rr) &&
              TINYLDP_MECHANISM_KRR == int(wire::MechanismId::krr) &&
              TINYLDP_MECHANISM_SUE == int(wire::MechanismId::sue) &&
              TINYLDP_MECHANISM_OUE == int(wire::MechanismId::oue) &&
              TINYLDP_MECHANISM_UE == int(wire::MechanismId::ue) &&
              TINYLDP_MECHANISM_BLH == int(wire::MechanismId::blh) &&
              TINYLDP_MECHANISM_OLH == int(wire::MechanismId::olh) &&
              TINYLDP_MECHANISM_HR == int(wire::MechanismId::hr) &&
              TINYLDP_MECHANISM_SD == int(wire::MechanismId::sd) &&
              TINYLDP_MECHANISM_DLAPLACE == int(wire::MechanismId::dlaplace) &&
              TINYLDP_MECHANISM_SHE == int(wire::MechanismId::she) &&
              TINYLDP_MECHANISM_THE == int(wire::MechanismId::the) &&
              TINYLDP_MECHANISM_RAPPOR == int(wire::MechanismId::rappor) &&
              TINYLDP_MECHANISM_L_SUE == int(wire::MechanismId::l_sue) &&
              TINYLDP_MECHANISM_L_OSUE == int(wire::MechanismId::l_osue) &&
              TINYLDP_MECHANISM_L_OUE == int(wire::MechanismId::l_oue) &&
              TINYLDP_MECHANISM_L_SOUE == int(wire::MechanismId::l_soue) &&
              TINYLDP_MECHANISM_L_GRR == int(wire::MechanismId::l_grr) &&
              TINYLDP_MECHANISM_LOLOHA == int(wire::MechanismId::loloha) &&
              TINYLDP_MECHANISM_BILOLOHA == int(wire::MechanismId::biloloha) &&
              TINYLDP_MECHANISM_ONE_BIT_MEAN == int(wire::MechanismId::one_bit_mean) &&
              TINYLDP_MECHANISM_RECORD_RR == int(wire::MechanismId::record_rr) &&
              TINYLDP_MECHANISM_SPL_GRR == int(wire::MechanismId::spl_grr) &&
              TINYLDP_MECHANISM_SPL_OUE == int(wire::MechanismId::spl_oue) &&
              TINYLDP_MECHANISM_SMP_GRR == int(wire::MechanismId::smp_grr) &&
              TINYLDP_MECHANISM_SMP_OUE == int(wire::MechanismId::smp_oue) &&
              TINYLDP_MECHANISM_RSFD_GRR == int(wire::MechanismId::rsfd_grr) &&
              TINYLDP_MECHANISM_RSFD_OUE_Z == int(wire::MechanismId::rsfd_oue_z) &&
              TINYLDP_MECHANISM_RSFD_OUE_R == int(wire::MechanismId::rsfd_oue_r) &&
              TINYLDP_MECHANISM_DBITFLIP == int(wire::MechanismId::dbitflip) &&
              TINYLDP_MECHANISM_PM == int(wire::MechanismId::pm) &&
              TINYLDP_MECHANISM_HM == int(wire::MechanismId::hm) &&
              TINYLDP_MECHANISM_SW == int(wire::MechanismId::sw) &&
              TINYLDP_MECHANISM_HH == int(wire::MechanismId::hh) &&
              TINYLDP_MECHANISM_HAAR_HRR == int(wire::MechanismId::haar_hrr));
static_assert(TINYLDP_MEMO_KEY_OK == int(port::MemoKeyResult::ok) &&
              TINYLDP_MEMO_KEY_NOT_PROVISIONED == int(port::MemoKeyResult::not_provisioned) &&
              TINYLDP_MEMO_KEY_STORAGE_FAILED == int(port::MemoKeyResult::storage_failed) &&
              TINYLDP_MEMO_KEY_GENERATOR_FAILED == int(port::MemoKeyResult::generator_failed) &&
              TINYLDP_MEMO_KEY_ALREADY_PROVISIONED == int(port::MemoKeyResult::already_provisioned) &&
              TINYLDP_MEMO_KEY_GENERATION_EXHAUSTED == int(port::MemoKeyResult::generation_exhausted));
static_assert(TINYLDP_LEDGER_OK == int(LedgerResult::ok) &&
              TINYLDP_LEDGER_BUDGET_EXHAUSTED == int(LedgerResult::budget_exhausted) &&
              TINYLDP_LEDGER_STORAGE_FAILED == int(LedgerResult::storage_failed) &&
              TINYLDP_LEDGER_NOT_OPEN == int(LedgerResult::not_open) &&
              TINYLDP_LEDGER_BAD_ATTRIBUTE == int(LedgerResult::bad_attribute) &&
              TINYLDP_LEDGER_NOT_PROVISIONED == int(LedgerResult::not_provisioned) &&
              TINYLDP_LEDGER_ALREADY_PROVISIONED == int(LedgerResult::already_provisioned) &&
              TINYLDP_LEDGER_BAD_REPORT == int(LedgerResult::bad_report) &&
              TINYLDP_LEDGER_KEY_NOT_PROVISIONED == int(LedgerResult::key_not_provisioned) &&
              TINYLDP_LEDGER_STALE_GENERATION == int(LedgerResult::stale_generation) &&
              TINYLDP_LEDGER_BAD_EPOCH == int(LedgerResult::bad_epoch) &&
              TINYLDP_LEDGER_RECORD_BYTES == CLedger::record_bytes);
static_assert(TINYLDP_MEMO_ONE_HOT == int(MemoEncoding::one_hot) &&
              TINYLDP_MEMO_BLOOM == int(MemoEncoding::bloom) &&
              TINYLDP_UE_STAGE_SUE == int(UeStage::sue) && TINYLDP_UE_STAGE_OUE == int(UeStage::oue));
static_assert(TINYLDP_WIRE_DEVICE_ID == int(wire::field_device_id) &&
              TINYLDP_WIRE_EPOCH == int(wire::field_epoch) &&
              TINYLDP_WIRE_COHORT == int(wire::field_cohort) &&
              TINYLDP_WIRE_MEMO_GENERATION == int(wire::field_memo_generation) &&
              TINYLDP_WIRE_FIXED_HEADER_BYTES == wire::fixed_header_bytes &&
              TINYLDP_WIRE_MAX_HEADER_BYTES == wire::Description::header_bytes(wire::known_fields));
static_assert(TINYLDP_EPSILON_Q32(3, 2) == Epsilon::from_ratio(3, 2).q32 &&
              TINYLDP_EPSILON_Q32(1, 3) == Epsilon::from_ratio(1, 3).q32 &&
              TINYLDP_EPSILON_MAX_Q32 == max_epsilon.q32);
static_assert(TINYLDP_UE_PAYLOAD_BYTES(100) == UnaryEncoding::report_bytes_for(100) &&
              TINYLDP_DLAPLACE_TABLE_ENTRIES(-50, 50) == DiscreteLaplace::table_entries(-50, 50));
static_assert(TINYLDP_HEALTH_OK == int(port::HealthFailure::none) &&
              TINYLDP_HEALTH_REPETITION_COUNT == int(port::HealthFailure::repetition_count) &&
              TINYLDP_HEALTH_ADAPTIVE_PROPORTION == int(port::HealthFailure::adaptive_proportion) &&
              TINYLDP_HEALTH_BAD_CONFIG == int(port::HealthFailure::bad_config));

port::HealthConfig from_c(const tinyldp_health_config& c) {
  return {c.h_q8, c.alpha_log2, c.sample_bits, c.apt_window};
}
constexpr port::HealthPlan default_plan = port::HealthPlan::make(port::HealthConfig{});
constexpr tinyldp_health_plan c_default_plan = TINYLDP_HEALTH_PLAN_DEFAULT;
static_assert(c_default_plan.rct_cutoff == default_plan.rct_cutoff &&
              c_default_plan.apt_cutoff == default_plan.apt_cutoff &&
              c_default_plan.config.h_q8 == default_plan.config.h_q8 &&
              c_default_plan.config.alpha_log2 == default_plan.config.alpha_log2 &&
              c_default_plan.config.sample_bits == default_plan.config.sample_bits &&
              c_default_plan.config.apt_window == default_plan.config.apt_window);

// The encoding as the core takes it; false for a kind the core does not know.
bool from_c(const tinyldp_memo_encoding* e, TwoStageRr::Encoding& out) {
  if (e == nullptr || e->kind > TINYLDP_MEMO_BLOOM) return false;
  out = {static_cast<MemoEncoding>(e->kind), e->bits, e->hashes, e->cohorts, e->attribute};
  return true;
}

}  // namespace

TINYLDP_C_MECHANISM(tinyldp_rr, BinaryRr, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_krr, KaryRr, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_ue, UnaryEncoding, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_lh, LocalHashing, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_hr, HadamardResponse, uint32_t)
TINYLDP_C_MECHANISM(tinyldp_sd, StochasticDiscretization, int32_t)
TINYLDP_C_MECHANISM(tinyldp_dlaplace, DiscreteLaplace, int32_t)
TINYLDP_C_MECHANISM(tinyldp_pm, PiecewiseMechanism, int32_t)
TINYLDP_C_MECHANISM(tinyldp_hm, HybridMechanism, int32_t)
TINYLDP_C_MECHANISM(tinyldp_sw, SquareWave, int32_t)
TINYLDP_C_KEYED(tinyldp_hh, HierarchicalHistogram, int32_t)
TINYLDP_C_KEYED(tinyldp_haar_hrr, HaarHrr, int32_t)
TINYLDP_C_MEMOIZED(tinyldp_two_stage_rr, TwoStageRr, uint32_t)

extern "C" {

const char* tinyldp_status_string(tinyldp_status status) {
  return to_string(static_cast<Status>(status));
}

size_t tinyldp_report_bytes(const tinyldp_description* mechanism, uint8_t fields) {
  const wire::Description d{static_cast<wire::MechanismId>(mechanism->mechanism_id),
                            mechanism->payload_bits, mechanism->digest};
  return d.report_bytes(fields);
}

tinyldp_status tinyldp_wire_encode(const tinyldp_description* mechanism,
                                   const tinyldp_wire_header* header, const uint8_t* payload,
                                   uint8_t* out, size_t out_size, size_t* written) {
  const wire::Description d{static_cast<wire::MechanismId>(mechanism->mechanism_id),
                            mechanism->payload_bits, mechanism->digest};
  wire::Header h{};
  if (header != nullptr) h = {header->fields, header->device_id, header->epoch, header->cohort, header->memo_generation};
  size_t length = 0;
  const Status s = wire::encode(d, h, payload, out, out_size, length);
  if (written != nullptr) *written = length;
  return to_c(s);
}

// ---- configure ---------------------------------------------------------------------------
// Each configure that takes ε has a _precise twin. The plain one keeps a body of its own (the
// core's Precision{}, = TINYLDP_PRECISION_DEFAULT) rather than forwarding: a forward passes the
// precision at run time and left configure_into out of line (the C firmware, 88 B more).

tinyldp_status tinyldp_rr_configure_precise(tinyldp_rr* ctx, uint64_t epsilon_q32,
                                            tinyldp_precision precision) {
  return configure_into<BinaryRr>(ctx, [&](BinaryRr& r) {
    return BinaryRr::configure(Epsilon::from_q32(epsilon_q32), r, from_c(precision));
  });
}
tinyldp_status tinyldp_rr_configure(tinyldp_rr* ctx, uint64_t epsilon_q32) {
  return configure_into<BinaryRr>(
      ctx, [&](BinaryRr& r) { return BinaryRr::configure(Epsilon::from_q32(epsilon_q32), r); });
}
tinyldp_status tinyldp_krr_configure_precise(tinyldp_krr* ctx, uint64_t epsilon_q32, uint32_t k,
                                             tinyldp_precision precision) {
  return configure_into<KaryRr>(ctx, [&](KaryRr& r) {
    return KaryRr::configure(Epsilon::from_q32(epsilon_q32), k, r, from_c(precision));
  });
}
tinyldp_status tinyldp_krr_configure(tinyldp_krr* ctx, uint64_t epsilon_q32, uint32_t k) {
  return configure_into<KaryRr>(
      ctx, [&](KaryRr& r) { return KaryRr::configure(Epsilon::from_q32(epsilon_q32), k, r); });
}
tinyldp_status tinyldp_ue_configure_oue_precise(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision) {
  return configure_into<UnaryEncoding>(ctx, [&](UnaryEncoding& r) {
    return UnaryEncoding::configure_oue(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_ue_configure_oue(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<UnaryEncoding>(ctx, [&](UnaryEncoding& r) {
    return UnaryEncoding::configure_oue(Epsilon::from_q32(epsilon_q32), d, r);
  });
}
tinyldp_status tinyldp_ue_configure_sue_precise(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision) {
  return configure_into<UnaryEncoding>(ctx, [&](UnaryEncoding& r) {
    return UnaryEncoding::configure_sue(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_ue_configure_sue(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<UnaryEncoding>(ctx, [&](UnaryEncoding& r) {
    return UnaryEncoding::configure_sue(Epsilon::from_q32(epsilon_q32), d, r);
  });
}
tinyldp_status tinyldp_lh_configure_olh_precise(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision) {
  return configure_into<LocalHashing>(ctx, [&](LocalHashing& r) {
    return LocalHashing::configure_olh(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_lh_configure_olh(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<LocalHashing>(ctx, [&](LocalHashing& r) {
    return LocalHashing::configure_olh(Epsilon::from_q32(epsilon_q32), d, r);
  });
}
tinyldp_status tinyldp_lh_configure_blh_precise(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision) {
  return configure_into<LocalHashing>(ctx, [&](LocalHashing& r) {
    return LocalHashing::configure_blh(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_lh_configure_blh(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<LocalHashing>(ctx, [&](LocalHashing& r) {
    return LocalHashing::configure_blh(Epsilon::from_q32(epsilon_q32), d, r);
  });
}
tinyldp_status tinyldp_hr_configure_precise(tinyldp_hr* ctx, uint64_t epsilon_q32, uint32_t d,
                                            tinyldp_precision precision) {
  return configure_into<HadamardResponse>(ctx, [&](HadamardResponse& r) {
    return HadamardResponse::configure(Epsilon::from_q32(epsilon_q32), d, r, from_c(precision));
  });
}
tinyldp_status tinyldp_hr_configure(tinyldp_hr* ctx, uint64_t epsilon_q32, uint32_t d) {
  return configure_into<HadamardResponse>(ctx, [&](HadamardResponse& r) {
    return HadamardResponse::configure(Epsilon::from_q32(epsilon_q32), d, r);
  });
}
tinyldp_status tinyldp_sd_configure_precise(tinyldp_sd* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t levels, tinyldp_precision precision) {
  return configure_into<StochasticDiscretization>(ctx, [&](StochasticDiscretization& r) {
    return StochasticDiscretization::configure(Epsilon::from_q32(epsilon_q32), lo, hi, levels, r,
                                               from_c(precision));
  });
}
tinyldp_status tinyldp_sd_configure(tinyldp_sd* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t levels) {
  return configure_into<StochasticDiscretization>(ctx, [&](StochasticDiscretization& r) {
    return StochasticDiscretization::configure(Epsilon::from_q32(epsilon_q32), lo, hi, levels, r);
  });
}
tinyldp_status tinyldp_pm_configure_precise(tinyldp_pm* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t cells, tinyldp_precision precision) {
  return configure_into<PiecewiseMechanism>(ctx, [&](PiecewiseMechanism& r) {
    return PiecewiseMechanism::configure(Epsilon::from_q32(epsilon_q32), lo, hi, cells, r, from_c(precision));
  });
}
tinyldp_status tinyldp_pm_configure(tinyldp_pm* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t cells) {
  return configure_into<PiecewiseMechanism>(ctx, [&](PiecewiseMechanism& r) {
    return PiecewiseMechanism::configure(Epsilon::from_q32(epsilon_q32), lo, hi, cells, r);
  });
}
tinyldp_status tinyldp_hm_configure_precise(tinyldp_hm* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t cells, tinyldp_precision precision) {
  return configure_into<HybridMechanism>(ctx, [&](HybridMechanism& r) {
    return HybridMechanism::configure(Epsilon::from_q32(epsilon_q32), lo, hi, cells, r, from_c(precision));
  });
}
tinyldp_status tinyldp_hm_configure(tinyldp_hm* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t cells) {
  return configure_into<HybridMechanism>(ctx, [&](HybridMechanism& r) {
    return HybridMechanism::configure(Epsilon::from_q32(epsilon_q32), lo, hi, cells, r);
  });
}
tinyldp_status tinyldp_sw_configure_precise(tinyldp_sw* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t buckets, tinyldp_precision precision) {
  return configure_into<SquareWave>(ctx, [&](SquareWave& r) {
    return SquareWave::configure(Epsilon::from_q32(epsilon_q32), lo, hi, buckets, r, from_c(precision));
  });
}
tinyldp_status tinyldp_sw_configure(tinyldp_sw* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t buckets) {
  return configure_into<SquareWave>(ctx, [&](SquareWave& r) {
    return SquareWave::configure(Epsilon::from_q32(epsilon_q32), lo, hi, buckets, r);
  });
}
tinyldp_status tinyldp_hh_configure_precise(tinyldp_hh* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                            uint32_t branching, uint32_t attribute,
                                            tinyldp_precision precision) {
  return configure_into<HierarchicalHistogram>(ctx, [&](HierarchicalHistogram& r) {
    return HierarchicalHistogram::configure(Epsilon::from_q32(epsilon_q32), lo, hi, branching, r,
                                            from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_hh_configure(tinyldp_hh* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t branching, uint32_t attribute) {
  return configure_into<HierarchicalHistogram>(ctx, [&](HierarchicalHistogram& r) {
    return HierarchicalHistogram::configure(Epsilon::from_q32(epsilon_q32), lo, hi, branching, r, {}, attribute);
  });
}
tinyldp_status tinyldp_haar_hrr_configure_precise(tinyldp_haar_hrr* ctx, uint64_t epsilon_q32,
                                                  int32_t lo, int32_t hi, uint32_t attribute,
                                                  tinyldp_precision precision) {
  return configure_into<HaarHrr>(ctx, [&](HaarHrr& r) {
    return HaarHrr::configure(Epsilon::from_q32(epsilon_q32), lo, hi, r, from_c(precision), attribute);
  });
}
tinyldp_status tinyldp_haar_hrr_configure(tinyldp_haar_hrr* ctx, uint64_t epsilon_q32, int32_t lo,
                                          int32_t hi, uint32_t attribute) {
  return configure_into<HaarHrr>(ctx, [&](HaarHrr& r) {
    return HaarHrr::configure(Epsilon::from_q32(epsilon_q32), lo, hi, r, {}, attribute);
  });
}
// No precision: the core's discrete Laplace picks its table's bits itself (configure_fewest_bits).
tinyldp_status tinyldp_dlaplace_configure(tinyldp_dlaplace* ctx, uint64_t epsilon_q32, int32_t lo,
                                          int32_t hi, uint32_t sensitivity, uint64_t* table,
                                          size_t table_entries) {
  return configure_into<DiscreteLaplace>(ctx, [&](DiscreteLaplace& r) {
    return DiscreteLaplace::configure_fewest_bits(Epsilon::from_q32(epsilon_q32), lo, hi,
                                                  sensitivity, table, table_entries, r);
  });
}

// ---- the DRBG ------------------------------------------------------------------------------

void tinyldp_chacha20_drbg_init(tinyldp_chacha20_drbg* drbg) {
  new (Placement{}, drbg->opaque.bytes) port::ChaCha20Drbg();
}
tinyldp_entropy_result tinyldp_chacha20_drbg_seed(tinyldp_chacha20_drbg* drbg,
                                                  const tinyldp_entropy_source* source,
                                                  uint16_t min_entropy_q8, uint32_t flags,
                                                  const uint8_t* personalization,
                                                  size_t personalization_length) {
  const tinyldp_entropy_source from =
      source != nullptr ? *source : tinyldp_entropy_source{nullptr, nullptr};
  return static_cast<tinyldp_entropy_result>(object<port::ChaCha20Drbg>(drbg).seed_from(
      from, min_entropy_q8, flags, personalization, personalization_length));
}
void tinyldp_chacha20_drbg_seed_from_bytes(tinyldp_chacha20_drbg* drbg, const uint8_t* material,
                                           size_t length) {
  object<port::ChaCha20Drbg>(drbg).seed_from_bytes(material, length);
}
void tinyldp_chacha20_drbg_set_reseed_source(tinyldp_chacha20_drbg* drbg,
                                             const tinyldp_entropy_source* source,
                                             uint16_t min_entropy_q8) {
  object<port::ChaCha20Drbg>(drbg).set_reseed_source(
      source != nullptr ? *source : tinyldp_entropy_source{nullptr, nullptr}, min_entropy_q8);
}
void tinyldp_chacha20_drbg_set_reseed_interval_blocks(tinyldp_chacha20_drbg* drbg,
                                                      uint64_t blocks) {
  object<port::ChaCha20Drbg>(drbg).set_reseed_interval_blocks(blocks);
}
uint64_t tinyldp_chacha20_drbg_blocks_until_reseed(const tinyldp_chacha20_drbg* drbg) {
  return object<port::ChaCha20Drbg>(drbg).blocks_until_reseed();
}
int tinyldp_chacha20_drbg_seeded(const tinyldp_chacha20_drbg* drbg) {
  return object<port::ChaCha20Drbg>(drbg).seeded() ? 1 : 0;
}
tinyldp_entropy_result tinyldp_chacha20_drbg_fill(tinyldp_chacha20_drbg* drbg, uint8_t* out,
                                                  size_t length, uint32_t flags) {
  return static_cast<tinyldp_entropy_result>(
      object<port::ChaCha20Drbg>(drbg).fill(out, length, flags));
}
tinyldp_entropy_source tinyldp_chacha20_drbg_source(tinyldp_chacha20_drbg* drbg) {
  return to_c_source(object<port::ChaCha20Drbg>(drbg));
}
void tinyldp_chacha20_drbg_wipe(tinyldp_chacha20_drbg* drbg) {
  object<port::ChaCha20Drbg>(drbg).wipe();
}

// ---- health tests --------------------------------------------------------------------------

tinyldp_status tinyldp_health_plan_make(const tinyldp_health_config* config,
                                        tinyldp_health_plan* out) {
  const port::HealthPlan plan = port::HealthPlan::make(from_c(*config));
  *out = {*config, plan.rct_cutoff, plan.apt_cutoff};
  return plan.rct_cutoff == 0 || plan.apt_cutoff == 0 ? TINYLDP_STATUS_BAD_PARAMETER
                                                      : TINYLDP_STATUS_OK;
}
tinyldp_status tinyldp_health_init(tinyldp_health* health, const tinyldp_entropy_source* raw,
                                   const tinyldp_health_plan* plan) {
  const port::HealthPlan p{from_c(plan->config), plan->rct_cutoff, plan->apt_cutoff};
  const HealthContext* made = new (Placement{}, health->opaque.bytes)
      HealthContext(raw != nullptr ? *raw : tinyldp_entropy_source{nullptr, nullptr}, p);
  return made->tested.monitor().failure() == port::HealthFailure::bad_config
             ? TINYLDP_STATUS_BAD_PARAMETER
             : TINYLDP_STATUS_OK;
}
tinyldp_entropy_result tinyldp_health_fill(tinyldp_health* health, uint8_t* out, size_t length,
                                           uint32_t flags) {
  HealthContext& h = object<HealthContext>(health);
  if (!h.made()) {
    if (out != nullptr) tinyldp::wipe(out, length);
    return TINYLDP_ENTROPY_FAILED;
  }
  return static_cast<tinyldp_entropy_result>(h.tested.fill(out, length, flags));
}
tinyldp_entropy_source tinyldp_health_source(tinyldp_health* health) {
  HealthContext& h = object<HealthContext>(health);
  return h.made() ? to_c_source(h.tested) : tinyldp_entropy_source{nullptr, nullptr};
}
uint16_t tinyldp_health_min_entropy_q8(const tinyldp_health* health) {
  const HealthContext& h = object<HealthContext>(health);
  return h.made() ? h.tested.min_entropy_q8() : uint16_t{TINYLDP_ENTROPY_ESTIMATE_UNKNOWN};
}
int tinyldp_health_failure(const tinyldp_health* health) {
  const HealthContext& h = object<HealthContext>(health);
  return h.made() ? static_cast<int>(h.tested.monitor().failure())
                  : static_cast<int>(port::HealthFailure::bad_config);
}
void tinyldp_health_reinit(tinyldp_health* health) {
  HealthContext& h = object<HealthContext>(health);
  if (h.made()) h.tested.reinit();
}

// ---- storage -------------------------------------------------------------------------------

tinyldp_storage_result tinyldp_record_init(tinyldp_record* record,
                                           const tinyldp_storage_device* device,
                                           uint32_t first_sector, uint32_t sectors_per_slot) {
  const tinyldp_storage_device none{nullptr, nullptr, nullptr, nullptr, {0, 0, 0, 0}};
  new (Placement{}, record->opaque.bytes)
      RecordContext(device != nullptr ? *device : none, first_sector, sectors_per_slot);
  return tinyldp_record_capacity(record) == 0 ? TINYLDP_STORAGE_BAD_GEOMETRY : TINYLDP_STORAGE_OK;
}
uint32_t tinyldp_record_capacity(const tinyldp_record* record) {
  return object<RecordContext>(record).record.capacity();
}
tinyldp_storage_result tinyldp_record_read(tinyldp_record* record, uint8_t* out,
                                           size_t out_capacity, size_t* length) {
  size_t n = 0;
  const StorageResult r = object<RecordContext>(record).record.read(out, out_capacity, &n);
  if (length != nullptr) *length = r == StorageResult::ok ? n : 0;
  return static_cast<tinyldp_storage_result>(r);
}
tinyldp_storage_result tinyldp_record_write(tinyldp_record* record, const uint8_t* data,
                                            size_t length) {
  return static_cast<tinyldp_storage_result>(object<RecordContext>(record).record.write(data, length));
}
uint32_t tinyldp_record_sequence(const tinyldp_record* record) {
  return object<RecordContext>(record).record.sequence();
}

// ---- reports over time: the memo key ------------------------------------------------------

void tinyldp_memo_key_init(tinyldp_memo_key* key) {
  new (Placement{}, key->opaque.bytes) port::MemoKey();
}
tinyldp_memo_key_result tinyldp_memo_key_load(tinyldp_memo_key* key, tinyldp_record* record) {
  port::MemoKey& k = *new (Placement{}, key->opaque.bytes) port::MemoKey();
  return static_cast<tinyldp_memo_key_result>(
      port::load_memo_key(object<RecordContext>(record).record, k));
}
tinyldp_memo_key_result tinyldp_memo_key_provision(tinyldp_memo_key* key, tinyldp_record* record,
                                                   tinyldp_chacha20_drbg* drbg,
                                                   uint32_t generation) {
  port::MemoKey& k = *new (Placement{}, key->opaque.bytes) port::MemoKey();
  return static_cast<tinyldp_memo_key_result>(port::provision_memo_key(
      object<port::ChaCha20Drbg>(drbg), object<RecordContext>(record).record, generation, k));
}
tinyldp_memo_key_result tinyldp_memo_key_rekey(tinyldp_memo_key* key, tinyldp_record* record,
                                               tinyldp_chacha20_drbg* drbg) {
  return static_cast<tinyldp_memo_key_result>(
      port::rekey_memo_key(object<port::ChaCha20Drbg>(drbg), object<RecordContext>(record).record,
                           object<port::MemoKey>(key)));
}
int tinyldp_memo_key_provisioned(const tinyldp_memo_key* key) {
  return object<port::MemoKey>(key).provisioned() ? 1 : 0;
}
uint32_t tinyldp_memo_key_generation(const tinyldp_memo_key* key) {
  return object<port::MemoKey>(key).generation();
}
uint32_t tinyldp_memo_key_cohort(const tinyldp_memo_key* key, uint32_t cohorts) {
  return object<port::MemoKey>(key).cohort(cohorts);
}
uint64_t tinyldp_memo_key_value_tag(const tinyldp_memo_key* key, uint8_t mechanism,
                                    uint32_t attribute, uint32_t value) {
  return object<port::MemoKey>(key).value_tag(static_cast<wire::MechanismId>(mechanism), attribute, value);
}
void tinyldp_memo_key_wipe(tinyldp_memo_key* key) { object<port::MemoKey>(key).wipe(); }
const char* tinyldp_memo_key_result_string(tinyldp_memo_key_result result) {
  switch (result) {
    case TINYLDP_MEMO_KEY_OK: return "ok";
    case TINYLDP_MEMO_KEY_NOT_PROVISIONED: return "memo key not provisioned";
    case TINYLDP_MEMO_KEY_STORAGE_FAILED: return "memo key storage failed";
    case TINYLDP_MEMO_KEY_GENERATOR_FAILED: return "memo key generator not seeded or failed";
    case TINYLDP_MEMO_KEY_ALREADY_PROVISIONED: return "memo key already provisioned (re-key instead)";
    case TINYLDP_MEMO_KEY_GENERATION_EXHAUSTED: return "memo key generation exhausted";
  }
  return "unknown memo key result";
}

// ---- reports over time: memoized two-stage randomized response ----------------------------

tinyldp_status tinyldp_two_stage_rr_configure_chain_precise(tinyldp_two_stage_rr* ctx, uint8_t first,
                                                            uint8_t second,
                                                            uint64_t epsilon_infinity_q32,
                                                            uint64_t epsilon_one_q32,
                                                            const tinyldp_memo_encoding* encoding,
                                                            tinyldp_precision precision) {
  return configure_into<TwoStageRr>(ctx, [&](TwoStageRr& r) {
    TwoStageRr::Encoding e;
    if (!from_c(encoding, e) || first > TINYLDP_UE_STAGE_OUE || second > TINYLDP_UE_STAGE_OUE)
      return Status::bad_parameter;
    return TwoStageRr::configure_chain(static_cast<UeStage>(first), static_cast<UeStage>(second),
                                       Epsilon::from_q32(epsilon_infinity_q32),
                                       Epsilon::from_q32(epsilon_one_q32), e, r, from_c(precision));
  });
}
tinyldp_status tinyldp_two_stage_rr_configure_chain(tinyldp_two_stage_rr* ctx, uint8_t first,
                                                    uint8_t second,
                                                    uint64_t epsilon_infinity_q32,
                                                    uint64_t epsilon_one_q32,
                                                    const tinyldp_memo_encoding* encoding) {
  return configure_into<TwoStageRr>(ctx, [&](TwoStageRr& r) {
    TwoStageRr::Encoding e;
    if (!from_c(encoding, e) || first > TINYLDP_UE_STAGE_OUE || second > TINYLDP_UE_STAGE_OUE)
      return Status::bad_parameter;
    return TwoStageRr::configure_chain(static_cast<UeStage>(first), static_cast<UeStage>(second),
                                       Epsilon::from_q32(epsilon_infinity_q32),
                                       Epsilon::from_q32(epsilon_one_q32), e, r);
  });
}
// No precision: RAPPOR's f, p, q are the probabilities, as given.
tinyldp_status tinyldp_two_stage_rr_configure_rappor(tinyldp_two_stage_rr* ctx, tinyldp_dyadic f,
                                                     tinyldp_dyadic p, tinyldp_dyadic q,
                                                     const tinyldp_memo_encoding* encoding) {
  return configure_into<TwoStageRr>(ctx, [&](TwoStageRr& r) {
    TwoStageRr::Encoding e;
    if (!from_c(encoding, e) || f.bits > 64 || p.bits > 64 || q.bits > 64)
      return Status::bad_parameter;
    return TwoStageRr::configure_rappor(from_c(f), from_c(p), from_c(q), e, r);
  });
}
// ---- reports over time: the privacy ledger ------------------------------------------------

void tinyldp_ledger_init(tinyldp_ledger* ledger, tinyldp_record* record, uint64_t cap_q32) {
  // No record (NULL): a ledger that refuses to open, as one never initialised.
  new (Placement{}, ledger->opaque.bytes)
      CLedger(record != nullptr ? &object<RecordContext>(record).record : nullptr, Epsilon::from_q32(cap_q32));
}
tinyldp_ledger_result tinyldp_ledger_open(tinyldp_ledger* ledger) {
  return static_cast<tinyldp_ledger_result>(object<CLedger>(ledger).open());
}
tinyldp_ledger_result tinyldp_ledger_provision(tinyldp_ledger* ledger, uint32_t epoch,
                                               uint32_t generation, uint64_t spent_q32,
                                               uint64_t lifetime_q32) {
  return static_cast<tinyldp_ledger_result>(object<CLedger>(ledger).provision(
      epoch, generation, Epsilon::from_q32(spent_q32), Epsilon::from_q32(lifetime_q32)));
}
tinyldp_ledger_result tinyldp_ledger_charge(tinyldp_ledger* ledger, uint64_t cost_q32) {
  return static_cast<tinyldp_ledger_result>(
      object<CLedger>(ledger).charge(Epsilon::from_q32(cost_q32)));
}
tinyldp_ledger_result tinyldp_ledger_charge_memoized(tinyldp_ledger* ledger, uint32_t attribute,
                                                     uint64_t tag, uint32_t generation,
                                                     uint64_t epsilon_infinity_q32) {
  return static_cast<tinyldp_ledger_result>(object<CLedger>(ledger).charge_memoized(
      attribute, tag, generation, Epsilon::from_q32(epsilon_infinity_q32)));
}
tinyldp_ledger_result tinyldp_ledger_charge_memo(tinyldp_ledger* ledger, uint32_t attribute,
                                                 const tinyldp_two_stage_rr* mechanism,
                                                 const tinyldp_memo_key* key, uint32_t value) {
  return charge_memo<TwoStageRr>(ledger, attribute, mechanism, key, value);
}
tinyldp_ledger_result tinyldp_ledger_roll_epoch(tinyldp_ledger* ledger) {
  return static_cast<tinyldp_ledger_result>(object<CLedger>(ledger).roll_epoch());
}
tinyldp_ledger_result tinyldp_ledger_advance_epoch(tinyldp_ledger* ledger, uint32_t epoch) {
  return static_cast<tinyldp_ledger_result>(object<CLedger>(ledger).advance_epoch(epoch));
}
uint32_t tinyldp_ledger_generation(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).generation();
}
int tinyldp_ledger_is_open(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).is_open() ? 1 : 0;
}
uint32_t tinyldp_ledger_epoch(const tinyldp_ledger* ledger) { return object<CLedger>(ledger).epoch(); }
uint64_t tinyldp_ledger_cap_q32(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).cap().q32;
}
uint64_t tinyldp_ledger_spent_q32(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).spent().q32;
}
uint64_t tinyldp_ledger_remaining_q32(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).remaining().q32;
}
uint64_t tinyldp_ledger_lifetime_q32(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).lifetime().q32;
}
uint32_t tinyldp_ledger_charges(const tinyldp_ledger* ledger) {
  return object<CLedger>(ledger).charges();
}
const char* tinyldp_ledger_result_string(tinyldp_ledger_result result) {
  return to_string(static_cast<LedgerResult>(result));
}

}  // extern "C"
