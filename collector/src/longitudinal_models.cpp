// SPDX-License-Identifier: Apache-2.0
// The collector's models of the longitudinal protocols on the GRR chain (longitudinal_grr.hpp):
// L-GRR, LOLOHA / BiLOLOHA and 1BitMean — their configuration, refusals and descriptions.
#include <cmath>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

namespace {
std::string fraction(Dyadic x) { return std::to_string(x.num) + "/2^" + std::to_string(x.bits); }

// num/den for 0 ≤ num ≤ den < 2^384, den > 0: both cut to their top 62 bits first.
double ratio(const detail::Wide& num, const detail::Wide& den) {
  const int shift = den.bit_length() > 62 ? den.bit_length() - 62 : 0;
  return static_cast<double>(num.shr(shift).low64()) / static_cast<double>(den.shr(shift).low64());
}

// The chain's two stages: the memo's k-RR at ε∞ and the fresh one.
std::string chain_fractions(const GrrChain& chain) {
  const Channel composed = composed_channel(chain);
  return "memo: q1 = " + fraction(chain.memo_stage().other_probability()) + "; report: q2 = " +
         fraction(chain.fresh_stage().other_probability()) + " (k-RR over " + std::to_string(chain.range()) +
         " then k-RR; composed p* = " + std::to_string(composed.p) + ", q* = " + std::to_string(composed.q) + ")";
}

std::string check_domain_at_most(const MechanismConfig& c, std::uint32_t most) {
  if (std::string r = check_categories(c); !r.empty()) return r;
  if (c.domain > most)
    return std::string(name_of(c.id)) + "'s domain is at most " + std::to_string(most) + " (got " +
           std::to_string(c.domain) + ")";
  return {};
}
}  // namespace

Channel composed_channel(const GrrChain& chain) {
  detail::Wide same, other, all;
  chain.composed(same, other, all);
  return {ratio(same, all), ratio(other, all)};
}

MemoCovariance chain_covariance(const GrrChain& chain, double collision) {
  const Channel memo = channel_of(chain.memo_stage()), fresh = channel_of(chain.fresh_stage());
  return {memo.p, memo.q, fresh.p, fresh.q, collision};
}

// --- L-GRR --------------------------------------------------------------------------------

std::string LgrrModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_domain_at_most(c, LongitudinalGrr::max_domain); !r.empty()) return r;
  return check_memo_epsilons(c);
}

Status LgrrModel::configure(const MechanismConfig& c, LgrrModel& out, MechanismConfig&) {
  return LongitudinalGrr::configure(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision);
}

std::string LgrrModel::fractions() const { return chain_fractions(core.chain()); }

// --- LOLOHA, BiLOLOHA ---------------------------------------------------------------------

std::string LolohaModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_domain_at_most(c, Loloha::max_domain); !r.empty()) return r;
  return check_memo_epsilons(c);
}

Status LolohaModel::configure(const MechanismConfig& c, LolohaModel& out, MechanismConfig&) {
  const Status s =
      c.id == MechanismId::biloloha
          ? Loloha::configure_binary(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision)
          : Loloha::configure_optimal(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision);
  if (s == Status::ok) out.hash_keys = local_hash_keys(c.domain);
  return s;
}

std::string LolohaModel::fractions() const {
  return "g = " + std::to_string(core.range()) + ", " + chain_fractions(core.chain()) +
         " over the hashed values";
}

// --- 1BitMean -----------------------------------------------------------------------------

std::string OneBitMeanModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_value_range(c, 2, "its report's bit, standing for lo and hi"); !r.empty()) return r;
  const std::int64_t width = std::int64_t{c.hi} - c.lo;
  if (width > OneBitMean::max_value)
    return "1bitmean needs hi − lo ≤ 2^30 (got " + std::to_string(width) + ")";
  if (c.grid_step != 0 && width % c.grid_step != 0)
    return "grid-step must divide hi − lo = " + std::to_string(width) + " (got " + std::to_string(c.grid_step) + ")";
  if (c.noise_bits > 32)
    return "1bitmean's rounding bits (noise bits) must be 1 … 32 (got " + std::to_string(c.noise_bits) + ")";
  return check_memo_epsilons(c);
}

Status OneBitMeanModel::configure(const MechanismConfig& c, OneBitMeanModel& out,
                                  MechanismConfig& normalized) {
  if (c.hi <= c.lo || std::int64_t{c.hi} - c.lo > OneBitMean::max_value) return Status::bad_parameter;
  const auto width = static_cast<std::uint32_t>(std::int64_t{c.hi} - c.lo);
  OneBitMean::Grid grid;
  grid.max_value = width;
  grid.step = c.grid_step == 0 ? width : c.grid_step;
  grid.rounding_bits = c.noise_bits == 0 ? OneBitMean::default_rounding_bits : c.noise_bits;
  const Status s = OneBitMean::configure(c.epsilon, c.epsilon_one, grid, out.core, c.precision);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != 2) return Status::bad_parameter;
  out.lo = c.lo;
  normalized.domain = 2;
  normalized.grid_step = grid.step;
  normalized.noise_bits = static_cast<std::uint8_t>(grid.rounding_bits);
  return Status::ok;
}

std::string OneBitMeanModel::fractions() const {
  const OneBitMean::Grid& g = core.grid();
  return "memo: q1 = " + fraction(core.chain().memo_stage().other_probability()) +
         " (binary RR at epsilon infinity of the rounded bit); report: flip gamma = " +
         fraction(core.flip_probability()) + "; grid step " + std::to_string(g.step) + " (" +
         std::to_string(core.cells()) + " cells), rounding with " + std::to_string(g.rounding_bits) + " bits";
}

std::vector<PayloadField> OneBitMeanModel::fields(std::span<const std::uint8_t> payload) const {
  const std::uint8_t y = OneBitMean::unpack(payload.data());
  const Channel ch = channel();
  const double estimate = static_cast<double>(lo) +
                          static_cast<double>(core.grid().max_value) * (y - ch.q) / (ch.p - ch.q);
  return {{"bit", std::int64_t{y}}, {"estimate", estimate}};
}

// --- dBitFlip -------------------------------------------------------------------------------

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
  return "memo: q1 = " + fraction(core.chain().memo_stage().other_probability()) +
         " (binary RR at epsilon infinity / " + (core.sampled() >= 2 ? "2" : "1") +
         " of each sampled bucket's bit); report: flip gamma = " + fraction(core.flip_probability()) + " (p* = " +
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

}  // namespace tinyldp::collector
