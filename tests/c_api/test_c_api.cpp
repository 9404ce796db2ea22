// SPDX-License-Identifier: Apache-2.0
// The C API (tinyldp.h) against the C++ API: from the same entropy, the same wire reports, byte
// for byte, for every mechanism it offers, from a test source and through the DRBG; and its
// refusals (bad ε, values out of domain, short buffers, no entropy, no estimate) leave no report;
// the memo key, the memoized reports (the same key secret) and the privacy ledger as in C++;
// every _precise configure as C++ with the same Precision. Runs on the host and on every QEMU
// target.
#include "bytes_equal.hpp"
#include "check.hpp"
#include "hex.hpp"
#include "report_auth_golden.hpp"
#include "tinyldp.h"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/multi_attribute.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/square_wave.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::test {
namespace {

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

constexpr size_t frame_capacity = TINYLDP_WIRE_MAX_HEADER_BYTES + TINYLDP_UE_PAYLOAD_BYTES(1024);
constexpr uint32_t reports_per_case = 6;
const tinyldp_wire_header header = {TINYLDP_WIRE_DEVICE_ID | TINYLDP_WIRE_COHORT, 0xC0FFEE, 0, 7, 0};

template <class M>
concept HasReportType = requires { typename M::Report; };

// The two APIs' memo keys, equal (BothKeys, below): a memoized mechanism reports under them.
struct MemoKeys {
  const tinyldp_memo_key* c = nullptr;
  const port::MemoKey* cpp = nullptr;
};

// A mechanism's C functions (TINYLDP_MECHANISM_FUNCTIONS) and, for one that takes the memo key
// (TINYLDP_KEYED_FUNCTIONS; TINYLDP_MEMOIZED_FUNCTIONS with describe_memo), the key its reports
// take (`memoized`: privatize takes the key).
template <class Ctx, class Value>
struct CFunctions {
  void (*describe)(const Ctx*, tinyldp_description*);
  tinyldp_status (*privatize)(const Ctx*, Value, const tinyldp_entropy_source*, uint8_t*, size_t);
  tinyldp_status (*report)(const Ctx*, Value, const tinyldp_entropy_source*, const tinyldp_wire_header*,
                           uint8_t*, size_t, size_t*);
  static constexpr bool memoized = false;
};
template <class Ctx, class Value>
struct CKeyedFunctions {
  void (*describe)(const Ctx*, tinyldp_description*);
  tinyldp_status (*privatize)(const Ctx*, Value, const tinyldp_memo_key*, const tinyldp_entropy_source*,
                              uint8_t*, size_t);
  tinyldp_status (*report)(const Ctx*, Value, const tinyldp_memo_key*, const tinyldp_entropy_source*,
                           const tinyldp_wire_header*, uint8_t*, size_t, size_t*);
  static constexpr bool memoized = true;
};
template <class Ctx, class Value>
struct CMemoizedFunctions : CKeyedFunctions<Ctx, Value> {
  void (*describe_memo)(const Ctx*, tinyldp_memo_description*);
};
template <class Ctx, class Value>
CMemoizedFunctions<Ctx, Value> with_describe_memo(CKeyedFunctions<Ctx, Value> keyed,
                                                  void (*describe_memo)(const Ctx*, tinyldp_memo_description*)) {
  return {keyed, describe_memo};
}
#define C_FUNCTIONS(prefix) CFunctions{prefix##_describe, prefix##_privatize, prefix##_report}
#define C_KEYED_FUNCTIONS(prefix) CKeyedFunctions{prefix##_describe, prefix##_privatize, prefix##_report}
#define C_MEMOIZED_FUNCTIONS(prefix) with_describe_memo(C_KEYED_FUNCTIONS(prefix), prefix##_describe_memo)

constexpr size_t largest_payload = TINYLDP_UE_PAYLOAD_BYTES(1024);

// A C context with its C++ twin, reported from both APIs (the memoized ones under BothKeys'
// equal keys): the same description, the same payloads and frames from copies of one source;
// the same refusal, with nothing left, for a value outside the domain and for a failing source.
template <class M, class Ctx, class Functions>
struct Twins {
  const char* what;
  const M& cpp;
  const Ctx* c;
  Functions functions;
  MemoKeys keys{};  // the memoized ones'

  // C++ as a firmware writes it: a fresh RandomBits<Source, 8>, privatize, pack.
  template <class Value, class Source>
  Status cpp_payload(Value value, Source& source, uint8_t* payload) const {
    RandomBits<Source, 8> rng(source);
    const auto run = [&](const auto&... key) {
      if constexpr (HasReportType<M>) {
        typename M::Report report{};
        const Status s = cpp.privatize(value, key..., rng, report);
        if (s == Status::ok) cpp.pack(report, payload);
        return s;
      } else {
        return cpp.privatize(value, key..., rng, payload, largest_payload);
      }
    };
    if constexpr (Functions::memoized) {
      return run(*keys.cpp);
    } else {
      return run();
    }
  }
  template <class Value>
  tinyldp_status c_payload(Value value, const tinyldp_entropy_source* source, uint8_t* payload) const {
    if constexpr (Functions::memoized) {
      return functions.privatize(c, value, keys.c, source, payload, largest_payload);
    } else {
      return functions.privatize(c, value, source, payload, largest_payload);
    }
  }
  template <class Value>
  tinyldp_status c_report(Value value, const tinyldp_entropy_source* source, const tinyldp_wire_header* h,
                          uint8_t* frame, size_t* written) const {
    if constexpr (Functions::memoized) {
      return functions.report(c, value, keys.c, source, h, frame, frame_capacity, written);
    } else {
      return functions.report(c, value, source, h, frame, frame_capacity, written);
    }
  }

  void expect_same_description() const {
    tinyldp_description d{};
    functions.describe(c, &d);
    CHECK_EQ(d.mechanism_id, uint8_t(cpp.description().id));
    CHECK_EQ(d.payload_bits, cpp.description().payload_bits);
    CHECK_EQ(d.digest, cpp.description().digest);
    CHECK_EQ(d.realized_epsilon_q32, cpp.realized_epsilon().q32);
    if constexpr (requires { cpp.random_bits_per_report(); }) {
      CHECK_EQ(d.random_bits_per_report, uint64_t{cpp.random_bits_per_report()});
    } else {
      CHECK_EQ(d.random_bits_per_report, 0u);
    }
    if constexpr (requires { functions.describe_memo; }) {
      tinyldp_memo_description memo{};
      functions.describe_memo(c, &memo);
      CHECK_EQ(memo.epsilon_one_q32, cpp.epsilon_one().q32);
      CHECK_EQ(memo.epsilon_infinity_q32, cpp.epsilon_infinity().q32);
      CHECK(memo.epsilon_one_q32 < memo.epsilon_infinity_q32);
      CHECK_EQ(memo.memo_bits_per_report, uint64_t{cpp.memo_bits_per_report()});
      CHECK(memo.p1.num != 0 && memo.q1.num != 0 && memo.p2.num != 0 && memo.q2.num != 0);
      if constexpr (requires { cpp.p1(); }) {  // the two-stage RR states its four
        CHECK(memo.p1.num == cpp.p1().num && memo.p1.bits == cpp.p1().bits);
        CHECK(memo.q1.num == cpp.q1().num && memo.q1.bits == cpp.q1().bits);
        CHECK(memo.p2.num == cpp.p2().num && memo.p2.bits == cpp.p2().bits);
        CHECK(memo.q2.num == cpp.q2().num && memo.q2.bits == cpp.q2().bits);
      }
    }
  }

  template <class Value, size_t N, class Outside>
  void expect_same_reports(const Value (&values)[N], Outside out_of_domain) const {
    const Value outside = static_cast<Value>(out_of_domain);
    expect_same_reports_of(values, N, &outside);
  }
  // Without a value outside the domain (a Bloom encoding takes any value).
  template <class Value, size_t N>
  void expect_same_reports(const Value (&values)[N]) const {
    expect_same_reports_of(values, N, static_cast<const Value*>(nullptr));
  }
  // values[0..n) (arrays of every size share it: the targets' flash is small).
  template <class Value>
  void expect_same_reports_of(const Value* values, size_t n, const Value* out_of_domain) const {
    const int before = test::failures_in_current_test();
    expect_same_description();
    port::InsecureTestSource cpp_source(41), c_source(41);
    const tinyldp_entropy_source source = to_c_source(c_source);
    expect_same_frames_of(values, n, cpp_source, source);
    // Refused alike, nothing left: a value outside the domain, a source that fails.
    if (out_of_domain != nullptr) expect_same_refusal(*out_of_domain, 0, Status::value_out_of_domain);
    expect_same_refusal(values[0], 1, Status::entropy_failed);
    if (test::failures_in_current_test() != before) {
      test::print(what);
      test::print(": the C API differs from C++\n");
    }
  }

  // reports_per_case frames of every value from `cpp_source` and `c_source` (equal sources),
  // with every header field: a memoized report writes its key's generation (and a Bloom
  // encoding's cohort) whatever the caller's header holds; then the payload alone, from fresh
  // copies of another source.
  template <class Value, size_t N, class CppSource>
  void expect_same_frames(const Value (&values)[N], CppSource& cpp_source, const tinyldp_entropy_source& c_source) const {
    expect_same_frames_of(values, N, cpp_source, c_source);
  }
  template <class Value, class CppSource>
  void expect_same_frames_of(const Value* values, size_t n, CppSource& cpp_source,
                             const tinyldp_entropy_source& c_source) const {
    const tinyldp_wire_header c_header = {
        TINYLDP_WIRE_DEVICE_ID | TINYLDP_WIRE_EPOCH | TINYLDP_WIRE_COHORT | TINYLDP_WIRE_MEMO_GENERATION, 0xC0FFEE, 3,
        7, 0xEEEEEEEE};
    wire::Header h = {c_header.fields, c_header.device_id, c_header.epoch, c_header.cohort, c_header.memo_generation};
    if constexpr (Functions::memoized) h.memo_generation = keys.cpp->generation();
    if constexpr (requires { cpp.encoding().cohorts; }) {
      if (cpp.encoding().kind == MemoEncoding::bloom) h.cohort = static_cast<uint16_t>(keys.cpp->cohort(cpp.encoding().cohorts));
    }
    uint32_t mismatches = 0;
    for (uint32_t i = 0; i < reports_per_case; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const Value& v = values[j];
        uint8_t a[frame_capacity] = {}, b[frame_capacity] = {}, payload[largest_payload] = {};
        size_t na = 0, nb = 0;
        CHECK(cpp_payload(v, cpp_source, payload) == Status::ok);
        CHECK(wire::encode(cpp.description(), h, payload, a, sizeof a, na) == Status::ok);
        CHECK_EQ(c_report(v, &c_source, &c_header, b, &nb), TINYLDP_STATUS_OK);
        if (na == 0 || na != nb || !bytes_equal(a, b, na)) ++mismatches;
        port::InsecureTestSource again(1000 + i), again_c(1000 + i);
        const tinyldp_entropy_source source_again = to_c_source(again_c);
        uint8_t p[largest_payload] = {};
        for (uint8_t& x : payload) x = 0;
        CHECK(cpp_payload(v, again, payload) == Status::ok);
        CHECK_EQ(c_payload(v, &source_again, p), TINYLDP_STATUS_OK);
        if (!bytes_equal(payload, p, sizeof p)) ++mismatches;
      }
    }
    CHECK_EQ(mismatches, 0u);
  }

  // `value` with the source failing on call `fail_call` (0: never): both APIs give `expected`, the
  // C payload and the whole frame are zero and nothing is written.
  template <class Value>
  void expect_same_refusal(Value value, uint64_t fail_call, Status expected) const {
    port::InsecureTestSource cpp_source(5), c_source(5), c_frame_source(5);
    if (fail_call != 0) {
      cpp_source.fail_on_call(fail_call);
      c_source.fail_on_call(fail_call);
      c_frame_source.fail_on_call(fail_call);
    }
    const tinyldp_entropy_source source = to_c_source(c_source), frame_source = to_c_source(c_frame_source);
    uint8_t payload[largest_payload] = {}, p[largest_payload], frame[frame_capacity];
    for (uint8_t& x : p) x = 0xEE;
    for (uint8_t& x : frame) x = 0xEE;
    CHECK(cpp_payload(value, cpp_source, payload) == expected);
    CHECK_EQ(c_payload(value, &source, p), tinyldp_status(expected));
    CHECK(all_zero(p, cpp.description().payload_bytes()));  // the payload's bytes
    size_t written = 99;
    CHECK_EQ(c_report(value, &frame_source, nullptr, frame, &written), tinyldp_status(expected));
    CHECK_EQ(written, 0u);
    CHECK(all_zero(frame, sizeof frame));
  }
};
template <class M, class Ctx, class Functions>
Twins(const char*, const M&, const Ctx*, Functions, MemoKeys = {}) -> Twins<M, Ctx, Functions>;

constexpr uint64_t one = TINYLDP_EPSILON_Q32(1, 1);
constexpr Epsilon eps_one = Epsilon::from_ratio(1, 1);
constexpr Epsilon eps_two = Epsilon::from_ratio(2, 1);

TEST(frequency_oracles_give_the_cpp_reports) {
  const uint32_t categories[] = {0, 1, 5, 63};
  const uint32_t bits[] = {0, 1};
  tinyldp_rr rr;
  CHECK_EQ(tinyldp_rr_configure(&rr, TINYLDP_EPSILON_Q32(3, 2)), TINYLDP_STATUS_OK);
  Twins{"rr", BinaryRr::make(Epsilon::from_ratio(3, 2)), &rr, C_FUNCTIONS(tinyldp_rr)}.expect_same_reports(bits, 2u);
  tinyldp_krr krr;
  CHECK_EQ(tinyldp_krr_configure(&krr, one, 64), TINYLDP_STATUS_OK);
  Twins{"krr", KaryRr::make(eps_one, 64), &krr, C_FUNCTIONS(tinyldp_krr)}.expect_same_reports(categories, 64u);
  const uint32_t domains[] = {64, 100, 1024};
  for (uint32_t d : domains) {
    tinyldp_ue oue, sue;
    CHECK_EQ(tinyldp_ue_configure_oue(&oue, one, d), TINYLDP_STATUS_OK);
    CHECK_EQ(tinyldp_ue_configure_sue(&sue, one, d), TINYLDP_STATUS_OK);
    UnaryEncoding cpp_oue, cpp_sue;
    CHECK(UnaryEncoding::configure_oue(eps_one, d, cpp_oue) == Status::ok);
    CHECK(UnaryEncoding::configure_sue(eps_one, d, cpp_sue) == Status::ok);
    Twins{"oue", cpp_oue, &oue, C_FUNCTIONS(tinyldp_ue)}.expect_same_reports(categories, d);
    Twins{"sue", cpp_sue, &sue, C_FUNCTIONS(tinyldp_ue)}.expect_same_reports(categories, d);
  }
  tinyldp_lh olh, blh;
  CHECK_EQ(tinyldp_lh_configure_olh(&olh, TINYLDP_EPSILON_Q32(2, 1), 1024), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_lh_configure_blh(&blh, one, 1024), TINYLDP_STATUS_OK);
  Twins{"olh", LocalHashing::make_olh(eps_two, 1024), &olh, C_FUNCTIONS(tinyldp_lh)}.expect_same_reports(categories,
                                                                                                       1024u);
  Twins{"blh", LocalHashing::make_blh(eps_one, 1024), &blh, C_FUNCTIONS(tinyldp_lh)}.expect_same_reports(categories,
                                                                                                       1024u);
  tinyldp_hr hr;
  CHECK_EQ(tinyldp_hr_configure(&hr, one, 100), TINYLDP_STATUS_OK);
  Twins{"hr", HadamardResponse::make(eps_one, 100), &hr, C_FUNCTIONS(tinyldp_hr)}.expect_same_reports(categories, 100u);
}

