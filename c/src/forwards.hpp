// SPDX-License-Identifier: Apache-2.0
// What every translation unit of tinyldp.h's implementation shares: a context's object, the
// configure/describe/privatize/report forwards every mechanism goes through, and the macros
// that stamp a family's C functions from them (one family, one line). Internal: not installed.
// Everything here is inline or a template, so each family's file (tinyldp_c*.cpp) compiles
// only the mechanisms it stamps — a firmware that links one mechanism gets its code alone.
#ifndef TINYLDP_C_SRC_FORWARDS_HPP
#define TINYLDP_C_SRC_FORWARDS_HPP

#include "tinyldp.h"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/storage.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/wipe.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::c_api {
struct Placement {};  // placement new without <new> (absent from some bare-metal toolchains)
}  // namespace tinyldp::c_api
inline void* operator new(size_t, tinyldp::c_api::Placement, void* where) noexcept { return where; }

namespace tinyldp::c_api {
// Internal linkage, as if each file defined them itself: GCC then inlines a forward called once
// (a firmware's report path is then the same code as with one mechanism in the library).
namespace {

// A tinyldp_record's object: the C driver and the record over it (the memo key, the ledger and
// the report sealing all take it).
struct RecordContext {
  RecordContext(const tinyldp_storage_device& driver, uint32_t first_sector,
                uint32_t sectors_per_slot)
      : device(driver), record(device, first_sector, sectors_per_slot) {}
  CStorageDevice device;
  Record<CStorageDevice> record;
};

// The C API's ledger: a fixed number of attribute slots (the header documents it).
using CLedger = PrivacyLedger<CStorageDevice, TINYLDP_LEDGER_ATTRIBUTES>;

// Each context's storage holds its object, aligned, and is no larger than the object rounded
// up to the storage's alignment (the header's sizes are exact); every context can be a plain
// global: nothing to destroy.
template <class T, class Context>
constexpr bool holds = sizeof(T) <= sizeof(Context::opaque) && alignof(T) <= alignof(Context) &&
                       sizeof(Context) - sizeof(T) < alignof(Context) &&
                       TINYLDP_TRIVIALLY_DESTRUCTIBLE(T);

inline tinyldp_status to_c(Status s) { return static_cast<tinyldp_status>(s); }

// The object in a context (made there by placement new; the storage is aligned for it).
template <class T, class Context>
T& object(Context* context) {
  return *static_cast<T*>(static_cast<void*>(&context->opaque));
}
template <class T, class Context>
const T& object(const Context* context) {
  return *static_cast<const T*>(static_cast<const void*>(&context->opaque));
}

// Runs configure(T&) on a fresh T and makes the context hold the result (a fresh T on failure).
template <class T, class Context, class Configure>
tinyldp_status configure_into(Context* context, Configure configure) {
  T configured;
  const Status s = configure(configured);
  new (Placement{}, context->opaque.bytes) T(s == Status::ok ? configured : T());
  return to_c(s);
}

template <class M>
void describe(const M& m, tinyldp_description* out) {
  const wire::Description d = m.description();
  out->mechanism_id = static_cast<uint8_t>(d.id);
  out->payload_bits = d.payload_bits;
  out->digest = d.digest;
  out->realized_epsilon_q32 = m.realized_epsilon().q32;
  if constexpr (requires { m.random_bits_per_report(); }) {
    out->random_bits_per_report = m.random_bits_per_report();
  } else {
    out->random_bits_per_report = 0;  // the records without memo: it varies with the draws
  }
}

template <class M>
concept HasReportType = requires { typename M::Report; };

// One report's payload (what encode frames) into payload[0..size), from a bit reader made for
// this report: 8-byte requests (the DRBG buffers already), the drawn bytes zeroed at the end.
// `key…`: the memo key of a memoized mechanism (none for the others).
template <class M, class Value, class... Key>
Status privatize_payload(const M& m, Value value, const tinyldp_entropy_source* source,
                         uint8_t* payload, size_t size, const Key&... key) {
  // An unconfigured context (all zero, or its configure failed) has no payload size to trust:
  // the whole buffer the caller gave is zeroed.
  if (!m.configured()) {
    if (payload != nullptr) tinyldp::wipe(payload, size);
    return Status::not_configured;
  }
  CEntropySource from(source != nullptr ? *source : tinyldp_entropy_source{nullptr, nullptr});
  RandomBits<CEntropySource, 8> rng(from);
  if constexpr (HasReportType<M>) {
    const size_t n = m.description().payload_bytes();
    if (payload == nullptr || size < n) {
      if (payload != nullptr) tinyldp::wipe(payload, size);
      return Status::buffer_too_small;
    }
    typename M::Report report{};
    const Status s = m.privatize(value, key..., rng, report);
    tinyldp::wipe(payload, n);  // a pack may OR its bits in (dBitFlip's)
    if (s == Status::ok) m.pack(report, payload);
    tinyldp::wipe(&report, sizeof report);
    return s;
  } else {
    return m.privatize(value, key..., rng, payload, size);
  }
}

// privatize_payload straight into the frame after the header, then the header.
template <class M, class Value, class... Key>
tinyldp_status report_into(const M& m, Value value, const tinyldp_entropy_source* source,
                           const tinyldp_wire_header* header, uint8_t* frame, size_t frame_size,
                           size_t* written, const Key&... key) {
  wire::Header h{};
  if (header != nullptr) h = {header->fields, header->device_id, header->epoch, header->cohort, header->memo_generation};
  size_t length = 0;
  Status s = m.configured() ? Status::buffer_too_small : Status::not_configured;
  if (m.configured()) {
    const wire::Description d = m.description();
    if (frame != nullptr && frame_size >= d.report_bytes(h.fields)) {
      uint8_t* payload = frame + wire::Description::header_bytes(h.fields);
      s = (h.fields & ~wire::known_fields) != 0
              ? Status::bad_parameter
              : privatize_payload(m, value, source, payload, d.payload_bytes(), key...);
      if (s == Status::ok) s = wire::encode(d, h, payload, frame, frame_size, length);
    }
  }
  if (s != Status::ok && frame != nullptr) tinyldp::wipe(frame, frame_size);
  if (written != nullptr) *written = s == Status::ok ? length : 0;
  return to_c(s);
}

// The memo key in a context, or null when there is none a report may use (null or never
// provisioned: an unprovisioned key's memo would be public).
inline const port::MemoKey* usable_key(const tinyldp_memo_key* key) {
  if (key == nullptr) return nullptr;
  const port::MemoKey& k = object<port::MemoKey>(key);
  return k.provisioned() ? &k : nullptr;
}

// A keyed report's refusal (a memoized mechanism's, or another that takes the key: hh) before
// anything is drawn: an unconfigured context, then a key a report may not use (ok: neither).
template <class M>
Status refuse_keyed(const M& m, const tinyldp_memo_key* key) {
  if (!m.configured()) return Status::not_configured;  // before the key: nothing to report with
  if (usable_key(key) == nullptr) return key == nullptr ? Status::bad_parameter : Status::key_not_provisioned;
  return Status::ok;
}

template <class M, class Value>
tinyldp_status privatize_keyed(const M& m, Value value, const tinyldp_memo_key* key,
                               const tinyldp_entropy_source* source, uint8_t* payload,
                               size_t payload_size) {
  const Status refused = refuse_keyed(m, key);
  if (refused != Status::ok) {
    if (payload != nullptr) tinyldp::wipe(payload, payload_size);
    return to_c(refused);
  }
  return to_c(privatize_payload(m, value, source, payload, payload_size, *usable_key(key)));
}

// The header fields the key fixes come from the key: its generation, and a Bloom encoding's
// cohort.
template <class M, class Value>
tinyldp_status report_keyed(const M& m, Value value, const tinyldp_memo_key* key,
                            const tinyldp_entropy_source* source, const tinyldp_wire_header* header,
                            uint8_t* frame, size_t frame_size, size_t* written) {
  const Status refused = refuse_keyed(m, key);
  if (refused != Status::ok) {
    if (frame != nullptr) tinyldp::wipe(frame, frame_size);
    if (written != nullptr) *written = 0;
    return to_c(refused);
  }
  const port::MemoKey& k = *usable_key(key);
  tinyldp_wire_header h = header != nullptr ? *header : tinyldp_wire_header{0, 0, 0, 0, 0};
  h.memo_generation = k.generation();
  if constexpr (requires { m.encoding().cohorts; }) {
    if (m.encoding().kind == MemoEncoding::bloom) h.cohort = static_cast<uint16_t>(k.cohort(m.encoding().cohorts));
  }
  return report_into(m, value, source, &h, frame, frame_size, written, k);
}

inline Dyadic from_c(tinyldp_dyadic d) { return make_dyadic(d.num, d.bits); }
// A precision as the core takes it: the same two fields; a max_bits out of range is the core's to
// refuse (bad_parameter, from the configure it reaches), so C refuses exactly what C++ does.
inline Precision from_c(tinyldp_precision p) { return Precision{p.max_bits, p.tolerance_q32}; }
// TINYLDP_PRECISION_DEFAULT is the core's Precision{}: the plain configures keep their reports.
constexpr tinyldp_precision c_default_precision = TINYLDP_PRECISION_DEFAULT;
static_assert(c_default_precision.max_bits == Precision{}.max_bits &&
              c_default_precision.tolerance_q32 == Precision{}.tolerance_q32);
inline tinyldp_dyadic to_c(Dyadic d) { return {d.num, d.bits}; }

// describe_memo's four probabilities: the two-stage RR's PRR and IRR; a k-RR chain's memo and
// fresh stages (keep, other); a record's attribute 0.
inline void memo_channel(const TwoStageRr& m, tinyldp_memo_description& out) {
  out.p1 = to_c(m.p1()), out.q1 = to_c(m.q1()), out.p2 = to_c(m.p2()), out.q2 = to_c(m.q2());
}
inline void memo_channel(const GrrChain& chain, tinyldp_memo_description& out) {
  const auto keep = [](const KaryRr& stage) {
    return to_c(make_dyadic(stage.keep_numerator(), stage.other_probability().bits));
  };
  out.p1 = keep(chain.memo_stage()), out.q1 = to_c(chain.memo_stage().other_probability());
  out.p2 = keep(chain.fresh_stage()), out.q2 = to_c(chain.fresh_stage().other_probability());
}
template <class M>
  requires requires(const M& m) { m.chain(); }
void memo_channel(const M& m, tinyldp_memo_description& out) {
  memo_channel(m.chain(), out);
}
template <class M>
  requires requires(const M& m) { m.attribute(0u).p1(); }
void memo_channel(const M& m, tinyldp_memo_description& out) {
  memo_channel(m.attribute(0), out);
}
template <class M>
void describe_memo(const M& m, tinyldp_memo_description* out) {
  *out = {m.epsilon_one().q32, m.epsilon_infinity().q32, m.memo_bits_per_report(), {}, {}, {}, {}};
  memo_channel(m, *out);
}

// The protocols' configure(ε, domains, d, out, extra…) into the context.
template <class T, class Context, class... Extra>
tinyldp_status configure_record(Context* ctx, uint64_t epsilon_q32, const uint32_t* domains,
                                uint32_t d, Extra... extra) {
  return configure_into<T>(ctx, [&](T& r) {
    return T::configure(Epsilon::from_q32(epsilon_q32), domains, d, r, extra...);
  });
}
// configure(ε∞, ε₁, T&) of a memoized chain into the context.
template <class T, class Context, class Configure>
tinyldp_status configure_memoized(Context* ctx, uint64_t epsilon_infinity_q32, uint64_t epsilon_one_q32,
                                  Configure configure) {
  return configure_into<T>(ctx, [&](T& r) {
    return configure(Epsilon::from_q32(epsilon_infinity_q32), Epsilon::from_q32(epsilon_one_q32), r);
  });
}

// The ledger's charge_memo for a memoized mechanism T in `mechanism`: NULL key or mechanism
// refused before the ledger is asked.
template <class T, class Context>
tinyldp_ledger_result charge_memo(tinyldp_ledger* ledger, uint32_t attribute, const Context* mechanism,
                                  const tinyldp_memo_key* key, uint32_t value) {
  if (key == nullptr) return TINYLDP_LEDGER_KEY_NOT_PROVISIONED;
  if (mechanism == nullptr) return TINYLDP_LEDGER_BAD_REPORT;
  return static_cast<tinyldp_ledger_result>(
      object<CLedger>(ledger).charge_memo(attribute, object<T>(mechanism), object<port::MemoKey>(key), value));
}

}  // namespace
}  // namespace tinyldp::c_api

