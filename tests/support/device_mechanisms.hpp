// SPDX-License-Identifier: Apache-2.0
// Every core mechanism's example configuration, one entry each: the one list of mechanisms the
// device-side programs iterate — the constant-time guest (tests/constant_time_on_target), the
// no-noise-left test (tests/privacy), context sizes and the report shape (tests/core), the
// footprint programs (bench/footprint: one program per entry, its CMakeLists reads the names
// and `about`s below) and the target costs (bench/target_costs). A mechanism added to the core
// gets its entry here and with it is traced, scanned, sized, measured and budgeted on every
// target (its footprint and target-cost budgets are the only lines to add by hand).
//
// An entry is a struct with
//   name, about      its row's name in every program's output, and its parameters in words
//                    (each a plain string literal on its own line, name first, so that a build
//                    script can read them: bench/footprint/CMakeLists.txt does);
//   mechanism        the configured context, constexpr (the core's consteval makers);
//   coarse           where the configuration takes a precision: the same at coarse_precision (an
//                    ε tolerance of 10⁻³), for the target costs' whole-report rows;
//   Value, values    what privatize takes (a category, a signed number or a record) and one
//                    value per constant-time run (0 … 3; run 0 is the domain's first value);
//   from_sensor(w)   the value a footprint program reports for the sensor word w (records:
//                    record_from_sensor);
//   d                its size in one number (categories, levels, grid points, Bloom bits,
//                    buckets or attributes), target costs' parameter column;
//   memoized         whether privatize takes the device's memo key;
//   context_bytes    the context's size as its header documents it.
// Every mechanism reports through the one shape privatize(value, [key,] rng, report, size)
// (fail_closed.hpp); device::privatize below calls it for any entry.
//
// Freestanding: the bare-metal targets include it (core headers only).
#ifndef TINYLDP_TESTS_SUPPORT_DEVICE_MECHANISMS_HPP
#define TINYLDP_TESTS_SUPPORT_DEVICE_MECHANISMS_HPP

#include <stddef.h>
#include <stdint.h>

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
#include "tinyldp/record_rr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/square_wave.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::device {

constexpr Epsilon one = Epsilon::from_ratio(1, 1);
// A coarse precision (probability.hpp): the realized ε at most 10⁻³ below the request, so each
// probability takes fewer bits (OUE: q at 5 bits, p fitted). An entry whose configuration takes
// a precision has `coarse`, its mechanism configured so; the target costs measure both.
constexpr Precision coarse_precision{64, 4294967};
// The memoized mechanisms: ε∞ = 2, ε₁ = 1; RAPPOR's f = 1/2, p = 1/4, q = 3/4.
constexpr Epsilon eps_inf = Epsilon::from_ratio(2, 1);
constexpr Dyadic half{1, 1}, quarter{1, 2}, three_quarters{3, 2};
constexpr uint32_t memo_d = 16;

// Records of four attributes; one record per constant-time run, every attribute's value
// different from run to run (run 0: all zero).
constexpr uint32_t attributes = 4;
constexpr uint32_t record_domains[attributes] = {2, 5, 17, 3};
constexpr uint32_t records[4][attributes] = {{0, 0, 0, 0}, {1, 3, 11, 2}, {0, 4, 16, 1}, {1, 1, 5, 0}};
// A footprint program's record from the sensor word: a byte per attribute, masked into its domain.
inline void record_from_sensor(uint32_t w, uint32_t (&record)[attributes]) {
  constexpr uint32_t masks[attributes] = {1, 3, 15, 1};
  for (uint32_t j = 0; j < attributes; ++j) record[j] = (w >> (8 * j)) & masks[j];
}

// What the entries share, by the shape of their input.
struct Category {
  using Value = uint32_t;
  static constexpr bool memoized = false;
};
struct SignedNumber {
  using Value = int32_t;
  static constexpr bool memoized = false;
};
struct MemoizedCategory : Category {
  static constexpr bool memoized = true;
};
struct RecordOf {
  static constexpr uint32_t d = 4;
  using Value = const uint32_t*;
  static constexpr bool memoized = false;
  static constexpr Value values[4] = {records[0], records[1], records[2], records[3]};
};
struct MemoizedRecordOf : RecordOf {
  static constexpr bool memoized = true;
};

