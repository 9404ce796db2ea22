// SPDX-License-Identifier: Apache-2.0
// After a report, no random word the report used is left in RAM (issue #14, F6): neither in
// the RandomBits that firmware keeps from one report to the next (its buffer and reservoir),
// nor in the stack the report path used. The stack below the caller is painted, a report is
// made through a source that records every byte it serves, and the RandomBits object and the
// painted stack are scanned for any 4-byte run of the bytes the report consumed. A stream
// word found there is what the residue attack of #14 needs — with ChaCha20 DRBG → RandomBits →
// k-RR (k = 4), the noise word left in the buffer singled out the value — so finding none is
// what defeats it. Runs on the host and on every target (the stack is scanned where the report's
// frames were: below the stack pointer; under ASan, whose frames live elsewhere, only the
// RandomBits object is scanned). Every report path ends by scrubbing its own measured stretch
// of the stack below its frame (scrub_stack, release<Bytes>, wipe.hpp); the stack is asserted
// for every mechanism on every target, and that the report stayed inside the painted stretch.
//
// Memoized mechanisms (two-stage RR and the UE chains, L-GRR, LOLOHA, 1BitMean, dBitFlip, the
// record report) draw from the real memo key's ChaCha20 streams as well. The key itself stays
// in RAM by design (a long-lived secret, kept in the caller's MemoKey: not scanned), but what a
// report computed from it is per-report material: the words of every memo-stream block the
// report generated — with the key, a memo word of the value's stream names the value — and the
// device streams' words (LOLOHA's seed, 1BitMean's α, dBitFlip's α and buckets, which tell which
// memo the value took). So the scan looks for those words too, besides the fresh ones, and for
// dBitFlip's device draw as its DeviceDraw holds it (α is no stream word: a masked draw). The
// record reports without memo (SPL, SMP, RS+FD over GRR and OUE) are scanned like the rest.
//
// The scan runs out of line (check_no_residue): the words it looks for pass through registers,
// and a caller's callee-saved register that kept one would be pushed by the next report's
// prologue into the scanned stretch (that was the "hr on Cortex-M4F" word: krr's last word,
// the same seed's stream, left in r4 by this scan). For the same reason every mechanism draws
// from a stream of its own seed.
#include <stddef.h>
#include <stdint.h>

#include "check.hpp"
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
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

using namespace tinyldp;

namespace {

// Sizes for the smallest board (16 KiB of RAM) and for the host, whose UE ladder keeps 4 KiB
// blocks on the stack.
#if defined(TINYLDP_TEST_ON_TARGET)
constexpr size_t paint_bytes = 1536;
constexpr size_t log_bytes = 2048;
#else
constexpr size_t paint_bytes = 24 * 1024;
constexpr size_t log_bytes = 64 * 1024;
#endif
constexpr uint8_t paint = 0xA5;
// The deepest bytes of the painted stretch that no report may reach: the scan saw all of the
// report's frames only if they are still paint.
constexpr size_t untouched_bytes = 64;

// The last log_bytes bytes the source served, by stream position (static: not on the scanned
// stack); position 0 is the first byte served after the Recording was made.
uint8_t served[log_bytes];
size_t served_count = 0;
uint8_t served_at(size_t position) { return served[position % log_bytes]; }

template <class Inner>
class Recording {
 public:
  explicit Recording(Inner& inner) : inner_(inner) { served_count = 0; }
  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    const EntropyResult r = inner_.fill(out, length, flags);
    for (size_t i = 0; i < length; ++i) served[served_count++ % log_bytes] = out[i];
    return r;
  }

 private:
  Inner& inner_;
};

// The memo streams a report opened, (attribute word, value) and the words it took from each:
// a report's memo material is every word of the ChaCha20 blocks those streams generated.
struct OpenedStream {
  uint32_t attribute = 0, value = 0, words = 0;
};
constexpr size_t max_opened = 8;
OpenedStream opened[max_opened + 1];  // the last one takes what does not fit (then flagged)
size_t opened_count = 0;

// The device's real memo key (ChaCha20) — static, outside the scanned stack — and a key that
// hands out its streams while noting which were opened. The streams are the port's own
// MemoStream objects (their block buffers in the report's frames, wiped on scope exit).
port::MemoKey device_key;

