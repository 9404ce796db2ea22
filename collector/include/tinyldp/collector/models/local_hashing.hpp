// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/local_hashing.hpp — local hashing (local_hashing.hpp: blh, olh) on
// the collector: a report {seed, y} supports every item that hashes, under its seed, to y — one
// range test per item, vectorized (count_local_hash_support, which LOLOHA's model shares).
// Cost: O(d) per report, 4·d bytes of hash keys. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_LOCAL_HASHING_HPP
#define TINYLDP_COLLECTOR_MODELS_LOCAL_HASHING_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/local_hashing.hpp"

namespace tinyldp::collector {

// local_hash_key(i) for every item i < d (local hashing's support counting).
std::vector<std::uint32_t> local_hash_keys(std::uint32_t d);
// support[i] += [H(r.seed, i) = r.value] over [g] for every item i, by the keys of
// local_hash_keys: the support count of OLH, BLH and LOLOHA.
void count_local_hash_support(std::span<const std::uint32_t> keys, std::uint32_t g,
                              const LocalHashingReport& r, std::span<std::uint64_t> support);
// A {seed, value} report's fields, for `inspect`.
std::vector<PayloadField> local_hash_fields(const LocalHashingReport& r);

// A {seed, y} report over [g] (OLH, BLH, LOLOHA): refused if y ≥ g; it supports every item that
// hashes, under its seed, to y.
template <class Core, class Defaults = ModelDefaults>
struct HashPayloadModel : CoreModel<MechanismKind::categorical, Core, Defaults> {
  std::vector<std::uint32_t> hash_keys;  // local_hash_key(i) for every item i
  // Ingest unpacks a report once (count); a model that does not take count fails to compile.
  static constexpr bool counts_in_one_pass = true;

 protected:
  ParseError check(std::span<const std::uint8_t> payload) const {
    return this->core.unpack(payload.data()).value >= this->core.range() ? ParseError::value_out_of_range
                                                                         : ParseError::none;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    count_local_hash_support(hash_keys, this->core.range(), this->core.unpack(payload.data()), support);
  }
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const LocalHashingReport r = this->core.unpack(payload.data());
    if (r.value >= this->core.range()) return ParseError::value_out_of_range;
    count_local_hash_support(hash_keys, this->core.range(), r, support);
    return ParseError::none;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return local_hash_fields(this->core.unpack(payload.data()));
  }
};

struct LhModel : HashPayloadModel<LocalHashing> {
  static constexpr const char* core_header = "local_hashing.hpp";
  static constexpr std::array<ModelRow, 2> rows{{
      {MechanismId::blh, "blh", "LocalHashing", [] { return example_config(MechanismId::blh, Epsilon::from_ratio(1, 1), 50); }},
      {MechanismId::olh, "olh", "LocalHashing", [] { return example_config(MechanismId::olh, Epsilon::from_ratio(2, 1), 50); }},
  }};
  using CoreModel::check_parameters, CoreModel::items, CoreModel::local_epsilon, CoreModel::privatize;
  using HashPayloadModel::check, HashPayloadModel::add_support, HashPayloadModel::count, HashPayloadModel::fields;
  static Status configure(const MechanismConfig& c, LhModel& out, MechanismConfig& normalized);
  Channel channel() const {
    return {channel_of(core.randomizer()).p, 1.0 / static_cast<double>(core.range())};
  }
  std::string fractions() const;
};
static_assert(CollectorModel<LhModel>);

}  // namespace tinyldp::collector

#endif