// ---------------------------------------------------------------- one report, fresh noise only

struct Rr : Category {
  static constexpr uint32_t d = 2;
  static constexpr char name[] = "rr";
  static constexpr char about[] = "binary";
  static constexpr BinaryRr mechanism = BinaryRr::make(one);
  static constexpr BinaryRr coarse = BinaryRr::make(one, coarse_precision);
  static constexpr Value values[4] = {0, 1, 1, 0};
  static constexpr Value from_sensor(uint32_t w) { return w & 1u; }
  static constexpr size_t context_bytes = 24;
};
struct Krr : Category {
  static constexpr uint32_t d = 16;
  static constexpr char name[] = "krr";
  static constexpr char about[] = "k = 16";
  static constexpr KaryRr mechanism = KaryRr::make(one, 16);
  static constexpr KaryRr coarse = KaryRr::make(one, 16, coarse_precision);
  static constexpr Value values[4] = {0, 5, 9, 15};
  static constexpr Value from_sensor(uint32_t w) { return w & 15u; }
  static constexpr size_t context_bytes = 40;
};
// Unary encoding and histogram encoding over d = 256 (a 32-byte report).
struct UeDomain : Category {
  static constexpr uint32_t d = 256;
  static constexpr Value values[4] = {0, 5, 33, 255};
  static constexpr Value from_sensor(uint32_t w) { return w & 255u; }
};
struct Sue : UeDomain {
  static constexpr char name[] = "sue";
  static constexpr char about[] = "d = 256";
  static constexpr UnaryEncoding mechanism = UnaryEncoding::make_sue(one, 256);
  static constexpr UnaryEncoding coarse = UnaryEncoding::make_sue(one, 256, coarse_precision);
  static constexpr size_t context_bytes = 48;
};
struct Oue : UeDomain {
  static constexpr char name[] = "oue";
  static constexpr char about[] = "d = 256";
  static constexpr UnaryEncoding mechanism = UnaryEncoding::make_oue(one, 256);
  static constexpr UnaryEncoding coarse = UnaryEncoding::make_oue(one, 256, coarse_precision);
  static constexpr size_t context_bytes = 48;
};
struct LhDomain : Category {
  static constexpr uint32_t d = 1024;
  static constexpr Value values[4] = {0, 5, 333, 1023};
  static constexpr Value from_sensor(uint32_t w) { return w & 1023u; }
  static constexpr size_t context_bytes = 48;
};
struct Blh : LhDomain {
  static constexpr char name[] = "blh";
  static constexpr char about[] = "d = 1024";
  static constexpr LocalHashing mechanism = LocalHashing::make_blh(one, 1024);
  static constexpr LocalHashing coarse = LocalHashing::make_blh(one, 1024, coarse_precision);
};
struct Olh : LhDomain {
  static constexpr char name[] = "olh";
  static constexpr char about[] = "d = 1024";
  static constexpr LocalHashing mechanism = LocalHashing::make_olh(one, 1024);
  static constexpr LocalHashing coarse = LocalHashing::make_olh(one, 1024, coarse_precision);
};
struct Hr : UeDomain {
  static constexpr char name[] = "hr";
  static constexpr char about[] = "d = 256";
  static constexpr HadamardResponse mechanism = HadamardResponse::make(one, 256);
  static constexpr HadamardResponse coarse = HadamardResponse::make(one, 256, coarse_precision);
  static constexpr size_t context_bytes = 32;
};
// The numeric entries over [0, 1000] (sd, pm, hm, sw, hh, haar-hrr).
struct ZeroToThousand : SignedNumber {
  static constexpr uint32_t d = 1001;
  static constexpr Value values[4] = {0, 333, 999, 1000};
  static constexpr Value from_sensor(uint32_t w) { return static_cast<int32_t>(w & 511u); }
};
struct Sd : ZeroToThousand {
  static constexpr char name[] = "sd";
  static constexpr char about[] = "[0, 1000] in 16 levels";
  static constexpr StochasticDiscretization mechanism = StochasticDiscretization::make(one, 0, 1000, 16);
  static constexpr StochasticDiscretization coarse = StochasticDiscretization::make(one, 0, 1000, 16, coarse_precision);
  static constexpr size_t context_bytes = 56;
};
struct Dlaplace : SignedNumber {
  static constexpr uint32_t d = 101;
  static constexpr char name[] = "dlaplace";
  static constexpr char about[] = "[−50, 50], Δ = 1 (101 weights in flash)";
  static constexpr auto weights =
      DiscreteLaplaceTable<DiscreteLaplace::table_entries(-50, 50)>::make(one, -50, 50, 1);
  static constexpr DiscreteLaplace mechanism = weights.bind();
  static constexpr Value values[4] = {-50, -13, 49, 50};
  static constexpr Value from_sensor(uint32_t w) { return static_cast<int32_t>(w & 63u) - 32; }
  static constexpr size_t context_bytes = 56;
};
struct Pm : ZeroToThousand {
  static constexpr char name[] = "pm";
  static constexpr char about[] = "[0, 1000] on 2048 cells";
  static constexpr PiecewiseMechanism mechanism = PiecewiseMechanism::make(one, 0, 1000);
  static constexpr PiecewiseMechanism coarse = PiecewiseMechanism::make(one, 0, 1000, PiecewiseMechanism::default_cells, coarse_precision);
  static constexpr size_t context_bytes = 80;
};
struct Hm : ZeroToThousand {
  static constexpr char name[] = "hm";
  static constexpr char about[] = "[0, 1000] on 2048 cells";
  static constexpr HybridMechanism mechanism = HybridMechanism::make(one, 0, 1000);
  static constexpr HybridMechanism coarse = HybridMechanism::make(one, 0, 1000, PiecewiseMechanism::default_cells, coarse_precision);
  static constexpr size_t context_bytes = 160;
};
struct Sw : ZeroToThousand {
  static constexpr char name[] = "sw";
  static constexpr char about[] = "[0, 1000] in 1024 buckets";
  static constexpr SquareWave mechanism = SquareWave::make(one, 0, 1000);
  static constexpr SquareWave coarse = SquareWave::make(one, 0, 1000, SquareWave::default_buckets, coarse_precision);
  static constexpr size_t context_bytes = 80;
};
// The entries over [0, 1000] that take the memo key for the device's level only (their reports
// are fresh, each charged ε): hh and haar-hrr.
struct KeyedLevel : ZeroToThousand {
  static constexpr bool memoized = true;
};
// The hierarchical histogram: [0, 1000] in a 4-ary tree, levels 1–2 through OUE (4 and 16
// nodes), 3–5 through OLH (63, 251 and 1001).
struct Hh : KeyedLevel {
  static constexpr char name[] = "hh";
  static constexpr char about[] = "[0, 1000], B = 4: 5 levels, OUE at 4 and 16 nodes, OLH above";
  static constexpr HierarchicalHistogram mechanism = HierarchicalHistogram::make(one, 0, 1000);
  static constexpr HierarchicalHistogram coarse = HierarchicalHistogram::make(one, 0, 1000, HierarchicalHistogram::default_branching, coarse_precision);
  static constexpr size_t context_bytes = 112;
};
// HaarHRR: [0, 1000] in a binary tree of 1024 leaves, 10 levels; a report is a row of its
// level's Hadamard matrix and one RR bit.
struct Haar : KeyedLevel {
  static constexpr char name[] = "haar_hrr";
  static constexpr char about[] = "[0, 1000]: 10 levels, a Hadamard row and a bit through RR";
  static constexpr HaarHrr mechanism = HaarHrr::make(one, 0, 1000);
  static constexpr HaarHrr coarse = HaarHrr::make(one, 0, 1000, coarse_precision);
  static constexpr size_t context_bytes = 40;
};
struct She : Category {
  static constexpr uint32_t d = 16;
  static constexpr char name[] = "she";
  static constexpr char about[] = "d = 16, T = 14 (30 weights in flash)";
  static constexpr auto weights = SummationHistogramTable<SummationHistogram::table_entries(
      SummationHistogram::default_truncation(one))>::make(one, 16);
  static constexpr SummationHistogram mechanism = weights.bind();
  static constexpr Value values[4] = {0, 5, 9, 15};
  static constexpr Value from_sensor(uint32_t w) { return w & 15u; }
  static constexpr size_t context_bytes = 72;
};
struct The : UeDomain {
  static constexpr char name[] = "the";
  static constexpr char about[] = "d = 256";
  static constexpr ThresholdHistogram mechanism = ThresholdHistogram::make(one, 256);
  static constexpr ThresholdHistogram coarse = ThresholdHistogram::make(one, 256, coarse_precision);
  static constexpr size_t context_bytes = 56;
};

