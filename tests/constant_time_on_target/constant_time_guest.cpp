// SPDX-License-Identifier: Apache-2.0
// The report path of every mechanism, run on the emulated target for one private value per
// run: what check_constant_time_trace.py traces instruction by instruction under QEMU, and
// what check_report_path.py disassembles. Each case's report is made between the markers
// tinyldp_ct_begin() and tinyldp_ct_end(), from a random stream that is the same in every run
// (a fixed table: no arithmetic of its own), so the executed instructions may depend on
// nothing but the code — and, if the code leaks, on the value. The value is chosen outside
// the window from the run's argument (0 … 3); every mechanism is configured at compile time,
// and the mechanisms whose parameters would otherwise be divided or multiplied on the report
// path (SHE, 1BitMean, dBitFlip) once more as if at run time (the rt_* cases: see
// configure_at_run_time), so that the compiler folds nothing of their configuration.
// The memoized mechanisms draw their memos from the real ChaCha20 memo key under one fixed
// secret (the key is a long-lived secret, the same in every run: only the value changes, and
// with it the memo stream's nonce and every memo bit). Record mechanisms change every
// attribute's value per run.
//
// RS+FD keeps its sampled attribute secret (it is not in the report), so a second family of
// cases, sampled_rsfd_*, holds the record fixed and makes the stream differ in the two bits
// that draw the attribute (the first two of the stream): each run samples another attribute,
// and the instructions must still be the same.
//
// `--planted-leak` adds one more case, ct_planted_report, whose time depends on the value (a
// loop as long as it, and a division by it): the checks must fail on it.
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "device_memo_key.hpp"
#include "tinyldp/bit_flip_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/multi_attribute.hpp"
#include "tinyldp/port/entropy/memo_key.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
using namespace tinyldp;

// A stream of fixed bytes, the same in every run: enough for every case's report. Its first
// byte is XORed with `first_byte_xor` (0 but in the sampled_* cases), without a branch.
class TableSource {
 public:
  explicit TableSource(uint8_t first_byte_xor = 0) : first_byte_xor_(first_byte_xor) {}
  EntropyResult fill(uint8_t* out, size_t length, uint32_t /*flags*/) {
    for (size_t i = 0; i < length; ++i) {
      out[i] = static_cast<uint8_t>((next_++ * 0x9Du + 0x3Bu) ^ first_byte_xor_);
      first_byte_xor_ = 0;
    }
    return EntropyResult::ok;
  }

 private:
  uint8_t next_ = 0;
  uint8_t first_byte_xor_;
};
static_assert(EntropySource<TableSource>);
using Rng = RandomBits<TableSource>;

void write(const char* s) {
  size_t n = 0;
  while (s[n] != 0) ++n;
  tinyldp_board_write(s, n);
}

bool failed = false;
void check(Status s, const char* what) {
  if (s == Status::ok) return;
  write("error: ");
  write(what);
  write("\n");
  failed = true;
}

// Configured at compile time (the core's consteval makers): nothing but the reports runs on
// the target, so the single-stepped trace stays short.
constexpr uint32_t d = 64;
constexpr Epsilon one = Epsilon::from_ratio(1, 1);
constexpr BinaryRr rr = BinaryRr::make(one);
constexpr KaryRr krr = KaryRr::make(one, 16);
constexpr UnaryEncoding sue = UnaryEncoding::make_sue(one, d);
constexpr UnaryEncoding oue = UnaryEncoding::make_oue(one, d);
constexpr LocalHashing blh = LocalHashing::make_blh(one, d);
constexpr LocalHashing olh = LocalHashing::make_olh(one, d);
// g = 0xADFFFF: a range whose hash reduction ⌊x·g/2^32⌋, as a plain 64-bit product, is libgcc's
// __aeabi_lmul on Cortex-M0, which branches on a carry out of its cross products (issue #14,
// F1). Under the seed this stream draws, values 475 and 1556 hash to words that take that
// branch and 0 and 2^20 − 1 do not (found by evaluating local_hash_mix on the host): with the
// plain product the trace differs between these runs.
constexpr uint32_t wide_d = uint32_t{1} << 20;
constexpr LocalHashing olh_wide = LocalHashing::make_olh(Epsilon::from_ratio(1624941, 100000), wide_d);
static_assert(olh_wide.range() == 0xADFFFF);
constexpr HadamardResponse hr = HadamardResponse::make(one, d);
constexpr StochasticDiscretization sd = StochasticDiscretization::make(one, 0, 1000, 16);
constexpr auto dl_weights =
    DiscreteLaplaceTable<DiscreteLaplace::table_entries(0, 100)>::make(one, 0, 100, 100);