struct RecordedMemoStream {
  port::MemoStream stream;
  OpenedStream* log;
  uint32_t next_word() {
    ++log->words;
    return stream.next_word();
  }
};

struct RecordingMemoKey {
  RecordedMemoStream memo_stream(uint32_t attribute, uint32_t value) const {
    OpenedStream* log = &opened[opened_count < max_opened ? opened_count : max_opened];
    ++opened_count;
    *log = {attribute, value, 0};
    return {device_key.memo_stream(attribute, value), log};
  }
  uint32_t cohort(uint32_t cohorts) const { return device_key.cohort(cohorts); }
  uint32_t generation() const { return device_key.generation(); }
  bool provisioned() const { return device_key.provisioned(); }
};
static_assert(MemoKey<RecordingMemoKey>);

__attribute__((noinline)) uintptr_t stack_pointer() {
  uintptr_t sp;
#if defined(__arm__)
  __asm__ __volatile__("mov %0, sp" : "=r"(sp));
#elif defined(__riscv)
  __asm__ __volatile__("mv %0, sp" : "=r"(sp));
#elif defined(__x86_64__)
  __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  __asm__ __volatile__("mov %0, sp" : "=r"(sp));
#elif defined(__powerpc__)
  __asm__ __volatile__("mr %0, 1" : "=r"(sp));
#else
  sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
  return sp;
}

__attribute__((noinline)) void paint_stack() {
  uint8_t area[paint_bytes];
  for (size_t i = 0; i < paint_bytes; ++i) area[i] = paint;
  __asm__ __volatile__("" : : "r"(area) : "memory");  // the stores stay
}

// The words to look for, sorted: the fresh stream's 4-byte runs and the memo streams' words,
// without the words memory is full of anyway (all zeros, all ones, the paint).
#if defined(TINYLDP_TEST_ON_TARGET)
constexpr size_t used_capacity = log_bytes / 4 + 256;
#else
constexpr size_t used_capacity = log_bytes / 4;
#endif
uint32_t used[used_capacity];
size_t used_count = 0;
bool used_overflow = false;

void add_used(uint32_t w) {
  if (w == 0 || w == 0xFFFFFFFFu || w == 0xA5A5A5A5u) return;
  if (used_count == used_capacity) {
    used_overflow = true;
    return;
  }
  size_t j = used_count++;
  for (; j > 0 && used[j - 1] > w; --j) used[j] = used[j - 1];
  used[j] = w;
}

// The 4-byte runs of the stream bytes [first, last).
void add_stream_words(size_t first, size_t last) {
  for (size_t i = first; i + 4 <= last; ++i)
    add_used(uint32_t{served_at(i)} | uint32_t{served_at(i + 1)} << 8 | uint32_t{served_at(i + 2)} << 16 |
             uint32_t{served_at(i + 3)} << 24);
}

// Every word of the blocks the opened memo streams generated (a fresh stream per (attribute,
// value) from the same key gives the same words).
void add_memo_words() {
  for (size_t i = 0; i < opened_count && i < max_opened; ++i) {
    port::MemoStream again = device_key.memo_stream(opened[i].attribute, opened[i].value);
    const uint32_t words = (opened[i].words + 15) / 16 * 16;
    for (uint32_t w = 0; w < words; ++w) add_used(again.next_word());
  }
}

bool contains(uint32_t w) {
  size_t lo = 0, hi = used_count;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (used[mid] < w) lo = mid + 1;
    else hi = mid;
  }
  return lo < used_count && used[lo] == w;
}