// ---------------------------------------------------------------- memoized (the device's memo key)

struct MemoDomain : MemoizedCategory {
  static constexpr uint32_t d = 16;
  static constexpr Value values[4] = {0, 5, 9, memo_d - 1};
  static constexpr Value from_sensor(uint32_t w) { return w & (memo_d - 1); }
  static constexpr size_t context_bytes = 128;
};
struct Rappor : MemoDomain {
  static constexpr char name[] = "rappor";
  static constexpr char about[] = "d = 16 one-hot, f = 1/2, p = 1/4, q = 3/4";
  static constexpr TwoStageRr mechanism =
      TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::one_hot(memo_d));
};
struct RapporBloom : MemoDomain {
  static constexpr uint32_t d = 32;
  static constexpr char name[] = "rappor_bloom";
  static constexpr char about[] = "32-bit Bloom filter, 2 hashes, 4 cohorts";
  static constexpr TwoStageRr mechanism =
      TwoStageRr::make_rappor(half, quarter, three_quarters, TwoStageRr::bloom(32, 2, 4));
  static constexpr Value values[4] = {0, 5, 1234, 0xFFFFFFFFu};
  static constexpr Value from_sensor(uint32_t w) { return w; }
};
template <UeStage First, UeStage Second>
struct Chain : MemoDomain {
  static constexpr TwoStageRr mechanism = TwoStageRr::make_chain(First, Second, eps_inf, one, TwoStageRr::one_hot(memo_d));
  static constexpr TwoStageRr coarse = TwoStageRr::make_chain(First, Second, eps_inf, one, TwoStageRr::one_hot(memo_d), coarse_precision);
};
struct LSue : Chain<UeStage::sue, UeStage::sue> {
  static constexpr char name[] = "l_sue";
  static constexpr char about[] = "d = 16, ε∞ = 2, ε₁ = 1";
};
struct LOsue : Chain<UeStage::oue, UeStage::sue> {
  static constexpr char name[] = "l_osue";
  static constexpr char about[] = "d = 16, ε∞ = 2, ε₁ = 1";
};
struct LOue : Chain<UeStage::oue, UeStage::oue> {
  static constexpr char name[] = "l_oue";
  static constexpr char about[] = "d = 16, ε∞ = 2, ε₁ = 1";
};
struct LSoue : Chain<UeStage::sue, UeStage::oue> {
  static constexpr char name[] = "l_soue";
  static constexpr char about[] = "d = 16, ε∞ = 2, ε₁ = 1";
};
struct LGrr : MemoizedCategory {
  static constexpr uint32_t d = 6;
  static constexpr char name[] = "l_grr";
  static constexpr char about[] = "k = 6, ε∞ = 2, ε₁ = 1";
  static constexpr LongitudinalGrr mechanism = LongitudinalGrr::make(eps_inf, one, 6);
  static constexpr LongitudinalGrr coarse = LongitudinalGrr::make(eps_inf, one, 6, coarse_precision);
  static constexpr Value values[4] = {0, 2, 4, 5};
  static constexpr Value from_sensor(uint32_t w) { return w & 3u; }
  static constexpr size_t context_bytes = 104;
};
struct LolohaDomain : MemoizedCategory {
  static constexpr uint32_t d = 96;
  static constexpr Value values[4] = {0, 5, 50, 95};
  static constexpr Value from_sensor(uint32_t w) { return w & 63u; }
  static constexpr size_t context_bytes = 112;
};
struct OptimalLoloha : LolohaDomain {
  static constexpr char name[] = "loloha";
  static constexpr char about[] = "d = 96, ε∞ = 2, ε₁ = 1";
  static constexpr Loloha mechanism = Loloha::make_optimal(eps_inf, one, 96);
  static constexpr Loloha coarse = Loloha::make_optimal(eps_inf, one, 96, coarse_precision);
};
struct BinaryLoloha : LolohaDomain {
  static constexpr char name[] = "biloloha";
  static constexpr char about[] = "d = 96, ε∞ = 2, ε₁ = 1";
  static constexpr Loloha mechanism = Loloha::make_binary(eps_inf, one, 96);
  static constexpr Loloha coarse = Loloha::make_binary(eps_inf, one, 96, coarse_precision);
};
struct BitMean : MemoizedCategory {
  static constexpr uint32_t d = 101;
  static constexpr char name[] = "one_bit_mean";
  static constexpr char about[] = "0 … 100, grid step 10, ε∞ = 2, ε₁ = 1";
  static constexpr OneBitMean mechanism = OneBitMean::make(eps_inf, one, OneBitMean::Grid{100, 10});
  static constexpr OneBitMean coarse = OneBitMean::make(eps_inf, one, OneBitMean::Grid{100, 10}, coarse_precision);
  static constexpr Value values[4] = {0, 37, 99, 100};
  static constexpr Value from_sensor(uint32_t w) { return w & 63u; }
  // J = m/s kept from the configuration: no division on a run-time context's report path.
  static constexpr size_t context_bytes = 120;
};
struct BitFlip : MemoizedCategory {
  static constexpr uint32_t d = 17;
  static constexpr char name[] = "dbitflip";
  static constexpr char about[] = "0 … 1024, grid step 64: k = 17 buckets, d = 4; ε∞ = 2, ε₁ = 1";
  static constexpr DBitFlip mechanism = DBitFlip::make(eps_inf, one, DBitFlip::Layout{1024, 64, 4, 0});
  static constexpr DBitFlip coarse = DBitFlip::make(eps_inf, one, DBitFlip::Layout{1024, 64, 4, 0}, coarse_precision);
  static constexpr Value values[4] = {0, 37, 999, 1024};
  static constexpr Value from_sensor(uint32_t w) { return w & 1023u; }
  static constexpr size_t context_bytes = 136;
};

