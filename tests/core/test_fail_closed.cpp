// SPDX-License-Identifier: Apache-2.0
// What the core refuses rather than guesses (docs/privacy-model.md, "What tinyldp refuses, and
// why"): every mechanism that was never configured — default-constructed, all-zero bytes, or left
// so by a configure that failed — answers not_configured with an all-zero report of the buffer
// it was given and writes nothing past it; ε with a zero denominator or beyond the 64-bit grid is
// refused, not wrapped; ε below min_epsilon has its own status (and every mechanism configures
// at min_epsilon, so the floor is the library's real limit); a Bloom-encoded UE chain meets ε∞
// and ε₁ as asked instead of h times them. Runs on the host and on every QEMU target.
#include "check.hpp"
#include "guarded_buffer.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/multi_attribute.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/record_rr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

// A report written into a caller's buffer (UE, SHE, THE, records, memoized UE).
template <class Privatize>
void expect_refused_in_place(const char* what, Privatize privatize) {
  Guarded<24> g;
  const Status s = privatize(g.buffer, sizeof g.buffer);
  if (s != Status::not_configured || !g.zero() || !g.guards_intact()) {
    test::print("    ");
    test::print(what);
    test::print("\n");
  }
  CHECK(s == Status::not_configured);
  CHECK(g.zero());
  CHECK(g.guards_intact());
}

// Every field zero (padding aside).
bool is_zero(uint32_t r) { return r == 0; }
bool is_zero(int32_t r) { return r == 0; }
bool is_zero(uint8_t r) { return r == 0; }
bool is_zero(const LocalHashingReport& r) { return r.seed == 0 && r.value == 0; }
bool is_zero(const HadamardReport& r) { return r.row == 0 && r.bit == 0; }
bool is_zero(const DBitFlipReport& r) {
  uint32_t any = r.bits;
  for (uint16_t b : r.bucket) any |= b;
  return any == 0;
}

// A report returned in a struct (the others): zero, and not_configured.
template <class Report, class Privatize>
void expect_refused(const char* what, Privatize privatize) {
  Report report;
  __builtin_memset(static_cast<void*>(&report), 0xA5, sizeof report);
  const Status s = privatize(report);
  const bool zero = is_zero(report);
  if (s != Status::not_configured || !zero) {
    test::print("    ");
    test::print(what);
    test::print("\n");
  }
  CHECK(s == Status::not_configured);
  CHECK(zero);
}

// M as constructed, as all-zero bytes, and after a configure that failed: each refuses.
template <class M, class Check, class FailConfigure>
void each_unconfigured(Check check, FailConfigure fail_configure) {
  M fresh;
  CHECK(!fresh.configured());
  check(fresh);
  M zeroed;
  zero_bytes(zeroed);
  CHECK(!zeroed.configured());
  check(zeroed);
  M failed;
  CHECK(fail_configure(failed) != Status::ok);
  CHECK(!failed.configured());
  check(failed);
}

// A record mechanism of slots over four attributes (SPL, SMP, RS+FD), each way unconfigured:
// its report refused in place. The failed configure gives it `attributes` attributes, too few.
template <class M>
void each_unconfigured_record(const char* what, uint32_t attributes, Rng& rng) {
  const uint32_t values[4] = {0, 0, 0, 0};
  const uint32_t domains[4] = {2, 3, 4, 5};
  each_unconfigured<M>(
      [&](const M& m) {
        expect_refused_in_place(what, [&](uint8_t* b, size_t n) { return m.privatize(values, rng, b, n); });
      },
      [&](M& m) { return M::configure(Epsilon::from_ratio(1, 1), domains, attributes, m); });
}

