// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/longitudinal_grr.hpp — L-GRR (longitudinal_grr.hpp: l-grr) on the
// collector, and what the models on the GRR chain share (LOLOHA, 1BitMean, dBitFlip): the
// chain's composed channel, memo covariance, change exposure and description. L-GRR's report is
// the value; a value ≥ k is refused. Per round, the composed channel: P(y = v | v) = p*,
// P(y = v | another value) = q*. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_LONGITUDINAL_GRR_HPP
#define TINYLDP_COLLECTOR_MODELS_LONGITUDINAL_GRR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/longitudinal_grr.hpp"

namespace tinyldp::collector {

// A GRR chain's composed channel, from its exact integers: p = p* (the report is the value),
// q = q* (it is another given value).
Channel composed_channel(const GrrChain& chain);
// A GRR chain's memo covariance (MemoCovariance): the memo k-RR keeps the value or moves it to a
// given other one, the fresh k-RR keeps the memo or reports a given other value.
MemoCovariance chain_covariance(const GrrChain& chain, double collision);
// P(two independent memos of the chain's k-RR stage over [g] agree): 2p1q1 + (g − 2)q1².
double grr_memos_agree(const GrrChain& chain);
// The chain's two stages, for fractions(): the memo's k-RR at ε∞ and the fresh one.
std::string chain_fractions(const GrrChain& chain);
// check_categories, and a domain of at most `most`.
std::string check_domain_at_most(const MechanismConfig& c, std::uint32_t most);

struct LgrrModel : CoreModel<MechanismKind::categorical, LongitudinalGrr, MemoizedDefaults> {
  static constexpr const char* core_header = "longitudinal_grr.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::l_grr, "l-grr", "LongitudinalGrr", [] { return example_chain(MechanismId::l_grr, 12); }},
  }};
  static constexpr const char* memos_of = "value";
  using CoreModel::items, CoreModel::local_epsilon, CoreModel::privatize_memoized;
  using CoreModel::item, CoreModel::fields;  // the payload is the value
  static Status configure(const MechanismConfig& c, LgrrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  Channel channel() const { return composed_channel(core.chain()); }
  std::string fractions() const { return chain_fractions(core.chain()); }
  std::optional<MemoCovariance> memo_covariance() const { return chain_covariance(core.chain(), 0); }
  // Over [k]: 1 − (2p1q1 + (k − 2)q1²) (two independent k-RR memos agree).
  std::optional<double> change_exposure() const { return 1 - grr_memos_agree(core.chain()); }
  std::uint32_t most_memos() const { return core.domain(); }
};
static_assert(CollectorModel<LgrrModel>);

}  // namespace tinyldp::collector

#endif
