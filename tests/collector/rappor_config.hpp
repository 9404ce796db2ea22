// SPDX-License-Identifier: Apache-2.0
// RAPPOR's collector configuration by its parameters, for the collector's tests.
#ifndef TINYLDP_TESTS_COLLECTOR_RAPPOR_CONFIG_HPP
#define TINYLDP_TESTS_COLLECTOR_RAPPOR_CONFIG_HPP

#include <cstdint>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

// PRR flip probability f, IRR p = P(1 | memo 0) and q = P(1 | memo 1) over `domain` one-hot
// values, or, with `hashes` and `cohorts`, a Bloom filter of `domain` bits.
inline MechanismConfig rappor_config(std::uint32_t domain, Dyadic f, Dyadic p, Dyadic q, std::uint32_t hashes = 0,
                                     std::uint32_t cohorts = 0) {
  MechanismConfig c;
  c.id = MechanismId::rappor;
  c.domain = domain;
  c.prr_f = f;
  c.irr_p = p;
  c.irr_q = q;
  c.bloom_hashes = hashes;
  c.bloom_cohorts = cohorts;
  return c;
}

}  // namespace tinyldp::collector

#endif