TEST(numeric_mechanisms_give_the_cpp_reports) {
  const int32_t values[] = {-50, -3, 0, 17, 50};
  tinyldp_sd sd;
  CHECK_EQ(tinyldp_sd_configure(&sd, one, -50, 50, 16), TINYLDP_STATUS_OK);
  Twins{"sd", StochasticDiscretization::make(eps_one, -50, 50, 16), &sd, C_FUNCTIONS(tinyldp_sd)}.expect_same_reports(
      values, 51);
  static uint64_t c_table[TINYLDP_DLAPLACE_TABLE_ENTRIES(-50, 50)];
  static uint64_t cpp_table[DiscreteLaplace::table_entries(-50, 50)];
  tinyldp_dlaplace dl;
  CHECK_EQ(tinyldp_dlaplace_configure(&dl, one, -50, 50, 4, c_table, sizeof c_table / 8), TINYLDP_STATUS_OK);
  DiscreteLaplace m;
  CHECK(DiscreteLaplace::configure_fewest_bits(eps_one, -50, 50, 4, cpp_table, sizeof cpp_table / 8, m) == Status::ok);
  Twins{"dlaplace", m, &dl, C_FUNCTIONS(tinyldp_dlaplace)}.expect_same_reports(values, -51);
  tinyldp_pm pm;
  CHECK_EQ(tinyldp_pm_configure(&pm, one, -50, 50, 2048), TINYLDP_STATUS_OK);
  Twins{"pm", PiecewiseMechanism::make(eps_one, -50, 50), &pm, C_FUNCTIONS(tinyldp_pm)}.expect_same_reports(values, 51);
  tinyldp_hm hm;
  CHECK_EQ(tinyldp_hm_configure(&hm, one, -50, 50, 2048), TINYLDP_STATUS_OK);
  Twins{"hm", HybridMechanism::make(eps_one, -50, 50), &hm, C_FUNCTIONS(tinyldp_hm)}.expect_same_reports(values, 51);
  tinyldp_sw sw;
  CHECK_EQ(tinyldp_sw_configure(&sw, one, -50, 50, 101), TINYLDP_STATUS_OK);
  Twins{"sw", SquareWave::make(eps_one, -50, 50, 101), &sw, C_FUNCTIONS(tinyldp_sw)}.expect_same_reports(values, 51);
}

// The production path: a DRBG seeded from the same bytes in both APIs, OUE reports drawn from it.
TEST(reports_through_the_drbg_match) {
  port::InsecureTestSource seed_a(9), seed_b(9);
  port::ChaCha20Drbg cpp_drbg;
  CHECK(cpp_drbg.seed_from(to_c_source(seed_a), TINYLDP_ENTROPY_ESTIMATE_FULL, 0, nullptr, 0) ==
        EntropyResult::ok);
  static tinyldp_chacha20_drbg c_drbg;  // a plain global-like object: zero, then init
  tinyldp_chacha20_drbg_init(&c_drbg);
  CHECK_EQ(tinyldp_chacha20_drbg_seeded(&c_drbg), 0);
  const tinyldp_entropy_source seed_source = to_c_source(seed_b);
  CHECK_EQ(tinyldp_chacha20_drbg_seed(&c_drbg, &seed_source, TINYLDP_ENTROPY_ESTIMATE_FULL, 0,
                                      nullptr, 0),
           TINYLDP_ENTROPY_OK);
  CHECK_EQ(tinyldp_chacha20_drbg_seeded(&c_drbg), 1);
  const tinyldp_entropy_source drbg = tinyldp_chacha20_drbg_source(&c_drbg);
  tinyldp_ue c;
  CHECK_EQ(tinyldp_ue_configure_oue(&c, one, 256), TINYLDP_STATUS_OK);
  const UnaryEncoding m = UnaryEncoding::make_oue(eps_one, 256);
  uint32_t values[40];
  for (uint32_t v = 0; v < 40; ++v) values[v] = v;
  Twins{"oue from the drbg", m, &c, C_FUNCTIONS(tinyldp_ue)}.expect_same_frames(values, cpp_drbg, drbg);
  // The raw stream too, and the reseed bookkeeping.
  uint8_t x[40], y[40];
  CHECK(cpp_drbg.fill(x, sizeof x, 0) == EntropyResult::ok);
  CHECK_EQ(tinyldp_chacha20_drbg_fill(&c_drbg, y, sizeof y, 0), TINYLDP_ENTROPY_OK);
  CHECK(bytes_equal(x, y, sizeof x));
  CHECK_EQ(tinyldp_chacha20_drbg_blocks_until_reseed(&c_drbg), cpp_drbg.blocks_until_reseed());
  tinyldp_chacha20_drbg_wipe(&c_drbg);
  CHECK_EQ(tinyldp_chacha20_drbg_seeded(&c_drbg), 0);
}

TEST(seeding_needs_an_estimate) {
  port::InsecureTestSource raw(3);
  const tinyldp_entropy_source source = to_c_source(raw);
  tinyldp_chacha20_drbg drbg;
  tinyldp_chacha20_drbg_init(&drbg);
  CHECK_EQ(tinyldp_chacha20_drbg_seed(&drbg, &source, TINYLDP_ENTROPY_ESTIMATE_UNKNOWN, 0, nullptr, 0),
           TINYLDP_ENTROPY_NOT_SUPPORTED);
  CHECK_EQ(tinyldp_chacha20_drbg_seeded(&drbg), 0);
  uint8_t out[8];
  CHECK_EQ(tinyldp_chacha20_drbg_fill(&drbg, out, sizeof out, 0), TINYLDP_ENTROPY_FAILED);
  // Through the health tests, with their estimate: seeded.
  tinyldp_health health;
  const tinyldp_health_plan plan = TINYLDP_HEALTH_PLAN_DEFAULT;
  CHECK_EQ(tinyldp_health_init(&health, &source, &plan), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_health_min_entropy_q8(&health), 256u);
  const tinyldp_entropy_source tested = tinyldp_health_source(&health);
  CHECK_EQ(tinyldp_chacha20_drbg_seed(&drbg, &tested, tinyldp_health_min_entropy_q8(&health), 0,
                                      nullptr, 0),
           TINYLDP_ENTROPY_OK);
  CHECK_EQ(tinyldp_health_failure(&health), TINYLDP_HEALTH_OK);
}

TEST(health_tests_plan_and_trip) {
  tinyldp_health_config config = TINYLDP_HEALTH_CONFIG_DEFAULT;
  tinyldp_health_plan made{};
  CHECK_EQ(tinyldp_health_plan_make(&config, &made), TINYLDP_STATUS_OK);
  const tinyldp_health_plan fixed = TINYLDP_HEALTH_PLAN_DEFAULT;
  CHECK_EQ(made.rct_cutoff, fixed.rct_cutoff);
  CHECK_EQ(made.apt_cutoff, fixed.apt_cutoff);
  // A stuck source trips the repetition count in the start-up test: failed, and it stays so.
  port::InsecureTestSource raw(5);
  raw.stick_at(0x42);
  const tinyldp_entropy_source source = to_c_source(raw);
  tinyldp_health health;
  CHECK_EQ(tinyldp_health_init(&health, &source, &made), TINYLDP_STATUS_OK);
  uint8_t out[16];
  CHECK_EQ(tinyldp_health_fill(&health, out, sizeof out, 0), TINYLDP_ENTROPY_FAILED);
  CHECK_EQ(tinyldp_health_failure(&health), TINYLDP_HEALTH_REPETITION_COUNT);
  CHECK_EQ(tinyldp_health_fill(&health, out, sizeof out, 0), TINYLDP_ENTROPY_FAILED);
  // Out of range: bit samples with a window of 1.
  config.sample_bits = 3;
  CHECK_EQ(tinyldp_health_init(&health, &source, &made), TINYLDP_STATUS_OK);
  made.config = config;
  CHECK_EQ(tinyldp_health_init(&health, &source, &made), TINYLDP_STATUS_BAD_PARAMETER);
}

TEST(refusals_leave_no_report) {
  tinyldp_krr krr;
  CHECK_EQ(tinyldp_krr_configure(&krr, 0, 4), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_krr_configure(&krr, TINYLDP_EPSILON_MAX_Q32 + 1, 4), TINYLDP_STATUS_BAD_EPSILON);
  CHECK_EQ(tinyldp_krr_configure(&krr, one, 1), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_krr_configure(&krr, one, 4), TINYLDP_STATUS_OK);
  port::InsecureTestSource raw(1);
  const tinyldp_entropy_source source = to_c_source(raw);
  uint8_t frame[32];
  size_t written = 99;
  for (uint8_t& b : frame) b = 0xEE;
  CHECK_EQ(tinyldp_krr_report(&krr, 4, &source, nullptr, frame, sizeof frame, &written),
           TINYLDP_STATUS_VALUE_OUT_OF_DOMAIN);
  CHECK_EQ(written, 0u);
  CHECK(all_zero(frame, sizeof frame));
  CHECK_EQ(tinyldp_krr_report(&krr, 1, &source, nullptr, frame, 5, &written),
           TINYLDP_STATUS_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_krr_report(&krr, 1, nullptr, nullptr, frame, sizeof frame, &written),
           TINYLDP_STATUS_ENTROPY_FAILED);
  CHECK(all_zero(frame, sizeof frame));
  raw.fail_on_call(1);
  CHECK_EQ(tinyldp_krr_privatize(&krr, 1, &source, frame, sizeof frame),
           TINYLDP_STATUS_ENTROPY_FAILED);
  tinyldp_wire_header unknown = {0x80, 0, 0, 0, 0};
  CHECK_EQ(tinyldp_krr_report(&krr, 1, &source, &unknown, frame, sizeof frame, &written),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_status_string(TINYLDP_STATUS_BAD_EPSILON)[0], 'b');
}

TEST(payload_and_frame_agree) {
  tinyldp_hr hr;
  CHECK_EQ(tinyldp_hr_configure(&hr, one, 256), TINYLDP_STATUS_OK);
  port::InsecureTestSource a(77), b(77);
  const tinyldp_entropy_source sa = to_c_source(a), sb = to_c_source(b);
  uint8_t payload[TINYLDP_MAX_SCALAR_PAYLOAD_BYTES] = {};
  CHECK_EQ(tinyldp_hr_privatize(&hr, 9, &sa, payload, sizeof payload), TINYLDP_STATUS_OK);
  tinyldp_description d;
  tinyldp_hr_describe(&hr, &d);
  uint8_t framed[32], reported[32];
  size_t n1 = 0, n2 = 0;
  CHECK_EQ(tinyldp_wire_encode(&d, &header, payload, framed, sizeof framed, &n1), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_hr_report(&hr, 9, &sb, &header, reported, sizeof reported, &n2), TINYLDP_STATUS_OK);
  CHECK_EQ(n1, tinyldp_report_bytes(&d, header.fields));
  CHECK(n1 == n2 && bytes_equal(framed, reported, n1));
}

// A C storage driver over a RAM array, as a C firmware would write one.
struct Flash {
  uint8_t bytes[4 * 256];
  bool broken;  // programming fails (a worn-out or unpowered flash)
};
tinyldp_storage_result flash_read(void* c, uint32_t address, uint8_t* out, size_t n) {
  const Flash* f = static_cast<const Flash*>(c);
  if (address + n > sizeof f->bytes) return TINYLDP_STORAGE_IO_ERROR;
  for (size_t i = 0; i < n; ++i) out[i] = f->bytes[address + i];
  return TINYLDP_STORAGE_OK;
}
tinyldp_storage_result flash_program(void* c, uint32_t address, const uint8_t* data, size_t n) {
  Flash* f = static_cast<Flash*>(c);
  if (address + n > sizeof f->bytes || f->broken) return TINYLDP_STORAGE_IO_ERROR;
  for (size_t i = 0; i < n; ++i) f->bytes[address + i] &= data[i];
  return TINYLDP_STORAGE_OK;
}
uint32_t sector_erases = 0;  // every sector erase of every Flash (the ledger's epoch test counts them)
tinyldp_storage_result flash_erase(void* c, uint32_t sector) {
  Flash* f = static_cast<Flash*>(c);
  ++sector_erases;
  for (size_t i = 0; i < 256; ++i) f->bytes[sector * 256 + i] = 0xFF;
  return TINYLDP_STORAGE_OK;
}
// Two devices' flash (one for each API), shared by the tests that need storage; blank, as a
// device leaves the factory.
Flash flashes[2];
// A device on `flash` as it is (a reboot: what was written stays).
tinyldp_storage_device device_on(Flash& flash) {
  return {flash_read, flash_program, flash_erase, &flash, {256, 4, 4, 0xFF}};
}
tinyldp_storage_device blank_device(Flash& flash) {
  flash.broken = false;
  for (uint32_t s = 0; s < 4; ++s) CHECK(flash_erase(&flash, s) == TINYLDP_STORAGE_OK);
  return device_on(flash);
}

TEST(record_round_trips_across_a_reboot) {
  const tinyldp_storage_device device = blank_device(flashes[0]);
  tinyldp_record record;
  CHECK_EQ(tinyldp_record_init(&record, &device, 0, 2), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_record_capacity(&record), 2u * 256 - 16);
  uint8_t out[8] = {};
  size_t length = 7;
  CHECK_EQ(tinyldp_record_read(&record, out, sizeof out, &length), TINYLDP_STORAGE_NOT_FOUND);
  CHECK_EQ(length, 0u);
  const uint8_t value[5] = {1, 2, 3, 4, 5};
  CHECK_EQ(tinyldp_record_write(&record, value, sizeof value), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_record_write(&record, value, 3), TINYLDP_STORAGE_OK);
  tinyldp_record after_reboot;
  CHECK_EQ(tinyldp_record_init(&after_reboot, &device, 0, 2), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_record_read(&after_reboot, out, sizeof out, &length), TINYLDP_STORAGE_OK);
  CHECK_EQ(length, 3u);
  CHECK(bytes_equal(out, value, 3));
  CHECK_EQ(tinyldp_record_sequence(&after_reboot), 2u);
  CHECK_EQ(tinyldp_record_init(&after_reboot, &device, 3, 2), TINYLDP_STORAGE_BAD_GEOMETRY);
}

// ---- reports over time --------------------------------------------------------------------

// Both APIs' memo keys provisioned from DRBGs seeded alike, each in its own device's flash
// (sectors 0–1): the same secret.
struct BothKeys {
  port::ChaCha20Drbg cpp_drbg;
  tinyldp_chacha20_drbg c_drbg;
  CStorageDevice cpp_device;
  Record<CStorageDevice> cpp_record;
  port::MemoKey cpp_key;
  tinyldp_record c_record;
  tinyldp_memo_key c_key;

  BothKeys() : cpp_device(blank_device(flashes[1])), cpp_record(cpp_device, 0, 1) {
    const tinyldp_storage_device c_device = blank_device(flashes[0]);
    port::InsecureTestSource seed_a(9), seed_b(9);
    CHECK(cpp_drbg.seed_from(to_c_source(seed_a), TINYLDP_ENTROPY_ESTIMATE_FULL, 0, nullptr, 0) ==
          EntropyResult::ok);
    tinyldp_chacha20_drbg_init(&c_drbg);
    const tinyldp_entropy_source seed = to_c_source(seed_b);
    CHECK_EQ(tinyldp_chacha20_drbg_seed(&c_drbg, &seed, TINYLDP_ENTROPY_ESTIMATE_FULL, 0, nullptr, 0),
             TINYLDP_ENTROPY_OK);
    CHECK_EQ(tinyldp_record_init(&c_record, &c_device, 0, 1), TINYLDP_STORAGE_OK);
    CHECK(port::provision_memo_key(cpp_drbg, cpp_record, 0, cpp_key) == port::MemoKeyResult::ok);
    CHECK_EQ(tinyldp_memo_key_provision(&c_key, &c_record, &c_drbg, 0), TINYLDP_MEMO_KEY_OK);
  }
};

