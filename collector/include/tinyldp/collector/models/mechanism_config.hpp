// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/mechanism_config.hpp — the configuration every collector model is
// built from (a mechanism id and its parameters, as the CLI, Python, report-file headers and
// saved states carry it) and the kinds of mechanism. Plain data, no model: what a front end
// needs without parsing any model. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_MECHANISM_CONFIG_HPP
#define TINYLDP_COLLECTOR_MODELS_MECHANISM_CONFIG_HPP

#include <cstdint>
#include <vector>

#include "tinyldp/epsilon.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

using wire::MechanismId;

// categorical: a category index per report; numeric: an integer of [lo, hi]; record: a record
// of d attributes per report (record, spl-*, smp-*, rsfd-*: `tinyldp joint`, `tinyldp multi`).
enum class MechanismKind { categorical, numeric, record };

// The largest domain the collector accepts (32 MiB of support counts): configurations come
// from untrusted files too, and nothing is allocated in proportion to an unchecked number.
inline constexpr std::uint32_t max_collector_domain = std::uint32_t{1} << 22;
// The widest dlaplace range (hi − lo) the collector estimates: its distribution estimate
// inverts the dense (W + 1)² noise matrix: O(W³) time.
inline constexpr std::uint32_t max_collector_dlaplace_width = 1024;

struct MechanismConfig {
  MechanismId id = MechanismId::oue;
  Epsilon epsilon{};
  std::uint32_t domain = 2;  // categorical; rr: always 2; sd, dlaplace, pm, hm: set by configure
  Precision precision{};     // of the randomized response (not used by dlaplace)
  // Numeric mechanisms only (0 for the others):
  std::int32_t lo = 0, hi = 0;  // the value range
  std::uint32_t levels = 0;     // sd: L (2 … 256); pm, hm: the output cells M (4 … 4096)
  std::uint32_t sensitivity = 0;  // dlaplace: Δ (1 … W; 0 = W, the local-DP setting)
  // sd, pm, hm: rounding bits B (1 … 24), dlaplace: B (2 … 62), 1bitmean: the memo's rounding bits R
  // (1 … 32); 0 = default
  std::uint8_t noise_bits = 0;
  // Memoized mechanisms only (zero for the others): `epsilon` is then ε∞, the loss of unlimited
  // reports of one value, and epsilon_one ε₁, the loss of one report (the UE chains, l-grr,
  // loloha, biloloha, 1bitmean).
  Epsilon epsilon_one{};
  // 1bitmean, dbitflip: the α-point rounding's grid step s, dividing hi − lo (0 = hi − lo: one
  // cell).
  std::uint32_t grid_step = 0;
  // dbitflip: d, the buckets each device samples (1 … 16, at most the k = (hi − lo)/s + 1
  // buckets; 0 = 1).
  std::uint32_t sampled = 0;
  // hh: the tree's branching B (2, 4, 8 or 16; 0 = 4).
  std::uint32_t branching = 0;
  // rappor (RAPPOR's parameters): PRR flip probability f, IRR P(1 | memo bit 0) = p and
  // P(1 | memo bit 1) = q, as the Dyadics the devices use.
  Dyadic prr_f{}, irr_p{}, irr_q{};
  // The memoized UE family (rappor, l-sue, …) over a Bloom filter: `domain` is then the
  // filter's k bits, h = bloom_hashes (1 … 16) and m = bloom_cohorts (1 … 65536); both 0 for a
  // one-hot encoding.
  std::uint32_t bloom_hashes = 0, bloom_cohorts = 0;
  // Records of several attributes (record, spl-*, smp-*, rsfd-*): the attributes' domain sizes
  // k_j, in order (`domain` is then d, their number); empty for the others.
  std::vector<std::uint32_t> attribute_sizes{};

  bool bloom() const { return bloom_hashes != 0; }
  bool numeric() const;  // sd, dlaplace, 1bitmean, dbitflip, pm, hm, sw, hh: by the table's kind
};

// The id's name in the table of mechanisms (mechanism.hpp); "unknown" for an id nobody uses.
const char* name_of(MechanismId id);

}  // namespace tinyldp::collector

#endif
