// SPDX-License-Identifier: Apache-2.0
// tinyldp.h's authenticated reports: the ReportAuth of port/auth/report_auth over a C record.
#include "forwards.hpp"
#include "tinyldp/port/auth/report_auth.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::c_api;
using CReportAuth = port::ReportAuth<CStorageDevice>;
static_assert(holds<CReportAuth, tinyldp_report_auth>);

// The C enum, the constants and the record's size are the port's and the wire format's.
using R = port::ReportAuthResult;
static_assert(TINYLDP_REPORT_AUTH_OK == int(R::ok) && TINYLDP_REPORT_AUTH_NOT_PROVISIONED == int(R::not_provisioned) &&
              TINYLDP_REPORT_AUTH_STORAGE_FAILED == int(R::storage_failed) &&
              TINYLDP_REPORT_AUTH_ALREADY_PROVISIONED == int(R::already_provisioned) &&
              TINYLDP_REPORT_AUTH_ZERO_KEY == int(R::zero_key) && TINYLDP_REPORT_AUTH_WRONG_DEVICE == int(R::wrong_device) &&
              TINYLDP_REPORT_AUTH_NOT_A_REPORT == int(R::not_a_report) &&
              TINYLDP_REPORT_AUTH_MISSING_IDENTITY == int(R::missing_identity) &&
              TINYLDP_REPORT_AUTH_BUFFER_TOO_SMALL == int(R::buffer_too_small) &&
              TINYLDP_REPORT_AUTH_COUNTER_EXHAUSTED == int(R::counter_exhausted));
static_assert(TINYLDP_WIRE_AUTHENTICATED_VERSION == wire::authenticated_version &&
              TINYLDP_WIRE_AUTHENTICATED_TRAILER_BYTES == wire::authenticated_trailer_bytes &&
              TINYLDP_REPORT_AUTH_KEY_BYTES == port::device_key_bytes &&
              TINYLDP_REPORT_AUTH_RECORD_BYTES == port::report_auth_record_bytes);

tinyldp_report_auth_result to_c(R r) { return static_cast<tinyldp_report_auth_result>(r); }

}  // namespace

extern "C" {

void tinyldp_report_auth_init(tinyldp_report_auth* auth) { new (Placement{}, auth->opaque.bytes) CReportAuth(); }
tinyldp_report_auth_result tinyldp_report_auth_load(tinyldp_report_auth* auth, tinyldp_record* record) {
  CReportAuth& a = *new (Placement{}, auth->opaque.bytes) CReportAuth();
  if (record == nullptr) return TINYLDP_REPORT_AUTH_NOT_PROVISIONED;
  return to_c(a.load(object<RecordContext>(record).record));
}
tinyldp_report_auth_result tinyldp_report_auth_provision(tinyldp_report_auth* auth, tinyldp_record* record,
                                                         uint32_t device_id, const uint8_t* key,
                                                         uint32_t first_counter) {
  CReportAuth& a = *new (Placement{}, auth->opaque.bytes) CReportAuth();
  if (record == nullptr) return TINYLDP_REPORT_AUTH_STORAGE_FAILED;
  if (key == nullptr) return TINYLDP_REPORT_AUTH_ZERO_KEY;
  return to_c(a.provision(object<RecordContext>(record).record, device_id, key, first_counter));
}
tinyldp_report_auth_result tinyldp_report_auth_seal(tinyldp_report_auth* auth, const uint8_t* report,
                                                    size_t length, uint8_t* out, size_t capacity,
                                                    size_t* written) {
  if (out == nullptr) {
    if (written != nullptr) *written = 0;
    return TINYLDP_REPORT_AUTH_BUFFER_TOO_SMALL;
  }
  return to_c(object<CReportAuth>(auth).seal(report, length, out, capacity, written));
}
int tinyldp_report_auth_provisioned(const tinyldp_report_auth* auth) {
  return object<CReportAuth>(auth).provisioned() ? 1 : 0;
}
uint32_t tinyldp_report_auth_device_id(const tinyldp_report_auth* auth) { return object<CReportAuth>(auth).device_id(); }
uint32_t tinyldp_report_auth_next_counter(const tinyldp_report_auth* auth) {
  return object<CReportAuth>(auth).next_counter();
}
void tinyldp_report_auth_wipe(tinyldp_report_auth* auth) { object<CReportAuth>(auth).wipe(); }
void tinyldp_report_auth_derive_key(const uint8_t* fleet_secret, uint32_t device_id, uint8_t* key) {
  port::derive_device_key(fleet_secret, device_id, key);
}
const char* tinyldp_report_auth_result_string(tinyldp_report_auth_result result) {
  return port::to_string(static_cast<R>(result));
}

}  // extern "C"