// The same key: the same tags, cohorts and generation.
void expect_same_key(const port::MemoKey& cpp, const tinyldp_memo_key* c) {
  CHECK_EQ(tinyldp_memo_key_provisioned(c), cpp.provisioned() ? 1 : 0);
  CHECK_EQ(tinyldp_memo_key_generation(c), cpp.generation());
  CHECK_EQ(tinyldp_memo_key_cohort(c, 64), cpp.cohort(64));
  for (uint32_t v = 0; v < 4; ++v)
    CHECK_EQ(tinyldp_memo_key_value_tag(c, TINYLDP_MECHANISM_L_OSUE, 1, v),
             cpp.value_tag(wire::MechanismId::l_osue, 1, v));
}

// Memoized two-stage reports of `values` from both APIs (Twins: every header field, the key's
// generation and a Bloom encoding's cohort written by C as C++ writes them), one report costing
// ε₁; a one-hot encoding refuses its domain's size.
template <size_t N>
void expect_same_memo_reports(const char* what, const TwoStageRr& m, const tinyldp_two_stage_rr* c,
                              const BothKeys& keys, const uint32_t (&values)[N]) {
  CHECK_EQ(m.realized_epsilon().q32, m.epsilon_one().q32);
  const Twins twins{what, m, c, C_MEMOIZED_FUNCTIONS(tinyldp_two_stage_rr), {&keys.c_key, &keys.cpp_key}};
  if (m.encoding().kind == MemoEncoding::bloom) {
    twins.expect_same_reports(values);
  } else {
    twins.expect_same_reports(values, m.encoding().bits);
  }
}

constexpr uint64_t two = TINYLDP_EPSILON_Q32(2, 1);
// L-OSUE over 16 one-hot values, ε∞ = 2, ε₁ = 1: the memoized mechanism the ledger tests charge.
void configure_l_osue(tinyldp_two_stage_rr& m) {
  const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(16, 0);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&m, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, two, one, &encoding),
           TINYLDP_STATUS_OK);
}

// A device for the C ledger: both APIs' keys (BothKeys), the ledger's record in sectors 2–3 of
// the C key's flash, and L-OSUE to charge.
struct LedgerDevice : BothKeys {
  tinyldp_storage_device device = device_on(flashes[0]);
  tinyldp_record record;
  tinyldp_two_stage_rr l_osue;
  LedgerDevice() {
    CHECK_EQ(tinyldp_record_init(&record, &device, 2, 1), TINYLDP_STORAGE_OK);
    configure_l_osue(l_osue);
  }
};

TEST(memo_key_provisions_loads_and_rekeys_like_cpp) {
  BothKeys keys;
  expect_same_key(keys.cpp_key, &keys.c_key);
  CHECK_EQ(tinyldp_memo_key_generation(&keys.c_key), 0u);
  CHECK(bytes_equal(flashes[0].bytes, flashes[1].bytes, sizeof flashes[0].bytes));
  // A reboot loads the same secret; it never provisions a new one.
  tinyldp_record record;
  const tinyldp_storage_device device = device_on(flashes[0]);
  CHECK_EQ(tinyldp_record_init(&record, &device, 0, 1), TINYLDP_STORAGE_OK);
  tinyldp_memo_key rebooted;
  CHECK_EQ(tinyldp_memo_key_load(&rebooted, &record), TINYLDP_MEMO_KEY_OK);
  expect_same_key(keys.cpp_key, &rebooted);
  // Provisioning never replaces a readable key (the key is left unprovisioned: load it).
  CHECK_EQ(tinyldp_memo_key_provision(&rebooted, &record, &keys.c_drbg, 5), TINYLDP_MEMO_KEY_ALREADY_PROVISIONED);
  CHECK_EQ(tinyldp_memo_key_provisioned(&rebooted), 0);
  CHECK_EQ(tinyldp_memo_key_load(&rebooted, &record), TINYLDP_MEMO_KEY_OK);
  expect_same_key(keys.cpp_key, &rebooted);
  // Re-keying: the next generation, a new secret, durable; the same in both APIs.
  const uint64_t old_tag = tinyldp_memo_key_value_tag(&rebooted, TINYLDP_MECHANISM_L_OSUE, 1, 0);
  CHECK(port::rekey_memo_key(keys.cpp_drbg, keys.cpp_record, keys.cpp_key) == port::MemoKeyResult::ok);
  CHECK_EQ(tinyldp_memo_key_rekey(&rebooted, &record, &keys.c_drbg), TINYLDP_MEMO_KEY_OK);
  CHECK_EQ(tinyldp_memo_key_generation(&rebooted), 1u);
  CHECK(tinyldp_memo_key_value_tag(&rebooted, TINYLDP_MECHANISM_L_OSUE, 1, 0) != old_tag);
  expect_same_key(keys.cpp_key, &rebooted);
  CHECK(bytes_equal(flashes[0].bytes, flashes[1].bytes, sizeof flashes[0].bytes));
  CStorageDevice c_flash(device);  // what C wrote, C++ reads
  Record<CStorageDevice> c_written(c_flash, 0, 1);
  port::MemoKey loaded;
  CHECK(port::load_memo_key(c_written, loaded) == port::MemoKeyResult::ok);
  expect_same_key(loaded, &rebooted);
  // Refusals: no key in a blank record; no generator; a key never made cannot be re-keyed; a
  // failing flash keeps the old key in the record and leaves none in RAM.
  tinyldp_memo_key key;
  tinyldp_memo_key_init(&key);
  CHECK_EQ(tinyldp_memo_key_provisioned(&key), 0);
  CHECK_EQ(tinyldp_memo_key_rekey(&key, &record, &keys.c_drbg), TINYLDP_MEMO_KEY_NOT_PROVISIONED);
  tinyldp_record blank;
  CHECK_EQ(tinyldp_record_init(&blank, &device, 2, 1), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_memo_key_load(&key, &blank), TINYLDP_MEMO_KEY_NOT_PROVISIONED);
  tinyldp_chacha20_drbg unseeded;
  tinyldp_chacha20_drbg_init(&unseeded);
  CHECK_EQ(tinyldp_memo_key_provision(&key, &blank, &unseeded, 0), TINYLDP_MEMO_KEY_GENERATOR_FAILED);
  CHECK_EQ(tinyldp_memo_key_provisioned(&key), 0);
  flashes[0].broken = true;
  CHECK_EQ(tinyldp_memo_key_rekey(&rebooted, &record, &keys.c_drbg), TINYLDP_MEMO_KEY_STORAGE_FAILED);
  CHECK_EQ(tinyldp_memo_key_provisioned(&rebooted), 0);
  flashes[0].broken = false;
  CHECK_EQ(tinyldp_memo_key_load(&rebooted, &record), TINYLDP_MEMO_KEY_OK);
  CHECK_EQ(tinyldp_memo_key_generation(&rebooted), 1u);
  CHECK_EQ(tinyldp_memo_key_result_string(TINYLDP_MEMO_KEY_STORAGE_FAILED)[0], 'm');
}

TEST(memoized_reports_give_the_cpp_reports) {
  BothKeys keys;
  const uint32_t values[] = {0, 1, 17, 63};
  const uint8_t stages[] = {TINYLDP_UE_STAGE_SUE, TINYLDP_UE_STAGE_OUE};
  const uint32_t domains[] = {64, 100};
  for (uint8_t first : stages) {
    for (uint8_t second : stages) {
      for (uint32_t k : domains) {
        const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(k, 2);
        tinyldp_two_stage_rr c;
        CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, first, second, two, one, &encoding),
                 TINYLDP_STATUS_OK);
        TwoStageRr m;
        CHECK(TwoStageRr::configure_chain(UeStage(first), UeStage(second), Epsilon::from_q32(two),
                                          eps_one, TwoStageRr::one_hot(k, 2), m) == Status::ok);
        expect_same_memo_reports("chain", m, &c, keys, values);
      }
    }
  }
  // RAPPOR (f = 1/2, p = 1/4, q = 3/4), one-hot and over a Bloom filter with cohorts.
  const tinyldp_dyadic f = {1, 1}, p = {1, 2}, q = {3, 2};
  const tinyldp_memo_encoding one_hot = TINYLDP_MEMO_ONE_HOT_ENCODING(64, 0);
  const tinyldp_memo_encoding bloom = TINYLDP_MEMO_BLOOM_ENCODING(128, 2, 8, 1);
  tinyldp_two_stage_rr c;
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&c, f, p, q, &one_hot), TINYLDP_STATUS_OK);
  expect_same_memo_reports("rappor",
                           TwoStageRr::make_rappor({1, 1}, {1, 2}, {3, 2}, TwoStageRr::one_hot(64)),
                           &c, keys, values);
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&c, f, p, q, &bloom), TINYLDP_STATUS_OK);
  const uint32_t any_values[] = {0, 12345, 0xFFFFFFFFu};
  expect_same_memo_reports("rappor bloom",
                           TwoStageRr::make_rappor({1, 1}, {1, 2}, {3, 2},
                                                   TwoStageRr::bloom(128, 2, 8, 1)),
                           &c, keys, any_values);
  // A non-reduced fraction is the same probability: 2/4 = 1/2.
  tinyldp_two_stage_rr same;
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&same, {2, 2}, {4, 4}, {12, 4}, &bloom),
           TINYLDP_STATUS_OK);
  tinyldp_description d1, d2;
  tinyldp_two_stage_rr_describe(&c, &d1);
  tinyldp_two_stage_rr_describe(&same, &d2);
  CHECK_EQ(d1.digest, d2.digest);
}

TEST(memoized_refusals_leave_no_report) {
  BothKeys keys;
  const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(16, 0);
  tinyldp_two_stage_rr c;
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, one,
                                                two, &encoding),
           TINYLDP_STATUS_BAD_EPSILON);  // ε₁ must be below ε∞
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, 2, TINYLDP_UE_STAGE_SUE, two, one, &encoding),
           TINYLDP_STATUS_BAD_PARAMETER);
  const tinyldp_memo_encoding unknown = {7, 16, 1, 1, 0}, too_small = TINYLDP_MEMO_ONE_HOT_ENCODING(1, 0);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, 0, 0, two, one, &unknown),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, 0, 0, two, one, &too_small),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, 0, 0, two, one, nullptr),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&c, {0, 1}, {1, 2}, {3, 2}, &encoding),
           TINYLDP_STATUS_BAD_PARAMETER);  // f = 0
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&c, {1, 1}, {3, 2}, {1, 2}, &encoding),
           TINYLDP_STATUS_BAD_PARAMETER);  // p > q
  CHECK_EQ(tinyldp_two_stage_rr_configure_rappor(&c, {1, 65}, {1, 2}, {3, 2}, &encoding),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&c, 1, 0, two, one, &encoding), TINYLDP_STATUS_OK);
  port::InsecureTestSource raw(1);
  const tinyldp_entropy_source source = to_c_source(raw);
  uint8_t frame[32];
  size_t written = 99;
  for (uint8_t& b : frame) b = 0xEE;
  CHECK_EQ(tinyldp_two_stage_rr_report(&c, 16, &keys.c_key, &source, nullptr, frame, sizeof frame,
                                       &written),
           TINYLDP_STATUS_VALUE_OUT_OF_DOMAIN);
  CHECK_EQ(written, 0u);
  CHECK(all_zero(frame, sizeof frame));
  // No report from a key that was never provisioned (its memo would be public).
  tinyldp_memo_key unprovisioned;
  tinyldp_memo_key_init(&unprovisioned);
  written = 99;
  for (uint8_t& b : frame) b = 0xEE;
  CHECK_EQ(tinyldp_two_stage_rr_report(&c, 3, &unprovisioned, &source, nullptr, frame, sizeof frame,
                                       &written),
           TINYLDP_STATUS_KEY_NOT_PROVISIONED);
  CHECK_EQ(written, 0u);
  CHECK(all_zero(frame, sizeof frame));
  for (uint8_t& b : frame) b = 0xEE;
  CHECK_EQ(tinyldp_two_stage_rr_privatize(&c, 3, &unprovisioned, &source, frame, sizeof frame),
           TINYLDP_STATUS_KEY_NOT_PROVISIONED);
  CHECK_EQ(written, 0u);
  CHECK(all_zero(frame, sizeof frame));
  for (uint8_t& b : frame) b = 0xEE;
  CHECK_EQ(tinyldp_two_stage_rr_privatize(&c, 3, nullptr, &source, frame, sizeof frame),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK(all_zero(frame, sizeof frame));
  CHECK_EQ(tinyldp_two_stage_rr_report(&c, 3, &keys.c_key, &source, nullptr, frame, 8, &written),
           TINYLDP_STATUS_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_two_stage_rr_report(&c, 3, &keys.c_key, nullptr, nullptr, frame, sizeof frame,
                                       &written),
           TINYLDP_STATUS_ENTROPY_FAILED);
  CHECK(all_zero(frame, sizeof frame));
  CHECK_EQ(tinyldp_two_stage_rr_report(&c, 3, &keys.c_key, &source, nullptr, frame, sizeof frame,
                                       &written),
           TINYLDP_STATUS_OK);
  CHECK_EQ(written, size_t{TINYLDP_WIRE_FIXED_HEADER_BYTES + 2});
}

// One step applied to both ledgers: the same answer and the same totals.
template <class Ledger>
void expect_same_ledger(const Ledger& cpp, const tinyldp_ledger* c) {
  CHECK_EQ(tinyldp_ledger_is_open(c), cpp.is_open() ? 1 : 0);
  CHECK_EQ(tinyldp_ledger_epoch(c), cpp.epoch());
  CHECK_EQ(tinyldp_ledger_cap_q32(c), cpp.cap().q32);
  CHECK_EQ(tinyldp_ledger_spent_q32(c), cpp.spent().q32);
  CHECK_EQ(tinyldp_ledger_remaining_q32(c), cpp.remaining().q32);
  CHECK_EQ(tinyldp_ledger_lifetime_q32(c), cpp.lifetime().q32);
  CHECK_EQ(tinyldp_ledger_charges(c), cpp.charges());
}

