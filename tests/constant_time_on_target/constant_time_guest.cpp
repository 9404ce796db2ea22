// SPDX-License-Identifier: Apache-2.0
// The report path of every mechanism, run on the emulated target for one private value per
// run: what check_constant_time_trace.py traces instruction by instruction under QEMU, and
// what check_report_path.py disassembles. Each case's report is made between the markers
// tinyldp_ct_begin() and tinyldp_ct_end(), from a random stream that is the same in every run
// (a fixed table: no arithmetic of its own), so the executed instructions may depend on
// nothing but the code — and, if the code leaks, on the value. The value is chosen outside
// the window from the run's argument (0 … 3); every mechanism is configured at compile time.
//
// `--planted-leak` adds one more case, ct_planted_report, whose time depends on the value (a
// loop as long as it, and a division by it): the checks must fail on it.
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {
using namespace tinyldp;

// A stream of fixed bytes, the same in every run: enough for every case's report.
class TableSource {
 public:
  EntropyResult fill(uint8_t* out, size_t length, uint32_t /*flags*/) {
    for (size_t i = 0; i < length; ++i) out[i] = static_cast<uint8_t>(next_++ * 0x9Du + 0x3Bu);
    return EntropyResult::ok;
  }

 private:
  uint8_t next_ = 0;
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

}  // namespace

// The window markers (the trace is cut at their addresses) and one function per case, so
// that the disassembly check can start from each case's report path.
extern "C" {
__attribute__((noinline)) void tinyldp_ct_begin() { __asm__ __volatile__("" ::: "memory"); }
__attribute__((noinline)) void tinyldp_ct_end() { __asm__ __volatile__("" ::: "memory"); }

#define TINYLDP_CT_CASE(name, ...)                                       \
  __attribute__((noinline)) Status ct_report_##name(uint32_t value) {    \
    TableSource source;                                                  \
    Rng rng(source);                                                     \
    tinyldp_ct_begin();                                                  \
    const Status s = __VA_ARGS__;                                        \
    tinyldp_ct_end();                                                    \
    return s;                                                            \
  }

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
  for (const Case& c : cases) {
    write("case ");
    write(c.name);
    write("\n");
    check(c.report(c.values[run]), c.name);
  }
  if (planted) {
    const uint32_t values[4] = {0, 5, 33, 63};
    write("case planted\n");
    check(ct_planted_report(values[run]), "planted");
  }
  write(failed ? "a report failed\n" : "done\n");
  tinyldp_board_exit(failed ? 1 : 0);
}
