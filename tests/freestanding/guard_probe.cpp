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

using Rng = tinyldp::RandomBits<tinyldp::CEntropySource>;

extern "C" {

int guard_rr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t bit, uint8_t* out) {
  tinyldp::BinaryRr rr;
  if (tinyldp::BinaryRr::configure(tinyldp::Epsilon::from_q32(eps_q32), rr) != tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(rr.privatize(bit, rng, *out));
}

int guard_krr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t k, uint32_t v,
              uint32_t* out) {
  tinyldp::KaryRr krr;
  if (tinyldp::KaryRr::configure(tinyldp::Epsilon::from_q32(eps_q32), k, krr) !=
      tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(krr.privatize(v, rng, *out));
}

int guard_ue(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint8_t* out,
             size_t n, int symmetric) {
  tinyldp::UnaryEncoding ue;
  const auto eps = tinyldp::Epsilon::from_q32(eps_q32);
  const auto s = symmetric ? tinyldp::UnaryEncoding::configure_sue(eps, d, ue)
                           : tinyldp::UnaryEncoding::configure_oue(eps, d, ue);
  if (s != tinyldp::Status::ok) return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(ue.privatize(v, rng, out, n));
}

uint64_t guard_uniform(tinyldp_entropy_source src, uint64_t n) {
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return tinyldp::uniform_below(n, rng);
}

int guard_olh(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint32_t* out) {
  tinyldp::LocalHashing olh;
  if (tinyldp::LocalHashing::configure_olh(tinyldp::Epsilon::from_q32(eps_q32), d, olh) !=
      tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  tinyldp::LocalHashingReport r;
  const auto s = olh.privatize(v, rng, r);
  out[0] = r.seed;
  out[1] = r.value;
  return static_cast<int>(s);
}

int guard_hr(tinyldp_entropy_source src, uint64_t eps_q32, uint32_t d, uint32_t v, uint32_t* out) {
  tinyldp::HadamardResponse hr;
  if (tinyldp::HadamardResponse::configure(tinyldp::Epsilon::from_q32(eps_q32), d, hr) !=
      tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  tinyldp::HadamardReport r;
  const auto s = hr.privatize(v, rng, r);
  out[0] = r.row;
  out[1] = r.bit;
  return static_cast<int>(s);
}

int guard_sd(tinyldp_entropy_source src, uint64_t eps_q32, int32_t lo, int32_t hi, uint32_t levels,
             int32_t v, uint32_t* out) {
  tinyldp::StochasticDiscretization sd;
  if (tinyldp::StochasticDiscretization::configure(tinyldp::Epsilon::from_q32(eps_q32), lo, hi, levels,
                                                   sd) != tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(sd.privatize(v, rng, *out));
}

int guard_dlaplace(tinyldp_entropy_source src, uint64_t eps_q32, int32_t lo, int32_t hi, uint64_t* table,
                   size_t table_size, int32_t v, int32_t* out) {
  tinyldp::DiscreteLaplace dl;
  if (tinyldp::DiscreteLaplace::configure(tinyldp::Epsilon::from_q32(eps_q32), lo, hi, 1, table,
                                          table_size, dl) != tinyldp::Status::ok)
    return -1;
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(dl.privatize(v, rng, *out));
}

// Compile-time configuration: the weights must land in read-only data, not in .data.
namespace {
constexpr auto guard_noise =
    tinyldp::DiscreteLaplaceTable<tinyldp::DiscreteLaplace::table_entries(-8, 8)>::make(
        tinyldp::Epsilon::from_double(1.0), -8, 8, 2);
}  // namespace

int guard_dlaplace_static(tinyldp_entropy_source src, int32_t v, int32_t* out) {
  constexpr tinyldp::DiscreteLaplace dl = guard_noise.bind();
  tinyldp::CEntropySource source(src);
  Rng rng(source);
  return static_cast<int>(dl.privatize(v, rng, *out));
}

}  // extern "C"
