// SPDX-License-Identifier: Apache-2.0
// The precision choice (probability.hpp's Precision) across the mechanisms: at every tolerance
// the realized ε is at most the request and at least the request less the tolerance, and a
// coarser tolerance never draws more random bits per report. OUE's fitted form
// (unary_encoding.hpp, detail::fit_oue) also keeps its variance at most exact OUE's at ε − tolerance,
// takes fewer bits per slot than plain rounding, and leaves the default precision as it was.
#include "check.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/square_wave.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

// 2^-21 (the default), 10^-4, 10^-3, 10^-2, in ε · 2^32.
constexpr uint64_t tolerances[] = {uint64_t{1} << 11, 429497, 4294967, 42949673};
const Epsilon epsilons[] = {Epsilon::from_ratio(1, 2), Epsilon::from_ratio(1, 1),
                            Epsilon::from_ratio(2, 1), Epsilon::from_ratio(4, 1)};

// Configures one mechanism at (ε, precision); false if it refused.
using Configure = bool (*)(Epsilon, Precision, Epsilon& realized, uint64_t& bits);

template <class M>
bool take(Status s, const M& m, Epsilon& realized, uint64_t& bits) {
  realized = m.realized_epsilon();
  bits = m.random_bits_per_report();
  return s == Status::ok;
}

struct Case {
  const char* name;
  Configure configure;
  // THE's thresholded law is below ε by construction (its θ trades ε for variance): the
  // tolerance moves its probabilities, not that gap.
  bool within_tolerance_below = true;
};

const Case cases[] = {
    {"rr", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       BinaryRr m;
       return take(BinaryRr::configure(e, m, p), m, r, b);
     }},
    {"krr", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       KaryRr m;
       return take(KaryRr::configure(e, 16, m, p), m, r, b);
     }},
    {"oue", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       UnaryEncoding m;
       return take(UnaryEncoding::configure_oue(e, 256, m, p), m, r, b);
     }},
    {"sue", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       UnaryEncoding m;
       return take(UnaryEncoding::configure_sue(e, 256, m, p), m, r, b);
     }},
    {"olh", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       LocalHashing m;
       return take(LocalHashing::configure_olh(e, 1024, m, p), m, r, b);
     }},
    {"blh", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       LocalHashing m;
       return take(LocalHashing::configure_blh(e, 1024, m, p), m, r, b);
     }},
    {"hr", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       HadamardResponse m;
       return take(HadamardResponse::configure(e, 256, m, p), m, r, b);
     }},
    {"the", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       ThresholdHistogram m;
       return take(ThresholdHistogram::configure(e, 256, m, p), m, r, b);
     }, false},
    {"sd", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       StochasticDiscretization m;
       return take(StochasticDiscretization::configure(e, 0, 1000, 16, m, p), m, r, b);
     }},
    {"pm", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       PiecewiseMechanism m;
       return take(PiecewiseMechanism::configure(e, 0, 1000, 2048, m, p), m, r, b);
     }},
    {"hm", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       HybridMechanism m;
       return take(HybridMechanism::configure(e, 0, 1000, 2048, m, p), m, r, b);
     }},
    {"sw", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       SquareWave m;
       return take(SquareWave::configure(e, 0, 1000, 256, m, p), m, r, b);
     }},
    {"hh", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       HierarchicalHistogram m;
       return take(HierarchicalHistogram::configure(e, 0, 1000, 4, m, p), m, r, b);
     }},
    {"haar-hrr", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       HaarHrr m;
       return take(HaarHrr::configure(e, 0, 1000, m, p), m, r, b);
     }},
    {"l-osue (ε₁; ε∞ = 2ε)", [](Epsilon e, Precision p, Epsilon& r, uint64_t& b) {
       TwoStageRr m;
       const Epsilon inf{2 * e.q32};
       return take(TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, inf, e,
                                               TwoStageRr::one_hot(16), m, p),
                   m, r, b);
     }},
};