TEST(ledger_charges_refuses_and_reboots_like_cpp) {
  // Each API's ledger in sectors 2–3 of its device's flash (the memo keys in 0–1).
  BothKeys keys;
  using CppLedger = PrivacyLedger<CStorageDevice, TINYLDP_LEDGER_ATTRIBUTES>;
  Record<CStorageDevice> cpp_record(keys.cpp_device, 2, 1);
  const tinyldp_storage_device device = device_on(flashes[0]);
  tinyldp_record c_record;
  CHECK_EQ(tinyldp_record_init(&c_record, &device, 2, 1), TINYLDP_STORAGE_OK);
  CHECK(tinyldp_record_capacity(&c_record) >= TINYLDP_LEDGER_RECORD_BYTES);
  tinyldp_two_stage_rr mechanism;
  configure_l_osue(mechanism);
  tinyldp_memo_description memo;
  tinyldp_two_stage_rr_describe_memo(&mechanism, &memo);
  const Epsilon eps_inf = Epsilon::from_q32(memo.epsilon_infinity_q32);
  const uint64_t cap = 2 * memo.epsilon_infinity_q32 + one;  // two changes and a one-shot ε = 1

  CppLedger cpp(cpp_record, Epsilon::from_q32(cap));
  tinyldp_ledger c;
  tinyldp_ledger_init(&c, &c_record, cap);
  auto both = [&](LedgerResult a, tinyldp_ledger_result b, tinyldp_ledger_result expected) {
    CHECK_EQ(b, expected);
    CHECK_EQ(int(a), int(b));
    expect_same_ledger(cpp, &c);
  };
  const auto tag = [&](uint32_t value) { return keys.cpp_key.value_tag(wire::MechanismId::l_osue, 0, value); };
  const uint32_t generation = keys.cpp_key.generation();
  both(cpp.charge(eps_one), tinyldp_ledger_charge(&c, one), TINYLDP_LEDGER_NOT_OPEN);
  // A blank record is not a ledger: opening refuses; the factory's step provisions it.
  both(cpp.open(), tinyldp_ledger_open(&c), TINYLDP_LEDGER_NOT_PROVISIONED);
  both(cpp.provision(0, 0, Epsilon{0}, Epsilon{0}), tinyldp_ledger_provision(&c, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
  both(cpp.provision(0, 0, Epsilon{0}, Epsilon{0}), tinyldp_ledger_provision(&c, 0, 0, 0, 0),
       TINYLDP_LEDGER_ALREADY_PROVISIONED);
  both(cpp.open(), tinyldp_ledger_open(&c), TINYLDP_LEDGER_OK);
  // A value: ε∞ once; again: free (tinyldp_ledger_charge_memo is the same as the tag by hand).
  both(cpp.charge_memoized(0, tag(3), generation, eps_inf),
       tinyldp_ledger_charge_memo(&c, 0, &mechanism, &keys.c_key, 3), TINYLDP_LEDGER_OK);
  both(cpp.charge_memoized(0, tag(3), generation, eps_inf),
       tinyldp_ledger_charge_memoized(&c, 0, tag(3), generation, memo.epsilon_infinity_q32),
       TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&c), 1u);
  both(cpp.charge_memoized(0, tag(4), generation, eps_inf),
       tinyldp_ledger_charge_memo(&c, 0, &mechanism, &keys.c_key, 4), TINYLDP_LEDGER_OK);
  both(cpp.charge(eps_one), tinyldp_ledger_charge(&c, one), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_remaining_q32(&c), 0u);
  // The cap: a changed value is refused, nothing spent or written.
  both(cpp.charge_memoized(0, tag(5), generation, eps_inf),
       tinyldp_ledger_charge_memo(&c, 0, &mechanism, &keys.c_key, 5),
       TINYLDP_LEDGER_BUDGET_EXHAUSTED);
  both(cpp.charge_memoized(8, tag(5), generation, eps_inf),
       tinyldp_ledger_charge_memo(&c, TINYLDP_LEDGER_ATTRIBUTES, &mechanism, &keys.c_key, 5),
       TINYLDP_LEDGER_BAD_ATTRIBUTE);
  both(cpp.roll_epoch(), tinyldp_ledger_roll_epoch(&c), TINYLDP_LEDGER_OK);
  both(cpp.charge_memoized(7, tag(5), generation, eps_inf),
       tinyldp_ledger_charge_memo(&c, 7, &mechanism, &keys.c_key, 5), TINYLDP_LEDGER_OK);
  CHECK(bytes_equal(flashes[0].bytes, flashes[1].bytes, sizeof flashes[0].bytes));
  CHECK_EQ(tinyldp_ledger_epoch(&c), 1u);
  CHECK_EQ(tinyldp_ledger_lifetime_q32(&c), 3 * memo.epsilon_infinity_q32 + one);

  // A reboot: the totals and the memoized value are kept (the same value is still free).
  tinyldp_record c_record_again;
  CHECK_EQ(tinyldp_record_init(&c_record_again, &device, 2, 1), TINYLDP_STORAGE_OK);
  tinyldp_ledger after;
  tinyldp_ledger_init(&after, &c_record_again, cap);
  CHECK_EQ(tinyldp_ledger_open(&after), TINYLDP_LEDGER_OK);
  expect_same_ledger(cpp, &after);
  CHECK_EQ(tinyldp_ledger_charge_memo(&after, 7, &mechanism, &keys.c_key, 5), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&after), cpp.charges());
  // A flash that fails: storage_failed and closed until opened again; nothing was spent.
  flashes[0].broken = true;
  CHECK_EQ(tinyldp_ledger_charge(&after, one), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_is_open(&after), 0);
  CHECK_EQ(tinyldp_ledger_charge(&after, one), TINYLDP_LEDGER_NOT_OPEN);
  flashes[0].broken = false;
  CHECK_EQ(tinyldp_ledger_open(&after), TINYLDP_LEDGER_OK);
  expect_same_ledger(cpp, &after);
  // A record that holds something else is never taken for a new ledger.
  const uint8_t other[5] = {1, 2, 3, 4, 5};
  CHECK_EQ(tinyldp_record_write(&c_record_again, other, sizeof other), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_ledger_open(&after), TINYLDP_LEDGER_STORAGE_FAILED);
  CHECK_EQ(tinyldp_ledger_result_string(TINYLDP_LEDGER_BUDGET_EXHAUSTED)[0], 'p');
}

// Two mechanisms in one ledger slot hold different memos of the same value (memo_attribute folds
// the wire id into the memo's PRF input), so the second one's report of it is a new memo and
// costs ε∞ again: the value tag must fold the mechanism in the same way.
TEST(ledger_charges_each_mechanism_memoizing_one_value) {
  LedgerDevice dev;
  const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(16, 0);
  tinyldp_two_stage_rr l_sue;
  CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&l_sue, TINYLDP_UE_STAGE_SUE, TINYLDP_UE_STAGE_SUE,
                                                two, one, &encoding),
           TINYLDP_STATUS_OK);
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &dev.record, 100 * one);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &dev.c_key, 3), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 1u);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &l_sue, &dev.c_key, 3), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 2u);  // a new memo: charged
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &l_sue, &dev.c_key, 3), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 2u);  // the same memo again: free
  // The tags by hand: the mechanism's id changes the tag, the same id keeps it.
  CHECK(tinyldp_memo_key_value_tag(&dev.c_key, TINYLDP_MECHANISM_L_OSUE, 0, 3) !=
        tinyldp_memo_key_value_tag(&dev.c_key, TINYLDP_MECHANISM_L_SUE, 0, 3));
  CHECK_EQ(tinyldp_memo_key_value_tag(&dev.c_key, TINYLDP_MECHANISM_L_SUE, 0, 3),
           dev.cpp_key.memo_value_tag(memo_attribute(wire::MechanismId::l_sue, 0), 3));
}

// The ledger checks a report before it charges: a value outside the mechanism's domain, an
// unconfigured mechanism or an unprovisioned key costs nothing and writes nothing (before the
// fix tinyldp_ledger_charge_memo charged ε∞ for each, and the report was then refused). A memo
// generation older than the ledger's is refused.
TEST(ledger_checks_a_report_before_it_charges) {
  LedgerDevice dev;
  tinyldp_two_stage_rr unconfigured{};
  tinyldp_memo_key unprovisioned;
  tinyldp_memo_key_init(&unprovisioned);
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &dev.record, 100 * one);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
  static uint8_t before[sizeof flashes[0].bytes];
  for (size_t i = 0; i < sizeof before; ++i) before[i] = flashes[0].bytes[i];
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &dev.c_key, 16), TINYLDP_LEDGER_BAD_REPORT);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &dev.c_key, 0xFFFFFFFFu), TINYLDP_LEDGER_BAD_REPORT);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &unconfigured, &dev.c_key, 3), TINYLDP_LEDGER_BAD_REPORT);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &unprovisioned, 3),
           TINYLDP_LEDGER_KEY_NOT_PROVISIONED);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, nullptr, 3), TINYLDP_LEDGER_KEY_NOT_PROVISIONED);
  CHECK_EQ(tinyldp_ledger_spent_q32(&ledger), 0u);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 0u);
  CHECK(bytes_equal(before, flashes[0].bytes, sizeof before));  // nothing written
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &dev.c_key, 15), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 1u);
  // Generations: a later one is a new key (every memo new); an older one is refused.
  CHECK_EQ(tinyldp_ledger_charge_memoized(&ledger, 1, 0x1234, 5, one), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_generation(&ledger), 5u);
  CHECK_EQ(tinyldp_ledger_charge_memoized(&ledger, 1, 0x1234, 4, one), TINYLDP_LEDGER_STALE_GENERATION);
  CHECK_EQ(tinyldp_ledger_charges(&ledger), 2u);
  CHECK_EQ(tinyldp_ledger_result_string(TINYLDP_LEDGER_BAD_REPORT)[0], 't');
  CHECK_EQ(tinyldp_ledger_result_string(TINYLDP_LEDGER_STALE_GENERATION)[0], 'm');
}

TEST(report_auth_seals_like_cpp) {
  // The golden device provisioned through both APIs, each on its own flash: the same record
  // bytes, the same sealed reports (the golden ones), the same counters after a reboot.
  uint8_t key[32];
  tinyldp_report_auth_derive_key(golden_auth::fleet_secret, golden_auth::device_id, key);
  uint8_t cpp_key[32];
  port::derive_device_key(golden_auth::fleet_secret, golden_auth::device_id, cpp_key);
  CHECK(bytes_equal(key, cpp_key, 32));
  const tinyldp_storage_device device = blank_device(flashes[0]);
  tinyldp_record record;
  CHECK_EQ(tinyldp_record_init(&record, &device, 0, 1), TINYLDP_STORAGE_OK);
  tinyldp_report_auth auth;
  tinyldp_report_auth_init(&auth);
  CHECK_EQ(tinyldp_report_auth_provisioned(&auth), 0);
  CHECK_EQ(tinyldp_report_auth_provision(&auth, &record, golden_auth::device_id, key, golden_auth::first_counter),
           TINYLDP_REPORT_AUTH_OK);
  CHECK_EQ(tinyldp_report_auth_provisioned(&auth), 1);
  CHECK_EQ(tinyldp_report_auth_device_id(&auth), golden_auth::device_id);
  CStorageDevice cpp_flash(blank_device(flashes[1]));
  Record<CStorageDevice> cpp_record(cpp_flash, 0, 1);
  port::ReportAuth<CStorageDevice> cpp_auth;
  CHECK(cpp_auth.provision(cpp_record, golden_auth::device_id, cpp_key, golden_auth::first_counter) ==
        port::ReportAuthResult::ok);
  uint8_t c_out[64], cpp_out[64];
  size_t c_written = 0, cpp_written = 0;
  for (int i = 0; i < 2; ++i) {
    CHECK_EQ(tinyldp_report_auth_seal(&auth, golden_auth::v1_report, sizeof golden_auth::v1_report, c_out,
                                      sizeof c_out, &c_written),
             TINYLDP_REPORT_AUTH_OK);
    CHECK(cpp_auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, cpp_out, sizeof cpp_out,
                        &cpp_written) == port::ReportAuthResult::ok);
    CHECK_EQ(c_written, sizeof golden_auth::v1_report + TINYLDP_WIRE_AUTHENTICATED_TRAILER_BYTES);
    CHECK_EQ(c_written, cpp_written);
    CHECK(bytes_equal(c_out, cpp_out, c_written));
    CHECK(equals_hex(c_out, golden_auth::sealed_hex[i], golden_auth::sealed_bytes));
  }
  CHECK(bytes_equal(flashes[0].bytes, flashes[1].bytes, sizeof flashes[0].bytes));
  // A reboot: loaded, never provisioned again; the counter past the reserved window.
  tinyldp_record rebooted;
  const tinyldp_storage_device again = device_on(flashes[0]);
  CHECK_EQ(tinyldp_record_init(&rebooted, &again, 0, 1), TINYLDP_STORAGE_OK);
  tinyldp_report_auth loaded;
  CHECK_EQ(tinyldp_report_auth_provision(&loaded, &rebooted, golden_auth::device_id, key, 0),
           TINYLDP_REPORT_AUTH_ALREADY_PROVISIONED);
  CHECK_EQ(tinyldp_report_auth_provisioned(&loaded), 0);
  CHECK_EQ(tinyldp_report_auth_load(&loaded, &rebooted), TINYLDP_REPORT_AUTH_OK);
  CHECK_EQ(tinyldp_report_auth_next_counter(&loaded), golden_auth::first_counter + port::report_counter_window);
  // Refusals, each with nothing written.
  uint8_t report[sizeof golden_auth::v1_report];
  for (size_t i = 0; i < sizeof report; ++i) report[i] = golden_auth::v1_report[i];
  for (uint8_t& b : c_out) b = 0;
  report[7] ^= 1;
  CHECK_EQ(tinyldp_report_auth_seal(&loaded, report, sizeof report, c_out, sizeof c_out, &c_written),
           TINYLDP_REPORT_AUTH_WRONG_DEVICE);
  report[7] ^= 1;
  report[6] = TINYLDP_WIRE_DEVICE_ID;
  CHECK_EQ(tinyldp_report_auth_seal(&loaded, report, sizeof report, c_out, sizeof c_out, &c_written),
           TINYLDP_REPORT_AUTH_MISSING_IDENTITY);
  report[6] = golden_auth::v1_report[6];
  CHECK_EQ(tinyldp_report_auth_seal(&loaded, report, sizeof report, c_out, sizeof report + 19, &c_written),
           TINYLDP_REPORT_AUTH_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_report_auth_seal(&loaded, report, sizeof report, nullptr, 64, &c_written),
           TINYLDP_REPORT_AUTH_BUFFER_TOO_SMALL);
  CHECK_EQ(tinyldp_report_auth_seal(&loaded, report, 3, c_out, sizeof c_out, nullptr), TINYLDP_REPORT_AUTH_NOT_A_REPORT);
  CHECK_EQ(c_written, 0u);
  bool untouched = true;
  for (uint8_t b : c_out) untouched = untouched && b == 0;
  CHECK(untouched);
  // The all-zero key; a context never initialised; a blank record; a failing flash.
  const uint8_t zero[32] = {};
  tinyldp_report_auth other;
  tinyldp_record blank;
  CHECK_EQ(tinyldp_record_init(&blank, &device, 2, 1), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_report_auth_provision(&other, &blank, 1, zero, 0), TINYLDP_REPORT_AUTH_ZERO_KEY);
  CHECK_EQ(tinyldp_report_auth_provision(&other, &blank, 1, nullptr, 0), TINYLDP_REPORT_AUTH_ZERO_KEY);
  CHECK_EQ(tinyldp_report_auth_load(&other, &blank), TINYLDP_REPORT_AUTH_NOT_PROVISIONED);
  CHECK_EQ(tinyldp_report_auth_provision(&other, &blank, 1, key, 0xFFFFFFFFu), TINYLDP_REPORT_AUTH_COUNTER_EXHAUSTED);
  tinyldp_report_auth zeroed = {};
  CHECK_EQ(tinyldp_report_auth_seal(&zeroed, report, sizeof report, c_out, sizeof c_out, &c_written),
           TINYLDP_REPORT_AUTH_NOT_PROVISIONED);
  CHECK_EQ(tinyldp_report_auth_provision(&other, &blank, golden_auth::device_id, key, 0), TINYLDP_REPORT_AUTH_OK);
  flashes[0].broken = true;
  CHECK_EQ(tinyldp_report_auth_seal(&other, report, sizeof report, c_out, sizeof c_out, &c_written),
           TINYLDP_REPORT_AUTH_STORAGE_FAILED);
  flashes[0].broken = false;
  CHECK_EQ(tinyldp_report_auth_seal(&other, report, sizeof report, c_out, sizeof c_out, &c_written), TINYLDP_REPORT_AUTH_OK);
  tinyldp_report_auth_wipe(&other);
  CHECK_EQ(tinyldp_report_auth_seal(&other, report, sizeof report, c_out, sizeof c_out, &c_written),
           TINYLDP_REPORT_AUTH_NOT_PROVISIONED);
  CHECK_EQ(tinyldp_report_auth_result_string(TINYLDP_REPORT_AUTH_WRONG_DEVICE)[0], 'r');
}

