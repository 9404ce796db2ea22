// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/two_stage_rr.hpp"

#include <cmath>

namespace tinyldp::collector {

std::string TwoStageModel::check_parameters(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (std::string r = check_categories(c); !r.empty()) return r;
  if (c.domain > TwoStageRr::max_bits)
    return name + "'s domain is at most " + std::to_string(TwoStageRr::max_bits) + " (got " +
           std::to_string(c.domain) + ")";
  if (c.bloom() || c.bloom_cohorts != 0) {
    if (c.bloom_hashes < 1 || c.bloom_hashes > TwoStageRr::max_hashes)
      return "a Bloom filter's hashes must be 1 … " + std::to_string(TwoStageRr::max_hashes) + " (got " +
             std::to_string(c.bloom_hashes) + ")";
    if (c.bloom_cohorts < 1 || c.bloom_cohorts > TwoStageRr::max_cohorts)
      return "a Bloom filter's cohorts must be 1 … " + std::to_string(TwoStageRr::max_cohorts) + " (got " +
             std::to_string(c.bloom_cohorts) + ")";
    if (std::uint64_t{c.bloom_cohorts} * (c.domain + 1) > max_collector_domain)
      return "cohorts x (bloom bits + 1) = " + std::to_string(std::uint64_t{c.bloom_cohorts} * (c.domain + 1)) +
             " counts is above the collector's limit " + std::to_string(max_collector_domain);
  }
  if (c.id == MechanismId::rappor) return check_rappor_probabilities(c);
  return check_memo_epsilons(c);
}

Status TwoStageModel::configure(const MechanismConfig& c, TwoStageModel& out, MechanismConfig&) {
  const auto e = c.bloom() ? TwoStageRr::bloom(c.domain, c.bloom_hashes, c.bloom_cohorts)
                           : TwoStageRr::one_hot(c.domain);
  switch (c.id) {
    case MechanismId::rappor: return TwoStageRr::configure_rappor(c.prr_f, c.irr_p, c.irr_q, e, out.core);
    case MechanismId::l_sue: return TwoStageRr::configure_chain(UeStage::sue, UeStage::sue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_osue: return TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_oue: return TwoStageRr::configure_chain(UeStage::oue, UeStage::oue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_soue: return TwoStageRr::configure_chain(UeStage::sue, UeStage::oue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    default: return Status::bad_parameter;
  }
}

ParseError TwoStageModel::count_bloom(std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
                                      std::span<std::uint64_t> support) const {
  if (!bloom()) return ParseError::wrong_mechanism;
  if (!cohort) return ParseError::missing_cohort;
  if (*cohort >= core.encoding().cohorts) return ParseError::value_out_of_range;
  const std::size_t at = std::size_t{*cohort} * (core.bits() + 1);
  add_support(payload, support.subspan(at, core.bits()));
  ++support[at + core.bits()];
  return ParseError::none;
}

Channel TwoStageModel::channel() const {
  const double p1 = to_double(core.p1()), q1 = to_double(core.q1());
  const double p2 = to_double(core.p2()), q2 = to_double(core.q2());
  return {p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2};
}

std::optional<MemoCovariance> TwoStageModel::memo_covariance() const {
  if (bloom()) return std::nullopt;  // a value sets h bits: its supports are not one bit's
  return MemoCovariance{to_double(core.p1()), to_double(core.q1()), to_double(core.p2()), to_double(core.q2()), 0};
}

std::optional<double> TwoStageModel::change_exposure() const {
  const double p1 = to_double(core.p1()), q1 = to_double(core.q1());
  const double moved = p1 * q1 + (1 - p1) * (1 - q1), still = q1 * q1 + (1 - q1) * (1 - q1);
  return 1 - moved * moved * std::pow(still, static_cast<double>(core.bits()) - 2);
}

std::string TwoStageModel::fractions() const {
  return "memo: p1 = " + fraction_text(core.p1()) + ", q1 = " + fraction_text(core.q1()) +
         "; report: p2 = " + fraction_text(core.p2()) + ", q2 = " + fraction_text(core.q2());
}

}  // namespace tinyldp::collector
