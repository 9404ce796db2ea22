// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/configure.hpp"

#include <stdexcept>

#include "tinyldp/collector/epsilon_text.hpp"

namespace tinyldp::collector {

std::string spelled(ParameterId id, FrontEnd front_end) {
  const ParameterRow& row = parameter(id);
  return front_end == FrontEnd::cli ? "--" + std::string(row.option) : std::string(row.keyword);
}

namespace {

Configured refuse(std::string reason) { return Configured(std::in_place_type<std::string>, std::move(reason)); }

}  // namespace

Configured configure_mechanism(const ParameterValues& given, FrontEnd front_end,
                               std::optional<std::uint32_t> default_domain) {
  const auto name_of = [&](ParameterId id) { return spelled(id, front_end); };
  const std::string& name = given.mechanism;
  const MechanismRow* row = find_mechanism(name);
  if (row == nullptr) return refuse("unknown mechanism \"" + name + "\" (known: " + mechanism_names() + ")");
  MechanismConfig c;
  c.id = row->id;
  c.epsilon = given.epsilon;
  const bool numeric = row->kind == MechanismKind::numeric, record = row->kind == MechanismKind::record;
  if (numeric || record) default_domain.reset();
  // Two refusals keep each front end's own wording (their tests and users read them): Python's
  // attribute sizes on another mechanism are the collector's refusal (Mechanism::configure).
  if (given.attribute_sizes && !record && front_end == FrontEnd::cli)
    return refuse(name_of(ParameterId::attributes) + " is for the record mechanisms (" +
                  mechanism_names(MechanismKind::record) + "), not " + name + "; it takes " +
                  name_of(ParameterId::domain));
  if (record) {
    if (!given.attribute_sizes)
      return refuse(front_end == FrontEnd::cli
                        ? name + " needs " + name_of(ParameterId::attributes) +
                              ": the attributes' domain sizes, e.g. 9,16,7 or 2x16"
                        : name + " is a record of several attributes: give " + name_of(ParameterId::attributes) +
                              " (their domain sizes)");
  }
  if (given.attribute_sizes) c.attribute_sizes = *given.attribute_sizes;
  // The integers, by the table; a domain not given is the front end's default, else 0 (not
  // MechanismConfig's 2: the numeric and record models set it themselves).
  c.domain = default_domain.value_or(0);
  // The precision (probability.hpp): refused where the model has none of its own, bounded here
  // so that the core's bad_parameter never has to explain it.
  const bool precision_given = given.epsilon_tolerance || given[ParameterId::precision_bits];
  if (precision_given && !row->traits.takes_precision)
    return refuse(name_of(given.epsilon_tolerance ? ParameterId::precision_tolerance : ParameterId::precision_bits) +
                  " is not a parameter of " + name +
                  (row->traits.by_f_p_q ? " (its probabilities are --f, --p and --q as given)"
                                        : " (its precision is fixed by its own configuration)"));
  if (const auto& bits = given[ParameterId::precision_bits]; bits && (*bits < 1 || *bits > 64))
    return refuse(name_of(ParameterId::precision_bits) + " must be 1 … 64 bits, not " + std::to_string(*bits));
  if (given.epsilon_tolerance) {
    try {
      c.precision.tolerance_q32 = parse_epsilon(*given.epsilon_tolerance).q32;
    } catch (const std::invalid_argument& e) {
      return refuse(name_of(ParameterId::precision_tolerance) + ": " + e.what());
    }
    if (given.epsilon.q32 != 0 && c.precision.tolerance_q32 >= given.epsilon.q32)
      return refuse(name_of(ParameterId::precision_tolerance) + " must be below " + name_of(ParameterId::epsilon) +
                    ": the realized epsilon would have no lower bound");
  }
  for (const ParameterRow& p : parameter_table())
    if (p.set != nullptr && p.id != ParameterId::bloom_bits && given[p.id]) p.set(c, *given[p.id]);
  if ((given[ParameterId::hashes] || given[ParameterId::cohorts]) && !given[ParameterId::bloom_bits])
    return refuse(name_of(ParameterId::hashes) + " and " + name_of(ParameterId::cohorts) + " go with " +
                  name_of(ParameterId::bloom_bits));
  if (given[ParameterId::bloom_bits]) {
    if (given[ParameterId::domain])
      return refuse(name_of(ParameterId::bloom_bits) + " is the filter's size: a Bloom filter has no " +
                    name_of(ParameterId::domain));
    parameter(ParameterId::bloom_bits).set(c, *given[ParameterId::bloom_bits]);
    // The defaults: h = 2 hashes, m = 32 cohorts.
    if (!given[ParameterId::hashes]) c.bloom_hashes = 2;
    if (!given[ParameterId::cohorts]) c.bloom_cohorts = 32;
  }
  try {
    if (given.epsilon_one) {
      try {
        c.epsilon_one = parse_epsilon(*given.epsilon_one);
      } catch (const std::invalid_argument& e) {
        return refuse(name_of(ParameterId::epsilon_one) + ": " + e.what());
      }
    }
    if (given.f) c.prr_f = parse_probability(name_of(ParameterId::f), *given.f);
    if (given.p) c.irr_p = parse_probability(name_of(ParameterId::p), *given.p);
    if (given.q) c.irr_q = parse_probability(name_of(ParameterId::q), *given.q);
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
  if (given.epsilon_tolerance && c.epsilon_one.q32 != 0 && c.precision.tolerance_q32 >= c.epsilon_one.q32)
    return refuse(name_of(ParameterId::precision_tolerance) + " must be below " + name_of(ParameterId::epsilon_one) +
                  ": the realized epsilon of one report would have no lower bound");
  if (given.epsilon.q32 == 0 && !row->traits.by_f_p_q)
    return refuse(name_of(ParameterId::epsilon) + " is required for " + name);
  Mechanism m;
  if (const auto r = Mechanism::configure(c, m); !r) return refuse(r.reason);
  // A parameter given that the mechanism does not take would be silently ignored (a value of 0
  // is the collector's "not set"): refuse it, naming the parameters it does take.
  const ModelTraits& traits = row->traits;
  const auto takes = [&](const ParameterRow& p) { return p.name != nullptr && p.takes(traits, c.bloom()); };
  for (const ParameterRow& p : parameter_table()) {
    const bool is_given = p.id == ParameterId::attributes ? given.attribute_sizes.has_value() : given[p.id].has_value();
    if (p.name == nullptr || !is_given || takes(p)) continue;
    std::string taken;
    for (const ParameterRow& t : parameter_table())
      if (takes(t)) taken += (taken.empty() ? "" : ", ") + std::string(front_end == FrontEnd::cli ? t.option : t.keyword);
    return refuse(name_of(p.id) + " is not a parameter of " + name + " (it takes " + taken + ")");
  }
  return m;
}

}  // namespace tinyldp::collector