TEST(every_unconfigured_mechanism_refuses_with_a_zero_report) {
  port::InsecureTestSource src(1);
  Rng rng(src);
  const TestMemoKey key{3, 0};
  const Epsilon one = Epsilon::from_ratio(1, 1);
  const Epsilon two = Epsilon::from_ratio(2, 1);

  each_unconfigured<BinaryRr>(
      [&](const BinaryRr& m) {
        expect_refused<uint8_t>("rr", [&](uint8_t& r) { return m.privatize(1, rng, r); });
      },
      [&](BinaryRr& m) { return BinaryRr::configure(Epsilon{0}, m); });
  each_unconfigured<KaryRr>(
      [&](const KaryRr& m) {
        expect_refused<uint32_t>("krr", [&](uint32_t& r) { return m.privatize(0, rng, r); });
      },
      [&](KaryRr& m) { return KaryRr::configure(one, 1, m); });
  each_unconfigured<UnaryEncoding>(
      [&](const UnaryEncoding& m) {
        expect_refused_in_place("ue", [&](uint8_t* b, size_t n) { return m.privatize(0, rng, b, n); });
      },
      [&](UnaryEncoding& m) { return UnaryEncoding::configure_oue(one, 0, m); });
  each_unconfigured<LocalHashing>(
      [&](const LocalHashing& m) {
        expect_refused<LocalHashingReport>("olh", [&](LocalHashingReport& r) { return m.privatize(0, rng, r); });
      },
      [&](LocalHashing& m) { return LocalHashing::configure_olh(one, 0, m); });
  each_unconfigured<HadamardResponse>(
      [&](const HadamardResponse& m) {
        expect_refused<HadamardReport>("hr", [&](HadamardReport& r) { return m.privatize(0, rng, r); });
      },
      [&](HadamardResponse& m) { return HadamardResponse::configure(one, 0, m); });
  each_unconfigured<StochasticDiscretization>(
      [&](const StochasticDiscretization& m) {
        expect_refused<uint32_t>("sd", [&](uint32_t& r) { return m.privatize(0, rng, r); });
      },
      [&](StochasticDiscretization& m) { return StochasticDiscretization::configure(one, 5, 5, 4, m); });
  uint64_t table[32];
  each_unconfigured<DiscreteLaplace>(
      [&](const DiscreteLaplace& m) {
        expect_refused<int32_t>("dlaplace", [&](int32_t& r) { return m.privatize(0, rng, r); });
      },
      [&](DiscreteLaplace& m) { return DiscreteLaplace::configure(one, 0, 10, 1, table, 2, m); });
  each_unconfigured<SummationHistogram>(
      [&](const SummationHistogram& m) {
        expect_refused_in_place("she", [&](uint8_t* b, size_t n) { return m.privatize(0, rng, b, n); });
      },
      [&](SummationHistogram& m) { return SummationHistogram::configure(one, 1, table, 32, m, 4); });
  each_unconfigured<ThresholdHistogram>(
      [&](const ThresholdHistogram& m) {
        expect_refused_in_place("the", [&](uint8_t* b, size_t n) { return m.privatize(0, rng, b, n); });
      },
      [&](ThresholdHistogram& m) { return ThresholdHistogram::configure(one, 1, m); });
  each_unconfigured<TwoStageRr>(
      [&](const TwoStageRr& m) {
        expect_refused_in_place("two-stage", [&](uint8_t* b, size_t n) { return m.privatize(0, key, rng, b, n); });
      },
      [&](TwoStageRr& m) {
        return TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, one, two, TwoStageRr::one_hot(8), m);
      });
  const uint32_t values[4] = {0, 0, 0, 0};
  each_unconfigured<RecordRr<4>>(
      [&](const RecordRr<4>& m) {
        expect_refused_in_place("record", [&](uint8_t* b, size_t n) { return m.privatize(values, key, rng, b, n); });
      },
      [&](RecordRr<4>& m) { return RecordRr<4>::configure(nullptr, 2, m); });
  each_unconfigured_record<SplitRecord<GrrSlot, 4>>("spl-grr", 0, rng);
  each_unconfigured_record<SplitRecord<OueSlot, 4>>("spl-oue", 0, rng);
  each_unconfigured_record<SampledAttribute<OueSlot, 4>>("smp-oue", 1, rng);
  each_unconfigured_record<SampledAttribute<GrrSlot, 4>>("smp-grr", 1, rng);
  each_unconfigured_record<FakeDataRecord<OueSlot, 4>>("rsfd-oue", 1, rng);
  each_unconfigured_record<FakeDataRecord<GrrSlot, 4>>("rsfd-grr", 1, rng);
  each_unconfigured<LongitudinalGrr>(
      [&](const LongitudinalGrr& m) {
        expect_refused<uint32_t>("l-grr", [&](uint32_t& r) { return m.privatize(0, key, rng, r); });
      },
      [&](LongitudinalGrr& m) { return LongitudinalGrr::configure(two, one, 1, m); });
  each_unconfigured<Loloha>(
      [&](const Loloha& m) {
        expect_refused<LocalHashingReport>("loloha", [&](LocalHashingReport& r) { return m.privatize(0, key, rng, r); });
      },
      [&](Loloha& m) { return Loloha::configure_optimal(two, one, 1, m); });
  each_unconfigured<DBitFlip>(
      [&](const DBitFlip& m) {
        expect_refused<DBitFlipReport>("dbitflip", [&](DBitFlipReport& r) { return m.privatize(0, key, rng, r); });
      },
      [&](DBitFlip& m) { return DBitFlip::configure(two, one, DBitFlip::Layout{10, 3, 1, 0}, m); });
  each_unconfigured<OneBitMean>(
      [&](const OneBitMean& m) {
        expect_refused<uint8_t>("1bitmean", [&](uint8_t& r) { return m.privatize(0, key, rng, r); });
      },
      [&](OneBitMean& m) { return OneBitMean::configure(two, one, OneBitMean::Grid{10, 3, 32, 0}, m); });
  // A refusal is no entropy failure: the Rng is still usable.
  CHECK(rng.ok());
}