TEST(ledger_moves_any_number_of_epochs_in_one_write) {
  const tinyldp_storage_device device = blank_device(flashes[0]);
  tinyldp_record record;
  CHECK_EQ(tinyldp_record_init(&record, &device, 2, 1), TINYLDP_STORAGE_OK);
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &record, one);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charge(&ledger, one), TINYLDP_LEDGER_OK);
  uint32_t start = sector_erases;
  CHECK_EQ(tinyldp_ledger_advance_epoch(&ledger, 1), TINYLDP_LEDGER_OK);
  const uint32_t one_epoch = sector_erases - start;
  start = sector_erases;
  CHECK_EQ(tinyldp_ledger_advance_epoch(&ledger, 100001), TINYLDP_LEDGER_OK);  // 10^5 epochs
  CHECK_EQ(sector_erases - start, one_epoch);
  CHECK_EQ(one_epoch, 2u);  // both slots, one sector each
  CHECK_EQ(tinyldp_ledger_epoch(&ledger), 100001u);
  CHECK_EQ(tinyldp_ledger_spent_q32(&ledger), 0u);
  start = sector_erases;
  CHECK_EQ(tinyldp_ledger_advance_epoch(&ledger, 5), TINYLDP_LEDGER_OK);  // backwards: nothing
  CHECK_EQ(sector_erases, start);
  CHECK_EQ(tinyldp_ledger_epoch(&ledger), 100001u);
  CHECK_EQ(tinyldp_ledger_advance_epoch(&ledger, 0xFFFFFFFFu), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_roll_epoch(&ledger), TINYLDP_LEDGER_BAD_EPOCH);
}

// What a boot on (possibly damaged) flashes[0] finds: the key in sectors 0–1 and the ledger in
// 2–3. right: the acknowledged key (generation, tag) and totals; refused: NOT_PROVISIONED or
// STORAGE_FAILED and nothing reported; anything else is wrong.
struct Boot {
  uint32_t right = 0, refused = 0, wrong = 0;
};
void boot_and_classify(uint32_t generation, uint64_t tag, uint64_t spent, uint32_t charges,
                       Boot& key_count, Boot& ledger_count) {
  const tinyldp_storage_device device = device_on(flashes[0]);
  tinyldp_record key_record, ledger_record;
  CHECK_EQ(tinyldp_record_init(&key_record, &device, 0, 1), TINYLDP_STORAGE_OK);
  CHECK_EQ(tinyldp_record_init(&ledger_record, &device, 2, 1), TINYLDP_STORAGE_OK);
  tinyldp_memo_key key;
  const tinyldp_memo_key_result k = tinyldp_memo_key_load(&key, &key_record);
  if (k == TINYLDP_MEMO_KEY_OK) {
    const bool same = tinyldp_memo_key_generation(&key) == generation &&
                      tinyldp_memo_key_value_tag(&key, TINYLDP_MECHANISM_L_OSUE, 0, 3) == tag;
    ++(same ? key_count.right : key_count.wrong);
  } else {
    const bool refused = (k == TINYLDP_MEMO_KEY_NOT_PROVISIONED || k == TINYLDP_MEMO_KEY_STORAGE_FAILED) &&
                         tinyldp_memo_key_provisioned(&key) == 0;
    ++(refused ? key_count.refused : key_count.wrong);
  }
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &ledger_record, 8 * one);
  const tinyldp_ledger_result l = tinyldp_ledger_open(&ledger);
  if (l == TINYLDP_LEDGER_OK) {
    const bool same = tinyldp_ledger_spent_q32(&ledger) == spent && tinyldp_ledger_charges(&ledger) == charges &&
                      tinyldp_ledger_generation(&ledger) == generation;
    ++(same ? ledger_count.right : ledger_count.wrong);
  } else {
    const bool refused = (l == TINYLDP_LEDGER_NOT_PROVISIONED || l == TINYLDP_LEDGER_STORAGE_FAILED) &&
                         tinyldp_ledger_charge(&ledger, 1) == TINYLDP_LEDGER_NOT_OPEN;
    ++(refused ? ledger_count.refused : ledger_count.wrong);
  }
}

// Corrupt or erased storage never resets privacy state (through the C API): every byte of the
// memo key's and the ledger's records, in either slot and in both, flipped in one bit or
// erased (0xFF); then each record wholly erased. Damage to one slot reads the acknowledged
// state (before the fix the newest slot alone held the re-key and the last charge); damage to
// both is refused (before the fix a boot provisioned a new key of generation 0, and an erased
// ledger started over at zero spent). After a loss, the explicit step under a later
// generation, which the reports then carry.
TEST(damaged_key_and_ledger_records_are_read_right_or_refused) {
  LedgerDevice dev;
  CHECK_EQ(tinyldp_memo_key_rekey(&dev.c_key, &dev.c_record, &dev.c_drbg), TINYLDP_MEMO_KEY_OK);
  tinyldp_ledger ledger;
  tinyldp_ledger_init(&ledger, &dev.record, 8 * one);
  CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 0, &dev.l_osue, &dev.c_key, 3), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charge_memo(&ledger, 1, &dev.l_osue, &dev.c_key, 4), TINYLDP_LEDGER_OK);
  const uint32_t generation = tinyldp_memo_key_generation(&dev.c_key);
  const uint64_t tag = tinyldp_memo_key_value_tag(&dev.c_key, TINYLDP_MECHANISM_L_OSUE, 0, 3);
  const uint64_t spent = tinyldp_ledger_spent_q32(&ledger);
  const uint32_t charges = tinyldp_ledger_charges(&ledger);
  CHECK_EQ(generation, 1u);
  CHECK_EQ(charges, 2u);
  static uint8_t saved[sizeof flashes[0].bytes];
  for (size_t i = 0; i < sizeof saved; ++i) saved[i] = flashes[0].bytes[i];
  const auto restore = [] {
    for (size_t i = 0; i < sizeof saved; ++i) flashes[0].bytes[i] = saved[i];
  };
  // The records' bytes in each slot (header + payload), then the same in both slots.
  const uint32_t spans[2][2] = {{0, 16 + 36}, {512, 16 + TINYLDP_LEDGER_RECORD_BYTES}};
  Boot one_key, one_ledger, both_key, both_ledger;
  uint32_t cases = 0;
  for (const auto& span : spans)
    for (uint32_t i = 0; i < span[1]; ++i)
      for (int erase = 0; erase < 2; ++erase)
        for (uint32_t slots = 1; slots <= 3; ++slots) {  // slot 0, slot 1, both
          restore();
          for (uint32_t s = 0; s < 2; ++s)
            if (slots & (1u << s)) {
              uint8_t& b = flashes[0].bytes[span[0] + s * 256 + i];
              b = erase ? 0xFF : static_cast<uint8_t>(b ^ 0x01u);
            }
          ++cases;
          Boot& k = slots == 3 && span[0] == 0 ? both_key : one_key;
          Boot& l = slots == 3 && span[0] == 512 ? both_ledger : one_ledger;
          boot_and_classify(generation, tag, spent, charges, k, l);
        }
  for (uint32_t region = 0; region < 2; ++region) {  // each record wholly erased
    restore();
    for (uint32_t i = 0; i < 512; ++i) flashes[0].bytes[region * 512 + i] = 0xFF;
    ++cases;
    boot_and_classify(generation, tag, spent, charges, region == 0 ? both_key : one_key,
                      region == 1 ? both_ledger : one_ledger);
  }
  CHECK_EQ(cases, 2u * 3 * (16 + 36 + 16 + TINYLDP_LEDGER_RECORD_BYTES) + 2);
  CHECK_EQ(one_key.wrong + one_ledger.wrong + both_key.wrong + both_ledger.wrong, 0u);
  CHECK_EQ(one_key.refused + one_ledger.refused, 0u);  // one good slot always suffices
  CHECK(both_key.refused > 36 && both_ledger.refused > 92);
  // A boot after the key record was lost: refused, the report too, until the explicit step —
  // under the ledger's generation + 1, which the report's header then carries.
  restore();
  for (uint32_t i = 0; i < 512; ++i) flashes[0].bytes[i] = 0xFF;
  tinyldp_record key_record;  // as after a reboot
  CHECK_EQ(tinyldp_record_init(&key_record, &dev.device, 0, 1), TINYLDP_STORAGE_OK);
  tinyldp_memo_key key;
  CHECK_EQ(tinyldp_memo_key_load(&key, &key_record), TINYLDP_MEMO_KEY_NOT_PROVISIONED);
  port::InsecureTestSource noise(4);
  const tinyldp_entropy_source source = to_c_source(noise);
  uint8_t frame[32];
  size_t written = 0;
  CHECK_EQ(tinyldp_two_stage_rr_report(&dev.l_osue, 3, &key, &source, nullptr, frame, sizeof frame, &written),
           TINYLDP_STATUS_KEY_NOT_PROVISIONED);
  CHECK(all_zero(frame, sizeof frame));
  tinyldp_record ledger_again;
  CHECK_EQ(tinyldp_record_init(&ledger_again, &dev.device, 2, 1), TINYLDP_STORAGE_OK);
  tinyldp_ledger reopened;
  tinyldp_ledger_init(&reopened, &ledger_again, 8 * one);
  CHECK_EQ(tinyldp_ledger_open(&reopened), TINYLDP_LEDGER_OK);
  CHECK_EQ(tinyldp_ledger_charge_memo(&reopened, 0, &dev.l_osue, &key, 3), TINYLDP_LEDGER_KEY_NOT_PROVISIONED);
  const uint32_t next = tinyldp_ledger_generation(&reopened) + 1;
  CHECK_EQ(tinyldp_memo_key_provision(&key, &key_record, &dev.c_drbg, next), TINYLDP_MEMO_KEY_OK);
  CHECK_EQ(tinyldp_ledger_charge_memo(&reopened, 0, &dev.l_osue, &key, 3), TINYLDP_LEDGER_OK);  // a new memo: ε∞
  CHECK_EQ(tinyldp_ledger_charges(&reopened), charges + 1);
  const tinyldp_wire_header with_generation = {TINYLDP_WIRE_MEMO_GENERATION, 0, 0, 0, 0};
  CHECK_EQ(tinyldp_two_stage_rr_report(&dev.l_osue, 3, &key, &source, &with_generation, frame, sizeof frame, &written),
           TINYLDP_STATUS_OK);
  CHECK_EQ(written, size_t{TINYLDP_WIRE_FIXED_HEADER_BYTES + 4 + 2});
  // The only optional field, right after the fixed header: the collector sees the re-key.
  CHECK_EQ(get_le<uint32_t>(frame + TINYLDP_WIRE_FIXED_HEADER_BYTES), 2u);
  print("    damaged records: ");
  print_u64(cases);
  print(" cases, ");
  print_u64(one_key.right + one_ledger.right + both_key.right + both_ledger.right);
  print(" record reads right (two reads a case: the key and the ledger), ");
  print_u64(both_key.refused + both_ledger.refused);
  print(" refused, ");
  print_u64(one_key.wrong + one_ledger.wrong + both_key.wrong + both_ledger.wrong);
  print(" wrong\n");
}

// ---- every other mechanism ----------------------------------------------------------------

TEST(histogram_encodings_give_the_cpp_reports) {
  const uint32_t values[] = {0, 1, 7, 15};
  static uint64_t c_table[TINYLDP_SHE_TABLE_ENTRIES(TINYLDP_SHE_DEFAULT_TRUNCATION(one))];
  static uint64_t cpp_table[SummationHistogram::table_entries(SummationHistogram::default_truncation(eps_one))];
  tinyldp_she she;
  CHECK_EQ(tinyldp_she_configure(&she, one, 16, TINYLDP_SHE_DEFAULT_TRUNCATION(one), c_table,
                                 sizeof c_table / 8),
           TINYLDP_STATUS_OK);
  SummationHistogram cpp_she;
  CHECK(SummationHistogram::configure(eps_one, 16, cpp_table, sizeof cpp_table / 8, cpp_she) == Status::ok);
  Twins{"she", cpp_she, &she, C_FUNCTIONS(tinyldp_she)}.expect_same_reports(values, 16u);
  // A truncation of its own: T = 3, a table of 8.
  uint64_t small_c[TINYLDP_SHE_TABLE_ENTRIES(3)], small_cpp[SummationHistogram::table_entries(3)];
  CHECK_EQ(tinyldp_she_configure(&she, two, 16, 3, small_c, 8), TINYLDP_STATUS_OK);
  CHECK(SummationHistogram::configure(eps_two, 16, small_cpp, 8, cpp_she, 3) == Status::ok);
  Twins{"she T = 3", cpp_she, &she, C_FUNCTIONS(tinyldp_she)}.expect_same_reports(values, 16u);
  CHECK_EQ(tinyldp_she_configure(&she, two, 16, 4, small_c, 8), TINYLDP_STATUS_BUFFER_TOO_SMALL);

  tinyldp_the the;
  CHECK_EQ(tinyldp_the_configure(&the, one, 100), TINYLDP_STATUS_OK);
  const ThresholdHistogram cpp_the = ThresholdHistogram::make(eps_one, 100);
  Twins{"the", cpp_the, &the, C_FUNCTIONS(tinyldp_the)}.expect_same_reports(values, 100u);
  CHECK_EQ(tinyldp_the_configure(&the, one, 1), TINYLDP_STATUS_BAD_PARAMETER);
}

// Records of three attributes, and one with a value outside its attribute's domain.
const uint32_t record_domains[] = {4, 10, 3};
const uint32_t r0[] = {0, 0, 0}, r1[] = {3, 9, 2}, r2[] = {1, 5, 0}, outside[] = {1, 10, 0};
const uint32_t* const records[] = {r0, r1, r2};
constexpr uint64_t record_eps_q32 = TINYLDP_EPSILON_Q32(3, 2);
constexpr uint32_t A = TINYLDP_RECORD_MAX_ATTRIBUTES;

// A protocol M over the records, configured alike in C (`configure`, then `extra`) and C++.
template <class M, class Ctx, class Functions, class... Extra>
void expect_same_record_reports(const char* what, tinyldp_status (*configure)(Ctx*, uint64_t, const uint32_t*,
                                                                              uint32_t, Extra...),
                                Functions functions, Extra... extra) {
  Ctx c;
  CHECK_EQ(configure(&c, record_eps_q32, record_domains, 3, extra...), TINYLDP_STATUS_OK);
  M m;
  if constexpr (sizeof...(Extra) == 0) {
    CHECK(M::configure(Epsilon::from_q32(record_eps_q32), record_domains, 3, m) == Status::ok);
  } else {
    CHECK(M::configure(Epsilon::from_q32(record_eps_q32), record_domains, 3, m, FakeData(extra)...) == Status::ok);
  }
  Twins{what, m, &c, functions}.expect_same_reports(records, static_cast<const uint32_t*>(outside));
}