constexpr DiscreteLaplace dl = dl_weights.bind();
constexpr auto she_weights = SummationHistogramTable<SummationHistogram::table_entries(
    SummationHistogram::default_truncation(one))>::make(one, 16);
constexpr SummationHistogram she = she_weights.bind();
constexpr ThresholdHistogram the = ThresholdHistogram::make(one, d);
uint8_t she_report[she.report_bytes()];
uint8_t ue_report[d / 8];

// The memoized mechanisms (ε∞ = 2, ε₁ = 1), keyed by memo_key (set in main, outside the windows).
port::MemoKey memo_key;
constexpr Epsilon eps_inf = Epsilon::from_ratio(2, 1);
constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};
constexpr uint32_t memo_d = 16;
constexpr TwoStageRr rappor =
    TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::one_hot(memo_d));
constexpr TwoStageRr rappor_bloom =
    TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::bloom(32, 2, 4));
constexpr TwoStageRr l_sue = TwoStageRr::make_chain(UeStage::sue, UeStage::sue, eps_inf, one, TwoStageRr::one_hot(memo_d));
constexpr TwoStageRr l_osue = TwoStageRr::make_chain(UeStage::oue, UeStage::sue, eps_inf, one, TwoStageRr::one_hot(memo_d));
constexpr TwoStageRr l_oue = TwoStageRr::make_chain(UeStage::oue, UeStage::oue, eps_inf, one, TwoStageRr::one_hot(memo_d));
constexpr TwoStageRr l_soue = TwoStageRr::make_chain(UeStage::sue, UeStage::oue, eps_inf, one, TwoStageRr::one_hot(memo_d));
constexpr LongitudinalGrr l_grr = LongitudinalGrr::make(eps_inf, one, 6);
constexpr Loloha loloha = Loloha::make_optimal(eps_inf, one, 96);
constexpr Loloha biloloha = Loloha::make_binary(eps_inf, one, 96);
constexpr OneBitMean one_bit_mean = OneBitMean::make(eps_inf, one, OneBitMean::Grid{100, 10});
constexpr DBitFlip dbitflip = DBitFlip::make(eps_inf, one, DBitFlip::Layout{100, 10, 3, 0});

// Configured at run time, as far as the report paths can tell: main copies the compile-time
// contexts into these globals behind a compiler barrier (opaque: the asm may have rewritten
// them), so the code of the rt_* cases reads m, s, J, k, d and SHE's component width from
// memory and folds nothing — the code a context configured by configure() at run time gets.
// (Calling configure() on the target itself would add millions of traced instructions of
// configuration-time arithmetic before the first window.)
OneBitMean rt_one_bit_mean;
DBitFlip rt_dbitflip;
SummationHistogram rt_she;
template <class T>
void opaque(T& object) {
  __asm__ __volatile__("" : : "r"(&object) : "memory");
}
void configure_at_run_time() {
  rt_one_bit_mean = one_bit_mean;
  rt_dbitflip = dbitflip;
  rt_she = she;
  opaque(rt_one_bit_mean), opaque(rt_dbitflip), opaque(rt_she);
}