TEST(every_mechanism_stays_within_its_tolerance_and_draws_fewer_bits_when_coarser) {
  int checked = 0;
  for (const Case& c : cases) {
    for (Epsilon eps : epsilons) {
      uint64_t previous_bits = ~uint64_t{0};
      for (uint64_t tolerance : tolerances) {
        const Precision precision{64, tolerance};
        Epsilon realized{};
        uint64_t bits = 0;
        const bool ok = c.configure(eps, precision, realized, bits);
        CHECK(ok);
        if (!ok) continue;
        CHECK(realized <= eps);
        if (c.within_tolerance_below) CHECK(detail::loosened(eps, precision) <= realized);
        CHECK(bits <= previous_bits);
        previous_bits = bits;
        ++checked;
      }
    }
  }
  CHECK_EQ(checked, 15 * 4 * 4);
}

double value(Dyadic x) {
  double v = static_cast<double>(x.num);
  for (unsigned i = 0; i < x.bits; ++i) v /= 2;
  return v;
}
double exp_of(Epsilon e) {  // e^ε by its series, in double: a check independent of the core's
  const double x = static_cast<double>(e.q32) / 4294967296.0;
  double term = 1, sum = 1;
  for (int n = 1; n < 80; ++n) {
    term *= x / n;
    sum += term;
  }
  return sum;
}

TEST(fitted_oue_keeps_its_variance_and_uses_fewer_bits_per_slot) {
  int fitted = 0;
  for (Epsilon eps : epsilons) {
    UnaryEncoding plain;
    CHECK(UnaryEncoding::configure_oue(eps, 1024, plain) == Status::ok);
    CHECK(plain.p() == (Dyadic{1, 1}));  // the default: p = 1/2, as in every earlier release
    for (uint64_t tolerance : tolerances) {
      const Precision precision{64, tolerance};
      UnaryEncoding ue;
      CHECK(UnaryEncoding::configure_oue(eps, 1024, ue, precision) == Status::ok);
      // Plain rounding at the same tolerance: q's fewest bits with p = 1/2.
      const Dyadic plain_q = detail::other_at_least(eps, detail::loosened(eps, precision), 64, 1);
      if (tolerance == tolerances[0]) {
        CHECK(ue.p() == (Dyadic{1, 1}));
        CHECK(ue.q() == plain_q);
        continue;
      }
      CHECK(ue.q().bits < plain_q.bits);  // the fit is taken at every coarse tolerance here
      const double p = value(ue.p()), q = value(ue.q());
      const double loose = exp_of(detail::loosened(eps, precision));
      const double variance = q * (1 - q) / ((p - q) * (p - q));
      const double exact_at_loose = 4 * loose / ((loose - 1) * (loose - 1));
      CHECK(variance <= exact_at_loose * (1 + 1e-12));
      ++fitted;
    }
  }
  CHECK_EQ(fitted, 4 * 3);
  // The case: ε = 1, d = 1024, tolerance 10^-3 — q at 5 bits instead of plain
  // rounding's 11, the random bits per report 5132 (641 bytes) instead of 11265.
  UnaryEncoding ue;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 1024, ue, Precision{64, 4294967}) ==
        Status::ok);
  CHECK_EQ(unsigned{ue.q().bits}, 5u);
  CHECK_EQ(ue.random_bits_per_report(), uint64_t{5132});
}

TEST(fitted_oue_respects_a_bit_cap_and_falls_back_to_plain_rounding) {
  // max_bits 4 leaves p no window inside the tolerance: plain rounding (p = 1/2) stands.
  UnaryEncoding ue;
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 64, ue, Precision{4, 4294967}) ==
        Status::ok);
  CHECK(ue.p() == (Dyadic{1, 1}));
  CHECK(ue.q().bits <= 4u);
  // With room for p (8 bits) and a coarse tolerance the fit is taken within the cap.
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 64, ue,
                                     Precision{8, uint64_t{1} << 28}) == Status::ok);
  CHECK(!(ue.p() == Dyadic{1, 1}));
  CHECK(ue.p().bits <= 8u);
  CHECK(ue.q().bits <= 8u);
}

}  // namespace
}  // namespace tinyldp::test