uint32_t word_at(const volatile uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// Counts the 4-byte windows of [p, p + n) that hold a used word; *first_at receives the offset
// of the first (n when none).
size_t residue(const volatile uint8_t* p, size_t n, size_t* first_at = nullptr) {
  size_t found = 0;
  if (first_at != nullptr) *first_at = n;
  for (size_t i = 0; i + 4 <= n; ++i) {
    const bool hit = contains(word_at(p + i));
    if (hit && found == 0 && first_at != nullptr) *first_at = i;
    found += hit ? 1u : 0u;
  }
  return found;
}

// The report itself: random bits it publishes (local hashing's seed) are not secret.
uint8_t published[128];
size_t published_bytes = 0;
template <class Report>
void publish(const Report& report) {
  static_assert(sizeof report <= sizeof published);
  __builtin_memcpy(published, &report, sizeof report);
  published_bytes = sizeof report;
}
void drop_published() {
  size_t kept = 0;
  for (size_t i = 0; i < used_count; ++i) {
    bool in_report = false;
    for (size_t j = 0; j + 4 <= published_bytes; ++j) in_report |= word_at(published + j) == used[i];
    if (!in_report) used[kept++] = used[i];
  }
  used_count = kept;
}
uint8_t stack_copy[paint_bytes];  // the painted stack, copied before anything else runs

// A device draw that is not a stream word (dBitFlip's α and sampled buckets, laid out as
// DeviceDraw holds them; see check_device_draw), which must not be left either.
uint8_t device_draw_bytes[4 + 2 * DBitFlip::max_sampled];
size_t device_draw_size = 0;

// Where [pattern, pattern + n) occurs in [p, p + size) (size when nowhere).
size_t find_bytes(const volatile uint8_t* p, size_t size, const uint8_t* pattern, size_t n) {
  for (size_t i = 0; n != 0 && i + n <= size; ++i) {
    size_t j = 0;
    while (j < n && p[i + j] == pattern[j]) ++j;
    if (j == n) return i;
  }
  return size;
}

// Everything after the report, out of line (see the top of the file): builds the list of
// words the report used — stream bytes [first_bit/8, ⌈last_bit/8⌉), the partly consumed bytes
// at either end included (a copy of one would hold bits the report used), and the memo words —
// and scans the Rng object and the copied stack for them.
__attribute__((noinline)) void check_no_residue(const char* what, uint64_t first_bit, uint64_t last_bit,
                                                const volatile uint8_t* rng, size_t rng_bytes) {
  const size_t first = static_cast<size_t>(first_bit / 8);
  const size_t last = static_cast<size_t>((last_bit + 7) / 8);
  // Still in the log (a report that drew only memo words has nothing of the fresh stream).
  CHECK(last >= first && last <= served_count && served_count - first <= log_bytes);
  CHECK(opened_count <= max_opened);
  used_count = 0;
  used_overflow = false;
  add_stream_words(first, last);
  add_memo_words();
  CHECK(!used_overflow);
  CHECK(used_count > 0);  // the report used random words: the scan looks for something
  drop_published();
  const size_t in_rng = residue(rng, rng_bytes);
  // dBitFlip's device draw, in RandomBits (never) or in the stack.
  CHECK_EQ(find_bytes(rng, rng_bytes, device_draw_bytes, device_draw_size), rng_bytes);
  size_t in_stack = 0, first_at = paint_bytes;
#if !defined(TINYLDP_TEST_SANITIZED)
  in_stack = residue(stack_copy, paint_bytes, &first_at);
  const size_t draw_at = find_bytes(stack_copy, paint_bytes, device_draw_bytes, device_draw_size);
  if (draw_at != paint_bytes) {
    test::print(what);
    test::print(": the device draw left in the stack, ");
    test::print_u64(paint_bytes - draw_at);
    test::print(" bytes below the caller's stack pointer\n");
  }
  CHECK_EQ(draw_at, paint_bytes);
  // The report's frames (and its scrub) ended inside the painted stretch.
  size_t reached = 0;
  while (reached < paint_bytes && stack_copy[reached] == paint) ++reached;
  CHECK_GE(reached, untouched_bytes);
#endif
  if (in_rng != 0 || in_stack != 0) {
    test::print(what);
    test::print(": words of the report's noise left in RandomBits: ");
    test::print_u64(in_rng);
    test::print(", in the stack: ");
    test::print_u64(in_stack);
    if (in_stack != 0) {
      test::print(", the deepest ");
      test::print_u64(paint_bytes - first_at);
      test::print(" bytes below the caller's stack pointer");
    }
    test::print("\n");
  }
  CHECK_EQ(in_rng, 0u);
  CHECK_EQ(in_stack, 0u);
}

// Makes one report through report(rng) after `warmup` earlier ones (so the buffer also holds
// bytes of the stream the report did not use), then scans.
template <class Rng, class Report>
void expect_no_residue(const char* what, Rng& rng, Report report, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) CHECK(report(rng) == Status::ok);
  const uint64_t bits_before = rng.bits_drawn();
  opened_count = 0;
  paint_stack();
  const uintptr_t sp = stack_pointer();
  const Status status = report(rng);
  // Copy the stack right away, in this frame, before any call can overwrite the report's frames.
  const volatile uint8_t* below = reinterpret_cast<const volatile uint8_t*>(sp - paint_bytes);
  for (size_t i = 0; i < paint_bytes; ++i) stack_copy[i] = below[i];
  CHECK(status == Status::ok);
  check_no_residue(what, bits_before, rng.bits_drawn(), reinterpret_cast<const volatile uint8_t*>(&rng),
                   sizeof rng);
}