// Records of four attributes: the memoized record RR, SPL, SMP and RS+FD over GRR and OUE.
constexpr uint32_t attributes = 4;
constexpr uint32_t record_domains[attributes] = {2, 5, 17, 3};
constexpr RecordRr<attributes> record_rr = [] {
  RecordRr<attributes> r;
  (void)RecordRr<attributes>::configure_rappor(half, quarter, three_quarters, record_domains, attributes, r);
  return r;
}();
static_assert(record_rr.attributes() == attributes);
constexpr auto spl_grr = SplitRecord<GrrSlot, attributes>::make(one, record_domains, attributes);
constexpr auto spl_oue = SplitRecord<OueSlot, attributes>::make(one, record_domains, attributes);
constexpr auto smp_grr = SampledAttribute<GrrSlot, attributes>::make(one, record_domains, attributes);
constexpr auto smp_oue = SampledAttribute<OueSlot, attributes>::make(one, record_domains, attributes);
constexpr auto rsfd_grr = FakeDataRecord<GrrSlot, attributes>::make(one, record_domains, attributes);
constexpr auto rsfd_oue_z = FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::zero);
constexpr auto rsfd_oue_r = FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::random);
// One record per run, every attribute's value different from run to run (run 0: all zero).
constexpr uint32_t records[4][attributes] = {{0, 0, 0, 0}, {1, 3, 11, 2}, {0, 4, 16, 1}, {1, 1, 5, 0}};
// The sampled_* cases' record, the same in every run.
constexpr const uint32_t* fixed_record = records[1];
uint8_t payload[16];
static_assert(sizeof payload >= record_rr.report_bytes() && sizeof payload >= spl_oue.report_bytes() &&
              sizeof payload >= rsfd_oue_r.report_bytes() && sizeof payload >= rappor_bloom.report_bytes());

}  // namespace

// The window markers (the trace is cut at their addresses) and one function per case, so
// that the disassembly check can start from each case's report path.
extern "C" {
__attribute__((noinline)) void tinyldp_ct_begin() { __asm__ __volatile__("" ::: "memory"); }
__attribute__((noinline)) void tinyldp_ct_end() { __asm__ __volatile__("" ::: "memory"); }

// A case of parameter `value` (a private value, a record, or — sampled_* — the stream's
// first-byte XOR) whose stream's first byte is XORed with `first_byte_xor`.
#define TINYLDP_CT_REPORT(name, Value, first_byte_xor, ...)              \
  __attribute__((noinline)) Status ct_report_##name(Value value) {       \
    TableSource source(first_byte_xor);                                  \
    Rng rng(source);                                                     \
    tinyldp_ct_begin();                                                  \
    const Status s = __VA_ARGS__;                                        \
    tinyldp_ct_end();                                                    \
    return s;                                                            \
  }
