// SPDX-License-Identifier: Apache-2.0
// tinyldp multi: records of several attributes without memo, one-way marginals wanted — SPL,
// SMP and RS+FD over GRR or OUE (multi_attribute.hpp, collector/multi_attribute_counts.hpp).
//   multi plan      ε per report (any two records), RS+FD's ε' and one-attribute ε, per protocol
//   multi simulate  a CSV of several columns → one report per row (a counts file; --framed
//                   also writes the device reports, framed with the wire header)
//   multi ingest    device reports (a report file from wrap, or framed reports) → a counts file
//                   (the schema from a counts file, or a report file's header)
//   multi merge     counts files of one schema → one
//   multi COUNTS    every attribute's estimated marginal with intervals, in aggregate's columns
//                   (text, JSON or CSV; MSE against --truth)
// See docs/multi-attribute.md.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli_common.hpp"
#include "epsilon_text.hpp"
#include "fleet_keys.hpp"
#include "output.hpp"
#include "counts_files.hpp"
#include "record_table.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::tools {
namespace {

using collector::MultiAttributeCounts;
using collector::MultiAttributeSchema;
using wire::MechanismId;

struct MultiOptions {
  std::string protocol = "all", domains, epsilons = "0.5,1,5", epsilon = "1";
  std::string input, output, columns = "all", bins, framed, schema, format = "text", truth, counts, delimiter = ",";
  std::vector<std::string> inputs;
  bool no_header = false;
  double confidence = 0.95;
  std::optional<std::uint64_t> seed;
};


void check_confidence(const MultiOptions& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) throw BadInput("--confidence must be in (0, 1)");
}

std::vector<MechanismId> protocols_of(const std::string& spec) {
  std::vector<MechanismId> out;
  if (spec == "all") {
    for (const auto& name : split(collector::multi_attribute_names(), ','))
      out.push_back(*collector::multi_attribute_protocol(name));
    return out;
  }
  for (const auto& name : split(spec, ',')) {
    const auto id = collector::multi_attribute_protocol(name);
    if (!id) throw BadInput("--protocol: '" + name + "' is not one of " + collector::multi_attribute_names());
    out.push_back(*id);
  }
  return out;
}

MultiAttributeSchema make_schema(MechanismId id, const std::string& epsilon,
                                 std::vector<collector::RecordAttribute> attributes) {
  std::string error;
  auto s = MultiAttributeSchema::make(id, collector::parse_epsilon(epsilon), std::move(attributes), error);
  if (!s) throw BadInput(error);
  return std::move(*s);
}

// What one report costs: ε between any two records; for RS+FD also ε' and the paper's figure.
void print_budget(const MultiAttributeSchema& s) {
  std::cout << s.name() << ": " << s.attribute_count() << " attributes, " << s.payload_bytes()
            << "-byte payload; epsilon per report (any two records) " << eps_text(s.epsilon_per_report());
  if (s.epsilon_one_attribute())
    std::cout << " (amplified epsilon' " << eps_text(*s.amplified_epsilon())
              << "; records differing in one attribute " << eps_text(*s.epsilon_one_attribute()) << ")";
  std::cout << "; no memo: n reports of one record cost n x " << eps_text(s.epsilon_per_report()) << "\n";
}

int run_plan(const MultiOptions& o) {
  if (o.domains.empty()) throw BadInput("multi plan: --domains is required (e.g. 2x16 or 9,16,7)");
  std::vector<collector::RecordAttribute> attrs;
  for (std::uint32_t k : parse_domains(o.domains)) attrs.push_back({"", k, {}});
  std::cout << "record of " << attrs.size() << " attributes (" << o.domains
            << "); no protocol here keeps a memo: every report spends its epsilon again\n"
            << pad("protocol", 12) << pad("epsilon", 9) << pad("per report", 14) << pad("one attribute", 15)
            << pad("epsilon'", 12) << pad("per attribute", 15) << "payload bytes\n";
  for (const auto& e : split(o.epsilons, ','))
    for (MechanismId id : protocols_of(o.protocol)) {
      const auto s = make_schema(id, e, attrs);
      std::cout << pad(s.name(), 12) << pad(e, 9) << pad(eps_text(s.epsilon_per_report()), 14)
                << pad(s.epsilon_one_attribute() ? eps_text(*s.epsilon_one_attribute()) : "-", 15)
                << pad(s.amplified_epsilon() ? eps_text(*s.amplified_epsilon()) : "-", 12)
                << pad(eps_text(s.slot_epsilon(0)), 15) << s.payload_bytes() << "\n";
    }
  std::cout << "per report: the local-DP loss between any two records (what a device spends per report);\n"
               "one attribute: RS+FD's loss between records that differ in one attribute (the paper's epsilon);\n"
               "per attribute: attribute 0's oracle (spl: epsilon/d, smp: epsilon, rsfd: epsilon').\n";
  return 0;
}

