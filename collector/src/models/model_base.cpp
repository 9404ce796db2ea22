// SPDX-License-Identifier: Apache-2.0
// The helpers several models share (models/model_base.hpp): texts and the checks of the
// parameters more than one model takes.
#include "tinyldp/collector/models/model_base.hpp"

namespace tinyldp::collector {

namespace {
bool is_probability(Dyadic x) { return x.bits <= 64 && (x.bits == 64 || x.num <= (std::uint64_t{1} << x.bits)); }
}  // namespace

std::vector<std::uint32_t> bits_set(std::span<const std::uint8_t> payload, std::uint32_t n) {
  std::vector<std::uint32_t> set;
  for (std::uint32_t i = 0; i < n; ++i)
    if (payload_bit(payload, i)) set.push_back(i);
  return set;
}

std::string fraction_text(std::uint64_t num, unsigned bits) {
  return std::to_string(num) + "/2^" + std::to_string(bits);
}

std::string check_categories(const MechanismConfig& c) {
  if (c.domain >= 2) return {};
  return std::string(name_of(c.id)) + " needs a domain: the number of categories, at least 2 (got " +
         std::to_string(c.domain) + ")";
}

std::string check_value_range(const MechanismConfig& c, std::int64_t items, const char* what) {
  const std::string name = name_of(c.id);
  if (c.hi <= c.lo)
    return name + " needs a value range with hi above lo (got [" + std::to_string(c.lo) + ", " +
           std::to_string(c.hi) + "])";
  if (c.domain != 0 && c.domain != items)
    return "domain is not a parameter of " + name + ": its items are " + what + " (got domain " +
           std::to_string(c.domain) + " for " + std::to_string(items) + " items)";
  return {};
}

std::string check_memo_epsilons(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (c.prr_f != Dyadic{} || c.irr_p != Dyadic{} || c.irr_q != Dyadic{})
    return "f, p and q are rappor's parameters; " + name + " takes epsilon (ε∞) and epsilon-one (ε₁)";
  if (c.epsilon_one.q32 == 0)
    return name + " needs epsilon-one: the ε₁ of one report (epsilon is ε∞, of the memo)";
  if (!(c.epsilon_one < c.epsilon))
    return name + "'s epsilon-one (ε₁ of one report) must be below epsilon (ε∞ of the memo)";
  return {};
}

std::string check_rappor_probabilities(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (c.epsilon.q32 != 0 || c.epsilon_one.q32 != 0)
    return name + " is configured by f, p and q (its epsilons follow from them), not by epsilon";
  if (c.prr_f.num == 0 || !is_probability(c.prr_f) || to_double(c.prr_f) >= 1)
    return name + "'s f (the permanent flip probability) must be in (0, 1) (got " + fraction_text(c.prr_f) + ")";
  if (!is_probability(c.irr_q) || !is_probability(c.irr_p) || !(to_double(c.irr_p) < to_double(c.irr_q)))
    return name + "'s p must be below q, both in [0, 1] (got p = " + fraction_text(c.irr_p) +
           ", q = " + fraction_text(c.irr_q) + ")";
  return {};
}

}  // namespace tinyldp::collector