TEST(epsilon_with_a_zero_denominator_or_beyond_the_grid_is_refused_not_wrapped) {
  CHECK_EQ(Epsilon::from_ratio(1, 0).q32, 0u);
  CHECK(!is_valid_epsilon(Epsilon::from_ratio(1, 0)));
  // (2^32 + 1)/1 · 2^32 does not fit 64 bits: not ε = 1 (what it wrapped to), but invalid.
  const Epsilon wide = Epsilon::from_ratio((uint64_t{1} << 32) + 1, 1);
  CHECK(wide.q32 != (uint64_t{1} << 32));
  CHECK(!is_valid_epsilon(wide));
  BinaryRr rr;
  CHECK(BinaryRr::configure(Epsilon::from_ratio(1, 0), rr) == Status::bad_epsilon);
  CHECK(BinaryRr::configure(wide, rr) == Status::bad_epsilon);
  UnaryEncoding ue;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 0), 8, ue) == Status::bad_epsilon);
  CHECK(!ue.configured());
  // What still fits is exact: 20/1, and 3/2.
  CHECK_EQ(Epsilon::from_ratio(20, 1).q32, uint64_t{20} << 32);
  CHECK_EQ(Epsilon::from_ratio(3, 2).q32, uint64_t{3} << 31);
}