constexpr Epsilon one = Epsilon::from_ratio(1, 1);

// One report of a mechanism whose report is a value or a struct (published: see above).
template <class Report, class Rng, class Mechanism, class Value>
void expect_scalar_clean(const char* what, Rng& rng, const Mechanism& m, Value value) {
  expect_no_residue(what, rng, [&](auto& r) {
    Report report{};
    const Status s = m.privatize(value, r, report);
    publish(report);
    return s;
  });
}

// The same through a fresh RandomBits over the recorded test source of its own seed.
template <class Report, class Mechanism>
void check_scalar(const char* what, uint64_t seed, const Mechanism& m, uint32_t value) {
  port::InsecureTestSource inner(seed);
  Recording<port::InsecureTestSource> source(inner);
  RandomBits<Recording<port::InsecureTestSource>> rng(source);
  expect_scalar_clean<Report>(what, rng, m, value);
}

// A memoized report whose report is a value or a struct, keyed by the recording key.
template <class Mechanism>
void check_memoized(const char* what, uint64_t seed, const Mechanism& m, uint32_t value) {
  port::InsecureTestSource inner(seed);
  Recording<port::InsecureTestSource> source(inner);
  RandomBits<Recording<port::InsecureTestSource>> rng(source);
  const RecordingMemoKey key;
  expect_no_residue(what, rng, [&](auto& r) {
    typename Mechanism::Report report{};
    const Status s = m.privatize(value, key, r, report);
    publish(report);
    return s;
  });
}

// A report written into a byte buffer (bit vectors: no draw is copied into them whole);
// privatize(r, buffer, size) makes it.
uint8_t report_buffer[128];
template <class Privatize>
void check_in_place(const char* what, uint64_t seed, Privatize privatize) {
  port::InsecureTestSource inner(seed);
  Recording<port::InsecureTestSource> source(inner);
  RandomBits<Recording<port::InsecureTestSource>> rng(source);
  published_bytes = 0;
  expect_no_residue(what, rng, [&](auto& r) { return privatize(r, report_buffer, sizeof report_buffer); });
}

void use_device_key() { device_key = test::device_memo_key(1, 29, 101); }

// dBitFlip's device draw as DeviceDraw holds it (α, then the d sampled buckets): the same in
// every report of the device, so it is computed here, out of line (no copy stays in a register
// the report's prologue would push), for check_no_residue to look for.
__attribute__((noinline)) void note_device_draw(const DBitFlip& m) {
  port::MemoStream stream = device_key.memo_stream(m.memo_attribute_word(), detail::device_draw_value);
  MemoDraws<port::MemoStream> draws(stream);
  const DBitFlip::DeviceDraw d = m.device_draw(draws);
  static_assert(offsetof(DBitFlip::DeviceDraw, bucket) == 4);
  device_draw_size = 4 + 2 * size_t{m.sampled()};
  __builtin_memcpy(device_draw_bytes, &d, device_draw_size);
}

}  // namespace

// The reproduction of #14's F6: ChaCha20 DRBG → RandomBits → k-RR (k = 4), privatize(2).
TEST(drbg_krr_report_leaves_no_noise) {
  port::InsecureTestSource seed_source(3);
  port::ChaCha20Drbg drbg;
  CHECK(drbg.seed(seed_source) == EntropyResult::ok);
  Recording<port::ChaCha20Drbg> source(drbg);
  RandomBits<Recording<port::ChaCha20Drbg>> rng(source);
  expect_scalar_clean<uint32_t>("drbg → k-rr", rng, KaryRr::make(one, 4), 2u);
}

