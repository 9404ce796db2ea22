// SPDX-License-Identifier: Apache-2.0
// tinyldp joint: records of many attributes in one memoized report (record_rr.hpp) and the
// joint distribution of chosen attributes (collector/joint.hpp).
//   joint plan      ε₁ and ε∞ of a record for RAPPOR's f, p, q and the attributes' domains
//   joint simulate  a CSV of several columns → one record report per row (a record-counts file)
//   joint ingest    device reports (a report file from wrap, or framed reports) → record counts
//   joint merge     record-counts files of one schema → one
//   joint REPORTS   the joint of --attributes by em, map, lasso, lremh, pairs (and the baselines)
// See docs/joint.md.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "cli_common.hpp"
#include "counts_files.hpp"
#include "record_table.hpp"
#include "epsilon_text.hpp"
#include "fleet_keys.hpp"
#include "output.hpp"
#include "tinyldp/collector/joint.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::tools {
namespace {

using collector::RecordAttribute;
using collector::RecordCounts;
using collector::RecordSchema;

struct JointOptions {
  // plan
  std::vector<std::string> f_values = {"0.1", "0.5", "0.7", "0.9"};
  std::string domains;
  // simulate
  std::string input, output, columns = "all", bins, delimiter = ",";
  bool no_header = false;
  double sample = 1.0;
  std::string f = "0.5", p = "0.5", q = "0.75";
  std::optional<std::uint64_t> seed;
  std::optional<std::string> fleet_key;
  // merge
  std::vector<std::string> merge_inputs;
  // ingest (and simulate --framed)
  std::string framed, schema;
  // estimate
  std::string reports, attributes, estimator = "all", stop = "max-change", start = "marginals", format = "text",
              truth;
  std::string prior_strength = "cells", plot;
  double delta = -1, lambda = 1e-3, prune = 1e-12;
  bool no_accelerate = false;
  std::uint32_t max_iterations = 10000;
  unsigned threads = 2;
};

void print_budget(const collector::CollectorRecordRr& m) {
  std::cout << "record: " << m.attributes() << " attributes, " << m.record_bits() << " bits; epsilon one report "
            << eps_text(m.epsilon_one()) << ", epsilon infinity (every report of this record) "
            << eps_text(m.epsilon_infinity()) << "\n";
}

int run_plan(const JointOptions& o) {
  if (o.domains.empty()) throw BadInput("joint plan: --domains is required (e.g. 2x16)");
  const auto sizes = parse_domains(o.domains);
  const Dyadic p = parse_probability("--p", o.p), q = parse_probability("--q", o.q);
  std::cout << "record of " << sizes.size() << " attributes (" << o.domains << "), p = " << o.p << ", q = " << o.q
            << "\n"
            << std::left << std::setw(8) << "f" << std::setw(14) << "epsilon_one" << std::setw(18)
            << "epsilon_infinity" << "per attribute (one, infinity)\n";
  for (const auto& ft : o.f_values) {
    std::string error;
    std::vector<RecordAttribute> attrs;
    for (std::uint32_t s : sizes) attrs.push_back({"", s, {}});
    const auto schema = RecordSchema::make(attrs, parse_probability("--f", ft), p, q, error);
    if (!schema) throw BadInput("f = " + ft + ": " + error);
    const auto& m = schema->mechanism();
    std::cout << pad(ft, 8) << pad(eps_text(m.epsilon_one()), 14) << pad(eps_text(m.epsilon_infinity()), 18)
              << eps_text(m.attribute(0).epsilon_one()) << ", "
              << eps_text(m.attribute(0).epsilon_infinity()) << "\n";
  }
  return 0;
}

int run_simulate(const JointOptions& o) {
  if (o.input.empty() || o.output.empty()) throw BadInput("joint simulate: --input and --output are required");
  if (!(o.sample > 0 && o.sample <= 1)) throw BadInput("--sample must be in (0, 1]");
  const Table t = read_table(o.input, !o.no_header, parse_delimiter(o.delimiter));
  const Encoded e = encode(t, choose_columns(t, o.columns), parse_bins(o.bins));
  std::string error;
  auto schema = RecordSchema::make(e.attributes, parse_probability("--f", o.f), parse_probability("--p", o.p),
                                   parse_probability("--q", o.q), error);
  if (!schema) throw BadInput(error);
  // The sample: round(fraction · rows) rows without replacement.
  std::vector<std::size_t> rows(t.rows.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  std::mt19937_64 shuffle(o.seed ? *o.seed ^ 0x73616D706C65ull : std::random_device{}());
  std::shuffle(rows.begin(), rows.end(), shuffle);
  rows.resize(std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(o.sample * static_cast<double>(rows.size())))));
  RecordCounts counts(std::move(*schema));
  const auto& m = counts.schema().mechanism();
  const FleetKeys keys(o.fleet_key, o.seed);
  std::vector<std::uint8_t> report(m.report_bytes());
  FramedReportWriter framed(o.framed, m.description());
  auto privatize = [&](auto& source) {
    RandomBits<std::remove_reference_t<decltype(source)>> rng(source);
    for (std::size_t r : rows) {
      const Status s = m.privatize(e.values[r].data(), keys.device(static_cast<std::uint32_t>(r)), rng,
                                   report.data(), report.size());
      if (s != Status::ok) throw BadInput(std::string("row ") + std::to_string(r + 1) + ": " + to_string(s));
      counts.add(report);
      if (!framed.write(report.data()))
        throw BadInput("cannot frame the report of row " + std::to_string(r + 1));
    }
  };
  with_simulation_source(o.seed, privatize);
  if (!counts.save(o.output)) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  if (!o.framed.empty() && !framed.ok()) throw BadInput("cannot write " + o.framed + ": " + std::strerror(errno));
  std::cout << "wrote " << counts.reports() << " record reports (" << counts.patterns().size()
            << " distinct) of " << t.rows.size() << " rows to " << o.output << "\n";
  print_budget(m);
  return 0;
}