// Attribute a's marginal as aggregate's table (output.hpp): the same columns and names.
EstimateTable marginal_table(const MultiAttributeCounts& counts, std::uint32_t a, double confidence,
                             const std::optional<std::vector<std::vector<double>>>& truth) {
  const auto& attr = counts.schema().attributes()[a];
  EstimateTable t;
  t.column = attr.name;
  t.items = counts.estimate_items(a, confidence);
  for (std::size_t v = 0; v < t.items.size(); ++v) {
    t.item_text.push_back(attr.labels.empty() ? std::to_string(v) : attr.labels[v]);
    t.item_key.push_back(Json(t.item_text.back()));  // a string, as aggregate's categorical items
  }
  if (truth) t.truth = (*truth)[a];
  return t;
}

// Every attribute's table; BadInput for counts of no report.
std::vector<EstimateTable> marginal_tables(const MultiAttributeCounts& counts, double confidence,
                                           const std::optional<std::vector<std::vector<double>>>& truth) {
  if (counts.reports() == 0) throw BadInput("the counts hold no reports: nothing to estimate from");
  std::vector<EstimateTable> tables;
  for (std::uint32_t a = 0; a < counts.schema().attribute_count(); ++a)
    tables.push_back(marginal_table(counts, a, confidence, truth));
  return tables;
}

void print_estimates(const MultiAttributeCounts& counts, const std::vector<EstimateTable>& tables,
                     const MultiOptions& o, const std::optional<std::vector<std::vector<double>>>& truth,
                     Json* timing) {
  const auto& s = counts.schema();
  double squared = 0;
  std::size_t cells = 0;
  for (std::uint32_t a = 0; a < s.attribute_count(); ++a) {
    if (truth && counts.carried(a) > 0)
      for (std::size_t v = 0; v < tables[a].items.size(); ++v, ++cells)
        squared += std::pow(tables[a].items[v].frequency - (*truth)[a][v], 2);
  }
  const double mse = cells ? squared / static_cast<double>(cells) : 0.0;
  if (o.format == "csv") {
    std::vector<KeyedTable> keyed;
    for (const auto& t : tables) keyed.push_back({t.column, &t});
    write_csv(std::cout, "attribute", keyed);
    return;
  }
  if (o.format == "json") {
    Json j;
    j["protocol"] = s.name();
    j["reports"] = counts.reports();
    j["confidence"] = o.confidence;
    j["epsilon_per_report"] = as_double(s.epsilon_per_report());
    if (s.epsilon_one_attribute()) {
      j["epsilon_one_attribute"] = as_double(*s.epsilon_one_attribute());
      j["epsilon_amplified"] = as_double(*s.amplified_epsilon());
    }
    if (timing) j["seconds"] = *timing;
    j["attributes"] = Json::array();
    for (std::uint32_t a = 0; a < s.attribute_count(); ++a) {
      Json m = {{"name", tables[a].column}, {"reports", counts.carried(a)}};
      add_estimates(m, tables[a]);
      j["attributes"].push_back(m);
    }
    if (truth) j["mse"] = mse;
    std::cout << j.dump(2) << "\n";
    return;
  }
  print_budget(s);
  std::ostringstream level;
  level.precision(4);
  level << o.confidence * 100;
  for (std::uint32_t a = 0; a < s.attribute_count(); ++a) {
    const auto& t = tables[a];
    std::cout << "\n" << t.column << " (" << counts.carried(a) << " reports; estimate, " << level.str()
              << " % interval" << (truth ? ", truth" : "") << ")\n";
    if (counts.carried(a) == 0) {  // SMP: no report sampled it
      std::cout << "  no report carries this attribute: nothing to estimate\n";
      continue;
    }
    for (std::size_t v = 0; v < t.items.size(); ++v) {
      const auto& e = t.items[v];
      std::cout << "  " << std::left << std::setw(24) << t.item_text[v] << std::right << std::fixed
                << std::setprecision(4) << std::setw(9) << e.frequency << "  [" << std::setw(7) << e.ci_low << ", "
                << std::setw(7) << e.ci_high << "]";
      if (truth) std::cout << "   truth " << (*truth)[a][v];
      std::cout << std::defaultfloat << "\n";
    }
  }
  if (truth) std::cout << "\nMSE of the one-way marginals against the truth: " << mse << " over " << cells << " values\n";
}

