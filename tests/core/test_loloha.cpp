// SPDX-License-Identifier: Apache-2.0
// LOLOHA (loloha.hpp): the closed-form g against the paper's expression evaluated in double
// precision, the chain's configuration, the per-device seed and the memo per hashed value,
// fail-closed ends, the same bits for every value, the estimator's unbiasedness over a fleet,
// the lifetime budget and the wire codec.
#include "check.hpp"
#include "frequency_check.hpp"
#include "mechanism_checks.hpp"
#include "memoized_checks.hpp"
#include "tinyldp/loloha.hpp"

namespace tinyldp::test {
namespace {

constexpr Epsilon eps_inf = Epsilon::from_double(5.0), eps_one = Epsilon::from_double(2.0);
constexpr Loloha ololoha = Loloha::make_optimal(eps_inf, eps_one, 96);
constexpr Loloha biloloha = Loloha::make_binary(eps_inf, eps_one, 96);

// The seed as privatize draws it (of ololoha's memo attribute word; biloloha's differs).
uint32_t device_seed(const TestMemoKey& key, uint32_t attribute_word = ololoha.memo_attribute_word()) {
  auto stream = key.memo_stream(attribute_word, 0xFFFFFFFFu);
  TestMemoDraws seeds(stream);
  return Loloha::hash_seed(seeds);
}

TEST(optimal_g_is_the_papers_closed_form) {
  // (ε∞, ε₁) → rint of the paper's root, evaluated in double precision beside this test:
  // 7.56, 11.23, 55.20, 1.99, 2.79, 5.50, 2.29, 5500.34, 3.10, 3.71.
  struct Case {
    double inf, one;
    uint32_t g;
  };
  const Case cases[] = {{5, 2, 8},   {5, 2.5, 11}, {10, 4, 55},      {1, 0.5, 2}, {2, 1, 3},
                        {2, 1.8, 6}, {0.5, 0.45, 2}, {10, 9, 5500}, {3, 1, 3},   {8, 1, 4}};
  for (const Case& c : cases) {
    const auto inf = Epsilon::from_q32(static_cast<uint64_t>(c.inf * 4294967296.0));
    const auto one = Epsilon::from_q32(static_cast<uint64_t>(c.one * 4294967296.0));
    CHECK_EQ(Loloha::optimal_range(inf, one), c.g);
  }
  // Capped at 2^24 (ε∞ = 20, ε₁ = 19 asks for ≈ 1.2e8), and 2 for budgets it cannot use.
  CHECK_EQ(Loloha::optimal_range(Epsilon::from_double(20.0), Epsilon::from_double(19.0)), Loloha::max_range);
  CHECK_EQ(Loloha::optimal_range(Epsilon::from_double(1.0), Epsilon::from_double(2.0)), 2u);
  static_assert(ololoha.range() == 8 && biloloha.range() == 2);
}

TEST(the_chain_is_krr_at_epsilon_infinity_then_epsilon_one_from_below) {
  const Loloha* both[] = {&ololoha, &biloloha};
  for (const Loloha* m : both) {
    check_chain_meets(m->chain(), m->range(), eps_inf, eps_one);
    CHECK_EQ(m->memo_bits_per_report(), 32u + m->chain().memo_bits());
  }
  // The longitudinal budget: ε∞ per distinct value, at most g of them.
  CHECK_EQ(ololoha.lifetime_epsilon(3).q32, 3 * ololoha.epsilon_infinity().q32);
  CHECK_EQ(ololoha.lifetime_epsilon(260).q32, 8 * ololoha.epsilon_infinity().q32);
  CHECK_EQ(biloloha.lifetime_epsilon(260).q32, 2 * biloloha.epsilon_infinity().q32);
  CHECK(biloloha.description().id == wire::MechanismId::biloloha);
  CHECK(ololoha.description().id == wire::MechanismId::loloha);
}

TEST(rejects_bad_parameters_with_their_reason) {
  Loloha m;
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, 1, 4, m), Status::bad_parameter);
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, Loloha::max_domain + 1, 4, m), Status::bad_parameter);
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, 96, 1, m), Status::bad_parameter);
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, 96, Loloha::max_range + 1, m), Status::bad_parameter);
  CHECK_EQ(Loloha::configure(eps_one, eps_inf, 96, 4, m), Status::bad_epsilon);
  CHECK_EQ(Loloha::configure_optimal(eps_inf, eps_inf, 96, m), Status::bad_epsilon);
  CHECK_EQ(Loloha::configure(eps_inf, eps_one, 96, 8, m, Precision{3, 1u << 11}),
           Status::precision_too_low);
}

