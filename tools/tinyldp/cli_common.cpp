// SPDX-License-Identifier: Apache-2.0
#include "cli_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string_view>

#include "epsilon_text.hpp"
#include "tinyldp/collector/configure.hpp"
#include "tinyldp/collector/shuffle_amplification.hpp"
#include "record_table.hpp"

namespace tinyldp::tools {

namespace {
// RAPPOR and the record's memoized RR are configured by RAPPOR's f, p, q, not by an epsilon.
bool set_by_f_p_q(wire::MechanismId id) { return collector::find_mechanism(id)->traits.by_f_p_q; }
}  // namespace

using collector::Mechanism;
using collector::MechanismConfig;
using collector::MechanismKind;

double as_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

void add_mechanism_options(CLI::App& app, MechanismOptions& o, const std::string& domain_help) {
  using collector::ParameterId;
  // The option's name and help text from the table of parameters (collector/parameters.hpp).
  const auto add = [&](ParameterId id, auto& field) {
    return app.add_option("--" + std::string(collector::parameter(id).option), field, collector::help_text(id));
  };
  app.add_option("--mechanism,-m", o.mechanism, collector::mechanism_names())->required();
  app.add_option("--epsilon,-e", o.epsilon, collector::help_text(ParameterId::epsilon));
  add(ParameterId::epsilon_one, o.epsilon_one);
  add(ParameterId::f, o.f);
  add(ParameterId::p, o.p);
  add(ParameterId::q, o.q);
  app.add_option("--domain,-d", o.domain, domain_help);
  add(ParameterId::attributes, o.domains);
  add(ParameterId::lo, o.lo);
  add(ParameterId::hi, o.hi);
  add(ParameterId::levels, o.levels);
  add(ParameterId::sensitivity, o.sensitivity);
  add(ParameterId::grid_step, o.grid_step)->check(CLI::Range(1u, 1u << 30));
  add(ParameterId::sampled_buckets, o.sampled_buckets)->check(CLI::Range(1u, 16u));
  add(ParameterId::branching, o.branching);
  add(ParameterId::bloom_bits, o.bloom_bits);
  add(ParameterId::hashes, o.hashes);
  add(ParameterId::cohorts, o.cohorts);
  add(ParameterId::precision_tolerance, o.epsilon_tolerance);
  add(ParameterId::precision_bits, o.precision_bits);
}

Mechanism configure(const MechanismOptions& o, Epsilon epsilon,
                    std::optional<std::uint32_t> default_domain) {
  using collector::ParameterId;
  collector::ParameterValues given;
  given.mechanism = o.mechanism;
  given.epsilon = epsilon;
  given.epsilon_one = o.epsilon_one;
  given.f = o.f;
  given.p = o.p;
  given.q = o.q;
  given.epsilon_tolerance = o.epsilon_tolerance;
  if (o.domains) given.attribute_sizes = parse_domains(*o.domains);
  const auto integer = [&](ParameterId id, const auto& option) {
    if (option) given[id] = *option;
  };
  integer(ParameterId::domain, o.domain);
  integer(ParameterId::lo, o.lo);
  integer(ParameterId::hi, o.hi);
  integer(ParameterId::levels, o.levels);
  integer(ParameterId::sensitivity, o.sensitivity);
  integer(ParameterId::grid_step, o.grid_step);
  integer(ParameterId::sampled_buckets, o.sampled_buckets);
  integer(ParameterId::branching, o.branching);
  integer(ParameterId::bloom_bits, o.bloom_bits);
  integer(ParameterId::hashes, o.hashes);
  integer(ParameterId::cohorts, o.cohorts);
  integer(ParameterId::precision_bits, o.precision_bits);
  auto configured = collector::configure_mechanism(given, collector::FrontEnd::cli, default_domain);
  if (auto* reason = std::get_if<std::string>(&configured)) throw BadInput(*reason);
  return std::move(std::get<Mechanism>(configured));
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
  const Precision precision = m.config().precision;
  if (precision.tolerance_q32 != Precision{}.tolerance_q32) {
    std::ostringstream tolerance;  // as the user wrote it, near enough: 1e-3 is 0.001, not 0.000999…
    tolerance.precision(4);
    tolerance << as_double(Epsilon{precision.tolerance_q32});
    out += ", epsilon-tolerance " + tolerance.str();
  }
  if (precision.max_bits != Precision{}.max_bits) out += ", precision-bits " + std::to_string(unsigned{precision.max_bits});
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

void add_record_csv_options(CLI::App& app, std::string& columns, bool& no_header, std::string& delimiter,
                            std::string& bins) {
  app.add_option("--columns,-c", columns, "columns to use, comma-separated (default all)");
  app.add_flag("--no-header", no_header, "the CSV has no header line (columns are named 0, 1, …)");
  app.add_option("--delimiter", delimiter, "the CSV's field separator: one character, or tab (default \",\")");
  app.add_option("--bins", bins, "COLUMN=B,…: numeric columns cut into B equal-width bins");
}

void add_truth_csv_options(CLI::App& app, bool& no_header, std::string& delimiter, std::string& bins) {
  app.add_flag("--no-header", no_header, "the CSVs have no header line (columns are named 0, 1, …)");
  app.add_option("--delimiter", delimiter, "the CSVs' field separator: one character, or tab (default \",\")");
  app.add_option("--bins", bins, "COLUMN=B,…: numeric columns cut into B equal-width bins (as simulate did)");
}

IngestAndMerge add_ingest_and_merge(CLI::App& app, const std::string& ingest_help, const std::string& file,
                                    const std::string& same, std::string& reports, std::string& schema,
                                    std::string& output, std::vector<std::string>& inputs) {
  auto* ingest = app.add_subcommand("ingest", ingest_help);
  ingest->add_option("reports", reports, "report file (from tinyldp wrap), or framed wire reports back to back")
      ->required();
  ingest->add_option("--schema", schema,
                     file + " of the same " + same +
                         " (its counts unused; its names and labels kept); needed for framed reports, else the "
                         "report file's header (attributes 0, 1, …)");
  ingest->add_option("--output,-o", output, file + " to write")->required();

  auto* merge = app.add_subcommand("merge", "merge " + file + "s of one schema");
  merge->add_option("inputs", inputs, file + "s")->required();
  merge->add_option("--output,-o", output, "merged file to write")->required();
  return {ingest, merge};
}

void add_delta_option(CLI::App& app, double& delta) {
  app.add_option("--delta", delta,
                 "delta of the shuffled batch's central (epsilon, delta) against the analyst (default 1e-6)")
      ->check([](const std::string& text) -> std::string {
        char* end = nullptr;
        const double d = std::strtod(text.c_str(), &end);
        return end == text.c_str() + text.size() && d > 0 && d < 1 ? "" : "--delta must lie in (0, 1)";
      });
}

Json shuffled_batch_json(double epsilon0, std::uint64_t n, double delta, bool memoized) {
  collector::ShuffledEpsilon s;
  try {
    s = collector::shuffled_epsilon(epsilon0, n, delta);
  } catch (const std::invalid_argument& e) {
    throw BadInput(std::string("shuffled batch: ") + e.what());
  }
  Json j;
  j["epsilon0"] = epsilon0;
  j["epsilon0_is"] = memoized ? "epsilon one: one report per device, one epoch" : "realized epsilon of one report";
  j["n"] = n;
  j["delta"] = delta;
  j["numerical_lower"] = s.numerical ? Json(s.numerical->lower) : Json(nullptr);
  j["numerical_upper"] = s.numerical ? Json(s.numerical->upper) : Json(nullptr);
  j["closed_form"] = s.closed_form ? Json(*s.closed_form) : Json(nullptr);
  j["protects"] = "(epsilon, delta) against the analyst who sees only the shuffled batch; the gate and the "
                  "network, which see each report with its sender: epsilon0";
  // A file's reports are not a shuffled batch by being counted: the figure is what a shuffler
  // buys, so say what it assumes.
  j["holds_if"] = "the reports came through a shuffler (tinyldp gate) that admitted one per device and released "
                  "them without identities, and the analyst does not see the gate's records";
  // FMT21's δ is a probability of failure for the whole batch: at δ ≥ 1/n it allows one report's exposure.
  j["delta_too_large"] = delta * static_cast<double>(n) >= 1.0;
  return j;
}

void print_shuffled_batch(std::ostream& out, const Json& j, const std::string& prefix) {
  char line[256];
  out << prefix << "shuffled batch of " << j["n"].get<std::uint64_t>() << " reports, epsilon0 "
      << j["epsilon0"].get<double>() << " (" << j["epsilon0_is"].get<std::string>() << "), delta "
      << j["delta"].get<double>() << ":\n";
  if (j["numerical_upper"].is_null())
    out << prefix << "  numerical (FMT21)    not computed above n = 10^10\n";
  else {
    std::snprintf(line, sizeof line, "  numerical (FMT21)    epsilon %.6f  (bracket %.6f … %.6f)\n",
                  j["numerical_upper"].get<double>(), j["numerical_lower"].get<double>(),
                  j["numerical_upper"].get<double>());
    out << prefix << line;
  }
  if (j["closed_form"].is_null())
    out << prefix << "  closed form (FMT21)  not applicable (epsilon0 > ln(n / (16 ln(4/delta))))\n";
  else {
    std::snprintf(line, sizeof line, "  closed form (FMT21)  epsilon %.6f\n", j["closed_form"].get<double>());
    out << prefix << line;
  }
  out << prefix << "  against the analyst who sees only the shuffled batch; the gate and the network, which see "
                   "each report with its sender, still face epsilon0\n";
  out << prefix << "  holds only if " << j["holds_if"].get<std::string>() << "\n";
  if (j["delta_too_large"].get<bool>())
    out << prefix << "  WARNING: delta is not below 1/n: choose --delta well below 1/" << j["n"].get<std::uint64_t>()
        << "\n";
}

std::pair<std::uint32_t, std::uint32_t> device_range(const std::string& option, const std::string& text) {
  const auto dash = text.find('-');
  try {
    std::size_t used = 0;
    const unsigned long first = std::stoul(text.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? text.size() : dash)) throw std::invalid_argument("");
    unsigned long last = first;
    if (dash != std::string::npos) {
      last = std::stoul(text.substr(dash + 1), &used);
      if (used != text.size() - dash - 1) throw std::invalid_argument("");
    }
    if (first > UINT32_MAX || last > UINT32_MAX || last < first) throw std::out_of_range("");
    return {static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last)};
  } catch (const std::logic_error&) {
    throw BadInput(option + " " + text + ": not a device id or a range FIRST-LAST of ids below 2^32");
  }
}

}  // namespace tinyldp::tools