std::vector<std::vector<double>> truth_of(const Encoded& e) {
  std::vector<std::vector<double>> t;
  for (const auto& a : e.attributes) t.emplace_back(a.size, 0.0);
  for (const auto& row : e.values)
    for (std::size_t a = 0; a < row.size(); ++a) t[a][row[a]] += 1.0 / static_cast<double>(e.values.size());
  return t;
}

int run_simulate(const MultiOptions& o) {
  check_confidence(o);
  if (o.protocol == "all" || o.protocol.find(',') != std::string::npos)
    throw BadInput("multi simulate: --protocol names one of " + collector::multi_attribute_names());
  const Table t = read_table(o.input, !o.no_header, parse_delimiter(o.delimiter));
  const Encoded e = encode(t, choose_columns(t, o.columns), parse_bins(o.bins));
  MultiAttributeCounts counts(make_schema(protocols_of(o.protocol)[0], o.epsilon, e.attributes));
  const auto& s = counts.schema();
  const std::size_t width = s.payload_bytes();
  // The devices' side (timed alone), then the collector's: every payload counted, every
  // marginal estimated.
  std::vector<std::uint8_t> payloads(width * e.values.size());
  const std::optional<std::vector<std::vector<double>>> truth = truth_of(e);
  const auto t0 = std::chrono::steady_clock::now();
  with_simulation_source(o.seed, [&](auto& source) {
    RandomBits<std::remove_reference_t<decltype(source)>> rng(source);
    for (std::size_t r = 0; r < e.values.size(); ++r) {
      const Status st = s.privatize(e.values[r].data(), rng, payloads.data() + r * width);
      if (st != Status::ok) throw BadInput("row " + std::to_string(r + 1) + ": " + to_string(st));
    }
  });
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t r = 0; r < e.values.size(); ++r)
    if (const auto err = counts.add_payload({payloads.data() + r * width, width}); err != collector::ParseError::none)
      throw BadInput("row " + std::to_string(r + 1) + ": the collector refuses its report: " + collector::to_string(err));
  const auto tables = marginal_tables(counts, o.confidence, truth);
  const auto t2 = std::chrono::steady_clock::now();
  if (!counts.save(o.output)) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  if (!o.framed.empty()) {
    FramedReportWriter out(o.framed, s.description());
    for (std::size_t r = 0; r < e.values.size(); ++r)
      if (!out.write(payloads.data() + r * width)) throw BadInput("cannot frame report " + std::to_string(r + 1));
    if (!out.ok()) throw BadInput("cannot write " + o.framed + ": " + std::strerror(errno));
  }
  Json timing;
  timing["client"] = std::chrono::duration<double>(t1 - t0).count();
  timing["server"] = std::chrono::duration<double>(t2 - t1).count();
  if (o.format == "text")
    std::cout << "wrote " << counts.reports() << " reports of " << t.rows.size() << " rows to " << o.output
              << (o.framed.empty() ? "" : " (framed device reports: " + o.framed + ")") << "\n";
  print_estimates(counts, tables, o, truth, &timing);
  return 0;
}

int run_ingest(const MultiOptions& o) {
  const auto counts = ingest_counts<MultiAttributeCounts>(o.input, o.schema, o.output);
  std::cout << "counted " << counts.reports() << " " << counts.schema().name() << " reports into " << o.output << "\n";
  return 0;
}

int run_merge(const MultiOptions& o) {
  const auto all = merge_counts_files<MultiAttributeCounts>(o.inputs, o.output);
  std::cout << "merged " << all.reports() << " reports into " << o.output << "\n";
  return 0;
}