// Device reports of a record (wire id 22) — a report file or framed reports — into record counts.
int run_ingest(const JointOptions& o) {
  const auto counts = ingest_counts<RecordCounts>(o.framed, o.schema, o.output);
  std::cout << "counted " << counts.reports() << " record reports (" << counts.patterns().size()
            << " distinct) into " << o.output << "\n";
  print_budget(counts.schema().mechanism());
  return 0;
}

int run_merge(const JointOptions& o) {
  const auto all = merge_counts_files<RecordCounts>(o.merge_inputs, o.output);
  std::cout << "merged " << all.reports() << " record reports (" << all.patterns().size() << " distinct) into "
            << o.output << "\n";
  return 0;
}

// The true joint of the chosen attributes in a CSV, with the labels of the schema.
std::vector<double> truth_of(const std::string& path, bool header, char delimiter, const RecordSchema& s,
                             const std::vector<std::uint32_t>& chosen, const std::map<std::string, std::uint32_t>& bins) {
  const Table t = read_table(path, header, delimiter);
  std::vector<std::size_t> cols;
  for (std::uint32_t j : chosen) {
    const auto& name = s.attributes()[j].name;
    const auto it = std::find(t.names.begin(), t.names.end(), name);
    if (it == t.names.end()) throw BadInput("--truth: no column '" + name + "' in " + path);
    cols.push_back(static_cast<std::size_t>(it - t.names.begin()));
  }
  const Encoded e = encode(t, cols, bins);
  std::uint64_t cells = 1;
  for (std::uint32_t j : chosen) cells *= s.attributes()[j].size;
  std::vector<double> p(cells, 0.0);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::uint64_t c = 0;
    for (std::size_t a = 0; a < chosen.size(); ++a) {
      const auto& want = s.attributes()[chosen[a]];
      const auto& label = e.attributes[a].labels[e.values[r][a]];
      const auto at = std::find(want.labels.begin(), want.labels.end(), label);
      if (at == want.labels.end()) throw BadInput("--truth: value '" + label + "' of " + want.name + " is not in the reports' labels");
      c = c * want.size + static_cast<std::uint64_t>(at - want.labels.begin());
    }
    p[c] += 1;
  }
  for (double& x : p) x /= static_cast<double>(t.rows.size());
  return p;
}

