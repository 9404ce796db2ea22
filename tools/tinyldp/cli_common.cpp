// SPDX-License-Identifier: Apache-2.0
#include "cli_common.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <map>
#include <sstream>
#include <string_view>

#include "epsilon_text.hpp"
#include "record_table.hpp"

namespace tinyldp::tools {

namespace {
// RAPPOR and the record's memoized RR are configured by RAPPOR's f, p, q, not by an epsilon.
bool set_by_f_p_q(wire::MechanismId id) {
  return id == wire::MechanismId::rappor || id == wire::MechanismId::record_rr;
}
}  // namespace

using collector::Mechanism;
using collector::MechanismConfig;
using collector::MechanismKind;

double as_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

void add_mechanism_options(CLI::App& app, MechanismOptions& o, const std::string& domain_help) {
  const std::string numeric = collector::mechanism_names(MechanismKind::numeric);
  const std::string records = collector::mechanism_names(MechanismKind::record);
  app.add_option("--mechanism,-m", o.mechanism, collector::mechanism_names())->required();
  app.add_option("--epsilon,-e", o.epsilon,
                 "privacy budget per report, a decimal like 0.5 (memoized l-*: ε∞, of all reports of "
                 "one value; rappor: not given)");
  app.add_option("--epsilon-one", o.epsilon_one,
                 "memoized mechanisms but rappor (l-sue, l-osue, l-oue, l-soue, l-grr, loloha, biloloha, "
                 "1bitmean): ε₁ of one report (< --epsilon)");
  app.add_option("--f", o.f, "rappor: permanent-RR flip probability f, a decimal in (0, 1)");
  app.add_option("--p", o.p, "rappor: instantaneous RR P(report 1 | memo bit 0)");
  app.add_option("--q", o.q, "rappor: instantaneous RR P(report 1 | memo bit 1)");
  app.add_option("--domain,-d", o.domain, domain_help);
  app.add_option("--domains", o.domains,
                 "record mechanisms (" + records + "): the attributes' domain sizes, 9,16,7 or 2x16");
  app.add_option("--lo", o.lo, numeric + ": smallest value (an integer)");
  app.add_option("--hi", o.hi, numeric + ": largest value (an integer)");
  app.add_option("--levels", o.levels, "sd: number of levels L, 2 … 256 (default 2)");
  app.add_option("--sensitivity", o.sensitivity,
                 "dlaplace: protect inputs this far apart (default hi − lo: local DP)");
  app.add_option("--grid-step", o.grid_step,
                 "1bitmean, dbitflip: α-point rounding's grid step, dividing hi − lo (default hi − lo: "
                 "the ends only); 1bitmean: a memo per grid point; dbitflip: the buckets")
      ->check(CLI::Range(1u, 1u << 30));
  app.add_option("--sampled-buckets", o.sampled_buckets,
                 "dbitflip: d, the buckets each device samples once and reports a bit for (1 … 16, default 1)")
      ->check(CLI::Range(1u, 16u));
  app.add_option("--bloom-bits", o.bloom_bits,
                 "rappor, l-sue, l-osue, l-oue, l-soue: report a Bloom filter of K bits (values are strings) "
                 "instead of a one-hot vector over --domain");
  app.add_option("--hashes", o.hashes, "with --bloom-bits: h, the filter's hashes (1 … 16, default 2)");
  app.add_option("--cohorts", o.cohorts,
                 "with --bloom-bits: m, the cohorts (each with its own hashes; 1 … 65536, default 32)");
}

Mechanism configure(const MechanismOptions& o, Epsilon epsilon,
                    std::optional<std::uint32_t> default_domain) {
  const auto* row = collector::find_mechanism(o.mechanism);
  if (row == nullptr)
    throw BadInput("unknown mechanism \"" + o.mechanism + "\" (known: " + collector::mechanism_names() + ")");
  MechanismConfig c;
  c.id = row->id;
  c.epsilon = epsilon;
  const bool numeric = row->kind == MechanismKind::numeric, record = row->kind == MechanismKind::record;
  c.domain = o.domain.value_or(numeric || record ? 0 : default_domain.value_or(0));
  if (o.domains && !record)
    throw BadInput("--domains is for the record mechanisms (" + collector::mechanism_names(MechanismKind::record) +
                   "), not " + o.mechanism + "; it takes --domain");
  if (record) {
    if (!o.domains) throw BadInput(o.mechanism + " needs --domains: the attributes' domain sizes, e.g. 9,16,7 or 2x16");
    c.attribute_sizes = parse_domains(*o.domains);
  }
  c.lo = o.lo.value_or(0);
  c.hi = o.hi.value_or(0);
  c.levels = o.levels.value_or(0);
  c.sensitivity = o.sensitivity.value_or(0);
  c.grid_step = o.grid_step.value_or(0);
  c.sampled = o.sampled_buckets.value_or(0);
  if ((o.hashes || o.cohorts) && !o.bloom_bits) throw BadInput("--hashes and --cohorts go with --bloom-bits");
  if (o.bloom_bits) {
    if (o.domain) throw BadInput("--bloom-bits is the filter's size: a Bloom filter has no --domain");
    c.domain = *o.bloom_bits;
    c.bloom_hashes = o.hashes.value_or(2);
    c.bloom_cohorts = o.cohorts.value_or(32);
  }
  if (o.epsilon_one) {
    try {
      c.epsilon_one = parse_epsilon(*o.epsilon_one);
    } catch (const std::invalid_argument& e) {
      throw BadInput(std::string("--epsilon-one: ") + e.what());
    }
  }
  if (o.f) c.prr_f = parse_probability("f", *o.f);
  if (o.p) c.irr_p = parse_probability("p", *o.p);
  if (o.q) c.irr_q = parse_probability("q", *o.q);
  if (epsilon.q32 == 0 && !set_by_f_p_q(row->id))
    throw BadInput("--epsilon is required for " + o.mechanism);
  Mechanism m;
  if (const auto r = Mechanism::configure(c, m); !r) throw BadInput(r.reason);
  // An option given that the mechanism does not take would be silently ignored (a value of 0
  // is the collector's "not set"): refuse it, naming the parameters it does take.
  const auto params = m.parameters();
  const auto takes = [&](std::string_view name) {
    for (const auto& p : params)
      if (name == p.name) return true;
    return false;
  };
  // (option, parameter name, given)
  const std::tuple<const char*, const char*, bool> given[] = {
      {"domain", "domain", o.domain.has_value()},          {"lo", "lo", o.lo.has_value()},
      {"hi", "hi", o.hi.has_value()},                      {"levels", "levels", o.levels.has_value()},
      {"sensitivity", "sensitivity", o.sensitivity.has_value()},
      {"grid-step", "grid_step", o.grid_step.has_value()},
      {"sampled-buckets", "sampled_buckets", o.sampled_buckets.has_value()}};
  const auto option = [](std::string_view name) {  // grid_step → grid-step
    if (name == "attributes") return std::string("domains");
    std::string text(name);
    std::replace(text.begin(), text.end(), '_', '-');
    return text;
  };
  for (const auto& [name, parameter, is_given] : given) {
    if (!is_given || takes(parameter)) continue;
    std::string taken;
    for (const auto& p : params) taken += (taken.empty() ? "" : ", ") + option(p.name);
    throw BadInput("--" + std::string(name) + " is not a parameter of " + o.mechanism + " (it takes " + taken + ")");
  }
  return m;
}

Epsilon epsilon_option(const MechanismOptions& o, bool* exact) {
  if (o.epsilon.empty()) return Epsilon{};
  return parse_epsilon(o.epsilon, exact);
}

Dyadic parse_probability(const std::string& option, const std::string& text) {
  try {
    return collector::parse_probability("--" + option, text);  // the Python keywords' reading too
  } catch (const std::invalid_argument& e) {
    throw BadInput(e.what());
  }
}

std::string describe(const Mechanism& m) {
  std::string out = std::string(collector::name_of(m.config().id)) + ", epsilon " + to_decimal(m.config().epsilon);
  if (set_by_f_p_q(m.config().id))  // its epsilons follow from f, p, q
    out = std::string(collector::name_of(m.config().id)) + ", epsilon-one " + to_decimal(m.local_epsilon(), 4) +
          ", epsilon-infinity " + to_decimal(*m.epsilon_infinity(), 4);
  const auto params = m.parameters();
  std::size_t i = 0;
  if (m.numeric()) {  // lo and hi first, as a range
    out += ", range [" + std::to_string(params[0].value) + ", " + std::to_string(params[1].value) + "]";
    i = 2;
  }
  if (m.record()) {
    std::string sizes;
    for (std::uint32_t k : m.config().attribute_sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(k);
    return out + ", domains " + sizes;
  }
  for (; i < params.size(); ++i) out += ", " + std::string(params[i].name) + " " + std::to_string(params[i].value);
  return out;
}

void refuse_record(const Mechanism& m, const std::string& command) {
  if (!m.record()) return;
  const bool memo = m.config().id == wire::MechanismId::record_rr;
  const auto d = m.config().attribute_sizes.size();
  throw BadInput(std::string(collector::name_of(m.config().id)) + " reports a record of " + std::to_string(d) +
                 (d == 1 ? " attribute" : " attributes") + ", and " + command +
                 " takes one attribute per report: use tinyldp " + (memo ? "joint" : "multi") +
                 " (plan, simulate, ingest, estimate)");
}

std::string value_text(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

void add_field_options(CLI::App& app, ValueSource& source, const std::string& what) {
  const std::map<std::string, Missing> missing{
      {"error", Missing::error}, {"skip", Missing::skip}, {"category", Missing::category}};
  app.add_option("--missing", source.missing,
                 "an empty " + what + "field: error (default, naming the row), skip (drop the row) or "
                 "category (the label \"\", with --labels)")
      ->transform(CLI::CheckedTransformer(missing))
      ->option_text("error|skip|category");
  app.add_option("--missing-as", source.missing_as,
                 "also treat this " + what + "field as missing, e.g. \"?\" (repeatable)");
  app.add_option("--delimiter", source.delimiter,
                 "the " + what + "CSV's field separator: one character, e.g. \";\" or \"|\", or tab (default \",\")")
      ->check([](const std::string& text) {
        try {
          parse_delimiter(text);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      });
  app.add_flag("--clamp", source.clamp,
               "numeric: move " + what + "values outside [--lo, --hi] to the nearer end (default: an error "
               "naming the row and value)");
}

}  // namespace tinyldp::tools