int run_estimate(const MultiOptions& o) {
  if (o.counts.empty()) throw BadInput("multi: a counts file, or plan / simulate / ingest / merge");
  std::string error;
  const auto counts = MultiAttributeCounts::load(o.counts, error);
  if (!counts) throw BadInput(error);
  check_confidence(o);
  std::optional<std::vector<std::vector<double>>> truth;
  if (!o.truth.empty()) {
    const Table t = read_table(o.truth, !o.no_header, parse_delimiter(o.delimiter));
    std::vector<std::size_t> cols;
    for (const auto& a : counts->schema().attributes()) cols.push_back(choose_columns(t, a.name)[0]);
    const Encoded e = encode(t, cols, parse_bins(o.bins));
    for (std::size_t a = 0; a < cols.size(); ++a)
      if (e.attributes[a].labels != counts->schema().attributes()[a].labels)
        throw BadInput("--truth: column " + e.attributes[a].name + " has other labels than the reports'");
    truth = truth_of(e);
  }
  print_estimates(*counts, marginal_tables(*counts, o.confidence, truth), o, truth, nullptr);
  return 0;
}

}  // namespace

Subcommand add_multi(CLI::App& app) {
  auto o = std::make_shared<MultiOptions>();
  auto* m = app.add_subcommand("multi", "records of several attributes without memo: SPL, SMP, RS+FD marginals");
  // Its own examples (its subcommands, added below, inherit them).
  m->footer(
      "Examples:\n"
      "  tinyldp multi plan --domains 9,16,7 -e 0.5,1,5\n"
      "  tinyldp multi simulate -i adult.csv -c workclass,education,sex -p rsfd-oue-z -e 1 -o counts.tldpm\n"
      "  tinyldp multi counts.tldpm --truth adult.csv\n"
      "  tinyldp multi simulate -i adult.csv -c workclass,sex -p smp-grr -e 1 --framed reports.bin -o c.tldpm\n"
      "  tinyldp multi ingest reports.bin --schema c.tldpm -o fresh.tldpm\n"
      "  tinyldp wrap uart.bin -m smp-grr -e 1 --domains 9,2 -o r.tldp && tinyldp multi ingest r.tldp -o c.tldpm\n"
      "  tinyldp multi merge a.tldpm b.tldpm -o c.tldpm\n"
      "Full manual: docs/multi-attribute.md");
  m->add_option("counts", o->counts, "counts file (from multi simulate, ingest or merge) to estimate from");
  m->add_option("--truth", o->truth, "CSV with the true records: MSE of the marginals against it");
  add_truth_csv_options(*m, o->no_header, o->delimiter, o->bins);
  m->add_option("--format,-f", o->format, "text (default), json or csv (aggregate's columns, attribute first)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  m->add_option("--confidence", o->confidence, "confidence level of the intervals (default 0.95)");

  auto* plan = m->add_subcommand("plan", "epsilon per report of every protocol for the attributes' domains");
  plan->add_option("--domains", o->domains, "the attributes' domain sizes: 2x16, or 9,16,7")->required();
  plan->add_option("--epsilon,-e", o->epsilons, "epsilons, comma-separated (default 0.5,1,5)");
  plan->add_option("--protocol,-p", o->protocol, "protocols, comma-separated, or all (default)");

  auto* sim = m->add_subcommand("simulate", "privatize every row of a CSV as one report");
  sim->add_option("--input,-i", o->input, "CSV file (one record per row)")->required();
  sim->add_option("--output,-o", o->output, "counts file to write")->required();
  sim->add_option("--protocol,-p", o->protocol, collector::multi_attribute_names())->required();
  sim->add_option("--epsilon,-e", o->epsilon, "epsilon (spl: split over the attributes; rsfd: the paper's)");
  add_record_csv_options(*sim, o->columns, o->no_header, o->delimiter, o->bins);
  sim->add_option("--seed", o->seed, "deterministic simulation (NOT private): noise from the seed");
  sim->add_option("--framed", o->framed, "also write the device reports, framed with the wire header, to this file");
  sim->add_option("--format,-f", o->format,
                  "text (default), json (estimates, MSE, client/server seconds) or csv (the estimates)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  sim->add_option("--confidence", o->confidence, "confidence level of the intervals (default 0.95)");

  const auto [ingest, merge] =
      add_ingest_and_merge(*m, "count device reports: a report file (tinyldp wrap) or framed reports", "counts file",
                           "protocol and attributes", o->input, o->schema, o->output, o->inputs);

  return {m, run_chosen<MultiOptions, 4>(o, {plan, sim, ingest, merge},
                                          {run_plan, run_simulate, run_ingest, run_merge}, run_estimate)};
}

}  // namespace tinyldp::tools