// ---------------------------------------------------------------- records of four attributes

struct RecordRappor : MemoizedRecordOf {
  static constexpr char name[] = "record_rr";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values), RAPPOR's f, p, q";
  static constexpr RecordRr<attributes> mechanism = [] {
    RecordRr<attributes> r;
    (void)RecordRr<attributes>::configure_rappor(half, quarter, three_quarters, record_domains, attributes, r);
    return r;
  }();
  static constexpr size_t context_bytes = 128 * attributes + 24;
};
// Slots of 40 bytes (GRR) or 48 (OUE); SPL and SMP add 16 bytes, RS+FD 48.
template <class Slot, size_t Own = 16>
struct RecordOfSlots : RecordOf {
  static constexpr size_t context_bytes = sizeof(Slot) * attributes + Own;
};
struct SplGrr : RecordOfSlots<GrrSlot> {
  static constexpr char name[] = "spl_grr";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values)";
  static constexpr auto mechanism = SplitRecord<GrrSlot, attributes>::make(one, record_domains, attributes);
  static constexpr auto coarse = SplitRecord<GrrSlot, attributes>::make(one, record_domains, attributes, coarse_precision);
};
struct SplOue : RecordOfSlots<OueSlot> {
  static constexpr char name[] = "spl_oue";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values)";
  static constexpr auto mechanism = SplitRecord<OueSlot, attributes>::make(one, record_domains, attributes);
  static constexpr auto coarse = SplitRecord<OueSlot, attributes>::make(one, record_domains, attributes, coarse_precision);
};
struct SmpGrr : RecordOfSlots<GrrSlot> {
  static constexpr char name[] = "smp_grr";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values)";
  static constexpr auto mechanism = SampledAttribute<GrrSlot, attributes>::make(one, record_domains, attributes);
  static constexpr auto coarse = SampledAttribute<GrrSlot, attributes>::make(one, record_domains, attributes, coarse_precision);
};
struct SmpOue : RecordOfSlots<OueSlot> {
  static constexpr char name[] = "smp_oue";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values)";
  static constexpr auto mechanism = SampledAttribute<OueSlot, attributes>::make(one, record_domains, attributes);
  static constexpr auto coarse = SampledAttribute<OueSlot, attributes>::make(one, record_domains, attributes, coarse_precision);
};
struct RsfdGrr : RecordOfSlots<GrrSlot, 48> {
  static constexpr char name[] = "rsfd_grr";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values)";
  static constexpr auto mechanism = FakeDataRecord<GrrSlot, attributes>::make(one, record_domains, attributes);
  static constexpr auto coarse = FakeDataRecord<GrrSlot, attributes>::make(one, record_domains, attributes, FakeData::zero, coarse_precision);
};
struct RsfdOueZero : RecordOfSlots<OueSlot, 48> {
  static constexpr char name[] = "rsfd_oue_z";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values), zero fake data";
  static constexpr auto mechanism =
      FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::zero);
  static constexpr auto coarse =
      FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::zero, coarse_precision);
};
struct RsfdOueRandom : RecordOfSlots<OueSlot, 48> {
  static constexpr char name[] = "rsfd_oue_r";
  static constexpr char about[] = "4 attributes (2, 5, 17, 3 values), uniform fake data";
  static constexpr auto mechanism =
      FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::random);
  static constexpr auto coarse =
      FakeDataRecord<OueSlot, attributes>::make(one, record_domains, attributes, FakeData::random, coarse_precision);
};

