// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/longitudinal_grr.hpp"

namespace tinyldp::collector {

namespace {
// num/den for 0 ≤ num ≤ den < 2^384, den > 0: both cut to their top 62 bits first.
double ratio(const detail::Wide& num, const detail::Wide& den) {
  const int shift = den.bit_length() > 62 ? den.bit_length() - 62 : 0;
  return static_cast<double>(num.shr(shift).low64()) / static_cast<double>(den.shr(shift).low64());
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

double grr_memos_agree(const GrrChain& chain) {
  const double q1 = to_double(chain.memo_stage().other_probability());
  const double g = chain.range(), p1 = 1 - (g - 1) * q1;
  return 2 * p1 * q1 + (g - 2) * q1 * q1;
}

std::string chain_fractions(const GrrChain& chain) {
  const Channel composed = composed_channel(chain);
  return "memo: q1 = " + fraction_text(chain.memo_stage().other_probability()) + "; report: q2 = " +
         fraction_text(chain.fresh_stage().other_probability()) + " (k-RR over " + std::to_string(chain.range()) +
         " then k-RR; composed p* = " + std::to_string(composed.p) + ", q* = " + std::to_string(composed.q) + ")";
}

std::string check_domain_at_most(const MechanismConfig& c, std::uint32_t most) {
  if (std::string r = check_categories(c); !r.empty()) return r;
  if (c.domain > most)
    return std::string(name_of(c.id)) + "'s domain is at most " + std::to_string(most) + " (got " +
           std::to_string(c.domain) + ")";
  return {};
}

std::string LgrrModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_domain_at_most(c, LongitudinalGrr::max_domain); !r.empty()) return r;
  return check_memo_epsilons(c);
}

Status LgrrModel::configure(const MechanismConfig& c, LgrrModel& out, MechanismConfig&) {
  return LongitudinalGrr::configure(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision);
}

}  // namespace tinyldp::collector
