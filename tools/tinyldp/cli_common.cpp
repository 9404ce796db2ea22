// SPDX-License-Identifier: Apache-2.0
#include "cli_common.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

#include "epsilon_text.hpp"

namespace tinyldp::tools {

using collector::Mechanism;
using collector::MechanismConfig;
using collector::MechanismKind;

double as_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

void add_mechanism_options(CLI::App& app, MechanismOptions& o, const std::string& domain_help) {
  const std::string numeric = collector::mechanism_names(MechanismKind::numeric);
  app.add_option("--mechanism,-m", o.mechanism, collector::mechanism_names())->required();
  app.add_option("--epsilon,-e", o.epsilon, "privacy budget per report, a decimal like 0.5")->required();
  app.add_option("--domain,-d", o.domain, domain_help);
  app.add_option("--lo", o.lo, numeric + ": smallest value (an integer)");
  app.add_option("--hi", o.hi, numeric + ": largest value (an integer)");
  app.add_option("--levels", o.levels, "sd: number of levels L, 2 … 256 (default 2)");
  app.add_option("--sensitivity", o.sensitivity,
                 "dlaplace: protect inputs this far apart (default hi − lo: local DP)");
}

Mechanism configure(const MechanismOptions& o, Epsilon epsilon,
                    std::optional<std::uint32_t> default_domain) {
  const auto* row = collector::find_mechanism(o.mechanism);
  if (row == nullptr)
    throw BadInput("unknown mechanism \"" + o.mechanism + "\" (known: " + collector::mechanism_names() + ")");
  MechanismConfig c;
  c.id = row->id;
  c.epsilon = epsilon;
  const bool numeric = row->kind == MechanismKind::numeric;
  c.domain = o.domain.value_or(numeric ? 0 : default_domain.value_or(0));
  c.lo = o.lo.value_or(0);
  c.hi = o.hi.value_or(0);
  c.levels = o.levels.value_or(0);
  c.sensitivity = o.sensitivity.value_or(0);
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
  const std::pair<const char*, bool> given[] = {{"domain", o.domain.has_value()}, {"lo", o.lo.has_value()},
                                                {"hi", o.hi.has_value()}, {"levels", o.levels.has_value()},
                                                {"sensitivity", o.sensitivity.has_value()}};
  for (const auto& [name, is_given] : given) {
    if (!is_given || takes(name)) continue;
    std::string taken;
    for (const auto& p : params) taken += (taken.empty() ? "" : ", ") + std::string(p.name);
    throw BadInput("--" + std::string(name) + " is not a parameter of " + o.mechanism + " (it takes " + taken + ")");
  }
  return m;
}

std::string describe(const Mechanism& m) {
  std::string out = std::string(collector::name_of(m.config().id)) + ", epsilon " + to_decimal(m.config().epsilon);
  const auto params = m.parameters();
  std::size_t i = 0;
  if (m.numeric()) {  // lo and hi first, as a range
    out += ", range [" + std::to_string(params[0].value) + ", " + std::to_string(params[1].value) + "]";
    i = 2;
  }
  for (; i < params.size(); ++i) out += ", " + std::string(params[i].name) + " " + std::to_string(params[i].value);
  return out;
}

std::string value_text(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

PrivateValues read_private_values(const ValueSource& source, const Mechanism& m,
                                  const std::vector<std::string>* known_labels) {
  PrivateValues out;
  if (m.numeric()) {
    if (source.labels) throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reads integers");
    for (std::int32_t v : read_numbers(source, m.config().lo, m.config().hi)) out.values.push_back(v);
    return out;
  }
  Values v = read_values(source, m.domain(), known_labels);
  out.values.assign(v.values.begin(), v.values.end());
  out.labels = std::move(v.labels);
  return out;
}

bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

void progress(const char* what, std::uint64_t done, std::uint64_t total) {
  if (!stderr_is_terminal() || (done % 65536 != 0 && done != total)) return;
  std::fprintf(stderr, "\r%s %llu/%llu", what, static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total));
  if (done == total) std::fprintf(stderr, "\n");
}

}  // namespace tinyldp::tools