TEST(epsilon_below_the_floor_has_its_own_status_and_every_mechanism_takes_the_floor) {
  const Epsilon below{min_epsilon.q32 - 1};
  const Epsilon floor = min_epsilon;
  const Epsilon twice{2 * min_epsilon.q32};
  const uint32_t domains[3] = {4, 5, 6};
  uint64_t table[64];
  // Each configure at e: a status per mechanism, compared with `want` (memoized: ε₁ = e, ε∞ = 2e).
  auto each = [&](Epsilon e, Epsilon inf, Status want) {
    BinaryRr rr;
    KaryRr krr;
    UnaryEncoding ue;
    LocalHashing lh;
    HadamardResponse hr;
    StochasticDiscretization sd;
    DiscreteLaplace dl;
    SummationHistogram she;
    ThresholdHistogram the;
    TwoStageRr chain;
    LongitudinalGrr l_grr;
    Loloha lo;
    OneBitMean ob;
    SplitRecord<GrrSlot, 4> spl;
    SampledAttribute<OueSlot, 4> smp;
    FakeDataRecord<OueSlot, 4> rsfd;
    CHECK_EQ(BinaryRr::configure(e, rr), want);
    CHECK_EQ(KaryRr::configure(e, 10, krr), want);
    CHECK_EQ(UnaryEncoding::configure_oue(e, 10, ue), want);
    CHECK_EQ(UnaryEncoding::configure_sue(e, 10, ue), want);
    CHECK_EQ(LocalHashing::configure_olh(e, 10, lh), want);
    CHECK_EQ(HadamardResponse::configure(e, 10, hr), want);
    CHECK_EQ(StochasticDiscretization::configure(e, 0, 100, 4, sd), want);
    CHECK_EQ(DiscreteLaplace::configure(e, 0, 50, 1, table, 64, dl), want);
    // SHE: each component's noise is at ε/2, a share that must reach the floor itself.
    CHECK_EQ(SummationHistogram::configure(Epsilon{2 * e.q32}, 10, table, 64, she, 10), want);
    CHECK_EQ(ThresholdHistogram::configure(e, 10, the), want);
    CHECK_EQ(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, inf, e, TwoStageRr::one_hot(10), chain), want);
    CHECK_EQ(LongitudinalGrr::configure(inf, e, 10, l_grr), want);
    CHECK_EQ(Loloha::configure_optimal(inf, e, 10, lo), want);
    CHECK_EQ(OneBitMean::configure(inf, e, OneBitMean::Grid{10, 1, 32, 0}, ob), want);
    CHECK_EQ((SplitRecord<GrrSlot, 4>::configure(Epsilon{e.q32 * 3}, domains, 3, spl)), want);
    CHECK_EQ((SampledAttribute<OueSlot, 4>::configure(e, domains, 3, smp)), want);
    CHECK_EQ((FakeDataRecord<OueSlot, 4>::configure(e, domains, 3, rsfd)), want);
  };
  each(below, twice, Status::epsilon_too_small);
  each(Epsilon{1}, twice, Status::epsilon_too_small);
  each(floor, twice, Status::ok);
  // Shares: one SPL attribute, one dBitFlip bit, one Bloom hash, SHE's ε/2 below the floor.
  SummationHistogram she;
  CHECK_EQ(SummationHistogram::configure(Epsilon{2 * floor.q32 - 1}, 10, table, 64, she, 10), Status::epsilon_too_small);
  SplitRecord<GrrSlot, 4> spl;
  CHECK_EQ((SplitRecord<GrrSlot, 4>::configure(Epsilon{3 * floor.q32 - 1}, domains, 3, spl)), Status::epsilon_too_small);
  DBitFlip db;
  CHECK_EQ(DBitFlip::configure(Epsilon{8 * floor.q32}, Epsilon{2 * floor.q32 - 1}, DBitFlip::Layout{10, 1, 2, 0}, db),
           Status::epsilon_too_small);
  CHECK_EQ(DBitFlip::configure(Epsilon{8 * floor.q32}, Epsilon{2 * floor.q32}, DBitFlip::Layout{10, 1, 2, 0}, db),
           Status::ok);
  TwoStageRr bloom;
  CHECK_EQ(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, Epsilon{8 * floor.q32}, Epsilon{4 * floor.q32 - 1},
                                       TwoStageRr::bloom(64, 4, 8), bloom),
           Status::epsilon_too_small);
  // Zero and above 20 stay bad_epsilon.
  BinaryRr rr;
  CHECK_EQ(BinaryRr::configure(Epsilon{0}, rr), Status::bad_epsilon);
  CHECK_EQ(BinaryRr::configure(Epsilon{max_epsilon.q32 + 1}, rr), Status::bad_epsilon);
}

TEST(bloom_chains_meet_the_requested_epsilons_instead_of_h_times_them) {
  const Epsilon inf = Epsilon::from_ratio(2, 1), one = Epsilon::from_ratio(1, 1);
  const UeStage stages[] = {UeStage::sue, UeStage::oue};
  const uint32_t hashes[] = {1, 2, 4, 16};
  for (UeStage first : stages) {
    for (UeStage second : stages) {
      for (uint32_t h : hashes) {
        TwoStageRr m;
        CHECK(TwoStageRr::configure_chain(first, second, inf, one, TwoStageRr::bloom(64, h, 8), m) == Status::ok);
        // Never above the request, and below it by no more than the tolerance (2^-21) and the
        // per-bit rounding (2^-32 each).
        const uint64_t slack = (uint64_t{1} << 11) + 2 * uint64_t{h};
        CHECK(m.epsilon_infinity() <= inf);
        CHECK(m.epsilon_one() <= one);
        CHECK_LE(inf.q32 - m.epsilon_infinity().q32, slack);
        CHECK_LE(one.q32 - m.epsilon_one().q32, slack);
        // The memo stage is the one-hot chain's at ε∞/h (and 1/h of the tolerance), per bit.
        TwoStageRr per_bit;
        CHECK(TwoStageRr::configure_chain(first, second, Epsilon{inf.q32 / h}, Epsilon{one.q32 / h},
                                          TwoStageRr::one_hot(64), per_bit,
                                          Precision{64, (uint64_t{1} << 11) / h}) == Status::ok);
        CHECK(m.p1() == per_bit.p1() && m.q1() == per_bit.q1());
        CHECK_EQ(m.epsilon_infinity().q32, h * per_bit.epsilon_infinity().q32);
      }
    }
  }
}

}  // namespace
}  // namespace tinyldp::test
