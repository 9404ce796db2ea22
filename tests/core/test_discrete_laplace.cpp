// Discrete Laplace: realized ε from the integers, errors, failure behaviour, golden reports.
#include "check.hpp"
#include "digest.hpp"
#include "frequency_check.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/port/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

using tinyldp::DiscreteLaplace;
using tinyldp::Epsilon;
using tinyldp::Status;
using tinyldp::port::InsecureTestSource;
using Rng = tinyldp::RandomBits<InsecureTestSource>;

namespace {
uint64_t table[201];
}

TEST(realized_epsilon_is_at_most_the_request_and_close) {
  const uint32_t deltas[] = {1, 10, 100};
  const Epsilon epsilons[] = {Epsilon::from_ratio(1, 10), Epsilon::from_ratio(1, 1), Epsilon::from_ratio(5, 1)};
  for (uint32_t delta : deltas) {
    for (Epsilon eps : epsilons) {
      DiscreteLaplace dl;
      CHECK_EQ(DiscreteLaplace::configure(eps, -100, 100, delta, table, 201, dl), Status::ok);
      CHECK(dl.realized_epsilon() <= eps);
      // Within 1e-6 relative at 48 bits (ceil rounding of 2^48-scale weights).
      CHECK_GE(dl.realized_epsilon().q32, eps.q32 - eps.q32 / 1000000 - delta);
      CHECK_EQ(dl.local_epsilon().q32, dl.realized_epsilon().q32 / delta * 200);
      uint64_t total = dl.tail_low() + dl.tail_high() + dl.weight(0);
      for (uint32_t k = 1; k < 200; ++k) total += 2 * dl.weight(k);
      CHECK_EQ(total, uint64_t{1} << 48);  // the weights are a distribution, exactly
    }
  }
}

TEST(rejects_bad_parameters) {
  DiscreteLaplace dl;
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 5, 5, 1, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 0, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 11, table, 201, dl) == Status::bad_parameter);
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), 0, 10, 1, table, 10, dl) == Status::buffer_too_small);
  CHECK(DiscreteLaplace::configure(Epsilon::from_q32(0), 0, 10, 1, table, 201, dl) == Status::bad_epsilon);
  CHECK_EQ(DiscreteLaplace::table_entries(-100, 100), 201u);
}

TEST(noise_follows_the_weights) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 2), 0, 20, 1, table, 201, dl), Status::ok);
  InsecureTestSource src(8);
  Rng rng(src);
  uint64_t hist[21] = {};
  const uint64_t n = 40000;
  for (uint64_t i = 0; i < n; ++i) {
    int32_t y = 0;
    CHECK(dl.privatize(10, rng, y) == Status::ok);
    ++hist[y >= 0 && y <= 20 ? y : 0];
  }
  for (uint32_t y = 1; y < 20; ++y) {
    const double p = static_cast<double>(dl.weight(y > 10 ? y - 10 : 10 - y)) / 281474976710656.0;
    CHECK(tinyldp::test::within_six_sigma(hist[y], n, p, false));
  }
}

TEST(out_of_range_and_entropy_failure_emit_nothing) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -5, 5, 10, table, 201, dl), Status::ok);
  InsecureTestSource src(3);
  Rng rng(src);
  int32_t r = 7;
  CHECK(dl.privatize(6, rng, r) == Status::value_out_of_domain);
  CHECK_EQ(r, 0);
  src.fail_on_call(1);
  Rng failing(src);
  r = 7;
  CHECK(dl.privatize(0, failing, r) == Status::entropy_failed);
  CHECK_EQ(r, 0);
}

TEST(golden_reports_are_identical_everywhere) {
  DiscreteLaplace dl;
  CHECK_EQ(DiscreteLaplace::configure(Epsilon::from_ratio(2, 1), -50, 50, 100, table, 201, dl), Status::ok);
  InsecureTestSource src(2024);
  Rng rng(src);
  tinyldp::test::Digest digest;
  for (int32_t i = 0; i < 300; ++i) {
    int32_t r = 0;
    CHECK(dl.privatize(-50 + i % 101, rng, r) == Status::ok);
    CHECK(r >= -50 && r <= 50);
    digest.add_u32(static_cast<uint32_t>(r));
  }
  CHECK_EQ(rng.bits_drawn(), 300u * 48u);
  CHECK_EQ(digest.state, 16743145130842820316ull);
}
