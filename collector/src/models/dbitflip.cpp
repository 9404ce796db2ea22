// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/dbitflip.hpp"

namespace tinyldp::collector {

std::string DBitFlipModel::check_parameters(const MechanismConfig& c) {
  const std::int64_t width = std::int64_t{c.hi} - c.lo;
  if (c.hi <= c.lo)
    return "dbitflip needs a value range with hi above lo (got [" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "])";
  if (width > AlphaRounding::max_value) return "dbitflip needs hi − lo ≤ 2^30 (got " + std::to_string(width) + ")";
  const std::int64_t step = c.grid_step == 0 ? width : c.grid_step;
  if (width % step != 0)
    return "grid-step must divide hi − lo = " + std::to_string(width) + " (got " + std::to_string(step) + ")";
  const std::int64_t buckets = width / step + 1;
  if (buckets > DBitFlip::max_buckets)
    return "dbitflip has at most " + std::to_string(DBitFlip::max_buckets) + " buckets ((hi − lo)/grid-step + 1 = " +
           std::to_string(buckets) + "): take a larger grid-step";
  const std::int64_t d = c.sampled == 0 ? 1 : c.sampled;
  if (d > DBitFlip::max_sampled || d > buckets)
    return "sampled-buckets must be 1 … min(16, the " + std::to_string(buckets) + " buckets) (got " + std::to_string(d) + ")";
  if (c.domain != 0 && c.domain != buckets)
    return "domain is not a parameter of dbitflip: its items are the " + std::to_string(buckets) +
           " buckets (got domain " + std::to_string(c.domain) + ")";
  if (c.noise_bits != 0) return "noise-bits is not a parameter of dbitflip";
  return check_memo_epsilons(c);
}

Status DBitFlipModel::configure(const MechanismConfig& c, DBitFlipModel& out, MechanismConfig& normalized) {
  if (c.hi <= c.lo || std::int64_t{c.hi} - c.lo > AlphaRounding::max_value) return Status::bad_parameter;
  const auto width = static_cast<std::uint32_t>(std::int64_t{c.hi} - c.lo);
  DBitFlip::Layout layout;
  layout.max_value = width;
  layout.step = c.grid_step == 0 ? width : c.grid_step;
  layout.sampled = c.sampled == 0 ? 1 : c.sampled;
  const Status s = DBitFlip::configure(c.epsilon, c.epsilon_one, layout, out.core, c.precision);
  if (s != Status::ok) return s;
  out.lo = c.lo;
  normalized.domain = out.core.buckets();
  normalized.grid_step = layout.step;
  normalized.sampled = layout.sampled;
  return Status::ok;
}

Channel DBitFlipModel::channel() const {
  const Channel bit = composed_channel(core.chain());
  const double share = static_cast<double>(core.sampled()) / core.buckets();
  return {share * bit.p, share * bit.q};
}

std::string DBitFlipModel::fractions() const {
  const DBitFlip::Layout& l = core.layout();
  const Channel bit = composed_channel(core.chain());
  return "memo: q1 = " + fraction_text(core.chain().memo_stage().other_probability()) +
         " (binary RR at epsilon infinity / " + (core.sampled() >= 2 ? "2" : "1") +
         " of each sampled bucket's bit); report: flip gamma = " + fraction_text(core.flip_probability()) + " (p* = " +
         std::to_string(bit.p) + "); " + std::to_string(core.sampled()) + " of " + std::to_string(core.buckets()) +
         " buckets sampled per device, grid step " + std::to_string(l.step);
}

std::vector<PayloadField> DBitFlipModel::fields(std::span<const std::uint8_t> payload) const {
  const DBitFlipReport r = core.unpack(payload.data());
  std::vector<std::uint32_t> sampled, set;
  for (std::uint32_t t = 0; t < core.sampled(); ++t) {
    sampled.push_back(r.bucket[t]);
    if ((r.bits >> t) & 1u) set.push_back(r.bucket[t]);
  }
  return {{"sampled_buckets", std::move(sampled)}, {"buckets_set", std::move(set)}};
}

NumericModel DBitFlipModel::noise_model() const {
  const std::uint32_t k = items();
  NumericModel model = numeric_atoms(k, *this);
  const Channel ch = channel();
  for (std::uint32_t x = 0; x < k; ++x)
    for (std::uint32_t y = 0; y < k; ++y) model.kernel[std::size_t{x} * k + y] = x == y ? ch.p : ch.q;
  const double d = core.sampled();
  model.sampled_share = d / k;
  model.pair_share = k > 1 ? d * (d - 1) / (static_cast<double>(k) * (k - 1)) : 0.0;
  const Channel bit = composed_channel(core.chain());
  model.bit_p = bit.p;
  model.bit_q = bit.q;
  return model;
}

std::vector<std::pair<std::uint32_t, double>> DBitFlipModel::item_weights(std::int64_t value) const {
  // α-point rounding: x − lo = L·s + r goes to L + 1 with probability r/s (alpha_rounding.hpp).
  const std::int64_t s = core.layout().step, offset = value - lo;
  const auto low = static_cast<std::uint32_t>(offset / s);
  const double up = static_cast<double>(offset % s) / static_cast<double>(s);
  std::vector<std::pair<std::uint32_t, double>> out;
  if (up < 1) out.emplace_back(low, 1 - up);
  if (up > 0) out.emplace_back(low + 1, up);
  return out;
}

}  // namespace tinyldp::collector
