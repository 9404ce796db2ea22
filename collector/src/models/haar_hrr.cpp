// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/haar_hrr.hpp"

namespace tinyldp::collector {

namespace {
// The aggregate's cells for d values: 2(2^h − 1), h = ⌈log2 d⌉.
std::int64_t wavelet_cells(std::int64_t values) {
  const unsigned h = wire::bits_for_values(static_cast<std::uint32_t>(values));
  return 2 * ((std::int64_t{1} << h) - 1);
}
}  // namespace

std::string HaarModel::check_parameters(const MechanismConfig& c) {
  const std::int64_t values = std::int64_t{c.hi} - c.lo + 1;
  if (c.hi <= c.lo) return check_value_range(c, values, "the integers lo … hi");
  if (values > HaarHrr::max_domain || wavelet_cells(values) > max_collector_domain)
    return "haar-hrr: hi − lo + 1 = " + std::to_string(values) + " values need more than the collector's " +
           std::to_string(max_collector_domain) + " cells (two per row of every level): a narrower range";
  return check_value_range(c, wavelet_cells(values), "each level's rows and bits");
}

Status HaarModel::configure(const MechanismConfig& c, HaarModel& out, MechanismConfig& normalized) {
  if (!check_parameters(c).empty()) return Status::bad_parameter;
  const Status s = HaarHrr::configure(c.epsilon, c.lo, c.hi, out.core, c.precision);
  if (s != Status::ok) return s;
  normalized.domain = out.items();
  normalized.levels = 0;
  normalized.sensitivity = 0;
  normalized.noise_bits = 0;
  normalized.branching = 0;
  return Status::ok;
}

std::string HaarModel::fractions() const {
  return "D = 2^" + std::to_string(core.levels()) + " leaves, " + std::to_string(core.levels()) +
         " levels; binary RR keeps the bit with p = " + fraction_text(core.randomizer().keep_probability());
}

NumericModel HaarModel::noise_model() const {
  NumericModel out;
  out.size = items();
  out.atoms = core.domain();
  out.atom_value.resize(core.domain());
  for (std::uint32_t x = 0; x < core.domain(); ++x) out.atom_value[x] = atom_value(x);
  out.wavelet.leaves = core.domain();
  out.wavelet.keep = to_double(core.randomizer().keep_probability());
  for (std::uint32_t l = 1; l <= core.levels(); ++l) out.wavelet.offset.push_back(offset(l));
  return out;
}

}  // namespace tinyldp::collector