TEST(records_without_memo_give_the_cpp_reports) {
  const uint32_t* const domains = record_domains;
  const uint64_t eps_q32 = record_eps_q32;
  expect_same_record_reports<SplitRecord<GrrSlot, A>>("spl-grr", tinyldp_spl_grr_configure, C_FUNCTIONS(tinyldp_spl_grr));
  expect_same_record_reports<SplitRecord<OueSlot, A>>("spl-oue", tinyldp_spl_oue_configure, C_FUNCTIONS(tinyldp_spl_oue));
  expect_same_record_reports<SampledAttribute<GrrSlot, A>>("smp-grr", tinyldp_smp_grr_configure,
                                                          C_FUNCTIONS(tinyldp_smp_grr));
  expect_same_record_reports<SampledAttribute<OueSlot, A>>("smp-oue", tinyldp_smp_oue_configure,
                                                          C_FUNCTIONS(tinyldp_smp_oue));
  expect_same_record_reports<FakeDataRecord<GrrSlot, A>>("rsfd-grr", tinyldp_rsfd_grr_configure,
                                                        C_FUNCTIONS(tinyldp_rsfd_grr));
  expect_same_record_reports<FakeDataRecord<OueSlot, A>>("rsfd-oue-z", tinyldp_rsfd_oue_configure,
                                                        C_FUNCTIONS(tinyldp_rsfd_oue), uint8_t{TINYLDP_RSFD_FAKE_ZERO});
  expect_same_record_reports<FakeDataRecord<OueSlot, A>>("rsfd-oue-r", tinyldp_rsfd_oue_configure,
                                                        C_FUNCTIONS(tinyldp_rsfd_oue), uint8_t{TINYLDP_RSFD_FAKE_RANDOM});
  // Beyond the C API's attributes, a fake data kind the core does not know, one attribute for SMP.
  const uint32_t many[A + 1] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  tinyldp_spl_grr spl;
  CHECK_EQ(tinyldp_spl_grr_configure(&spl, eps_q32, many, A), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_spl_grr_configure(&spl, eps_q32, many, A + 1), TINYLDP_STATUS_BAD_PARAMETER);
  tinyldp_rsfd_oue rsfd;
  CHECK_EQ(tinyldp_rsfd_oue_configure(&rsfd, eps_q32, domains, 3, 2), TINYLDP_STATUS_BAD_PARAMETER);
  tinyldp_smp_oue smp;
  CHECK_EQ(tinyldp_smp_oue_configure(&smp, eps_q32, domains, 1), TINYLDP_STATUS_BAD_PARAMETER);
}

