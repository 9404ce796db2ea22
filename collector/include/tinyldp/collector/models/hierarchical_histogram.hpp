// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/hierarchical_histogram.hpp — the hierarchical histogram
// (hierarchical_histogram.hpp: hh, numeric) on the collector. The aggregate counts, level by level
// (ℓ = 1 … h), each node's support — OUE's bits, or the nodes OLH's {seed, y} hashes onto y — and
// the level's reports (TreeLevels' layout: n_ℓ + 1 cells per level); the estimators make the tree
// consistent (hierarchy_estimate.hpp) and read the leaves, the values lo … hi, as the atoms of a
// distribution, its CDF, ranges and quantiles. A simulated report (privatize) stands for a new
// device: its level uniform, as a fresh memo key gives. Cost: O(n_ℓ) per report of a hashed level
// (4·d bytes of hash keys), O(n_ℓ) bits otherwise. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_HIERARCHICAL_HISTOGRAM_HPP
#define TINYLDP_COLLECTOR_MODELS_HIERARCHICAL_HISTOGRAM_HPP

#include <array>
#include <memory>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/uniform.hpp"

namespace tinyldp::collector {

struct HhModel : CoreModel<MechanismKind::numeric, HierarchicalHistogram> {
  static constexpr const char* core_header = "hierarchical_histogram.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::hh, "hh", "HierarchicalHistogram", [] {
         MechanismConfig c = example_range(MechanismId::hh, 0, 255);
         c.branching = 4;
         return c;
       }},
  }};
  static constexpr bool takes_branching = true;
  static constexpr bool deconvolved = true;  // no (p, q) channel over the values: the tree's
  using CoreModel::local_epsilon;
  // local_hash_key(i) for the nodes of the widest hashed level (shared by copies).
  std::shared_ptr<const std::vector<std::uint32_t>> hash_keys;
  // Level ℓ's first cell at [ℓ − 1]; the cells' count at [h] (set by configure).
  std::vector<std::uint32_t> level_offset;

  static Status configure(const MechanismConfig& c, HhModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  // The tree (TreeLevels): no kernel; the leaves are the atoms.
  NumericModel noise_model() const;
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const {
    return {{static_cast<std::uint32_t>(value - core.low()), 1.0}};
  }
  // Every level's nodes and its report count.
  std::uint32_t items() const { return level_offset.empty() ? 0 : level_offset.back(); }
  std::uint32_t atoms() const { return core.domain(); }
  double atom_value(std::uint32_t leaf) const { return static_cast<double>(std::int64_t{core.low()} + leaf); }
  // An item (a node of some level, or a level's count) stands for the first value under it.
  double item_value(std::uint32_t item) const;
  Channel channel() const { return {}; }
  std::string fractions() const;
  ParseError check(std::span<const std::uint8_t> payload) const;
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const;
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  // Each node's support at most its level's reports; the levels' reports summing to `reports`.
  bool counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports) const;
  template <class Rng>
  Status privatize(std::int32_t value, Rng& rng, std::uint8_t* payload) const {
    const auto level = 1u + static_cast<std::uint32_t>(uniform_below(core.levels(), rng));
    return core.privatize_at_level(value, level, rng, payload, core.report_bytes());
  }

 private:
  std::uint32_t offset(std::uint32_t level) const { return level_offset[level - 1]; }
};
static_assert(CollectorModel<HhModel>);

}  // namespace tinyldp::collector

#endif