TEST(the_seed_is_fixed_per_device_and_the_memo_follows_the_hashed_value) {
  port::InsecureTestSource src(31);
  Rng rng(src);
  uint32_t collisions = 0, separations = 0;
  for (uint64_t device = 1; device <= 30; ++device) {
    const TestMemoKey key{device};
    const uint32_t seed = device_seed(key);
    // Every report carries the device's seed, whatever the value.
    for (uint32_t v = 0; v < 5; ++v) {
      LocalHashingReport r;
      CHECK_EQ(ololoha.privatize(v, key, rng, r), Status::ok);
      CHECK_EQ(r.seed, seed);
      CHECK(r.value < 8);
    }
    // Two values with one hash share their memo: from the same fresh bits, the same reports.
    // A value with another hash has another memo stream: some fresh bits tell them apart.
    const uint32_t h0 = local_hash(seed, 0, 8);
    uint32_t same = 0, other = 0;
    for (uint32_t v = 1; v < 96 && (same == 0 || other == 0); ++v) {
      if (local_hash(seed, v, 8) == h0 && same == 0) same = v;
      if (local_hash(seed, v, 8) != h0 && other == 0) other = v;
    }
    CHECK(same != 0 && other != 0);
    bool differs = false;
    for (uint64_t s = 0; s < 8; ++s) {
      port::InsecureTestSource a(100 + s), b(100 + s), c(100 + s);
      Rng ra(a), rb(b), rc(c);
      LocalHashingReport x, y, z;
      CHECK_EQ(ololoha.privatize(0, key, ra, x), Status::ok);
      CHECK_EQ(ololoha.privatize(same, key, rb, y), Status::ok);
      CHECK_EQ(ololoha.privatize(other, key, rc, z), Status::ok);
      CHECK(x.value == y.value);
      collisions += 1;
      differs = differs || x.value != z.value;
    }
    separations += differs;
  }
  CHECK_EQ(collisions, 240u);
  CHECK(separations > 0);
  // Different devices (keys) and key generations have different seeds.
  CHECK_NE(device_seed(TestMemoKey{1}), device_seed(TestMemoKey{2}));
  CHECK_NE(device_seed(TestMemoKey{1, 0}), device_seed(TestMemoKey{1, 1}));
}

TEST(out_of_domain_and_entropy_failure_emit_nothing) {
  const uint32_t out_of_domain[] = {96};
  check_memoized_fail_closed(ololoha, 3, out_of_domain);
}

TEST(consumes_the_same_bits_for_every_value) {
  const TestMemoKey key{};
  for (uint32_t v = 0; v < 100; v += 11) {  // 99 is out of the domain
    port::InsecureTestSource src(9);
    Rng rng(src);
    LocalHashingReport report;
    (void)ololoha.privatize(v, key, rng, report);
    CHECK_EQ(rng.bits_drawn(), uint64_t{ololoha.random_bits_per_report()});
    auto stream = key.memo_stream(ololoha.memo_attribute_word(), local_hash(device_seed(key), v, 8));
    CountedMemoDraws memo(stream);
    (void)ololoha.privatize_with_memo(v, device_seed(key), memo, rng, report);
    CHECK_EQ(memo.bits_drawn(), uint64_t{ololoha.chain().memo_bits()});
  }
}

TEST(the_estimator_is_unbiased_over_a_fleet) {
  // d = 96; n devices hold value i mod 4 (60 %) or 50 (40 %); one report each. The support
  // estimate ĉ(v) = (C(v) − n/g)/(p* − 1/g) must lie within 6σ of the true count for every v.
  const Loloha* both[] = {&ololoha, &biloloha};
#ifdef TINYLDP_TEST_ON_TARGET
  const uint32_t n = 2000;
#else
  const uint32_t n = 30000;
#endif
  static uint32_t support[96];
  for (const Loloha* m : both) {
    double p_star, q_star;
    composed_channel(m->chain(), p_star, q_star);
    const double g = m->range();
    port::InsecureTestSource src(17);
    Rng rng(src);
    uint32_t truth[96] = {};
    for (uint32_t v = 0; v < 96; ++v) support[v] = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t v = i < n * 3 / 5 ? i % 4 : 50;
      ++truth[v];
      LocalHashingReport r;
      CHECK_EQ(m->privatize(v, TestMemoKey{i + 3}, rng, r), Status::ok);
      for (uint32_t item = 0; item < 96; ++item) support[item] += local_hash(r.seed, item, m->range()) == r.value;
    }
    for (uint32_t v = 0; v < 96; ++v) {
      const double estimate = (support[v] - n / g) / (p_star - 1 / g);
      const double s = 1 / g + truth[v] * (p_star - 1 / g) / n;
      const double sigma = sqrt_newton(n * s * (1 - s)) / (p_star - 1 / g);
      const double diff = estimate - truth[v];
      CHECK(diff <= 6 * sigma && -diff <= 6 * sigma);
    }
  }
}

TEST(wire_codec_round_trips) {
  const auto d = ololoha.description();
  CHECK_EQ(d.payload_bits, 35u);
  const LocalHashingReport reports[] = {{0, 0}, {0xFFFFFFFFu, 7}, {0x12345678u, 5}};
  for (const auto& r : reports) {
    uint8_t payload[5] = {};
    ololoha.pack(r, payload);
    const auto back = ololoha.unpack(payload);
    CHECK(back.seed == r.seed && back.value == r.value);
  }
  CHECK_EQ(biloloha.description().payload_bits, 33u);
  CHECK_NE(biloloha.description().digest, d.digest);
}

}  // namespace
}  // namespace tinyldp::test