TEST(scalar_reports_leave_no_noise) {
  // rr at its default precision draws 24 bits, less than a word: at the finest it draws 63 (the
  // 64-bit draw path), which the scan can see.
  check_scalar<uint8_t>("rr", 7, BinaryRr::make(one, Precision{64, 0}), 1);
  check_scalar<uint32_t>("krr", 8, KaryRr::make(one, 37), 5);
  check_scalar<LocalHashingReport>("olh", 9, LocalHashing::make_olh(one, 64), 5);
  check_scalar<LocalHashingReport>("blh", 10, LocalHashing::make_blh(one, 64), 5);
  check_scalar<HadamardReport>("hr", 11, HadamardResponse::make(one, 64), 5);
}

TEST(numeric_reports_leave_no_noise) {
  constexpr StochasticDiscretization sd = StochasticDiscretization::make(one, 0, 1000, 16);
  port::InsecureTestSource inner(9);
  Recording<port::InsecureTestSource> source(inner);
  RandomBits<Recording<port::InsecureTestSource>> rng(source);
  expect_scalar_clean<uint32_t>("sd", rng, sd, int32_t{333});
  static constexpr auto weights = DiscreteLaplaceTable<DiscreteLaplace::table_entries(0, 100)>::make(one, 0, 100, 100);
  constexpr DiscreteLaplace dl = weights.bind();
  expect_scalar_clean<int32_t>("dlaplace", rng, dl, int32_t{37});
}

TEST(unary_and_histogram_reports_leave_no_noise) {
  port::InsecureTestSource inner(11);
  Recording<port::InsecureTestSource> source(inner);
  RandomBits<Recording<port::InsecureTestSource>> rng(source);
  published_bytes = 0;  // (the unary reports are bit vectors: no draw is copied into them whole)
#if defined(TINYLDP_TEST_ON_TARGET)
  const uint32_t domains[] = {64, 100};
#else
  const uint32_t domains[] = {64, 100, 1024};  // 1024: the bulk ladder of 64-bit hosts
#endif
  for (uint32_t d : domains) {
    UnaryEncoding oue, sue;
    CHECK(UnaryEncoding::configure_oue(one, d, oue) == Status::ok);
    CHECK(UnaryEncoding::configure_sue(one, d, sue) == Status::ok);
    const UnaryEncoding* encodings[] = {&oue, &sue};
    for (const UnaryEncoding* ue : encodings)
      expect_no_residue("ue", rng, [&](auto& r) { return ue->privatize(d / 3, r, report_buffer, sizeof report_buffer); });
  }
  static constexpr auto she_weights = SummationHistogramTable<SummationHistogram::table_entries(
      SummationHistogram::default_truncation(one))>::make(one, 16);
  constexpr SummationHistogram she = she_weights.bind();
  expect_no_residue("she", rng, [&](auto& r) { return she.privatize(5, r, report_buffer, sizeof report_buffer); });
  constexpr ThresholdHistogram the = ThresholdHistogram::make(one, 64);
  expect_no_residue("the", rng, [&](auto& r) { return the.privatize(5, r, report_buffer, sizeof report_buffer); });
}

namespace {
constexpr Epsilon eps_inf = Epsilon::from_ratio(2, 1);
constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};

void check_two_stage(const char* what, uint64_t seed, const TwoStageRr& m, uint32_t value) {
  const RecordingMemoKey key;
  check_in_place(what, seed, [&](auto& r, uint8_t* out, size_t size) { return m.privatize(value, key, r, out, size); });
}
}  // namespace