#define TINYLDP_CT_CASE(name, ...) TINYLDP_CT_REPORT(name, uint32_t, 0, __VA_ARGS__)
#define TINYLDP_CT_RECORD_CASE(name, ...) TINYLDP_CT_REPORT(name, const uint32_t*, 0, __VA_ARGS__)
#define TINYLDP_CT_SAMPLED_CASE(name, ...) \
  TINYLDP_CT_REPORT(sampled_##name, uint32_t, static_cast<uint8_t>(value), __VA_ARGS__)

TINYLDP_CT_CASE(rr, [&] { uint8_t r = 0; return rr.privatize(value, rng, r); }())
TINYLDP_CT_CASE(krr, [&] { uint32_t r = 0; return krr.privatize(value, rng, r); }())
TINYLDP_CT_CASE(sue, sue.privatize(value, rng, ue_report, sizeof ue_report))
TINYLDP_CT_CASE(oue, oue.privatize(value, rng, ue_report, sizeof ue_report))
TINYLDP_CT_CASE(blh, [&] { LocalHashingReport r{}; return blh.privatize(value, rng, r); }())
TINYLDP_CT_CASE(olh, [&] { LocalHashingReport r{}; return olh.privatize(value, rng, r); }())
TINYLDP_CT_CASE(olh_wide, [&] { LocalHashingReport r{}; return olh_wide.privatize(value, rng, r); }())
TINYLDP_CT_CASE(hr, [&] { HadamardReport r{}; return hr.privatize(value, rng, r); }())
TINYLDP_CT_CASE(sd, [&] { uint32_t r = 0; return sd.privatize(static_cast<int32_t>(value), rng, r); }())
TINYLDP_CT_CASE(dlaplace, [&] { int32_t r = 0; return dl.privatize(static_cast<int32_t>(value), rng, r); }())
TINYLDP_CT_CASE(she, she.privatize(value, rng, she_report, sizeof she_report))
TINYLDP_CT_CASE(the, the.privatize(value, rng, ue_report, sizeof ue_report))
TINYLDP_CT_CASE(rappor, rappor.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(rappor_bloom, rappor_bloom.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(l_sue, l_sue.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(l_osue, l_osue.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(l_oue, l_oue.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(l_soue, l_soue.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(l_grr, [&] { uint32_t r = 0; return l_grr.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(loloha, [&] { LocalHashingReport r{}; return loloha.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(biloloha, [&] { LocalHashingReport r{}; return biloloha.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(one_bit_mean, [&] { uint8_t r = 0; return one_bit_mean.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(dbitflip, [&] { DBitFlipReport r{}; return dbitflip.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(rt_she, rt_she.privatize(value, rng, she_report, sizeof she_report))
TINYLDP_CT_CASE(rt_one_bit_mean, [&] { uint8_t r = 0; return rt_one_bit_mean.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_CASE(rt_dbitflip, [&] { DBitFlipReport r{}; return rt_dbitflip.privatize(value, memo_key, rng, r); }())
TINYLDP_CT_RECORD_CASE(record_rr, record_rr.privatize(value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(spl_grr, spl_grr.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(spl_oue, spl_oue.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(smp_grr, smp_grr.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(smp_oue, smp_oue.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(rsfd_grr, rsfd_grr.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(rsfd_oue_z, rsfd_oue_z.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_RECORD_CASE(rsfd_oue_r, rsfd_oue_r.privatize(value, rng, payload, sizeof payload))
// RS+FD's sampled attribute is the first draw (⌈log2 4⌉ = 2 bits, the stream's first byte's
// low bits: 3 in the table): XORing them with the run's 0 … 3 samples attributes 3, 2, 1, 0.
TINYLDP_CT_SAMPLED_CASE(rsfd_grr, rsfd_grr.privatize(fixed_record, rng, payload, sizeof payload))
TINYLDP_CT_SAMPLED_CASE(rsfd_oue_z, rsfd_oue_z.privatize(fixed_record, rng, payload, sizeof payload))
TINYLDP_CT_SAMPLED_CASE(rsfd_oue_r, rsfd_oue_r.privatize(fixed_record, rng, payload, sizeof payload))

// Planted: a loop as long as the value (no predication can hide it) and a division by it.
volatile uint32_t planted_dividend = 1000003u;
__attribute__((noinline)) Status ct_planted_report(uint32_t value) {
  tinyldp_ct_begin();
  uint32_t x = planted_dividend / (value | 1u);
  for (uint32_t i = 0; i < (value & 7u); ++i) x += planted_dividend;
  planted_dividend = x;
  tinyldp_ct_end();
  return Status::ok;
}
}

namespace {

struct Case {
  const char* name;
  Status (*report)(uint32_t value);
  uint32_t values[4];  // one per run
  Status (*record_report)(const uint32_t* values) = nullptr;  // instead: records[run]
};
const Case cases[] = {
    {"rr", ct_report_rr, {0, 1, 1, 0}},
    {"krr", ct_report_krr, {0, 5, 9, 15}},
    {"sue", ct_report_sue, {0, 5, 33, d - 1}},
    {"oue", ct_report_oue, {0, 5, 33, d - 1}},
    {"blh", ct_report_blh, {0, 5, 33, d - 1}},
    {"olh", ct_report_olh, {0, 5, 33, d - 1}},
    {"olh_wide", ct_report_olh_wide, {0, 475, 1556, wide_d - 1}},
    {"hr", ct_report_hr, {0, 5, 33, d - 1}},
    {"sd", ct_report_sd, {0, 333, 999, 1000}},
    {"dlaplace", ct_report_dlaplace, {0, 37, 99, 100}},
    {"she", ct_report_she, {0, 5, 9, 15}},
    {"the", ct_report_the, {0, 5, 33, d - 1}},
    {"rappor", ct_report_rappor, {0, 5, 9, memo_d - 1}},
    {"rappor_bloom", ct_report_rappor_bloom, {0, 5, 1234, 0xFFFFFFFFu}},
    {"l_sue", ct_report_l_sue, {0, 5, 9, memo_d - 1}},
    {"l_osue", ct_report_l_osue, {0, 5, 9, memo_d - 1}},
    {"l_oue", ct_report_l_oue, {0, 5, 9, memo_d - 1}},
    {"l_soue", ct_report_l_soue, {0, 5, 9, memo_d - 1}},
    {"l_grr", ct_report_l_grr, {0, 2, 4, 5}},
    {"loloha", ct_report_loloha, {0, 5, 50, 95}},
    {"biloloha", ct_report_biloloha, {0, 5, 50, 95}},
    {"one_bit_mean", ct_report_one_bit_mean, {0, 37, 99, 100}},
    {"dbitflip", ct_report_dbitflip, {0, 37, 99, 100}},
    {"rt_she", ct_report_rt_she, {0, 5, 9, 15}},
    {"rt_one_bit_mean", ct_report_rt_one_bit_mean, {0, 37, 99, 100}},
    {"rt_dbitflip", ct_report_rt_dbitflip, {0, 37, 99, 100}},
    {"record_rr", nullptr, {}, ct_report_record_rr},
    {"spl_grr", nullptr, {}, ct_report_spl_grr},
    {"spl_oue", nullptr, {}, ct_report_spl_oue},
    {"smp_grr", nullptr, {}, ct_report_smp_grr},
    {"smp_oue", nullptr, {}, ct_report_smp_oue},
    {"rsfd_grr", nullptr, {}, ct_report_rsfd_grr},
    {"rsfd_oue_z", nullptr, {}, ct_report_rsfd_oue_z},
    {"rsfd_oue_r", nullptr, {}, ct_report_rsfd_oue_r},
    {"sampled_rsfd_grr", ct_report_sampled_rsfd_grr, {0, 1, 2, 3}},
    {"sampled_rsfd_oue_z", ct_report_sampled_rsfd_oue_z, {0, 1, 2, 3}},
    {"sampled_rsfd_oue_r", ct_report_sampled_rsfd_oue_r, {0, 1, 2, 3}},
};

// The run's arguments: "<elf> <run 0…3> [--planted-leak]".
bool parse_arguments(uint32_t& run, bool& planted) {
  char line[256];
  if (tinyldp_board_command_line(line, sizeof line) != 0) return false;
  const char* p = line;
  while (*p != 0 && *p != ' ') ++p;  // the ELF's name
  while (*p == ' ') ++p;
  if (*p < '0' || *p > '3') return false;
  run = static_cast<uint32_t>(*p - '0');
  ++p;
  while (*p == ' ') ++p;
  const char* flag = "--planted-leak";
  size_t i = 0;
  while (flag[i] != 0 && p[i] == flag[i]) ++i;
  planted = flag[i] == 0;
  return true;
}

}  // namespace

int main() {
  uint32_t run = 0;
  bool planted = false;
  if (!parse_arguments(run, planted)) {
    write("usage: constant_time_guest <run 0-3> [--planted-leak]\n");
    tinyldp_board_exit(2);
  }
  memo_key = test::device_memo_key(1, 29, 101);
  configure_at_run_time();
  for (const Case& c : cases) {
    write("case ");
    write(c.name);
    write("\n");
    check(c.record_report != nullptr ? c.record_report(records[run]) : c.report(c.values[run]), c.name);
  }
  if (planted) {
    const uint32_t values[4] = {0, 5, 33, 63};
    write("case planted\n");
    check(ct_planted_report(values[run]), "planted");
  }
  write(failed ? "a report failed\n" : "done\n");
  tinyldp_board_exit(failed ? 1 : 0);
}