// The context `prefix` holding a Type (checked here), and its describe.
#define TINYLDP_C_DESCRIBE(prefix, Type)                                                         \
  static_assert(holds<Type, prefix>);                                                            \
  extern "C" void prefix##_describe(const prefix* ctx, tinyldp_description* out) {               \
    describe(object<Type>(ctx), out);                                                            \
  }

// describe, privatize and report for one mechanism: the same three forwards each time.
#define TINYLDP_C_MECHANISM(prefix, Type, Value)                                                 \
  TINYLDP_C_DESCRIBE(prefix, Type)                                                               \
  extern "C" tinyldp_status prefix##_privatize(const prefix* ctx, Value value,                   \
                                               const tinyldp_entropy_source* source,             \
                                               uint8_t* payload, size_t payload_size) {          \
    return to_c(privatize_payload(object<Type>(ctx), value, source, payload, payload_size));     \
  }                                                                                              \
  extern "C" tinyldp_status prefix##_report(const prefix* ctx, Value value,                      \
                                            const tinyldp_entropy_source* source,                \
                                            const tinyldp_wire_header* header, uint8_t* frame,   \
                                            size_t frame_size, size_t* written) {                \
    return report_into(object<Type>(ctx), value, source, header, frame, frame_size, written);    \
  }

// A record protocol without memo: its configure(ε, domains, d) and configure_precise too.
#define TINYLDP_C_RECORD(prefix, Type)                                                           \
  TINYLDP_C_MECHANISM(prefix, Type, const uint32_t*)                                             \
  extern "C" tinyldp_status prefix##_configure_precise(prefix* ctx, uint64_t epsilon_q32,        \
                                                       const uint32_t* domains, uint32_t d,      \
                                                       tinyldp_precision precision) {            \
    return configure_record<Type>(ctx, epsilon_q32, domains, d, from_c(precision));              \
  }                                                                                              \
  extern "C" tinyldp_status prefix##_configure(prefix* ctx, uint64_t epsilon_q32,                \
                                               const uint32_t* domains, uint32_t d) {            \
    return configure_record<Type>(ctx, epsilon_q32, domains, d);                                 \
  }