// RAPPOR (one-hot and Bloom) and the four longitudinal UE chains: the fresh IRR words and the
// memo's PRR words.
TEST(two_stage_reports_leave_no_noise) {
  use_device_key();
  static constexpr TwoStageRr rappor = TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::one_hot(64));
  check_two_stage("two-stage", 21, rappor, 9);
  static constexpr TwoStageRr bloom =
      TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::bloom(64, 2, 4));
  check_two_stage("two-stage bloom", 22, bloom, 1234);
  constexpr UeStage stages[][2] = {
      {UeStage::sue, UeStage::sue}, {UeStage::oue, UeStage::sue}, {UeStage::oue, UeStage::oue}, {UeStage::sue, UeStage::oue}};
  const char* names[] = {"l-sue", "l-osue", "l-oue", "l-soue"};
  for (int i = 0; i < 4; ++i) {
    TwoStageRr chain;
    CHECK(TwoStageRr::configure_chain(stages[i][0], stages[i][1], eps_inf, one, TwoStageRr::one_hot(32), chain) ==
          Status::ok);
    check_two_stage(names[i], 23 + static_cast<uint64_t>(i), chain, 17);
  }
}

// L-GRR, LOLOHA, 1BitMean and dBitFlip: their device draws (seed, α, buckets) and memo words
// as well as the fresh stage's.
TEST(longitudinal_reports_leave_no_noise) {
  use_device_key();
  static constexpr LongitudinalGrr lgrr = LongitudinalGrr::make(eps_inf, one, 6);
  check_memoized("l-grr", 31, lgrr, 4);
  static constexpr Loloha ololoha = Loloha::make_optimal(eps_inf, one, 96);
  check_memoized("loloha", 32, ololoha, 50);
  static constexpr Loloha biloloha = Loloha::make_binary(eps_inf, one, 96);
  check_memoized("biloloha", 33, biloloha, 50);
  static constexpr OneBitMean counter = OneBitMean::make(eps_inf, one, OneBitMean::Grid{100, 10});
  check_memoized("1bitmean", 34, counter, 37);
  static constexpr DBitFlip histogram = DBitFlip::make(eps_inf, one, DBitFlip::Layout{100, 10, 3, 0});
  note_device_draw(histogram);
  check_memoized("dbitflip", 35, histogram, 37);
  device_draw_size = 0;
}

namespace {
constexpr uint32_t record_domains[3] = {2, 5, 17};
constexpr uint32_t record_values[3] = {1, 3, 11};

template <class Record>
void check_record(const char* what, uint64_t seed, const Record& m) {
  check_in_place(what, seed, [&](auto& r, uint8_t* out, size_t size) { return m.privatize(record_values, r, out, size); });
}
}  // namespace

// A record in one report: the memoized record RR (one memo stream per attribute), SPL, SMP and
// RS+FD over GRR and OUE.
TEST(record_reports_leave_no_noise) {
  use_device_key();
  static constexpr RecordRr<3> record = [] {
    RecordRr<3> r;
    (void)RecordRr<3>::configure_rappor(half, quarter, three_quarters, record_domains, 3, r);
    return r;
  }();
  CHECK_EQ(record.attributes(), 3u);
  const RecordingMemoKey key;
  check_in_place("record-rr", 41, [&](auto& r, uint8_t* out, size_t size) {
    return record.privatize(record_values, key, r, out, size);
  });
  static constexpr auto spl_grr = SplitRecord<GrrSlot, 3>::make(one, record_domains, 3);
  check_record("spl-grr", 42, spl_grr);
  static constexpr auto spl_oue = SplitRecord<OueSlot, 3>::make(one, record_domains, 3);
  check_record("spl-oue", 43, spl_oue);
  static constexpr auto smp_grr = SampledAttribute<GrrSlot, 3>::make(one, record_domains, 3);
  check_record("smp-grr", 44, smp_grr);
  static constexpr auto smp_oue = SampledAttribute<OueSlot, 3>::make(one, record_domains, 3);
  check_record("smp-oue", 45, smp_oue);
  static constexpr auto rsfd_grr = FakeDataRecord<GrrSlot, 3>::make(one, record_domains, 3);
  check_record("rsfd-grr", 46, rsfd_grr);
  static constexpr auto rsfd_oue_z = FakeDataRecord<OueSlot, 3>::make(one, record_domains, 3, FakeData::zero);
  check_record("rsfd-oue-z", 47, rsfd_oue_z);
  static constexpr auto rsfd_oue_r = FakeDataRecord<OueSlot, 3>::make(one, record_domains, 3, FakeData::random);
  check_record("rsfd-oue-r", 48, rsfd_oue_r);
}
