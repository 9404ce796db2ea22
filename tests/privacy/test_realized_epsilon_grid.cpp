// Realized ε over a dense grid: for every ε from 0.01 to 10 and domain sizes up to 1024, the
// probabilities each mechanism configures give a privacy loss that is never above the
// requested ε and at most 1e-6 below it. The loss is recomputed here, independently of the
// library's integer logarithm, in long double (64-bit mantissa) from the Dyadics themselves.
#include <math.h>

#include <initializer_list>

#include "check.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/unary_encoding.hpp"

using tinyldp::Dyadic;
using tinyldp::Epsilon;
using tinyldp::Status;

namespace {

long double value(Dyadic p) { return ldexpl(static_cast<long double>(p.num), -p.bits); }
long double one_minus(Dyadic p) {
  return ldexpl(static_cast<long double>((p.bits == 64 ? 0 : uint64_t{1} << p.bits) - p.num),
                -p.bits);
}
long double as_real(Epsilon e) { return ldexpl(static_cast<long double>(e.q32), -32); }

// ε grid: 0.01 … 10, 400 points, geometric.
constexpr int grid_points = 400;
Epsilon grid(int i) {
  const long double e = 0.01L * powl(1000.0L, static_cast<long double>(i) / (grid_points - 1));
  return Epsilon::from_q32(static_cast<uint64_t>(ldexpl(e, 32)));
}

long double worst_gap = 0;

// The exact loss must be ≤ requested (up to long double rounding, 1e-15) and ≥ requested − 1e-6;
// the reported ε must bound the exact loss from above within 2^-32.
void check_loss(long double exact, Epsilon requested, Epsilon reported) {
  const long double req = as_real(requested);
  CHECK(exact <= req + 1e-15L);
  CHECK(exact >= req - 1e-6L);
  CHECK(as_real(reported) >= exact - 1e-15L);
  CHECK(as_real(reported) <= exact + ldexpl(1.0L, -32) + 1e-15L);
  CHECK(reported <= requested);
  if (req - exact > worst_gap) worst_gap = req - exact;
}

const uint32_t domains[] = {2, 3, 5, 16, 100, 256, 1000, 1024, 65536, 1u << 20};

}  // namespace

TEST(binary_rr_over_the_grid) {
  for (int i = 0; i < grid_points; ++i) {
    tinyldp::BinaryRr rr;
    CHECK(tinyldp::BinaryRr::configure(grid(i), rr) == Status::ok);
    const Dyadic p = rr.keep_probability();
    check_loss(logl(value(p) / one_minus(p)), grid(i), rr.realized_epsilon());
  }
}

TEST(kary_rr_over_the_grid) {
  for (uint32_t k : domains) {
    for (int i = 0; i < grid_points; i += 3) {
      tinyldp::KaryRr krr;
      CHECK(tinyldp::KaryRr::configure(grid(i), k, krr) == Status::ok);
      const long double q = value(krr.other_probability());
      const long double p = ldexpl(static_cast<long double>(krr.keep_numerator()),
                                   -krr.other_probability().bits);
      check_loss(logl(p / q), grid(i), krr.realized_epsilon());
    }
  }
}

TEST(unary_encodings_over_the_grid) {
  for (int i = 0; i < grid_points; ++i) {
    tinyldp::UnaryEncoding oue, sue;
    CHECK(tinyldp::UnaryEncoding::configure_oue(grid(i), 1024, oue) == Status::ok);
    CHECK(tinyldp::UnaryEncoding::configure_sue(grid(i), 1024, sue) == Status::ok);
    for (const auto* ue : {&oue, &sue}) {
      const long double loss =
          logl(value(ue->p()) * one_minus(ue->q()) / (one_minus(ue->p()) * value(ue->q())));
      check_loss(loss, grid(i), ue->realized_epsilon());
    }
  }
  tinyldp::test::print("largest gap below the requested epsilon: ");
  tinyldp::test::print_u64(static_cast<uint64_t>(worst_gap * 1e12L));
  tinyldp::test::print(" e-12\n");
}

TEST(default_precision_stays_economical) {
  // The fewest-bits choice: at ε = 1 the OUE q needs far fewer than 64 bits.
  tinyldp::UnaryEncoding oue;
  CHECK(tinyldp::UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 1024, oue) == Status::ok);
  CHECK_LE(oue.q().bits, 26);
  CHECK_EQ(oue.p().bits, 1);
}
