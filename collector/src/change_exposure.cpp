// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/change_exposure.hpp"

#include <cmath>
#include <type_traits>

namespace tinyldp::collector {

namespace {
double as_double(Dyadic x) { return std::ldexp(static_cast<double>(x.num), -static_cast<int>(x.bits)); }
// Two independent memos of a k-RR stage over [g] (q1 = P(another given value)) agree.
double grr_memos_agree(const GrrChain& chain) {
  const double q1 = as_double(chain.memo_stage().other_probability());
  const double g = chain.range(), p1 = 1 - (g - 1) * q1;
  return 2 * p1 * q1 + (g - 2) * q1 * q1;
}
}  // namespace

std::optional<double> change_exposure(const Mechanism& m) {
  return m.visit_model([](const auto& model) -> std::optional<double> {
    using Model = std::decay_t<decltype(model)>;
    if constexpr (std::is_same_v<Model, TwoStageModel>) {
      const double p1 = as_double(model.core.p1()), q1 = as_double(model.core.q1());
      const double moved = p1 * q1 + (1 - p1) * (1 - q1), still = q1 * q1 + (1 - q1) * (1 - q1);
      return 1 - moved * moved * std::pow(still, static_cast<double>(model.core.bits()) - 2);
    } else if constexpr (std::is_same_v<Model, LgrrModel>) {
      return 1 - grr_memos_agree(model.core.chain());
    } else if constexpr (std::is_same_v<Model, LolohaModel>) {
      const double g = model.core.range();
      return 1 - (1 / g + (1 - 1 / g) * grr_memos_agree(model.core.chain()));
    } else {
      return std::nullopt;
    }
  });
}

}  // namespace tinyldp::collector
