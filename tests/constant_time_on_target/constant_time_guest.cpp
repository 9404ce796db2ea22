// SPDX-License-Identifier: Apache-2.0
// The report path of every mechanism, run on the emulated target for one private value per
// run: what check_constant_time_trace.py traces instruction by instruction under QEMU, and
// what check_report_path.py disassembles. Each case's report is made between the markers
// tinyldp_ct_begin() and tinyldp_ct_end(), from a random stream that is the same in every run
// (a fixed table: no arithmetic of its own), so the executed instructions may depend on
// nothing but the code — and, if the code leaks, on the value. The value is chosen outside
// the window from the run's argument (0 … 3).
//
// The cases are every mechanism of the device list (tests/support/device_mechanisms.hpp: its
// configuration, configured at compile time, and its four values, one per run), each reported
// through the one report shape by ct_report<Entry>; then a few cases of their own: the
// mechanisms whose parameters would otherwise be divided or multiplied on the report path
// (SHE, 1BitMean, dBitFlip) once more as if configured at run time (the rt_* cases: see
// configure_at_run_time), so that the compiler folds nothing of their configuration; OLH over a
// range whose hash reduction once took a carry branch (olh_wide); RS+FD's secret sampling; and a
// few entries again at their coarse precision (coarse_*: an ε tolerance of 10⁻³, issue #32).
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
// Sealing an authenticated report (port/auth/report_auth) is a case of its own, seal_oue: an
// OUE report of the run's value (made outside the window) sealed under the run's device key —
// four keys, one per run, the key being the secret sealing must not leak — by a ReportAuth over
// RAM storage whose counter window was reserved outside the window; seal_oue_reserving is the
// seal that reserves the next window (its record written to both slots, the key among the
// bytes) and must not leak the key either; seal_tag_oue is the sealing's cryptography alone
// (the version-2 bytes and the tag: ChaCha20's block, Poly1305), the root the disassembly check
// searches for variable-time instructions (the storage driver's code, with its divisions by the
// public geometry, is traced but not searched).
//
// `--planted-leak` adds one more case, ct_planted_report, whose time depends on the value (a
// loop as long as it, and a division by it): the checks must fail on it.
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "device_mechanisms.hpp"
#include "device_memo_key.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"
#include "tinyldp/random_bits.hpp"

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

using device::Mechanisms;
// Every case reports into this buffer (the largest payload of the list).
uint8_t payload[Mechanisms::max_payload_bytes()];
// The memoized mechanisms' key (set in main, outside the windows).
port::MemoKey memo_key;

// g = 0xADFFFF: a range whose hash reduction ⌊x·g/2^32⌋, as a plain 64-bit product, is libgcc's
// __aeabi_lmul on Cortex-M0, which branches on a carry out of its cross products (issue #14,
// F1). Under the seed this stream draws, values 475 and 1556 hash to words that take that
// branch and 0 and 2^20 − 1 do not (found by evaluating local_hash_mix on the host): with the
// plain product the trace differs between these runs.
constexpr uint32_t wide_d = uint32_t{1} << 20;
constexpr LocalHashing olh_wide = LocalHashing::make_olh(Epsilon::from_ratio(1624941, 100000), wide_d);
static_assert(olh_wide.range() == 0xADFFFF);

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
  rt_one_bit_mean = device::BitMean::mechanism;
  rt_dbitflip = device::BitFlip::mechanism;
  rt_she = device::She::mechanism;
  opaque(rt_one_bit_mean), opaque(rt_dbitflip), opaque(rt_she);
}

// The sampled_* cases' record, the same in every run.
constexpr const uint32_t* fixed_record = device::records[1];