int run_estimate(const JointOptions& o) {
  if (o.reports.empty()) throw BadInput("joint: a record-counts file, or plan / simulate / merge");
  std::string error;
  const auto counts = RecordCounts::load(o.reports, error);
  if (!counts) throw BadInput(error);
  const RecordSchema& s = counts->schema();
  if (o.attributes.empty()) throw BadInput("--attributes is required (names or numbers, e.g. a,b,c)");
  std::vector<std::uint32_t> chosen;
  for (const auto& name : split(o.attributes, ',')) {
    const auto j = s.find(name);
    if (!j) throw BadInput("--attributes: no attribute '" + name + "' in " + o.reports);
    chosen.push_back(*j);
  }
  const auto problem = collector::make_joint_problem(*counts, chosen, error);
  if (!problem) throw BadInput(error);
  collector::EmOptions em;
  if (o.stop == "largest-cell")
    em.stop = collector::StopRule::largest_cell, em.tolerance = 0.001;
  else if (o.stop == "max-change")
    em.stop = collector::StopRule::max_change, em.tolerance = 1e-4;
  else
    throw BadInput("--stop: '" + o.stop + "' is not max-change or largest-cell");
  if (o.delta >= 0) em.tolerance = o.delta;
  if (o.start == "uniform")
    em.start = collector::EmStart::uniform;
  else if (o.start != "marginals")
    throw BadInput("--start: '" + o.start + "' is not marginals or uniform");
  if (!(o.prune >= 0 && o.prune < 1)) throw BadInput("--prune must be in [0, 1)");
  em.prune_below = o.prune;
  em.accelerate = !o.no_accelerate;
  em.max_iterations = o.max_iterations;
  em.threads = o.threads;
  std::vector<std::string> names = {"em", "map", "lasso", "lremh", "pairs"};
  if (o.estimator != "all") {
    if (std::find(names.begin(), names.end(), o.estimator) == names.end())
      throw BadInput("--estimator: '" + o.estimator + "' is not em, map, lasso, lremh, pairs or all");
    names = {o.estimator};
  }
  // map has one optimum (its objective is strictly concave): it runs to it unless told otherwise.
  std::optional<double> alpha;
  if (o.prior_strength != "cells") {
    const std::string& t = o.prior_strength;
    double a = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), a);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || !(a > 0) || !std::isfinite(a))
      throw BadInput("--prior-strength: '" + t + "' is not a positive number of reports or 'cells'");
    alpha = a;
  }
  const collector::EmOptions map =
      collector::map_options(*problem, em, alpha, o.delta < 0 ? std::nullopt : std::optional<double>(o.delta));
  std::optional<std::vector<double>> truth;
  if (!o.truth.empty()) truth = truth_of(o.truth, !o.no_header, parse_delimiter(o.delimiter), s, chosen, parse_bins(o.bins));
  struct Row {
    std::string name;
    collector::JointEstimate e;
    double seconds = 0;
  };
  std::vector<Row> rows;
  for (const auto& n : names) {
    const auto t0 = std::chrono::steady_clock::now();
    collector::JointEstimate e = n == "em"      ? collector::estimate_em(*problem, em)
                                 : n == "map"   ? collector::estimate_em(*problem, map)
                                 : n == "lasso" ? collector::estimate_lasso(*problem, o.lambda)
                                 : n == "lremh" ? collector::estimate_lremh(*problem, o.lambda, em)
                                                : collector::estimate_cooccurrence(*problem);
    rows.push_back({n, std::move(e), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }
  auto baseline = [](std::vector<double> p) {
    collector::JointEstimate e;
    e.p = std::move(p);
    return e;
  };
  rows.push_back({"uniform", baseline(collector::uniform_joint(*problem)), 0});
  rows.push_back({"marginals", baseline(collector::product_of_marginals(*problem)), 0});
  const auto& m = s.mechanism();
  std::vector<std::string> chosen_names;
  for (std::uint32_t j : chosen) chosen_names.push_back(s.attributes()[j].name);
  // Cell labels: the chosen attributes' labels joined by "|".
  auto cell_label = [&](std::uint64_t c) {
    std::vector<std::string> parts(chosen.size());
    for (std::size_t a = chosen.size(); a-- > 0;) {
      const auto& attr = s.attributes()[chosen[a]];
      const std::uint32_t v = static_cast<std::uint32_t>(c % attr.size);
      c /= attr.size;
      parts[a] = attr.labels.empty() ? std::to_string(v) : attr.labels[v];
    }
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "|" : "") + parts[i];
    return out;
  };
  if (!o.plot.empty()) {
    // The chosen estimator (em when all): its cells as bars, the truth and the marginals' product
    // beside them; the chart_max_bars cells largest in the estimate or the truth, in cell order.
    const auto& shown = rows.front();
    const auto& product = rows.back().e.p;
    std::vector<std::uint64_t> cells(problem->cells());
    std::iota(cells.begin(), cells.end(), std::uint64_t{0});
    auto weight = [&](std::uint64_t c) { return std::max(shown.e.p[c], truth ? (*truth)[c] : 0.0); };
    const bool cut = cells.size() > chart_max_bars;
    if (cut) {
      std::stable_sort(cells.begin(), cells.end(), [&](auto a, auto b) { return weight(a) > weight(b); });
      cells.resize(chart_max_bars);
      std::sort(cells.begin(), cells.end());
    }
    Plot p;
    std::string names;
    for (std::size_t i = 0; i < chosen_names.size(); ++i) names += (i ? ", " : "") + chosen_names[i];
    std::ostringstream avd;
    if (truth) avd << ", AVD " << std::setprecision(3) << collector::average_variation_distance(shown.e.p, *truth);
    p.title = {"joint of " + names + " by " + shown.name + avd.str(),
               std::to_string(counts->reports()) + " reports; the record's ε₁ " + eps_text(m.epsilon_one()) +
                   ", ε∞ " + eps_text(m.epsilon_infinity())};
    p.x_name = "cell (" + names + ")";
    p.y_name = "probability";
    p.y_min = 0;
    p.y_max = 1;
    for (std::uint64_t c : cells)
      p.bars.push_back({cell_label(c), shown.e.p[c], std::nullopt, std::nullopt,
                        truth ? std::optional<double>((*truth)[c]) : std::nullopt, product[c]});
    p.legend = {shown.name + " estimate", "true probability"};
    if (!truth) p.legend.pop_back();
    p.unbiased_legend = "product of the marginals (baseline)";
    p.unbiased_name = "marginals";
    if (cut)
      p.legend.push_back("the " + std::to_string(cells.size()) + " of " + std::to_string(problem->cells()) +
                         " cells largest in the estimate" + (truth ? " or the truth" : ""));
    write_svg(o.plot, p);
  }
  if (o.format == "json") {
    Json j;
    j["reports"] = counts->reports();
    j["patterns"] = problem->patterns();
    j["attributes"] = chosen_names;
    j["epsilon_one"] = as_double(m.epsilon_one());
    j["epsilon_infinity"] = as_double(m.epsilon_infinity());
    for (const auto& r : rows) {
      Json e;
      e["seconds"] = r.seconds;
      e["iterations"] = r.e.iterations;
      e["converged"] = r.e.converged;
      e["alive"] = r.e.alive;
      e["memory_bytes"] = r.e.memory_bytes;
      if (truth) e["avd"] = collector::average_variation_distance(r.e.p, *truth);
      e["estimate"] = r.e.p;
      j["estimators"][r.name] = e;
    }
    if (truth) j["true_value"] = *truth;
    std::vector<std::string> labels;
    for (std::uint64_t c = 0; c < problem->cells(); ++c) labels.push_back(cell_label(c));
    j["cells"] = labels;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (o.format != "text") throw BadInput("--format: '" + o.format + "' is not text or json");
  print_budget(m);
  std::cout << "joint of ";
  for (std::size_t i = 0; i < chosen_names.size(); ++i) std::cout << (i ? ", " : "") << chosen_names[i];
  std::cout << ": " << problem->cells() << " cells, " << counts->reports() << " reports in " << problem->patterns()
            << " distinct patterns\n\n"
            << std::left << std::setw(11) << "estimator" << std::setw(10) << "AVD" << std::setw(11) << "seconds"
            << std::setw(11) << "iterations" << std::setw(9) << "alive" << "memory\n";
  for (const auto& r : rows) {
    std::ostringstream avd;
    if (truth) avd << std::fixed << std::setprecision(4) << collector::average_variation_distance(r.e.p, *truth);
    std::cout << std::setw(11) << r.name << std::setw(10) << (truth ? avd.str() : "-") << std::setw(11)
              << std::setprecision(4) << r.seconds << std::setw(11)
              << (r.e.iterations ? std::to_string(r.e.iterations) + (r.e.converged ? "" : "!") : "-") << std::setw(9)
              << (r.e.alive ? std::to_string(r.e.alive) : "-")
              << (r.e.memory_bytes ? std::to_string(r.e.memory_bytes / 1024) + " KiB" : "-") << "\n";
  }
  if (rows.size() == 3 || problem->cells() <= 64) {
    std::cout << "\n" << std::setw(28) << "cell";
    for (const auto& r : rows) std::cout << std::setw(10) << r.name;
    if (truth) std::cout << "truth";
    std::cout << "\n";
    for (std::uint64_t c = 0; c < problem->cells() && c < 64; ++c) {
      std::cout << std::setw(28) << cell_label(c).substr(0, 27) << std::fixed << std::setprecision(4);
      for (const auto& r : rows) std::cout << std::setw(10) << r.e.p[c];
      if (truth) std::cout << (*truth)[c];
      std::cout << std::defaultfloat << "\n";
    }
  }
  return 0;
}

}  // namespace

