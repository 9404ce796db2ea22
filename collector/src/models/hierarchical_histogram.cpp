// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/hierarchical_histogram.hpp"

#include "tinyldp/collector/models/local_hashing.hpp"

namespace tinyldp::collector {

namespace {
// The aggregate's cells for d values and branching B: every level's nodes and its report count.
std::int64_t tree_cells(std::int64_t values, std::uint32_t b) {
  const auto shift = static_cast<unsigned>(__builtin_ctz(b));
  const unsigned h = (wire::bits_for_values(static_cast<std::uint32_t>(values)) + shift - 1) / shift;
  std::int64_t cells = 0;
  for (unsigned l = 1; l <= h; ++l) cells += ((values - 1) >> (shift * (h - l))) + 2;
  return cells;
}
std::uint32_t branching_of(const MechanismConfig& c) {
  return c.branching == 0 ? HierarchicalHistogram::default_branching : c.branching;
}
}  // namespace

std::string HhModel::check_parameters(const MechanismConfig& c) {
  const std::int64_t values = std::int64_t{c.hi} - c.lo + 1;
  if (c.hi <= c.lo) return check_value_range(c, values, "the integers lo … hi");
  const std::uint32_t b = branching_of(c);
  if (b < 2 || b > HierarchicalHistogram::max_branching || (b & (b - 1)) != 0)
    return "branching must be 2, 4, 8 or 16 (got " + std::to_string(c.branching) + ")";
  if (c.levels != 0) return "levels is not a parameter of hh (its levels follow from the range and the branching)";
  if (values > HierarchicalHistogram::max_domain || tree_cells(values, b) > max_collector_domain)
    return "hh: hi − lo + 1 = " + std::to_string(values) + " values make a tree of more than the collector's " +
           std::to_string(max_collector_domain) + " cells (nodes and level counts): a narrower range";
  return check_value_range(c, tree_cells(values, b), "the tree's nodes and each level's report count");
}

Status HhModel::configure(const MechanismConfig& c, HhModel& out, MechanismConfig& normalized) {
  const std::uint32_t b = branching_of(c);
  if (!check_parameters(c).empty()) return Status::bad_parameter;
  const Status s = HierarchicalHistogram::configure(c.epsilon, c.lo, c.hi, b, out.core, c.precision);
  if (s != Status::ok) return s;
  out.level_offset.assign(1, 0);  // each level's first cell, computed once (the ingest path reads it)
  for (std::uint32_t l = 1; l <= out.core.levels(); ++l) out.level_offset.push_back(out.level_offset.back() + out.core.nodes(l) + 1);
  if (c.domain != 0 && c.domain != out.items()) return Status::bad_parameter;
  std::uint32_t widest = 0;
  for (std::uint32_t l = 1; l <= out.core.levels(); ++l)
    if (out.core.hashed(l)) widest = out.core.nodes(l);
  out.hash_keys = std::make_shared<const std::vector<std::uint32_t>>(local_hash_keys(widest));
  normalized.domain = out.items();
  normalized.branching = b;
  normalized.levels = 0;
  normalized.sensitivity = 0;
  normalized.noise_bits = 0;
  return Status::ok;
}


double HhModel::item_value(std::uint32_t item) const {
  for (std::uint32_t l = 1; l <= core.levels(); ++l) {
    const std::uint32_t n = core.nodes(l);
    if (item <= n) {
      const std::uint64_t first = std::uint64_t{std::min(item, n - 1)} << core.leaf_shift(l);
      return static_cast<double>(std::int64_t{core.low()} + static_cast<std::int64_t>(first));
    }
    item -= n + 1;
  }
  return core.high();
}

std::string HhModel::fractions() const {
  std::string levels;
  for (std::uint32_t l = 1; l <= core.levels(); ++l)
    levels += (l > 1 ? ", " : "") + std::to_string(core.nodes(l)) + (core.hashed(l) ? " (olh)" : " (oue)");
  return "B = " + std::to_string(core.branching()) + ", " + std::to_string(core.levels()) +
         " levels of " + levels + " nodes; oue: p = " + fraction_text(core.unary().p()) +
         ", q = " + fraction_text(core.unary().q()) + "; olh: g = " + std::to_string(core.hashing().range()) +
         ", k-RR q = " + fraction_text(core.hashing().randomizer().other_probability());
}

ParseError HhModel::check(std::span<const std::uint8_t> payload) const {
  const std::uint32_t level = payload[0];
  if (level < 1 || level > core.levels()) return ParseError::value_out_of_range;
  const std::uint32_t used = core.oracle_bits(level), total = core.payload_bits() - 8;
  const std::span<const std::uint8_t> oracle = payload.subspan(1);
  for (std::uint32_t bit = used; bit < total; ++bit)
    if (payload_bit(oracle, bit) != 0) return ParseError::nonzero_padding;
  if (core.hashed(level) && core.hashing_at(level).unpack(oracle.data()).value >= core.hashing().range())
    return ParseError::value_out_of_range;
  return ParseError::none;
}

void HhModel::add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
  const std::uint32_t level = payload[0], n = core.nodes(level);
  const std::span<std::uint64_t> cells = support.subspan(offset(level), n + 1);
  const std::span<const std::uint8_t> oracle = payload.subspan(1);
  if (core.hashed(level)) {
    const LocalHashing olh = core.hashing_at(level);
    count_local_hash_support(std::span(hash_keys->data(), n), olh.range(), olh.unpack(oracle.data()), cells);
  } else {
    add_bit_support(oracle, n, cells);
  }
  cells[n] += 1;
}

bool HhModel::counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports) const {
  return grouped_counts_consistent(support, reports, core.levels(), [&](std::uint32_t g) { return core.nodes(g + 1); });
}

std::vector<PayloadField> HhModel::fields(std::span<const std::uint8_t> payload) const {
  const std::uint32_t level = payload[0];
  std::vector<PayloadField> out{{"level", std::int64_t{level}}};
  if (level < 1 || level > core.levels()) return out;
  const std::span<const std::uint8_t> oracle = payload.subspan(1);
  if (core.hashed(level)) {
    for (PayloadField& f : local_hash_fields(core.hashing_at(level).unpack(oracle.data()))) out.push_back(std::move(f));
  } else {
    out.push_back({"nodes_set", bits_set(oracle, core.nodes(level))});
  }
  return out;
}

NumericModel HhModel::noise_model() const {
  NumericModel out;
  out.size = items();
  out.atoms = core.domain();
  out.atom_value.resize(core.domain());
  for (std::uint32_t x = 0; x < core.domain(); ++x) out.atom_value[x] = atom_value(x);
  TreeLevels& tree = out.tree;
  tree.branching_bits = static_cast<unsigned>(__builtin_ctz(core.branching()));
  tree.leaves = core.domain();
  for (std::uint32_t l = 1; l <= core.levels(); ++l) {
    tree.nodes.push_back(core.nodes(l));
    tree.offset.push_back(offset(l));
    tree.channel.push_back(core.hashed(l) ? Channel{channel_of(core.hashing().randomizer()).p,
                                                    1.0 / static_cast<double>(core.hashing().range())}
                                          : channel_of(core.unary()));
  }
  return out;
}

}  // namespace tinyldp::collector
