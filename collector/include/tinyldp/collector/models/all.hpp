// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/all.hpp — the one list of the collector's models. It makes
// Mechanism's variant (ModelVariant) and the table of mechanisms (mechanism_table(): every
// model's rows), and checks at compile time that every model is a CollectorModel and that no
// two rows share a wire id or a name. A new model is one line here. Parses every model: include
// it only where the variant is needed (mechanism.hpp). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_ALL_HPP
#define TINYLDP_COLLECTOR_MODELS_ALL_HPP

#include <array>
#include <cstddef>
#include <string_view>
#include <variant>

#include "tinyldp/collector/models/one_bit_mean.hpp"
#include "tinyldp/collector/models/dbitflip.hpp"
#include "tinyldp/collector/models/discrete_laplace.hpp"
#include "tinyldp/collector/models/haar_hrr.hpp"
#include "tinyldp/collector/models/hierarchical_histogram.hpp"
#include "tinyldp/collector/models/hadamard_response.hpp"
#include "tinyldp/collector/models/histogram_encoding.hpp"
#include "tinyldp/collector/models/hybrid.hpp"
#include "tinyldp/collector/models/krr.hpp"
#include "tinyldp/collector/models/local_hashing.hpp"
#include "tinyldp/collector/models/loloha.hpp"
#include "tinyldp/collector/models/longitudinal_grr.hpp"
#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/models/multi_attribute.hpp"
#include "tinyldp/collector/models/piecewise.hpp"
#include "tinyldp/collector/models/record_rr.hpp"
#include "tinyldp/collector/models/rr.hpp"
#include "tinyldp/collector/models/square_wave.hpp"
#include "tinyldp/collector/models/stochastic_discretization.hpp"
#include "tinyldp/collector/models/two_stage_rr.hpp"
#include "tinyldp/collector/models/unary_encoding.hpp"

namespace tinyldp::collector {

template <CollectorModel... Models>
struct ModelList {
  template <template <class...> class T>
  using apply = T<Models...>;
  static constexpr std::size_t row_count = (Models::rows.size() + ...);
  // Every model's rows, in list order, with the configure of the model they belong to (F: a
  // template taking the model, called for each row as f.template operator()<Model>(row)).
  template <class F>
  static void for_each_row(F&& f) {
    (
        [&] {
          for (const ModelRow& row : Models::rows) f.template operator()<Models>(row);
        }(),
        ...);
  }
  static constexpr std::array<ModelRow, row_count> rows() {
    std::array<ModelRow, row_count> out{};
    std::size_t n = 0;
    ((
         [&] {
           for (const ModelRow& row : Models::rows) out[n++] = row;
         }()),
     ...);
    return out;
  }
  // No two rows share a wire id or a name, and every row names its core type.
  static constexpr bool rows_unique() {
    const auto all = rows();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].core_type == nullptr || all[i].core_type[0] == '\0') return false;
      for (std::size_t j = i + 1; j < all.size(); ++j)
        if (all[i].id == all[j].id || std::string_view(all[i].name) == all[j].name) return false;
    }
    return true;
  }
};

// Every model, once. (Order: by wire id of their first row; the table sorts by id anyway.)
using AllModels = ModelList<RrModel, KrrModel, UeModel, LhModel, HrModel, SdModel, DlaplaceModel, SheModel,
                            TheModel, TwoStageModel, LgrrModel, LolohaModel, OneBitMeanModel, RecordModel,
                            MultiAttributeModel, DBitFlipModel, PmModel, HmModel, SwModel, HhModel, HaarModel>;
using ModelVariant = AllModels::apply<std::variant>;

static_assert(AllModels::rows_unique(), "two rows of the models share a wire id or a name, or a row has no core type");

}  // namespace tinyldp::collector

#endif
