// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/loloha.hpp — LOLOHA and BiLOLOHA (loloha.hpp) on the collector:
// {seed, y} like OLH's, counted like OLH's — a report supports every item that hashes, under its
// seed, to y — with the chain's p* for the held item and 1/g for any other (it collides with
// probability 1/g under a random seed). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_LOLOHA_HPP
#define TINYLDP_COLLECTOR_MODELS_LOLOHA_HPP

#include <array>

#include "tinyldp/collector/models/local_hashing.hpp"
#include "tinyldp/collector/models/longitudinal_grr.hpp"
#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/loloha.hpp"

namespace tinyldp::collector {

struct LolohaModel : HashPayloadModel<Loloha, MemoizedDefaults> {
  static constexpr const char* core_header = "loloha.hpp";
  static constexpr std::array<ModelRow, 2> rows{{
      {MechanismId::loloha, "loloha", "Loloha", [] { return example_chain(MechanismId::loloha, 50); }},
      {MechanismId::biloloha, "biloloha", "Loloha", [] { return example_chain(MechanismId::biloloha, 50); }},
  }};
  static constexpr const char* memos_of = "hashed value";
  using CoreModel::items, CoreModel::local_epsilon, CoreModel::privatize_memoized;
  using HashPayloadModel::check, HashPayloadModel::add_support, HashPayloadModel::count, HashPayloadModel::fields;
  static Status configure(const MechanismConfig& c, LolohaModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  Channel channel() const { return {composed_channel(core.chain()).p, 1.0 / static_cast<double>(core.range())}; }
  std::string fractions() const;
  std::optional<MemoCovariance> memo_covariance() const {
    return chain_covariance(core.chain(), 1.0 / static_cast<double>(core.range()));
  }
  // Over [g]: the hashed values collide w.p. 1/g (the same memo, nothing shows), else as L-GRR
  // over [g]: 1 − (1/g + (1 − 1/g)(2p1q1 + (g − 2)q1²)).
  std::optional<double> change_exposure() const {
    const double g = core.range();
    return 1 - (1 / g + (1 - 1 / g) * grr_memos_agree(core.chain()));
  }
  std::uint32_t most_memos() const { return core.range(); }  // one memo per hashed value
};
static_assert(CollectorModel<LolohaModel>);

}  // namespace tinyldp::collector

#endif
