// SPDX-License-Identifier: Apache-2.0
// tinyldp.h's records of several attributes: SPL, SMP and RS+FD (multi_attribute.hpp) and the
// memoized record (record_rr.hpp), each holding at most TINYLDP_RECORD_MAX_ATTRIBUTES, stamped
// by forwards.hpp's macros.
#include "forwards.hpp"
#include "tinyldp/multi_attribute.hpp"
#include "tinyldp/record_rr.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::c_api;

// At most TINYLDP_RECORD_MAX_ATTRIBUTES attributes (the header's).
constexpr uint32_t record_attributes = TINYLDP_RECORD_MAX_ATTRIBUTES;
using CRecordRr = RecordRr<record_attributes>;
using CSplGrr = SplitRecord<GrrSlot, record_attributes>;
using CSplOue = SplitRecord<OueSlot, record_attributes>;
using CSmpGrr = SampledAttribute<GrrSlot, record_attributes>;
using CSmpOue = SampledAttribute<OueSlot, record_attributes>;
using CRsfdGrr = FakeDataRecord<GrrSlot, record_attributes>;
using CRsfdOue = FakeDataRecord<OueSlot, record_attributes>;
static_assert(TINYLDP_RSFD_FAKE_ZERO == int(FakeData::zero) && TINYLDP_RSFD_FAKE_RANDOM == int(FakeData::random));

}  // namespace

TINYLDP_C_RECORD(tinyldp_spl_grr, CSplGrr)
TINYLDP_C_RECORD(tinyldp_spl_oue, CSplOue)
TINYLDP_C_RECORD(tinyldp_smp_grr, CSmpGrr)
TINYLDP_C_RECORD(tinyldp_smp_oue, CSmpOue)
TINYLDP_C_MECHANISM(tinyldp_rsfd_grr, CRsfdGrr, const uint32_t*)
TINYLDP_C_MECHANISM(tinyldp_rsfd_oue, CRsfdOue, const uint32_t*)
TINYLDP_C_MEMOIZED(tinyldp_record_rr, CRecordRr, const uint32_t*)

extern "C" {

// RS+FD's configure takes its fake data before the precision (the other protocols' configure:
// TINYLDP_C_RECORD); over k-RR the core ignores it (a uniform value), so its default is passed.
tinyldp_status tinyldp_rsfd_grr_configure_precise(tinyldp_rsfd_grr* ctx, uint64_t epsilon_q32,
                                                  const uint32_t* domains, uint32_t d,
                                                  tinyldp_precision precision) {
  return configure_record<CRsfdGrr>(ctx, epsilon_q32, domains, d, FakeData::zero, from_c(precision));
}
tinyldp_status tinyldp_rsfd_grr_configure(tinyldp_rsfd_grr* ctx, uint64_t epsilon_q32,
                                          const uint32_t* domains, uint32_t d) {
  return configure_record<CRsfdGrr>(ctx, epsilon_q32, domains, d);
}
tinyldp_status tinyldp_rsfd_oue_configure_precise(tinyldp_rsfd_oue* ctx, uint64_t epsilon_q32,
                                                  const uint32_t* domains, uint32_t d, uint8_t fake,
                                                  tinyldp_precision precision) {
  if (fake > TINYLDP_RSFD_FAKE_RANDOM) {  // a kind the core does not know: a context that refuses
    new (Placement{}, ctx->opaque.bytes) CRsfdOue();
    return TINYLDP_STATUS_BAD_PARAMETER;
  }
  return configure_record<CRsfdOue>(ctx, epsilon_q32, domains, d, static_cast<FakeData>(fake), from_c(precision));
}
tinyldp_status tinyldp_rsfd_oue_configure(tinyldp_rsfd_oue* ctx, uint64_t epsilon_q32,
                                          const uint32_t* domains, uint32_t d, uint8_t fake) {
  if (fake > TINYLDP_RSFD_FAKE_RANDOM) {  // a kind the core does not know: a context that refuses
    new (Placement{}, ctx->opaque.bytes) CRsfdOue();
    return TINYLDP_STATUS_BAD_PARAMETER;
  }
  return configure_record<CRsfdOue>(ctx, epsilon_q32, domains, d, static_cast<FakeData>(fake));
}

// No precision: RAPPOR's f, p, q are the probabilities, as given; a record of configured chains
// takes theirs.
tinyldp_status tinyldp_record_rr_configure_rappor(tinyldp_record_rr* ctx, tinyldp_dyadic f,
                                                  tinyldp_dyadic p, tinyldp_dyadic q,
                                                  const uint32_t* domains, uint32_t d) {
  return configure_into<CRecordRr>(ctx, [&](CRecordRr& r) {
    if (f.bits > 64 || p.bits > 64 || q.bits > 64) return Status::bad_parameter;
    return CRecordRr::configure_rappor(from_c(f), from_c(p), from_c(q), domains, d, r);
  });
}
tinyldp_status tinyldp_record_rr_configure(tinyldp_record_rr* ctx,
                                           const tinyldp_two_stage_rr* attributes, uint32_t d) {
  return configure_into<CRecordRr>(ctx, [&](CRecordRr& r) {
    if (attributes == nullptr || d == 0 || d > record_attributes) return Status::bad_parameter;
    TwoStageRr each[record_attributes];  // the contexts' objects side by side, as the core takes them
    for (uint32_t j = 0; j < d; ++j) each[j] = object<TwoStageRr>(&attributes[j]);
    return CRecordRr::configure(each, d, r);
  });
}

}  // extern "C"