TEST(longitudinal_mechanisms_give_the_cpp_reports) {
  BothKeys keys;
  const uint32_t values[] = {0, 1, 17, 63};
  {
    tinyldp_l_grr c;
    CHECK_EQ(tinyldp_l_grr_configure(&c, two, one, 64, 3), TINYLDP_STATUS_OK);
    const LongitudinalGrr m = LongitudinalGrr::make(eps_two, eps_one, 64, {}, 3);
    Twins{"l-grr", m, &c, C_MEMOIZED_FUNCTIONS(tinyldp_l_grr), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(values, 64u);
    // The ledger checks an L-GRR report as C++'s does, then charges ε∞ per new value.
    const tinyldp_storage_device device = device_on(flashes[0]);
    tinyldp_record record;
    CHECK_EQ(tinyldp_record_init(&record, &device, 2, 1), TINYLDP_STORAGE_OK);
    tinyldp_ledger ledger;
    tinyldp_ledger_init(&ledger, &record, 100 * one);
    CHECK_EQ(tinyldp_ledger_provision(&ledger, 0, 0, 0, 0), TINYLDP_LEDGER_OK);
    tinyldp_memo_key unprovisioned;
    tinyldp_memo_key_init(&unprovisioned);
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, &c, &keys.c_key, 64), TINYLDP_LEDGER_BAD_REPORT);
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, &c, &unprovisioned, 3), TINYLDP_LEDGER_KEY_NOT_PROVISIONED);
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, nullptr, &keys.c_key, 3), TINYLDP_LEDGER_BAD_REPORT);
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, &c, &keys.c_key, 3), TINYLDP_LEDGER_OK);
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, &c, &keys.c_key, 3), TINYLDP_LEDGER_OK);  // the same memo
    CHECK_EQ(tinyldp_ledger_charge_memoized(&ledger, 0,
                                            keys.cpp_key.memo_value_tag(m.memo_attribute_word(), 3),
                                            keys.cpp_key.generation(), m.epsilon_infinity().q32),
             TINYLDP_LEDGER_OK);  // C++'s tag of it: the same memo again
    CHECK_EQ(tinyldp_ledger_charge_memo_l_grr(&ledger, 0, &c, &keys.c_key, 4), TINYLDP_LEDGER_OK);
    CHECK_EQ(tinyldp_ledger_charges(&ledger), 2u);
    CHECK_EQ(tinyldp_ledger_spent_q32(&ledger), 2 * m.epsilon_infinity().q32);
    CHECK_EQ(tinyldp_l_grr_configure(&c, one, two, 64, 3), TINYLDP_STATUS_BAD_EPSILON);  // ε₁ < ε∞
  }
  {
    tinyldp_loloha given, optimal, binary;
    const uint64_t five = TINYLDP_EPSILON_Q32(5, 1);
    constexpr Epsilon eps_five = Epsilon::from_ratio(5, 1);
    CHECK_EQ(tinyldp_loloha_configure(&given, two, one, 1000, 5, 1), TINYLDP_STATUS_OK);
    CHECK_EQ(tinyldp_loloha_configure_optimal(&optimal, five, two, 1000, 1), TINYLDP_STATUS_OK);
    CHECK_EQ(tinyldp_loloha_configure_binary(&binary, two, one, 1000, 1), TINYLDP_STATUS_OK);
    Loloha m;
    CHECK(Loloha::configure(eps_two, eps_one, 1000, 5, m, {}, 1) == Status::ok);
    Twins{"loloha g = 5", m, &given, C_MEMOIZED_FUNCTIONS(tinyldp_loloha), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(values, 1000u);
    const Loloha o = Loloha::make_optimal(eps_five, eps_two, 1000, {}, 1);
    CHECK_EQ(o.range(), 8u);
    Twins{"ololoha", o, &optimal, C_MEMOIZED_FUNCTIONS(tinyldp_loloha), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(values, 1000u);
    const Loloha b = Loloha::make_binary(eps_two, eps_one, 1000, {}, 1);
    Twins{"biloloha", b, &binary, C_MEMOIZED_FUNCTIONS(tinyldp_loloha), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(values, 1000u);
    CHECK_EQ(tinyldp_loloha_configure(&given, two, one, 1000, 1, 1), TINYLDP_STATUS_BAD_PARAMETER);
  }
  {
    tinyldp_one_bit_mean c;
    const uint32_t counters[] = {0, 7, 50, 100};
    CHECK_EQ(tinyldp_one_bit_mean_configure(&c, two, one, 100, 10, 32, 2), TINYLDP_STATUS_OK);
    const OneBitMean m = OneBitMean::make(eps_two, eps_one, {100, 10, 32, 2});
    Twins{"1bitmean", m, &c, C_MEMOIZED_FUNCTIONS(tinyldp_one_bit_mean), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(counters, 101u);
    CHECK_EQ(tinyldp_one_bit_mean_configure(&c, two, one, 100, 7, 32, 2), TINYLDP_STATUS_BAD_PARAMETER);  // 7 ∤ 100
  }
  {
    tinyldp_dbitflip c;
    const uint32_t counters[] = {0, 7, 50, 100};
    CHECK_EQ(tinyldp_dbitflip_configure(&c, two, one, 100, 10, 4, 2), TINYLDP_STATUS_OK);
    const DBitFlip m = DBitFlip::make(eps_two, eps_one, {100, 10, 4, 2});
    Twins{"dbitflip", m, &c, C_MEMOIZED_FUNCTIONS(tinyldp_dbitflip), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(counters, 101u);
    // The largest payload: 16 buckets of 65536.
    CHECK_EQ(tinyldp_dbitflip_configure(&c, two, one, 65535, 1, 16, 2), TINYLDP_STATUS_OK);
    tinyldp_description d;
    tinyldp_dbitflip_describe(&c, &d);
    CHECK_EQ((d.payload_bits + 7) / 8, uint32_t{TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES});
    CHECK_EQ(tinyldp_dbitflip_configure(&c, two, one, 100, 10, 17, 2), TINYLDP_STATUS_BAD_PARAMETER);
  }
}

// A keyed mechanism's reports with a key NULL or never provisioned: refused, nothing written.
template <class Ctx, class Functions>
void expect_keys_refused(const Ctx* c, Functions functions) {
  tinyldp_memo_key unprovisioned;
  tinyldp_memo_key_init(&unprovisioned);
  port::InsecureTestSource raw(1);
  const tinyldp_entropy_source source = to_c_source(raw);
  uint8_t frame[32];
  const tinyldp_memo_key* refused[] = {&unprovisioned, nullptr};
  for (const tinyldp_memo_key* key : refused) {
    const tinyldp_status expected = key != nullptr ? TINYLDP_STATUS_KEY_NOT_PROVISIONED : TINYLDP_STATUS_BAD_PARAMETER;
    size_t written = 99;
    for (uint8_t& b : frame) b = 0xEE;
    CHECK_EQ(functions.report(c, 3, key, &source, nullptr, frame, sizeof frame, &written), expected);
    CHECK_EQ(written, 0u);
    CHECK(all_zero(frame, sizeof frame));
    for (uint8_t& b : frame) b = 0xEE;
    CHECK_EQ(functions.privatize(c, 3, key, &source, frame, sizeof frame), expected);
    CHECK(all_zero(frame, sizeof frame));
  }
}

// The hierarchical histogram takes the key for its level only: the same reports from both APIs
// for attributes whose levels (under BothKeys' key) report through OUE and through OLH; a key
// NULL or never provisioned refused with nothing written.
TEST(hierarchical_histogram_gives_the_cpp_reports) {
  BothKeys keys;
  const int32_t values[] = {-50, -7, 0, 950};
  bool through_oue = false, through_olh = false;
  for (uint32_t attribute = 0; attribute < 8 && !(through_oue && through_olh); ++attribute) {
    tinyldp_hh c;
    CHECK_EQ(tinyldp_hh_configure(&c, one, -50, 950, 4, attribute), TINYLDP_STATUS_OK);
    HierarchicalHistogram m;
    CHECK(HierarchicalHistogram::configure(eps_one, -50, 950, 4, m, {}, attribute) == Status::ok);
    const bool hashed = m.hashed(m.level_of(keys.cpp_key));
    if (hashed ? through_olh : through_oue) continue;
    (hashed ? through_olh : through_oue) = true;
    Twins{"hh", m, &c, C_KEYED_FUNCTIONS(tinyldp_hh), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(values, 951);
  }
  CHECK(through_oue && through_olh);
  tinyldp_hh c;
  CHECK_EQ(tinyldp_hh_configure(&c, one, -50, 950, 4, 0), TINYLDP_STATUS_OK);
  expect_keys_refused(&c, C_KEYED_FUNCTIONS(tinyldp_hh));
  // The refusals of configure.
  CHECK_EQ(tinyldp_hh_configure(&c, one, 0, 100, 3, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_hh_configure(&c, one, 0, 1 << 24, 4, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_hh_configure(&c, one, 0, 100, 4, 1u << 24), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_hh_configure(&c, 0, 0, 100, 4, 0), TINYLDP_STATUS_BAD_EPSILON);
}

// HaarHRR likewise takes the key for its level only: the same reports from both APIs for the
// first attributes (under BothKeys' key) of four different levels of the ten, level 1's (no row
// bits) and level 10's (nine) among them; the key refusals as hh's.
TEST(haar_hrr_gives_the_cpp_reports) {
  BothKeys keys;
  const int32_t values[] = {-50, -7, 0, 462, 950};
  uint32_t levels_seen = 0;  // bit ℓ: a twin at level ℓ
  for (uint32_t attribute = 0; attribute < 64; ++attribute) {
    tinyldp_haar_hrr c;
    CHECK_EQ(tinyldp_haar_hrr_configure(&c, one, -50, 950, attribute), TINYLDP_STATUS_OK);
    HaarHrr m;
    CHECK(HaarHrr::configure(eps_one, -50, 950, m, {}, attribute) == Status::ok);
    CHECK_EQ(m.levels(), 10u);
    const uint32_t level = m.level_of(keys.cpp_key);
    const bool wanted = level == 1 || level == 10 || __builtin_popcount(levels_seen & ~0x402u) < 2;
    if ((levels_seen >> level & 1u) != 0 || !wanted) continue;
    levels_seen |= 1u << level;
    Twins{"haar-hrr", m, &c, C_KEYED_FUNCTIONS(tinyldp_haar_hrr), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(
        values, 951);
  }
  CHECK_EQ(levels_seen & 0x402u, 0x402u);
  CHECK_EQ(__builtin_popcount(levels_seen), 4);
  tinyldp_haar_hrr c;
  CHECK_EQ(tinyldp_haar_hrr_configure(&c, one, -50, 950, 0), TINYLDP_STATUS_OK);
  expect_keys_refused(&c, C_KEYED_FUNCTIONS(tinyldp_haar_hrr));
  // The refusals of configure.
  CHECK_EQ(tinyldp_haar_hrr_configure(&c, one, 5, 5, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_haar_hrr_configure(&c, one, 0, 1 << 24, 0), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_haar_hrr_configure(&c, one, 0, 100, 1u << 24), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_haar_hrr_configure(&c, 0, 0, 100, 0), TINYLDP_STATUS_BAD_EPSILON);
}

TEST(memoized_records_give_the_cpp_reports) {
  BothKeys keys;
  const uint32_t* const domains = record_domains;
  const uint32_t* const out_of_domain = outside;
  using CppRecord = RecordRr<TINYLDP_RECORD_MAX_ATTRIBUTES>;
  // RAPPOR's (f, p, q) = (1/2, 1/4, 3/4) for every attribute.
  tinyldp_record_rr rappor;
  CHECK_EQ(tinyldp_record_rr_configure_rappor(&rappor, {1, 1}, {1, 2}, {3, 2}, domains, 3), TINYLDP_STATUS_OK);
  CppRecord m;
  CHECK(CppRecord::configure_rappor(make_dyadic(1, 1), make_dyadic(1, 2), make_dyadic(3, 2), domains, 3, m) ==
        Status::ok);
  Twins{"record rappor", m, &rappor, C_MEMOIZED_FUNCTIONS(tinyldp_record_rr), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(
      records, out_of_domain);
  // From chains, one per attribute (attribute j's encoding names j).
  tinyldp_two_stage_rr chains[3];
  TwoStageRr cpp_chains[3];
  for (uint32_t j = 0; j < 3; ++j) {
    const tinyldp_memo_encoding e = TINYLDP_MEMO_ONE_HOT_ENCODING(domains[j], j);
    CHECK_EQ(tinyldp_two_stage_rr_configure_chain(&chains[j], TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE, two, one, &e),
             TINYLDP_STATUS_OK);
    CHECK(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, eps_two, eps_one, TwoStageRr::one_hot(domains[j], j),
                                      cpp_chains[j]) == Status::ok);
  }
  tinyldp_record_rr from_chains;
  CHECK_EQ(tinyldp_record_rr_configure(&from_chains, chains, 3), TINYLDP_STATUS_OK);
  CHECK(CppRecord::configure(cpp_chains, 3, m) == Status::ok);
  Twins{"record of chains", m, &from_chains, C_MEMOIZED_FUNCTIONS(tinyldp_record_rr), {&keys.c_key, &keys.cpp_key}}.expect_same_reports(
      records, out_of_domain);
  // Attribute j must name j; no more than the C API's attributes.
  CHECK_EQ(tinyldp_record_rr_configure(&from_chains, chains + 1, 2), TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_record_rr_configure(&from_chains, chains, TINYLDP_RECORD_MAX_ATTRIBUTES + 1),
           TINYLDP_STATUS_BAD_PARAMETER);
  CHECK_EQ(tinyldp_record_rr_configure(&from_chains, nullptr, 1), TINYLDP_STATUS_BAD_PARAMETER);
}

// ---- precision: every _precise configure against C++ with the same Precision ---------------

// A tolerance of 10⁻² (ε · 2^32), and a cap of 8 bits (or a few more: Asked) at the default
// tolerance: both change every mechanism's probabilities (checked below, so a precision the C API
// dropped would be caught).
constexpr tinyldp_precision coarse_precision = {64, TINYLDP_EPSILON_Q32(1, 100)};
constexpr tinyldp_precision capped(uint8_t bits) { return {bits, TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32}; }
constexpr tinyldp_precision default_precision = TINYLDP_PRECISION_DEFAULT;
constexpr tinyldp_precision bad_precisions[] = {{0, TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32},
                                                {65, TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32}};
constexpr Precision cpp_precision(tinyldp_precision p) { return Precision{p.max_bits, p.tolerance_q32}; }
static_assert(default_precision.max_bits == Precision{}.max_bits &&
              default_precision.tolerance_q32 == Precision{}.tolerance_q32);

// A callable by reference (the callable must outlive it), its type erased: the checks below are
// compiled once, or once per mechanism type, not once per call (the Cortex-M0 board has 256 KiB
// of flash for the whole test).
template <class Signature>
class Callable;
template <class R, class... A>
class Callable<R(A...)> {
 public:
  template <class F>
  explicit Callable(const F& f)
      : object_(&f), call_([](const void* o, A... a) -> R { return (*static_cast<const F*>(o))(a...); }) {}
  R operator()(A... a) const { return call_(object_, a...); }

 private:
  const void* object_;
  R (*call_)(const void*, A...);
};

// What the checks need of a C++ configuration: its configure's status, what it is on the wire
// and to the ledger.
struct Configured {
  Status status;
  uint32_t digest, payload_bits;
  uint64_t realized_q32, random_bits;
};
template <class M>
Configured configured_as(Status s, const M& m) {
  uint64_t random_bits = 0;
  if constexpr (requires { m.random_bits_per_report(); }) random_bits = m.random_bits_per_report();
  return {s, m.description().digest, m.description().payload_bits, m.realized_epsilon().q32, random_bits};
}

// What a configure is asked for: ε (0 where the realized ε is another quantity: THE's
// thresholded channel, RS+FD's amplified ε'), in how many shares (SPL's attributes, dBitFlip's
// bits), and the fewest bits its probabilities fit in (more than 8 for some).
struct Asked {
  uint64_t epsilon_q32;
  uint64_t shares = 1;
  uint8_t cap = 8;
};

// C++ at precision p, against its default: configured (and C's status the same), differently
// (so a C API that dropped the precision fails the comparison of reports), with a realized ε ≤
// the request and, at 64 bits, at most a tolerance per share below the default's.
void expect_precise_configuration(const Configured& precise, const Configured& defaults, tinyldp_status c_status,
                                  Asked asked, tinyldp_precision p) {
  CHECK(precise.status == Status::ok);
  CHECK_EQ(c_status, tinyldp_status(precise.status));
  CHECK(precise.digest != defaults.digest || precise.payload_bits != defaults.payload_bits ||
        precise.realized_q32 != defaults.realized_q32 || precise.random_bits != defaults.random_bits);
  if (asked.epsilon_q32 != 0) CHECK_LE(precise.realized_q32, asked.epsilon_q32);
  CHECK_LE(precise.realized_q32, defaults.realized_q32 + asked.shares * (Precision{}.tolerance_q32 + 1));
  if (p.max_bits == 64) CHECK_GE(precise.realized_q32 + asked.shares * (p.tolerance_q32 + 1), defaults.realized_q32);
}

// The C functions of one mechanism over two contexts of it (0 and 1), their type erased.
struct CSide {
  Callable<tinyldp_status(int, tinyldp_precision)> configure_precise;
  Callable<tinyldp_status(int)> configure_plain;
  Callable<void(int, tinyldp_description*, tinyldp_memo_description*)> describe;  // memo: zero if none
  // Value `value` (an index into the values), framed with the global header, or its payload alone.
  Callable<tinyldp_status(int, size_t, const tinyldp_entropy_source*, uint8_t*, size_t*)> report;
  Callable<tinyldp_status(int, size_t, const tinyldp_entropy_source*, uint8_t*)> privatize;
  size_t values;
};

bool same_description(const tinyldp_description& a, const tinyldp_description& b) {
  return a.mechanism_id == b.mechanism_id && a.payload_bits == b.payload_bits && a.digest == b.digest &&
         a.realized_epsilon_q32 == b.realized_epsilon_q32 && a.random_bits_per_report == b.random_bits_per_report;
}
bool same_memo(const tinyldp_memo_description& a, const tinyldp_memo_description& b) {
  const auto same = [](tinyldp_dyadic x, tinyldp_dyadic y) { return x.num == y.num && x.bits == y.bits; };
  return a.epsilon_one_q32 == b.epsilon_one_q32 && a.epsilon_infinity_q32 == b.epsilon_infinity_q32 &&
         a.memo_bits_per_report == b.memo_bits_per_report && same(a.p1, b.p1) && same(a.q1, b.q1) &&
         same(a.p2, b.p2) && same(a.q2, b.q2);
}

// The C side alone: the plain configure and the _precise one at TINYLDP_PRECISION_DEFAULT make
// the same context (description, memo description, frames from equal sources); max_bits 0 and 65
// are refused (bad_parameter) and leave a context that was configured refusing every report,
// its buffers zeroed.
void expect_c_precision(const CSide& c) {
  CHECK_EQ(c.configure_plain(0), TINYLDP_STATUS_OK);
  CHECK_EQ(c.configure_precise(1, default_precision), TINYLDP_STATUS_OK);
  tinyldp_description d0{}, d1{};
  tinyldp_memo_description m0{}, m1{};
  c.describe(0, &d0, &m0);
  c.describe(1, &d1, &m1);
  CHECK(same_description(d0, d1));
  CHECK(same_memo(m0, m1));
  port::InsecureTestSource s0(23), s1(23);
  const tinyldp_entropy_source c0 = to_c_source(s0), c1 = to_c_source(s1);
  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    for (size_t v = 0; v < c.values; ++v) {
      uint8_t f0[frame_capacity] = {}, f1[frame_capacity] = {};
      size_t n0 = 0, n1 = 0;
      const bool ok = c.report(0, v, &c0, f0, &n0) == TINYLDP_STATUS_OK && c.report(1, v, &c1, f1, &n1) == TINYLDP_STATUS_OK;
      if (!ok || n0 == 0 || n0 != n1 || !bytes_equal(f0, f1, n0)) ++mismatches;
    }
  }
  CHECK_EQ(mismatches, 0u);
  for (const tinyldp_precision bad : bad_precisions) {
    CHECK_EQ(c.configure_precise(0, coarse_precision), TINYLDP_STATUS_OK);
    CHECK_EQ(c.configure_precise(0, bad), TINYLDP_STATUS_BAD_PARAMETER);
    port::InsecureTestSource raw(3);
    const tinyldp_entropy_source source = to_c_source(raw);
    uint8_t frame[frame_capacity];
    for (uint8_t& b : frame) b = 0xEE;
    size_t written = 99;
    CHECK_EQ(c.report(0, 0, &source, frame, &written), TINYLDP_STATUS_NOT_CONFIGURED);
    CHECK_EQ(written, 0u);
    CHECK(all_zero(frame, sizeof frame));
    for (uint8_t& b : frame) b = 0xEE;
    CHECK_EQ(c.privatize(0, 0, &source, frame), TINYLDP_STATUS_NOT_CONFIGURED);
    CHECK(all_zero(frame, largest_payload));
  }
}

// One _precise configure (`configure_c(ctx, precision)`) against C++'s (`configure_cpp(m,
// Precision)`) and the plain one (`plain(ctx)`): at the coarse and the capped precision, C++'s
// configuration passes expect_precise_configuration and the C context is its twin (Twins:
// description, frames, payloads, refusals); then expect_c_precision; and max_bits 0 and 65 are
// C++'s bad_parameter too.
template <class M, class Ctx, class Functions, class Value>
void expect_precision_honoured_of(const char* what, Functions functions,
                                  Callable<tinyldp_status(Ctx*, tinyldp_precision)> configure_c,
                                  Callable<Status(M&, Precision)> configure_cpp, Callable<tinyldp_status(Ctx*)> plain,
                                  Asked asked, const Value* values, size_t n, const Value* out_of_domain,
                                  MemoKeys keys) {
  const int before = failures_in_current_test();
  M defaults;
  const Configured by_default = configured_as(configure_cpp(defaults, Precision{}), defaults);
  CHECK(by_default.status == Status::ok);
  Ctx contexts[2];
  const tinyldp_precision precisions[] = {coarse_precision, capped(asked.cap)};
  for (const tinyldp_precision p : precisions) {
    M m;
    const Status s = configure_cpp(m, cpp_precision(p));
    expect_precise_configuration(configured_as(s, m), by_default, configure_c(&contexts[0], p), asked, p);
    if (s == Status::ok) Twins{what, m, &contexts[0], functions, keys}.expect_same_reports_of(values, n, out_of_domain);
  }
  for (const tinyldp_precision bad : bad_precisions) {
    M m;
    CHECK(configure_cpp(m, cpp_precision(bad)) == Status::bad_parameter);
  }
  const auto configure_precise = [&](int i, tinyldp_precision p) { return configure_c(&contexts[i], p); };
  const auto configure_plain = [&](int i) { return plain(&contexts[i]); };
  const auto describe = [&](int i, tinyldp_description* d, tinyldp_memo_description* memo) {
    functions.describe(&contexts[i], d);
    if constexpr (requires { functions.describe_memo; }) functions.describe_memo(&contexts[i], memo);
  };
  const auto report = [&](int i, size_t v, const tinyldp_entropy_source* source, uint8_t* frame, size_t* written) {
    if constexpr (Functions::memoized) {
      return functions.report(&contexts[i], values[v], keys.c, source, &header, frame, frame_capacity, written);
    } else {
      return functions.report(&contexts[i], values[v], source, &header, frame, frame_capacity, written);
    }
  };
  const auto privatize = [&](int i, size_t v, const tinyldp_entropy_source* source, uint8_t* payload) {
    if constexpr (Functions::memoized) {
      return functions.privatize(&contexts[i], values[v], keys.c, source, payload, largest_payload);
    } else {
      return functions.privatize(&contexts[i], values[v], source, payload, largest_payload);
    }
  };
  expect_c_precision(CSide{Callable<tinyldp_status(int, tinyldp_precision)>(configure_precise),
                           Callable<tinyldp_status(int)>(configure_plain),
                           Callable<void(int, tinyldp_description*, tinyldp_memo_description*)>(describe),
                           Callable<tinyldp_status(int, size_t, const tinyldp_entropy_source*, uint8_t*, size_t*)>(report),
                           Callable<tinyldp_status(int, size_t, const tinyldp_entropy_source*, uint8_t*)>(privatize), n});
  if (failures_in_current_test() != before) {
    print(what);
    print(": the _precise configure differs from C++ with its Precision\n");
  }
}
template <class M, class Ctx, class Functions, class ConfigureC, class ConfigureCpp, class Plain, class Value,
          size_t N, class Outside>
void expect_precision_honoured(const char* what, Functions functions, const ConfigureC& configure_c,
                               const ConfigureCpp& configure_cpp, const Plain& plain, Asked asked,
                               const Value (&values)[N], Outside out_of_domain, MemoKeys keys = {}) {
  const Value not_in_domain = static_cast<Value>(out_of_domain);
  expect_precision_honoured_of<M, Ctx>(what, functions, Callable<tinyldp_status(Ctx*, tinyldp_precision)>(configure_c),
                                       Callable<Status(M&, Precision)>(configure_cpp),
                                       Callable<tinyldp_status(Ctx*)>(plain), asked, values, N, &not_in_domain, keys);
}

TEST(precise_frequency_oracles_give_the_cpp_reports) {
  const uint32_t categories[] = {0, 5, 63};
  const uint32_t bits[] = {0, 1};
  const uint64_t three_halves = TINYLDP_EPSILON_Q32(3, 2);
  expect_precision_honoured<BinaryRr, tinyldp_rr>(
      "rr precise", C_FUNCTIONS(tinyldp_rr),
      [&](tinyldp_rr* c, tinyldp_precision p) { return tinyldp_rr_configure_precise(c, three_halves, p); },
      [&](BinaryRr& m, Precision p) { return BinaryRr::configure(Epsilon::from_q32(three_halves), m, p); },
      [&](tinyldp_rr* c) { return tinyldp_rr_configure(c, three_halves); }, Asked{three_halves}, bits, 2u);
  expect_precision_honoured<KaryRr, tinyldp_krr>(
      "krr precise", C_FUNCTIONS(tinyldp_krr),
      [&](tinyldp_krr* c, tinyldp_precision p) { return tinyldp_krr_configure_precise(c, one, 64, p); },
      [&](KaryRr& m, Precision p) { return KaryRr::configure(eps_one, 64, m, p); },
      [&](tinyldp_krr* c) { return tinyldp_krr_configure(c, one, 64); }, Asked{one, 1, 12}, categories, 64u);
  expect_precision_honoured<UnaryEncoding, tinyldp_ue>(
      "oue precise", C_FUNCTIONS(tinyldp_ue),
      [&](tinyldp_ue* c, tinyldp_precision p) { return tinyldp_ue_configure_oue_precise(c, one, 100, p); },
      [&](UnaryEncoding& m, Precision p) { return UnaryEncoding::configure_oue(eps_one, 100, m, p); },
      [&](tinyldp_ue* c) { return tinyldp_ue_configure_oue(c, one, 100); }, Asked{one}, categories, 100u);
  expect_precision_honoured<UnaryEncoding, tinyldp_ue>(
      "sue precise", C_FUNCTIONS(tinyldp_ue),
      [&](tinyldp_ue* c, tinyldp_precision p) { return tinyldp_ue_configure_sue_precise(c, one, 64, p); },
      [&](UnaryEncoding& m, Precision p) { return UnaryEncoding::configure_sue(eps_one, 64, m, p); },
      [&](tinyldp_ue* c) { return tinyldp_ue_configure_sue(c, one, 64); }, Asked{one}, categories, 64u);
  expect_precision_honoured<LocalHashing, tinyldp_lh>(
      "olh precise", C_FUNCTIONS(tinyldp_lh),
      [&](tinyldp_lh* c, tinyldp_precision p) { return tinyldp_lh_configure_olh_precise(c, two, 1024, p); },
      [&](LocalHashing& m, Precision p) { return LocalHashing::configure_olh(eps_two, 1024, m, p); },
      [&](tinyldp_lh* c) { return tinyldp_lh_configure_olh(c, two, 1024); }, Asked{two}, categories, 1024u);
  expect_precision_honoured<LocalHashing, tinyldp_lh>(
      "blh precise", C_FUNCTIONS(tinyldp_lh),
      [&](tinyldp_lh* c, tinyldp_precision p) { return tinyldp_lh_configure_blh_precise(c, one, 1024, p); },
      [&](LocalHashing& m, Precision p) { return LocalHashing::configure_blh(eps_one, 1024, m, p); },
      [&](tinyldp_lh* c) { return tinyldp_lh_configure_blh(c, one, 1024); }, Asked{one}, categories, 1024u);
  expect_precision_honoured<HadamardResponse, tinyldp_hr>(
      "hr precise", C_FUNCTIONS(tinyldp_hr),
      [&](tinyldp_hr* c, tinyldp_precision p) { return tinyldp_hr_configure_precise(c, one, 100, p); },
      [&](HadamardResponse& m, Precision p) { return HadamardResponse::configure(eps_one, 100, m, p); },
      [&](tinyldp_hr* c) { return tinyldp_hr_configure(c, one, 100); }, Asked{one}, categories, 100u);
  expect_precision_honoured<ThresholdHistogram, tinyldp_the>(
      "the precise", C_FUNCTIONS(tinyldp_the),
      [&](tinyldp_the* c, tinyldp_precision p) { return tinyldp_the_configure_precise(c, one, 64, p); },
      [&](ThresholdHistogram& m, Precision p) { return ThresholdHistogram::configure(eps_one, 64, m, p); },
      [&](tinyldp_the* c) { return tinyldp_the_configure(c, one, 64); }, Asked{0}, categories, 64u);
  // A cap too few bits for the probabilities (k-RR's q over 64 values at ε = 1 in 8 bits): C++'s
  // precision_too_low, and a context that refuses.
  KaryRr cpp_krr;
  CHECK(KaryRr::configure(eps_one, 64, cpp_krr, cpp_precision(capped(8))) == Status::precision_too_low);
  tinyldp_krr krr;
  CHECK_EQ(tinyldp_krr_configure_precise(&krr, one, 64, capped(8)), TINYLDP_STATUS_PRECISION_TOO_LOW);
  port::InsecureTestSource raw(3);
  const tinyldp_entropy_source source = to_c_source(raw);
  uint8_t frame[32];
  for (uint8_t& b : frame) b = 0xEE;
  size_t written = 99;
  CHECK_EQ(tinyldp_krr_report(&krr, 3, &source, nullptr, frame, sizeof frame, &written), TINYLDP_STATUS_NOT_CONFIGURED);
  CHECK_EQ(written, 0u);
  CHECK(all_zero(frame, sizeof frame));
}

TEST(precise_numeric_mechanisms_give_the_cpp_reports) {
  const int32_t values[] = {-50, 0, 50};
  expect_precision_honoured<StochasticDiscretization, tinyldp_sd>(
      "sd precise", C_FUNCTIONS(tinyldp_sd),
      [&](tinyldp_sd* c, tinyldp_precision p) { return tinyldp_sd_configure_precise(c, one, -50, 50, 16, p); },
      [&](StochasticDiscretization& m, Precision p) {
        return StochasticDiscretization::configure(eps_one, -50, 50, 16, m, p);
      },
      [&](tinyldp_sd* c) { return tinyldp_sd_configure(c, one, -50, 50, 16); }, Asked{one}, values, 51);
  expect_precision_honoured<PiecewiseMechanism, tinyldp_pm>(
      "pm precise", C_FUNCTIONS(tinyldp_pm),
      [&](tinyldp_pm* c, tinyldp_precision p) { return tinyldp_pm_configure_precise(c, one, -50, 50, 256, p); },
      [&](PiecewiseMechanism& m, Precision p) { return PiecewiseMechanism::configure(eps_one, -50, 50, 256, m, p); },
      [&](tinyldp_pm* c) { return tinyldp_pm_configure(c, one, -50, 50, 256); }, Asked{one, 1, 12}, values, 51);
  expect_precision_honoured<HybridMechanism, tinyldp_hm>(
      "hm precise", C_FUNCTIONS(tinyldp_hm),
      [&](tinyldp_hm* c, tinyldp_precision p) { return tinyldp_hm_configure_precise(c, two, -50, 50, 256, p); },
      [&](HybridMechanism& m, Precision p) { return HybridMechanism::configure(eps_two, -50, 50, 256, m, p); },
      [&](tinyldp_hm* c) { return tinyldp_hm_configure(c, two, -50, 50, 256); }, Asked{two, 1, 12}, values, 51);
  expect_precision_honoured<SquareWave, tinyldp_sw>(
      "sw precise", C_FUNCTIONS(tinyldp_sw),
      [&](tinyldp_sw* c, tinyldp_precision p) { return tinyldp_sw_configure_precise(c, one, -50, 50, 101, p); },
      [&](SquareWave& m, Precision p) { return SquareWave::configure(eps_one, -50, 50, 101, m, p); },
      [&](tinyldp_sw* c) { return tinyldp_sw_configure(c, one, -50, 50, 101); }, Asked{one, 1, 12}, values, 51);
  BothKeys keys;
  const MemoKeys both = {&keys.c_key, &keys.cpp_key};
  expect_precision_honoured<HierarchicalHistogram, tinyldp_hh>(
      "hh precise", C_KEYED_FUNCTIONS(tinyldp_hh),
      [&](tinyldp_hh* c, tinyldp_precision p) { return tinyldp_hh_configure_precise(c, one, -50, 950, 4, 1, p); },
      [&](HierarchicalHistogram& m, Precision p) {
        return HierarchicalHistogram::configure(eps_one, -50, 950, 4, m, p, 1);
      },
      [&](tinyldp_hh* c) { return tinyldp_hh_configure(c, one, -50, 950, 4, 1); }, Asked{one}, values, 951, both);
  expect_precision_honoured<HaarHrr, tinyldp_haar_hrr>(
      "haar-hrr precise", C_KEYED_FUNCTIONS(tinyldp_haar_hrr),
      [&](tinyldp_haar_hrr* c, tinyldp_precision p) {
        return tinyldp_haar_hrr_configure_precise(c, one, -50, 950, 1, p);
      },
      [&](HaarHrr& m, Precision p) { return HaarHrr::configure(eps_one, -50, 950, m, p, 1); },
      [&](tinyldp_haar_hrr* c) { return tinyldp_haar_hrr_configure(c, one, -50, 950, 1); }, Asked{one}, values, 951,
      both);
}

// A record protocol M through its _precise configure (`Extra`: RS+FD over OUE's fake data).
template <class M, class Ctx, class Functions, class Precise, class... Extra>
void expect_precise_record(const char* what, Functions functions, Precise precise,
                           tinyldp_status (*plain)(Ctx*, uint64_t, const uint32_t*, uint32_t, Extra...),
                           Asked asked, Extra... extra) {
  const Epsilon eps = Epsilon::from_q32(record_eps_q32);
  expect_precision_honoured<M, Ctx>(
      what, functions,
      [&](Ctx* c, tinyldp_precision p) { return precise(c, record_eps_q32, record_domains, 3, extra..., p); },
      [&](M& m, Precision p) {
        if constexpr (sizeof...(Extra) != 0) {
          return M::configure(eps, record_domains, 3, m, FakeData(extra)..., p);
        } else if constexpr (requires { M::configure(eps, record_domains, 3u, m, p); }) {
          return M::configure(eps, record_domains, 3, m, p);
        } else {  // RS+FD over k-RR: the fake data (a uniform value) is the core's, whatever is passed
          return M::configure(eps, record_domains, 3, m, FakeData::zero, p);
        }
      },
      [&](Ctx* c) { return plain(c, record_eps_q32, record_domains, 3, extra...); }, asked, records,
      static_cast<const uint32_t*>(outside));
}

TEST(precise_records_give_the_cpp_reports) {
  expect_precise_record<SplitRecord<GrrSlot, A>>("spl-grr precise", C_FUNCTIONS(tinyldp_spl_grr),
                                                tinyldp_spl_grr_configure_precise, tinyldp_spl_grr_configure,
                                                Asked{record_eps_q32, 3});
  expect_precise_record<SplitRecord<OueSlot, A>>("spl-oue precise", C_FUNCTIONS(tinyldp_spl_oue),
                                                tinyldp_spl_oue_configure_precise, tinyldp_spl_oue_configure,
                                                Asked{record_eps_q32, 3});
  expect_precise_record<SampledAttribute<GrrSlot, A>>("smp-grr precise", C_FUNCTIONS(tinyldp_smp_grr),
                                                     tinyldp_smp_grr_configure_precise, tinyldp_smp_grr_configure,
                                                     Asked{record_eps_q32});
  expect_precise_record<SampledAttribute<OueSlot, A>>("smp-oue precise", C_FUNCTIONS(tinyldp_smp_oue),
                                                     tinyldp_smp_oue_configure_precise, tinyldp_smp_oue_configure,
                                                     Asked{record_eps_q32});
  expect_precise_record<FakeDataRecord<GrrSlot, A>>("rsfd-grr precise", C_FUNCTIONS(tinyldp_rsfd_grr),
                                                   tinyldp_rsfd_grr_configure_precise, tinyldp_rsfd_grr_configure,
                                                   Asked{0});
  expect_precise_record<FakeDataRecord<OueSlot, A>>("rsfd-oue-z precise", C_FUNCTIONS(tinyldp_rsfd_oue),
                                                   tinyldp_rsfd_oue_configure_precise, tinyldp_rsfd_oue_configure, Asked{0},
                                                   uint8_t{TINYLDP_RSFD_FAKE_ZERO});
  expect_precise_record<FakeDataRecord<OueSlot, A>>("rsfd-oue-r precise", C_FUNCTIONS(tinyldp_rsfd_oue),
                                                   tinyldp_rsfd_oue_configure_precise, tinyldp_rsfd_oue_configure, Asked{0},
                                                   uint8_t{TINYLDP_RSFD_FAKE_RANDOM});
}

TEST(precise_memoized_mechanisms_give_the_cpp_reports) {
  BothKeys keys;
  const MemoKeys both = {&keys.c_key, &keys.cpp_key};
  const uint32_t values[] = {0, 17, 63};
  const tinyldp_memo_encoding encoding = TINYLDP_MEMO_ONE_HOT_ENCODING(64, 2);
  const uint8_t chains[][2] = {{TINYLDP_UE_STAGE_OUE, TINYLDP_UE_STAGE_SUE}, {TINYLDP_UE_STAGE_SUE, TINYLDP_UE_STAGE_OUE}};
  for (const auto& stages : chains) {
    const uint8_t first = stages[0], second = stages[1];
    expect_precision_honoured<TwoStageRr, tinyldp_two_stage_rr>(
        "chain precise", C_MEMOIZED_FUNCTIONS(tinyldp_two_stage_rr),
        [&](tinyldp_two_stage_rr* c, tinyldp_precision p) {
          return tinyldp_two_stage_rr_configure_chain_precise(c, first, second, two, one, &encoding, p);
        },
        [&](TwoStageRr& m, Precision p) {
          return TwoStageRr::configure_chain(UeStage(first), UeStage(second), eps_two, eps_one,
                                             TwoStageRr::one_hot(64, 2), m, p);
        },
        [&](tinyldp_two_stage_rr* c) {
          return tinyldp_two_stage_rr_configure_chain(c, first, second, two, one, &encoding);
        },
        Asked{one}, values, 64u, both);
  }
  expect_precision_honoured<LongitudinalGrr, tinyldp_l_grr>(
      "l-grr precise", C_MEMOIZED_FUNCTIONS(tinyldp_l_grr),
      [&](tinyldp_l_grr* c, tinyldp_precision p) { return tinyldp_l_grr_configure_precise(c, two, one, 64, 3, p); },
      [&](LongitudinalGrr& m, Precision p) { return LongitudinalGrr::configure(eps_two, eps_one, 64, m, p, 3); },
      [&](tinyldp_l_grr* c) { return tinyldp_l_grr_configure(c, two, one, 64, 3); }, Asked{one, 1, 12}, values, 64u,
      both);
  expect_precision_honoured<Loloha, tinyldp_loloha>(
      "loloha precise", C_MEMOIZED_FUNCTIONS(tinyldp_loloha),
      [&](tinyldp_loloha* c, tinyldp_precision p) {
        return tinyldp_loloha_configure_precise(c, two, one, 1000, 5, 1, p);
      },
      [&](Loloha& m, Precision p) { return Loloha::configure(eps_two, eps_one, 1000, 5, m, p, 1); },
      [&](tinyldp_loloha* c) { return tinyldp_loloha_configure(c, two, one, 1000, 5, 1); }, Asked{one}, values, 1000u,
      both);
  const uint64_t five = TINYLDP_EPSILON_Q32(5, 1);
  expect_precision_honoured<Loloha, tinyldp_loloha>(
      "ololoha precise", C_MEMOIZED_FUNCTIONS(tinyldp_loloha),
      [&](tinyldp_loloha* c, tinyldp_precision p) {
        return tinyldp_loloha_configure_optimal_precise(c, five, two, 1000, 1, p);
      },
      [&](Loloha& m, Precision p) {
        return Loloha::configure_optimal(Epsilon::from_q32(five), eps_two, 1000, m, p, 1);
      },
      [&](tinyldp_loloha* c) { return tinyldp_loloha_configure_optimal(c, five, two, 1000, 1); }, Asked{two}, values,
      1000u, both);
  expect_precision_honoured<Loloha, tinyldp_loloha>(
      "biloloha precise", C_MEMOIZED_FUNCTIONS(tinyldp_loloha),
      [&](tinyldp_loloha* c, tinyldp_precision p) {
        return tinyldp_loloha_configure_binary_precise(c, two, one, 1000, 1, p);
      },
      [&](Loloha& m, Precision p) { return Loloha::configure_binary(eps_two, eps_one, 1000, m, p, 1); },
      [&](tinyldp_loloha* c) { return tinyldp_loloha_configure_binary(c, two, one, 1000, 1); }, Asked{one}, values,
      1000u, both);
  const uint32_t counters[] = {0, 50, 100};
  expect_precision_honoured<OneBitMean, tinyldp_one_bit_mean>(
      "1bitmean precise", C_MEMOIZED_FUNCTIONS(tinyldp_one_bit_mean),
      [&](tinyldp_one_bit_mean* c, tinyldp_precision p) {
        return tinyldp_one_bit_mean_configure_precise(c, two, one, 100, 10, 32, 2, p);
      },
      [&](OneBitMean& m, Precision p) { return OneBitMean::configure(eps_two, eps_one, {100, 10, 32, 2}, m, p); },
      [&](tinyldp_one_bit_mean* c) { return tinyldp_one_bit_mean_configure(c, two, one, 100, 10, 32, 2); },
      Asked{one}, counters, 101u, both);
  expect_precision_honoured<DBitFlip, tinyldp_dbitflip>(
      "dbitflip precise", C_MEMOIZED_FUNCTIONS(tinyldp_dbitflip),
      [&](tinyldp_dbitflip* c, tinyldp_precision p) {
        return tinyldp_dbitflip_configure_precise(c, two, one, 100, 10, 4, 2, p);
      },
      [&](DBitFlip& m, Precision p) { return DBitFlip::configure(eps_two, eps_one, {100, 10, 4, 2}, m, p); },
      [&](tinyldp_dbitflip* c) { return tinyldp_dbitflip_configure(c, two, one, 100, 10, 4, 2); },
      Asked{one, 2}, counters, 101u, both);  // ε₁ in two shares: a changed value changes two sampled bits
}

// What the precision is for (tinyldp.h's example): OUE over 256 values at a tolerance of 10⁻²
// draws fewer than half the random bits per report of the default, for a realized ε at most 10⁻²
// below ε = 1, as the C description states them.
TEST(coarse_precision_draws_fewer_random_bits) {
  tinyldp_ue fine, coarse;
  CHECK_EQ(tinyldp_ue_configure_oue(&fine, one, 256), TINYLDP_STATUS_OK);
  CHECK_EQ(tinyldp_ue_configure_oue_precise(&coarse, one, 256, coarse_precision), TINYLDP_STATUS_OK);
  tinyldp_description f{}, c{};
  tinyldp_ue_describe(&fine, &f);
  tinyldp_ue_describe(&coarse, &c);
  CHECK_LT(2 * c.random_bits_per_report, f.random_bits_per_report);
  CHECK_LE(c.realized_epsilon_q32, one);
  CHECK_GE(c.realized_epsilon_q32 + coarse_precision.tolerance_q32, one);
  CHECK_LE(c.realized_epsilon_q32, f.realized_epsilon_q32);
  CHECK(c.digest != f.digest);  // another q: the collector knows these reports apart
  print("    OUE, d = 256, eps = 1: ");
  print_u64(f.random_bits_per_report);
  print(" random bits per report at the default precision, ");
  print_u64(c.random_bits_per_report);
  print(" at a tolerance of 1e-2\n");
}

}  // namespace
}  // namespace tinyldp::test
