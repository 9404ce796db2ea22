// SPDX-License-Identifier: Apache-2.0
// Instantiates every mechanism's configuration and report path with the C entropy adapter,
// exactly as firmware would, so the freestanding guard can inspect the machine code the core
// really produces on each target (the core itself is header-only).
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/uniform.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<CEntropySource>;

Epsilon eps(uint64_t q32) { return Epsilon::from_q32(q32); }

// A context configured at run time reports through `report(rng)` with a generator on `src`
// once its configuration (`configured`) succeeded; -1, and no report, otherwise.
template <class Report>
int report_if(Status configured, tinyldp_entropy_source src, Report report) {
  if (configured != Status::ok) return -1;
  CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(report(rng));
}

// The same for a report of two fields (OLH: seed, value; HR: row, bit), written to out[0, 2).
template <class M>
int report_two_words(Status configured, tinyldp_entropy_source src, const M& m, uint32_t v, uint32_t* out) {
  return report_if(configured, src, [&](Rng& rng) {
    typename M::Report r;
    const Status s = m.privatize(v, rng, r);
    const auto [first, second] = r;
    out[0] = first;
    out[1] = second;
    return s;
  });
}

// Compile-time configuration: the weights must land in read-only data, not in .data.
constexpr auto guard_noise =
    DiscreteLaplaceTable<DiscreteLaplace::table_entries(-8, 8)>::make(Epsilon::from_double(1.0), -8, 8, 2);

}  // namespace

// The entry points, under the C names firmware would call.
extern "C" {

int guard_rr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t bit, uint8_t* out) {
  BinaryRr rr;
  return report_if(BinaryRr::configure(eps(eps_q32), rr), src,
                   [&](Rng& rng) { return rr.privatize(bit, rng, *out); });
}

int guard_krr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t k, uint32_t v, uint32_t* out) {
  KaryRr krr;
  return report_if(KaryRr::configure(eps(eps_q32), k, krr), src,
                   [&](Rng& rng) { return krr.privatize(v, rng, *out); });
}

int guard_ue(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint8_t* out,
             size_t n, int symmetric) {
  UnaryEncoding ue;
  const Status s = symmetric ? UnaryEncoding::configure_sue(eps(eps_q32), d, ue)
                             : UnaryEncoding::configure_oue(eps(eps_q32), d, ue);
  return report_if(s, src, [&](Rng& rng) { return ue.privatize(v, rng, out, n); });
}

uint64_t guard_uniform(tinyldp_entropy_source src, uint64_t n) {
  CEntropySource source(src);
  Rng rng(source);
  return uniform_below(n, rng);
}

int guard_olh(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint32_t* out) {
  LocalHashing olh;
  return report_two_words(LocalHashing::configure_olh(eps(eps_q32), d, olh), src, olh, v, out);
}

int guard_hr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint32_t* out) {
  HadamardResponse hr;
  return report_two_words(HadamardResponse::configure(eps(eps_q32), d, hr), src, hr, v, out);
}

int guard_sd(tinyldp_entropy_source src, uint64_t eps_q32, int32_t lo, int32_t hi, uint32_t levels,
             int32_t v, uint32_t* out) {
  StochasticDiscretization sd;
  return report_if(StochasticDiscretization::configure(eps(eps_q32), lo, hi, levels, sd), src,
                   [&](Rng& rng) { return sd.privatize(v, rng, *out); });
}

int guard_dlaplace(tinyldp_entropy_source src, uint64_t eps_q32, int32_t lo, int32_t hi, uint64_t* table,
                   size_t table_size, int32_t v, int32_t* out) {
  DiscreteLaplace dl;
  return report_if(DiscreteLaplace::configure(eps(eps_q32), lo, hi, 1, table, table_size, dl), src,
                   [&](Rng& rng) { return dl.privatize(v, rng, *out); });
}

int guard_dlaplace_static(tinyldp_entropy_source src, int32_t v, int32_t* out) {
  constexpr DiscreteLaplace dl = guard_noise.bind();
  return report_if(Status::ok, src, [&](Rng& rng) { return dl.privatize(v, rng, *out); });
}

}  // extern "C"
}  // namespace tinyldp::test