Subcommand add_joint(CLI::App& app) {
  auto o = std::make_shared<JointOptions>();
  auto* j = app.add_subcommand("joint", "records of several attributes: plan, simulate, merge, estimate joints");
  // Its own examples (its subcommands, added below, inherit them).
  j->footer(
      "Examples:\n"
      "  tinyldp joint plan --domains 2x16 --f 0.1 0.5 0.7 0.9\n"
      "  tinyldp joint simulate -i nltcs.csv --no-header --sample 0.2 --f 0.5 -o n.tldpj\n"
      "  tinyldp joint n.tldpj --attributes 0,1,2 --truth nltcs.csv --no-header\n"
      "  tinyldp joint n.tldpj -a 0,1,2,3 --estimator em --stop largest-cell --start uniform\n"
      "  tinyldp joint n.tldpj -a 0,1,2 -E map --truth nltcs.csv --no-header --plot joint.svg\n"
      "  tinyldp joint merge a.tldpj b.tldpj -o c.tldpj\n"
      "  tinyldp wrap uart.bin -m record --domains 2x16 --f 0.5 --p 0.5 --q 0.75 -o r.tldp\n"
      "  tinyldp joint ingest r.tldp -o n.tldpj\n"
      "Full manual: docs/joint.md");
  j->add_option("reports", o->reports, "record-counts file (from joint simulate or merge) to estimate from");
  j->add_option("--attributes,-a", o->attributes, "the chosen attributes: names or numbers, comma-separated");
  j->add_option("--estimator,-E", o->estimator, "em, map, lasso, lremh, pairs or all (default)");
  j->add_option("--prior-strength", o->prior_strength,
                "map's prior in reports: a positive number, or cells (default: one report per cell), spread by "
                "the product of the marginals");
  j->add_option("--stop", o->stop, "EM's stopping rule: max-change (default: max |ΔP| ≤ delta, default 1e-4) or "
                                   "largest-cell (the paper's: |Δ max P| ≤ delta, default 0.001)");
  j->add_option("--delta", o->delta, "EM's tolerance for --stop (map's default: 1e-8, to its optimum)");
  j->add_option("--max-iterations", o->max_iterations, "EM's cap on EM steps (default 10000)");
  j->add_option("--start", o->start, "EM's start: marginals (default: the product of the debiased marginals) or "
                                     "uniform");
  j->add_flag("--no-accelerate", o->no_accelerate, "plain EM steps (no SQUAREM extrapolation)");
  j->add_option("--prune", o->prune, "EM drops cells whose probability falls below this (default 1e-12; 0: never)");
  j->add_option("--lambda", o->lambda, "LASSO's L1 weight (default 0.001; frequencies are in [0, 1])");
  j->add_option("--threads", o->threads, "EM's threads (default 2)");
  j->add_option("--truth", o->truth, "CSV with the true records: AVD of every estimator against it");
  add_truth_csv_options(*j, o->no_header, o->delimiter, o->bins);
  j->add_option("--format,-f", o->format, "text (default) or json");
  j->add_option("--plot", o->plot, "write an SVG chart of the estimate (em with --estimator all), the truth and "
                                   "the marginals' product; the 30 largest cells of a larger joint");

  auto* plan = j->add_subcommand("plan", "ε₁ and ε∞ of a record for RAPPOR's f, p, q");
  plan->add_option("--domains", o->domains, "the attributes' domain sizes: 2x16, or 3,5,2")->required();
  plan->add_option("--f", o->f_values, "PRR flip probabilities (default 0.1 0.5 0.7 0.9)")->expected(1, 64);
  plan->add_option("--p", o->p, "IRR P(1 | memo bit 0) (default 0.5)");
  plan->add_option("--q", o->q, "IRR P(1 | memo bit 1) (default 0.75)");

  auto* sim = j->add_subcommand("simulate", "privatize every row of a CSV as one record report");
  sim->add_option("--input,-i", o->input, "CSV file (one record per row)")->required();
  sim->add_option("--output,-o", o->output, "record-counts file to write")->required();
  add_record_csv_options(*sim, o->columns, o->no_header, o->delimiter, o->bins);
  sim->add_option("--sample", o->sample, "fraction of the rows that report (without replacement; default 1)");
  sim->add_option("--f", o->f, "PRR flip probability (default 0.5)");
  sim->add_option("--p", o->p, "IRR P(1 | memo bit 0) (default 0.5)");
  sim->add_option("--q", o->q, "IRR P(1 | memo bit 1) (default 0.75)");
  sim->add_option("--seed", o->seed, "deterministic simulation (NOT private): sample, keys and noise from the seed");
  sim->add_option("--fleet-key", o->fleet_key, "32-byte file of the fleet's master memo key (created if missing)");
  sim->add_option("--framed", o->framed, "also write the device reports, framed with the wire header, to this file");

  const auto [ingest, merge] =
      add_ingest_and_merge(*j, "count device record reports (wire id 22): a report file or framed reports",
                           "record-counts file", "record", o->framed, o->schema, o->output, o->merge_inputs);

  return {j, run_chosen<JointOptions, 4>(o, {plan, sim, ingest, merge},
                                          {run_plan, run_simulate, run_ingest, run_merge}, run_estimate)};
}

}  // namespace tinyldp::tools
