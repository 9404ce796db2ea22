// SPDX-License-Identifier: Apache-2.0
// Instructions per report of every mechanism's client — every entry of the device list
// (tests/support/device_mechanisms.hpp) at its example configuration, then the frequency oracles
// over several domain sizes — and per byte of the ChaCha20 DRBG, counted on the emulated target
// itself. Run by scripts/target-costs under QEMU with -icount, where virtual time advances a
// fixed amount per guest instruction: on Cortex-M the SysTick counter (processor clock) then
// counts instructions times a constant, on RISC-V minstret counts them.
// The constant is calibrated in the guest on a loop of a known number of instructions, so the
// figures do not depend on the board's clock. Deterministic: the same ELF prints the same lines.
//
// Output, one line per measurement (CSV): case,parameter,units,instructions_per_unit
// where units is "report", "byte", "block" or "output bit" (a list entry's row: its name and d);
// before each group a line "section,list", "section,sweeps" or "section,drbg"; then "done"
// (exit code 0), or a line starting with "error" (exit code 1). Without -icount the program
// still runs (a smoke test), but its counts mean nothing.
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "device_mechanisms.hpp"
#include "measure.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::target_costs {

// ------------------------------------------------------------------------------- the counter

#if defined(__riscv)
void counter_start() {}
uint32_t counter_read() {
  uint32_t v;
  // rv32imac without zicsr in -march (see targets notes): enable it for this one instruction.
  __asm__ __volatile__(".option push\n.option arch, +zicsr\ncsrr %0, minstret\n.option pop" : "=r"(v));
  return v;
}
// Elapsed counter units; minstret counts up.
uint32_t counter_elapsed(uint32_t before, uint32_t after) { return after - before; }
void known_loop(uint32_t n) {  // 2 instructions per iteration
  __asm__ __volatile__("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}
#else
volatile uint32_t* const syst_csr = reinterpret_cast<volatile uint32_t*>(0xE000E010u);
volatile uint32_t* const syst_rvr = reinterpret_cast<volatile uint32_t*>(0xE000E014u);
volatile uint32_t* const syst_cvr = reinterpret_cast<volatile uint32_t*>(0xE000E018u);
void counter_start() {
  *syst_rvr = 0x00FFFFFFu;
  *syst_cvr = 0;
  *syst_csr = 5;  // enable, processor clock, no interrupt
}
uint32_t counter_read() { return *syst_cvr; }
// SysTick counts down through 24 bits: one measurement must stay below one wrap (2^24 ticks).
uint32_t counter_elapsed(uint32_t before, uint32_t after) { return (before - after) & 0x00FFFFFFu; }
void known_loop(uint32_t n) {  // 2 instructions per iteration
  __asm__ __volatile__(".syntax unified\n1: subs %0, %0, #1\n bne 1b" : "+l"(n) : : "cc");
}
#endif

// Counter units per 1024 instructions, from two loop lengths (their difference cancels the
// call and read overhead).
uint32_t units_per_kilo_instruction = 0;

uint32_t measure_loop(uint32_t n) {
  const uint32_t before = counter_read();
  known_loop(n);
  return counter_elapsed(before, counter_read());
}
bool calibrate() {
  counter_start();
  const uint32_t short_run = measure_loop(20000);
  const uint32_t long_run = measure_loop(120000);
  // 200000 instructions more.
  units_per_kilo_instruction =
      static_cast<uint32_t>((uint64_t{long_run - short_run} * 1024 + 100000) / 200000);
  return units_per_kilo_instruction > 0;
}

// ------------------------------------------------------------------------------- output

void write(const char* s) {
  size_t n = 0;
  while (s[n] != 0) ++n;
  tinyldp_board_write(s, n);
}
void write_u32(uint32_t v) {
  char digits[12];
  int i = 11;
  digits[i] = 0;
  do {
    digits[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  write(digits + i);
}
// numerator / denominator with one decimal, rounded to nearest.
void write_value_line(const char* name, uint32_t parameter, const char* unit, uint64_t numerator,
                      uint64_t denominator) {
  const uint64_t tenths = (numerator * 10 + denominator / 2) / denominator;
  write(name);
  write(",");
  write_u32(parameter);
  write(",");
  write(unit);
  write(",");
  write_u32(static_cast<uint32_t>(tenths / 10));
  write(".");
  write_u32(static_cast<uint32_t>(tenths % 10));
  write("\n");
}
// Instructions per unit with one decimal, from counter units over `units` units.
void write_line(const char* name, uint32_t parameter, const char* unit, uint64_t counter_units,
                uint64_t units) {
  write_value_line(name, parameter, unit, counter_units * 1024, units * units_per_kilo_instruction);
}

bool failed = false;
void fail(const char* what) {
  write("error,");
  write(what);
  write("\n");
  failed = true;
}

}  // namespace tinyldp::target_costs

namespace {
using namespace tinyldp;
using namespace tinyldp::target_costs;

// ------------------------------------------------------------------------------- workloads

using TestRng = RandomBits<port::InsecureTestSource>;
using LadderRng = RandomBits<port::InsecureTestSource, 128>;
constexpr Epsilon eps = Epsilon::from_double(1.0);


// The source's own cost: the same fills RandomBits makes (whole 32-byte buffers), `bytes` long.
uint32_t time_source_fill(uint64_t bytes) {
  port::InsecureTestSource source(3);
  uint8_t buffer[128];
  const uint32_t before = counter_read();
  for (uint64_t done = 0; done < bytes; done += sizeof buffer)
    (void)source.fill(buffer, sizeof buffer, TINYLDP_ENTROPY_BLOCKING);
  __asm__ __volatile__("" : : "r"(buffer) : "memory");
  return counter_elapsed(before, counter_read());
}

// Random words read from a table filled beforehand: random-number delivery reduced to one load
// per 32-bit word, so what remains is the mechanism's own work. (The table is reused by every
// report: the code is constant-time, the values do not change the count.)
constexpr size_t table_words = 1024;
uint32_t random_table[table_words];

struct TableRng {
  const uint32_t* next = random_table;
  uint32_t draw32() { return *next++; }
  uint64_t draw(unsigned n) {
    uint64_t v = *next++;
    if (n > 32) v |= uint64_t{*next++} << 32;
    return n >= 64 ? v : v & ((uint64_t{1} << n) - 1);
  }
  bool ok() const { return true; }
  Status status() const { return Status::ok; }
};

void fill_random_table() {
  port::InsecureTestSource source(5);
  for (uint32_t& w : random_table) {
    uint8_t b[4];
    (void)source.fill(b, 4, TINYLDP_ENTROPY_BLOCKING);
    w = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
  }
}

// `name` followed by `suffix` in out (32 bytes).
const char* suffixed(const char* name, const char* suffix, char (&out)[32]) {
  size_t n = 0;
  for (; name[n] != 0; ++n) out[n] = name[n];
  for (size_t j = 0; suffix[j] != 0; ++j) out[n++] = suffix[j];
  out[n] = 0;
  return out;
}

// ------------------------------------------------------------------------------- the device list

// The memo key the memoized cases report with (a fixed secret, generation 0).
port::MemoKey test_memo_key() {
  const uint8_t secret[32] = {1, 2, 3};
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}


// One entry of the device list at its example configuration: instructions per report through
// the one report shape, the entry's four values in turn, a memoized one with the ChaCha20 memo
// key. The context is a copy behind a compiler barrier, as if configured at run time: the code
// folds nothing of the configuration. As many reports as take about 2^20 instructions (at most
// 256, judged from a first one): every measurement stays within SysTick's 24 bits. Out of line:
// each entry's frame is its own.
template <class Entry>
__attribute__((noinline)) void list_entry(const port::MemoKey& key) {
  auto m = Entry::mechanism;
  __asm__ __volatile__("" : : "r"(&m) : "memory");
  port::InsecureTestSource source(1);
  typename ReportRng<decltype(m)>::type rng(source);
  alignas(4) uint8_t report[device::Mechanisms::max_payload_bytes()];
  const size_t n = m.description().payload_bytes();
  auto one = [&](int i) { return device::privatize<Entry>(m, Entry::values[i % 4], key, rng, report, n); };
  // Counter units of one report; 2^20 instructions are 2^10 · units_per_kilo_instruction units.
  const uint64_t first = time_reports(1, one);
  const int reports = reports_for(first);
  write_line(Entry::name, Entry::d, "report", time_reports(reports, one), static_cast<uint64_t>(reports));
}

// True if the device list has the entry `name` over d: the sweeps below leave its row to it.
bool listed(const char* name, uint32_t d) {
  bool found = false;
  device::Mechanisms::for_each(
      [&]<class Entry>() { found = found || (Entry::d == d && device::same_name(Entry::name, name)); });
  return found;
}

// ------------------------------------------------------------------------------- domain sweeps

// UE: per report through RandomBits and the test source; per output bit with the source's
// fills subtracted; per output bit with random words from a table (the mechanism alone); and at
// d = 1024, per output bit without the fills for a report at an odd address (the ladder's
// bytewise lanes where the word path needs an aligned report: Cortex-M0 and RV32).
void unary(const char* name, bool optimized, uint32_t d, int reports) {
  UnaryEncoding ue;
  if ((optimized ? UnaryEncoding::configure_oue(eps, d, ue) : UnaryEncoding::configure_sue(eps, d, ue)) !=
      Status::ok)
    return fail(name);
  alignas(4) uint8_t storage[132];  // d <= 1024, and one byte of offset
  char line[32];
  // Reports at `report`, timed without the source's fills: (counter units, units of the fills).
  auto without_fills = [&](uint8_t* report, uint32_t& with_fills) {
    port::InsecureTestSource source(1);
    LadderRng rng(source);
    with_fills = time_reports(reports, [&](int i) {
      return ue.privatize(static_cast<uint32_t>(i) % d, rng, report, ue.report_bytes());
    });
    return with_fills - time_source_fill(rng.bytes_pulled());
  };
  uint32_t units = 0;
  const uint32_t aligned = without_fills(storage, units);
  if (!listed(name, d)) write_line(name, d, "report", units, static_cast<uint64_t>(reports));
  write_line(suffixed(name, "_without_rng", line), d, "output bit", aligned, static_cast<uint64_t>(reports) * d);
  if (uint64_t{ue.random_bits_per_report()} > 32 * (table_words - 64)) return fail("table too small");
  TableRng table;
  const uint32_t table_units = time_reports(reports, [&](int i) {
    table.next = random_table;
    return ue.privatize(static_cast<uint32_t>(i) % d, table, storage, ue.report_bytes());
  });
  write_line(suffixed(name, "_mechanism_alone", line), d, "output bit", table_units,
             static_cast<uint64_t>(reports) * d);
  if (d != 1024) return;
  const uint32_t unaligned = without_fills(storage + 1, units);
  write_line(suffixed(name, "_unaligned_without_rng", line), d, "output bit", unaligned,
             static_cast<uint64_t>(reports) * d);
}

// Instructions per report of m (configured at run time) over d, through the one report shape.
template <class M>
void per_report(const char* name, const M& m, uint32_t d, int reports) {
  if (listed(name, d)) return;
  port::InsecureTestSource source(1);
  TestRng rng(source);
  uint8_t report[128];  // d <= 1024
  const size_t n = m.description().payload_bytes();
  const uint32_t units = time_reports(reports, [&](int i) {
    return m.privatize(static_cast<uint32_t>(i) % d, rng, report, n);
  });
  write_line(name, d, "report", units, static_cast<uint64_t>(reports));
}

// The frequency oracles over d (the rows the device list has are measured there).
void frequency_oracles(uint32_t d) {
  const int reports = d >= 1024 ? 16 : (d >= 256 ? 64 : 256);
  unary("sue", false, d, reports);
  unary("oue", true, d, reports);
  KaryRr krr;
  LocalHashing blh, olh;
  HadamardResponse hr;
  ThresholdHistogram the;  // unary encoding with the thresholded Laplace law's (p, q)
  if (KaryRr::configure(eps, d, krr) != Status::ok || LocalHashing::configure_blh(eps, d, blh) != Status::ok ||
      LocalHashing::configure_olh(eps, d, olh) != Status::ok || HadamardResponse::configure(eps, d, hr) != Status::ok ||
      ThresholdHistogram::configure(eps, d, the) != Status::ok)
    return fail("configure");
  per_report("krr", krr, d, 256);
  per_report("blh", blh, d, 256);
  per_report("olh", olh, d, 256);
  per_report("hr", hr, d, 256);
  per_report("the", the, d, reports);
}

// Memoized L-OSUE (ε∞ = 2, ε₁ = 1) over d: per report, the memo recomputed from the ChaCha20 memo
// key (its PRF blocks included) and the instantaneous stage drawn from the test source.
void memoized(uint32_t d, int reports) {
  TwoStageRr m;
  if (TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, Epsilon::from_ratio(2, 1), Epsilon::from_ratio(1, 1),
                                  TwoStageRr::one_hot(d), m) != Status::ok)
    return fail("l_osue");
  const port::MemoKey key = test_memo_key();
  port::InsecureTestSource source(1);
  TestRng rng(source);
  uint8_t report[128];  // d <= 1024
  const uint32_t units = time_reports(reports, [&](int i) {
    return m.privatize(static_cast<uint32_t>(i) % d, key, rng, report, m.report_bytes());
  });
  write_line("l_osue", d, "report", units, static_cast<uint64_t>(reports));
}

// Requests up to 4 KiB: too large for the stack of the smallest board.
uint8_t request_buffer[4096];

// The DRBG, seeded from the (deterministic) test source, with a reseed source set.
void drbg() {
  port::InsecureTestSource seed_source(9);
  port::ChaCha20Drbg drbg;
  drbg.set_reseed_source(seed_source);
  if (drbg.seed(seed_source) != EntropyResult::ok) return fail("drbg seed");
  uint8_t* out = request_buffer;
  struct Case {
    uint32_t request;
    uint32_t requests;
  };
  const Case cases[] = {{32, 256}, {64, 128}, {256, 32}, {4096, 4}};
  for (const Case c : cases) {
    const uint32_t before = counter_read();
    for (uint32_t i = 0; i < c.requests; ++i)
      if (drbg.fill(out, c.request, TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) failed = true;
    const uint32_t units = counter_elapsed(before, counter_read());
    write_line("drbg_fill", c.request, "byte", units, uint64_t{c.request} * c.requests);
  }
  // Through RandomBits, as a mechanism draws: 32-bit draws from a 32-byte buffer.
  {
    RandomBits<port::ChaCha20Drbg> rng(drbg);
    uint32_t sink = 0;
    const uint32_t before = counter_read();
    for (int i = 0; i < 2048; ++i) sink ^= rng.draw32();
    const uint32_t units = counter_elapsed(before, counter_read());
    __asm__ __volatile__("" : : "r"(sink));
    if (!rng.ok()) failed = true;
    write_line("drbg_randombits_draw32", 32, "byte", units, 2048 * 4);
  }
  // The block function alone.
  const uint32_t key[port::chacha20_key_words] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint32_t nonce[port::chacha20_nonce_words] = {0, 0, 0};
  const uint32_t before = counter_read();
  for (uint32_t i = 0; i < 16; ++i) port::chacha20_block(key, i, nonce, out);
  const uint32_t units = counter_elapsed(before, counter_read());
  __asm__ __volatile__("" : : "r"(out) : "memory");
  write_line("chacha20_block", 64, "byte", units, 16 * 64);
}

// Authenticated reports (port/auth/report_auth): Poly1305 per byte, the sealing's cryptography
// per report (ChaCha20's one-time key and Poly1305 over the report and its counter), and
// ReportAuth's seal over RAM storage, averaged over 64 reports (four counter windows reserved,
// each a record write to both slots).
void authenticated_reports() {
  static uint8_t data[1024];
  for (size_t i = 0; i < sizeof data; ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  uint8_t tag[port::poly1305_tag_bytes];
  {
    port::Poly1305 mac;
    const uint32_t before = counter_read();
    mac.init(data);
    mac.update(data, sizeof data);
    mac.finish(tag);
    write_line("poly1305", 1024, "byte", counter_elapsed(before, counter_read()), sizeof data);
  }
  constexpr uint8_t fields = wire::authenticated_fields;
  const uint32_t key[port::chacha20_key_words] = {1, 2, 3, 4, 5, 6, 7, 8};
  const size_t sizes[] = {wire::Description::header_bytes(fields) + 2, wire::Description::header_bytes(fields) + 32,
                          wire::Description::header_bytes(fields) + 128};
  static uint8_t sealed[192];
  for (size_t n : sizes) {
    data[0] = wire::format_version;
    data[6] = fields;
    const uint32_t before = counter_read();
    for (uint32_t i = 0; i < 16; ++i) port::report_auth_detail::write_sealed(key, i, data, n, sealed);
    write_line("seal_tag", static_cast<uint32_t>(n), "report", counter_elapsed(before, counter_read()), 16);
  }
  static uint8_t flash[2 * 256];
  port::RamStorage device(flash, {256, 2, 4, 0xFF});
  device.format();
  Record<port::RamStorage> record(device, 0, 1);
  port::ReportAuth<port::RamStorage> auth;
  uint8_t device_key[port::device_key_bytes];
  for (size_t i = 0; i < sizeof device_key; ++i) device_key[i] = static_cast<uint8_t>(i + 9);
  if (auth.provision(record, 0x11223344u, device_key) != port::ReportAuthResult::ok) failed = true;
  const size_t n = sizes[1];
  put_le(data + 7, uint32_t{0x11223344u});
  const uint32_t before = counter_read();
  size_t written = 0;
  for (uint32_t i = 0; i < 64; ++i)
    if (auth.seal(data, n, sealed, sizeof sealed, &written) != port::ReportAuthResult::ok) failed = true;
  write_line("report_auth_seal", static_cast<uint32_t>(n), "report", counter_elapsed(before, counter_read()), 64);
}

}  // namespace

int main() {
  if (!calibrate()) {
    write("error,the counter does not advance\n");
    tinyldp_board_exit(1);
  }
  fill_random_table();
  write("case,parameter,unit,instructions_per_unit\n");
  write("calibration,1024,counter units per 1024 instructions,");
  write_u32(units_per_kilo_instruction);
  write("\n");
  write("section,list\n");
  const port::MemoKey key = test_memo_key();
  device::Mechanisms::for_each([&]<class Entry>() { list_entry<Entry>(key); });
  write("section,sweeps\n");
  const uint32_t domains[] = {16, 256, 1024};
  for (uint32_t d : domains) frequency_oracles(d);
  memoized(256, 16);  // the list's l_osue is d = 16
  write("section,whole\n");
  target_costs::whole_reports(key);  // whole_reports.cpp: its own translation unit (see there)
  write("section,drbg\n");
  drbg();
  write("section,auth\n");
  authenticated_reports();
  if (failed) {
    write("error,a report or request failed\n");
    tinyldp_board_exit(1);
  }
  write("done\n");
  tinyldp_board_exit(0);
}
