// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/haar_hrr.hpp — HaarHRR (haar_hrr.hpp: haar-hrr, numeric) on the
// collector. A report {ℓ, j, b} is one cell of the aggregate: level ℓ's cells are its 2^(ℓ−1) rows
// times the two bits (WaveletLevels' layout, 2(2^h − 1) cells), counted in O(1); the estimators
// turn them into the Haar coefficients and the leaves (wavelet_estimate.hpp), the values lo … hi,
// read as the atoms of a distribution, its CDF, ranges and quantiles. A simulated report
// (privatize) stands for a new device: its level uniform, as a fresh memo key gives. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_HAAR_HRR_HPP
#define TINYLDP_COLLECTOR_MODELS_HAAR_HRR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/uniform.hpp"

namespace tinyldp::collector {

struct HaarModel : CoreModel<MechanismKind::numeric, HaarHrr> {
  static constexpr const char* core_header = "haar_hrr.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      {MechanismId::haar_hrr, "haar-hrr", "HaarHrr", [] { return example_range(MechanismId::haar_hrr, 0, 255); }},
  }};
  static constexpr bool deconvolved = true;  // no (p, q) channel over the values: the transform's
  using CoreModel::local_epsilon;

  static Status configure(const MechanismConfig& c, HaarModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;  // the levels (WaveletLevels): no kernel; the leaves are the atoms
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const {
    return {{static_cast<std::uint32_t>(value - core.low()), 1.0}};
  }
  // Every level's (row, bit) cells: 2(2^h − 1).
  std::uint32_t items() const { return offset(core.levels() + 1); }
  std::uint32_t atoms() const { return core.domain(); }
  double atom_value(std::uint32_t leaf) const { return static_cast<double>(std::int64_t{core.low()} + leaf); }
  // A cell stands for the first value under its level's node 0 (cells are no values).
  double item_value(std::uint32_t) const { return core.low(); }
  Channel channel() const { return {}; }
  std::string fractions() const;
  // The cell of a report: level ℓ's row j and bit b at offset(ℓ) + 2j + b; none for a level
  // outside 1 … h or a row ≥ 2^(ℓ−1).
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const HaarReport r = core.unpack(payload.data());
    if (r.level < 1 || r.level > core.levels() || r.row >= core.nodes(r.level)) return std::nullopt;
    return offset(r.level) + 2 * r.row + r.bit;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const HaarReport r = core.unpack(payload.data());
    return {{"level", std::int64_t{r.level}}, {"row", std::int64_t{r.row}}, {"bit", std::int64_t{r.bit}}};
  }
  // One cell per report: the cells sum to `reports`.
  bool counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports) const {
    std::uint64_t total = 0;
    for (const std::uint64_t c : support)
      if (__builtin_add_overflow(total, c, &total)) return false;
    return total == reports;
  }
  template <class Rng>
  Status privatize(std::int32_t value, Rng& rng, std::uint8_t* payload) const {
    const auto level = 1u + static_cast<std::uint32_t>(uniform_below(core.levels(), rng));
    return core.privatize_at_level(value, level, rng, payload, core.report_bytes());
  }

 private:
  // Level ℓ's first cell: 2(2^(ℓ−1) − 1).
  std::uint32_t offset(std::uint32_t level) const { return 2 * ((std::uint32_t{1} << (level - 1)) - 1); }
};
static_assert(CollectorModel<HaarModel>);

}  // namespace tinyldp::collector

#endif