// The same for a mechanism that takes the memo key: the key passed on.
#define TINYLDP_C_KEYED(prefix, Type, Value)                                                     \
  TINYLDP_C_DESCRIBE(prefix, Type)                                                               \
  extern "C" tinyldp_status prefix##_privatize(const prefix* ctx, Value value,                   \
                                               const tinyldp_memo_key* key,                      \
                                               const tinyldp_entropy_source* source,             \
                                               uint8_t* payload, size_t payload_size) {          \
    return privatize_keyed(object<Type>(ctx), value, key, source, payload, payload_size);        \
  }                                                                                              \
  extern "C" tinyldp_status prefix##_report(                                                     \
      const prefix* ctx, Value value, const tinyldp_memo_key* key,                               \
      const tinyldp_entropy_source* source, const tinyldp_wire_header* header, uint8_t* frame,   \
      size_t frame_size, size_t* written) {                                                      \
    return report_keyed(object<Type>(ctx), value, key, source, header, frame, frame_size,        \
                        written);                                                                \
  }

// A memoized mechanism: keyed, and its describe_memo.
#define TINYLDP_C_MEMOIZED(prefix, Type, Value)                                                  \
  TINYLDP_C_KEYED(prefix, Type, Value)                                                           \
  extern "C" void prefix##_describe_memo(const prefix* ctx, tinyldp_memo_description* out) {     \
    describe_memo(object<Type>(ctx), out);                                                       \
  }

#endif