// ---------------------------------------------------------------- the list

// Equal C strings, at compile time.
constexpr bool same_name(const char* a, const char* b) {
  for (; *a != 0 && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

template <size_t I, class First, class... Rest>
struct EntryAt {
  using type = typename EntryAt<I - 1, Rest...>::type;
};
template <class First, class... Rest>
struct EntryAt<0, First, Rest...> {
  using type = First;
};

template <class... Entries>
struct List {
  static constexpr size_t size = sizeof...(Entries);
  // The I-th entry, and the index of the entry called `name` (size if there is none): a program
  // built for one entry picks it by name (bench/footprint/mechanism.cpp).
  template <size_t I>
  using At = typename EntryAt<I, Entries...>::type;
  static constexpr size_t index_of(const char* name) {
    size_t i = 0, found = size;
    ((found = same_name(Entries::name, name) ? i : found, ++i), ...);
    return found;
  }
  // f.template operator()<Entry>() for every entry, in order (f: a lambda []<class Entry>() {…}).
  template <class F>
  static constexpr void for_each(F&& f) {
    (f.template operator()<Entries>(), ...);
  }
  // The largest payload of any entry: a buffer every report fits.
  static constexpr size_t max_payload_bytes() {
    size_t most = 0;
    ((most = Entries::mechanism.description().payload_bytes() > most
                 ? Entries::mechanism.description().payload_bytes()
                 : most),
     ...);
    return most;
  }
};

using Mechanisms = List<Rr, Krr, Sue, Oue, Blh, Olh, Hr, Sd, Dlaplace, Pm, Hm, Sw, Hh, Haar, She, The, Rappor,
                        RapporBloom, LSue, LOsue, LOue, LSoue, LGrr, OptimalLoloha, BinaryLoloha, BitMean, BitFlip,
                        RecordRappor, SplGrr, SplOue, SmpGrr, SmpOue, RsfdGrr, RsfdOueZero, RsfdOueRandom>;

// The entry's mechanism (or another context of its type, `m`) reports `value` into
// report[0, size) through the one report shape; a memoized one with `key`.
template <class Entry, class Mechanism, class Key, class Rng>
__attribute__((always_inline)) inline Status privatize(const Mechanism& m, typename Entry::Value value,
                                                       const Key& key, Rng& rng, uint8_t* report, size_t size) {
  if constexpr (Entry::memoized) {
    return m.privatize(value, key, rng, report, size);
  } else {
    (void)key;
    return m.privatize(value, rng, report, size);
  }
}
template <class Entry, class Key, class Rng>
__attribute__((always_inline)) inline Status privatize(typename Entry::Value value, const Key& key, Rng& rng,
                                                       uint8_t* report, size_t size) {
  return privatize<Entry>(Entry::mechanism, value, key, rng, report, size);
}

}  // namespace tinyldp::device

#endif
