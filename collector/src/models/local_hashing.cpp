// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/local_hashing.hpp"

namespace tinyldp::collector {

namespace {
// support[i] += [lo ≤ mix(keys[i] XOR seed) < lo + width] for every item: the OLH/BLH support
// count. Compiled for AVX2 as well as baseline x86-64 and picked at run time, so the loop runs
// eight items per instruction where the machine allows.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default"), optimize("O3")))
#endif
void count_hash_matches(const std::uint32_t* keys, std::uint32_t n, std::uint32_t seed,
                        std::uint32_t lo, std::uint32_t width, std::uint64_t* support) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t x = local_hash_mix(keys[i] ^ seed);
    support[i] += (x - lo) < width ? 1u : 0u;
  }
}
}  // namespace

std::vector<std::uint32_t> local_hash_keys(std::uint32_t d) {
  std::vector<std::uint32_t> keys(d);
  for (std::uint32_t i = 0; i < d; ++i) keys[i] = local_hash_key(i);
  return keys;
}

void count_local_hash_support(std::span<const std::uint32_t> keys, std::uint32_t range,
                              const LocalHashingReport& r, std::span<std::uint64_t> support) {
  // H(s, i) = y  ⇔  the mixed word falls in [⌈y·2^32/g⌉, ⌈(y+1)·2^32/g⌉): one 32-bit range
  // test per item instead of a 64-bit multiply, so the loop vectorizes.
  const std::uint64_t g = range;
  const auto lo = static_cast<std::uint32_t>(((std::uint64_t{r.value} << 32) + g - 1) / g);
  const auto width =
      static_cast<std::uint32_t>((((std::uint64_t{r.value} + 1) << 32) + g - 1) / g - lo);
  count_hash_matches(keys.data(), static_cast<std::uint32_t>(keys.size()), r.seed, lo, width, support.data());
}

std::vector<PayloadField> local_hash_fields(const LocalHashingReport& r) {
  return {{"seed", std::int64_t{r.seed}}, {"value", std::int64_t{r.value}}};
}

Status LhModel::configure(const MechanismConfig& c, LhModel& out, MechanismConfig&) {
  const Status s = c.id == MechanismId::blh
                       ? LocalHashing::configure_blh(c.epsilon, c.domain, out.core, c.precision)
                       : LocalHashing::configure_olh(c.epsilon, c.domain, out.core, c.precision);
  if (s != Status::ok) return s;
  out.hash_keys = local_hash_keys(c.domain);
  return s;
}

std::string LhModel::fractions() const {
  const Dyadic q = core.randomizer().other_probability();
  return "g = " + std::to_string(core.range()) + ", p = " +
         fraction_text(core.randomizer().keep_numerator(), q.bits) + ", q = " + fraction_text(q) +
         " (k-RR over the g hash values)";
}

}  // namespace tinyldp::collector
