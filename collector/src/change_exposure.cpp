// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/change_exposure.hpp"

#include <type_traits>

namespace tinyldp::collector {

std::optional<double> change_exposure(const Mechanism& m) {
  return m.visit_model([](const auto& model) -> std::optional<double> {
    if constexpr (std::decay_t<decltype(model)>::memoized)
      return model.change_exposure();  // each memoized model's own figure (models/)
    else
      return std::nullopt;
  });
}

}  // namespace tinyldp::collector