// The seal cases: a device's ReportAuth over RAM storage, provisioned in main with the run's
// key, and the OUE report it seals (device id and epoch fields; made in main).
constexpr StorageGeometry auth_geometry{64, 2, 4, 0xFF};
uint8_t auth_memory[64 * 2];
port::RamStorage auth_storage(auth_memory, auth_geometry);
Record<port::RamStorage> auth_record(auth_storage, 0, 1);
port::ReportAuth<port::RamStorage> report_auth;
constexpr uint32_t auth_device_id = 0x2A;
constexpr uint8_t auth_fields = wire::authenticated_fields;
constexpr size_t auth_report_bytes = device::Oue::mechanism.description().report_bytes(auth_fields);
uint8_t auth_report[auth_report_bytes];
uint8_t sealed[auth_report_bytes + wire::authenticated_trailer_bytes];
uint32_t auth_key_words[port::chacha20_key_words];  // the run's key, for the tag case

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
#define TINYLDP_CT_SAMPLED_CASE(name, ...) \
  TINYLDP_CT_REPORT(sampled_##name, uint32_t, static_cast<uint8_t>(value), __VA_ARGS__)

TINYLDP_CT_CASE(olh_wide, olh_wide.privatize(value, rng, payload, sizeof payload))
TINYLDP_CT_CASE(rt_she, device::privatize<device::She>(rt_she, value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(rt_one_bit_mean,
                device::privatize<device::BitMean>(rt_one_bit_mean, value, memo_key, rng, payload, sizeof payload))
TINYLDP_CT_CASE(rt_dbitflip,
                device::privatize<device::BitFlip>(rt_dbitflip, value, memo_key, rng, payload, sizeof payload))
// RS+FD's sampled attribute is the first draw (⌈log2 4⌉ = 2 bits, the stream's first byte's
// low bits: 3 in the table): XORing them with the run's 0 … 3 samples attributes 3, 2, 1, 0.
TINYLDP_CT_SAMPLED_CASE(rsfd_grr, device::RsfdGrr::mechanism.privatize(fixed_record, rng, payload, sizeof payload))
TINYLDP_CT_SAMPLED_CASE(rsfd_oue_z, device::RsfdOueZero::mechanism.privatize(fixed_record, rng, payload, sizeof payload))
TINYLDP_CT_SAMPLED_CASE(rsfd_oue_r, device::RsfdOueRandom::mechanism.privatize(fixed_record, rng, payload, sizeof payload))

// The seal of the run's report under the run's key by ReportAuth (in a reserved window, or
// reserving one: then the storage driver's code runs too, whose divisions by the geometry are
// public — so this one is traced, not a root of the disassembly check), and the sealing's
// cryptography alone (ChaCha20, Poly1305: traced and disassembled).
__attribute__((noinline)) Status ct_seal_report(uint32_t) {
  size_t written = 0;
  tinyldp_ct_begin();
  const port::ReportAuthResult r = report_auth.seal(auth_report, sizeof auth_report, sealed, sizeof sealed, &written);
  tinyldp_ct_end();
  return r == port::ReportAuthResult::ok && written == sizeof sealed ? Status::ok : Status::bad_parameter;
}
__attribute__((noinline)) Status ct_report_seal_tag(uint32_t) {
  tinyldp_ct_begin();
  port::report_auth_detail::write_sealed(auth_key_words, 7, auth_report, sizeof auth_report, sealed);
  tinyldp_ct_end();
  return Status::ok;
}

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

// Every mechanism of the list: its report of `value` in one window (a function of its own per
// entry, which check_report_path.py finds by the name ct_report).
template <class Entry>
__attribute__((noinline)) Status ct_report(typename Entry::Value value) {
  TableSource source;
  Rng rng(source);
  tinyldp_ct_begin();
  const Status s = device::privatize<Entry>(value, memo_key, rng, payload, sizeof payload);
  tinyldp_ct_end();
  return s;
}
// The same at the entry's coarse precision (issue #32: fewer bits per draw, OUE's p fitted; the
// precision is public, the path must still not depend on the value).
template <class Entry>
__attribute__((noinline)) Status ct_report_coarse(typename Entry::Value value) {
  TableSource source;
  Rng rng(source);
  tinyldp_ct_begin();
  const Status s = device::privatize<Entry>(Entry::coarse, value, memo_key, rng, payload, sizeof payload);
  tinyldp_ct_end();
  return s;
}

namespace {

// A case: its name, and its report in run 0 … 3.
struct Case {
  const char* name;
  Status (*report)(uint32_t run);
};
template <class Entry>
Status list_case(uint32_t run) {
  return ct_report<Entry>(Entry::values[run]);
}
template <class List>
struct ListCases;
template <class... Entries>
struct ListCases<device::List<Entries...>> {
  static constexpr Case cases[] = {{Entries::name, list_case<Entries>}...};
};
// The cases of their own, with their values per run (the rt_* cases: their entry's).
template <Status (*report)(uint32_t), const uint32_t (&values)[4]>
Status own_case(uint32_t run) {
  return report(values[run]);
}
constexpr uint32_t wide_values[4] = {0, 475, 1556, wide_d - 1};
constexpr uint32_t sampled_xor[4] = {0, 1, 2, 3};
template <class Entry>
Status coarse_case(uint32_t run) {
  return ct_report_coarse<Entry>(Entry::values[run]);
}
constexpr Case own_cases[] = {
    // A few entries at their coarse precision: one of each sampler a precision changes (the UE
    // ladder with a fitted p, k-RR's uniform other, PM's grid, a memoized chain).
    {"coarse_oue", coarse_case<device::Oue>},
    {"coarse_sue", coarse_case<device::Sue>},
    {"coarse_krr", coarse_case<device::Krr>},
    {"coarse_olh", coarse_case<device::Olh>},
    {"coarse_pm", coarse_case<device::Pm>},
    {"coarse_hm", coarse_case<device::Hm>},
    {"coarse_l_osue", coarse_case<device::LOsue>},
    {"olh_wide", own_case<ct_report_olh_wide, wide_values>},
    {"rt_she", own_case<ct_report_rt_she, device::She::values>},
    {"rt_one_bit_mean", own_case<ct_report_rt_one_bit_mean, device::BitMean::values>},
    {"rt_dbitflip", own_case<ct_report_rt_dbitflip, device::BitFlip::values>},
    {"sampled_rsfd_grr", own_case<ct_report_sampled_rsfd_grr, sampled_xor>},
    {"sampled_rsfd_oue_z", own_case<ct_report_sampled_rsfd_oue_z, sampled_xor>},
    {"sampled_rsfd_oue_r", own_case<ct_report_sampled_rsfd_oue_r, sampled_xor>},
};

// The seal cases' setup, outside any window: the run's OUE report (device id and epoch fields)
// and a ReportAuth provisioned with the run's key; `reserved`: a first seal has reserved the
// counter window, so the traced seal writes nothing.
Status seal_case(uint32_t run, bool reserved) {
  uint8_t payload_bytes[device::Oue::mechanism.description().payload_bytes()];
  TableSource source;
  Rng rng(source);
  Status s = device::privatize<device::Oue>(device::Oue::values[run], memo_key, rng, payload_bytes, sizeof payload_bytes);
  wire::Header header;
  header.fields = auth_fields;
  header.device_id = auth_device_id;
  header.epoch = 3;
  size_t written = 0;
  if (s == Status::ok) s = wire::encode(device::Oue::mechanism.description(), header, payload_bytes, auth_report,
                                        sizeof auth_report, written);
  uint8_t key[port::device_key_bytes];
  const uint8_t fleet_secret[port::fleet_secret_bytes] = {0x5A, 1, 2, 3};  // the four devices' keys: ids 1 … 4
  port::derive_device_key(fleet_secret, run + 1, key);
  for (size_t i = 0; i < port::chacha20_key_words; ++i) auth_key_words[i] = get_le<uint32_t>(key + 4 * i);
  auth_storage.format();
  if (auth_record.mount() != StorageResult::ok ||
      report_auth.provision(auth_record, auth_device_id, key, 0) != port::ReportAuthResult::ok)
    s = Status::bad_parameter;
  if (reserved && s == Status::ok) {
    size_t n = 0;
    if (report_auth.seal(auth_report, sizeof auth_report, sealed, sizeof sealed, &n) != port::ReportAuthResult::ok)
      s = Status::bad_parameter;
  }
  return s;
}
Status seal_in_window(uint32_t run) {
  const Status s = seal_case(run, true);
  return s == Status::ok ? ct_seal_report(run) : s;
}
Status seal_reserving(uint32_t run) {
  const Status s = seal_case(run, false);
  return s == Status::ok ? ct_seal_report(run) : s;
}
Status seal_tag(uint32_t run) {
  const Status s = seal_case(run, false);
  return s == Status::ok ? ct_report_seal_tag(run) : s;
}
constexpr Case seal_cases[] = {
    {"seal_oue", seal_in_window}, {"seal_oue_reserving", seal_reserving}, {"seal_tag_oue", seal_tag}};

void run_case(const Case& c, uint32_t run) {
  write("case ");
  write(c.name);
  write("\n");
  check(c.report(run), c.name);
}

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
  for (const Case& c : ListCases<Mechanisms>::cases) run_case(c, run);
  for (const Case& c : own_cases) run_case(c, run);
  for (const Case& c : seal_cases) run_case(c, run);
  if (planted) {
    const uint32_t values[4] = {0, 5, 33, 63};
    write("case planted\n");
    check(ct_planted_report(values[run]), "planted");
  }
  write(failed ? "a report failed\n" : "done\n");
  tinyldp_board_exit(failed ? 1 : 0);
}
