// tinyldp — the command line: simulate devices, aggregate their reports, plan a deployment,
// inspect report files. See docs/cli.md.
//
// Exit codes: 0 success; 1 bad usage (options); 2 bad input (unreadable or invalid file, value
// outside the domain, mismatched mechanisms); 3 `aggregate` rejected some reports (estimates
// are still printed; --allow-rejected makes this 0).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "epsilon_text.hpp"
#include "input.hpp"
#include "svg_plot.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/host_os_source.hpp"
#include "tinyldp/port/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace {

using namespace tinyldp;
using namespace tinyldp::collector;
using tinyldp::tools::ValueSource;

constexpr int exit_bad_input = 2;
constexpr int exit_rejected = 3;

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double as_double(Epsilon e) { return std::ldexp(static_cast<double>(e.q32), -32); }

using tools::parse_epsilon;
using Json = nlohmann::ordered_json;  // keys in the order written

// The mechanisms the collector knows, in id order: whatever mechanism_from_name accepts, so a
// new mechanism needs no change here.
std::vector<std::string> mechanism_names() {
  std::vector<std::string> names;
  for (unsigned v = 1; v < 256; ++v) {
    const auto id = static_cast<MechanismId>(v);
    const char* name = wire::name_of(id);
    if (mechanism_from_name(name) == id) names.emplace_back(name);
  }
  return names;
}

std::string mechanism_list() {
  std::string out;
  for (const auto& n : mechanism_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Mechanism configure(const std::string& name, Epsilon eps, std::uint32_t domain) {
  const auto id = mechanism_from_name(name);
  if (!id) throw BadInput("unknown mechanism \"" + name + "\" (known: " + mechanism_list() + ")");
  if (*id == MechanismId::rr && domain != 2)
    throw BadInput("rr is binary randomized response: --domain must be 2 (values 0 and 1); use krr for more");
  if (*id != MechanismId::rr && domain < 2)
    throw BadInput("--domain must be at least 2 (got " + std::to_string(domain) + ")");
  if (domain > max_collector_domain)
    throw BadInput("--domain " + std::to_string(domain) + " is above the collector's limit " +
                   std::to_string(max_collector_domain));
  Mechanism m;
  const Status s = Mechanism::configure({*id, eps, domain, {}}, m);
  if (s != Status::ok)
    throw BadInput(std::string("cannot configure ") + name + " with this epsilon and domain: " +
                   to_string(s));
  return m;
}

bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

void progress(const char* what, std::uint64_t done, std::uint64_t total) {
  if (!stderr_is_terminal() || (done % 65536 != 0 && done != total)) return;
  std::fprintf(stderr, "\r%s %llu/%llu", what, static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total));
  if (done == total) std::fprintf(stderr, "\n");
}

// What a file's reports are, for messages: "krr, epsilon 1, domain 8".
std::string describe(const Mechanism& m) {
  return std::string(wire::name_of(m.config().id)) + ", epsilon " +
         tools::to_decimal(m.config().epsilon) + ", domain " + std::to_string(m.domain());
}

// ---- simulate -------------------------------------------------------------------------------

struct SimulateOptions {
  std::string mechanism, epsilon, input, output;
  std::uint32_t domain = 0;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> column;
  bool no_header = false, labels = false;
  std::optional<std::uint32_t> epoch, cohort;
  bool device_ids = false;
};

template <class Source>
void privatize_all(const Mechanism& m, Source& source, const std::vector<std::uint32_t>& values,
                   const SimulateOptions& o, ReportFileWriter& writer) {
  RandomBits<Source, 256> rng(source);
  wire::Header h;
  if (o.device_ids) h.fields |= wire::field_device_id;
  if (o.epoch) {
    h.fields |= wire::field_epoch;
    h.epoch = *o.epoch;
  }
  if (o.cohort) {
    h.fields |= wire::field_cohort;
    h.cohort = static_cast<std::uint16_t>(*o.cohort);
  }
  std::vector<std::uint8_t> report;
  for (std::size_t i = 0; i < values.size(); ++i) {
    report.clear();
    h.device_id = static_cast<std::uint32_t>(i);
    const Status s = m.privatize(values[i], rng, h, report);
    if (s != Status::ok)
      throw BadInput(std::string("no report for row ") + std::to_string(i + 1) + ": " + to_string(s));
    writer.write(report);
    progress("privatized", i + 1, values.size());
  }
}

int run_simulate(const SimulateOptions& o) {
  const Mechanism m = configure(o.mechanism, parse_epsilon(o.epsilon), o.domain);
  ValueSource source{o.input, o.column, !o.no_header, o.labels};
  const auto values = tools::read_values(source, m.domain());
  if (values.values.empty()) throw BadInput(o.input + ": no values to privatize");
  if (o.labels) tools::write_label_file(o.output + ".labels", values.labels);
  ReportFileWriter writer(o.output, m);
  if (!writer.ok()) throw BadInput("cannot write " + o.output);
  if (o.seed) {
    std::cerr << "tinyldp: WARNING: --seed uses the deterministic test source; these reports are "
                 "NOT private (anyone with the seed can remove the noise). Simulation only.\n";
    port::InsecureTestSource rng(*o.seed);
    privatize_all(m, rng, values.values, o, writer);
  } else {
    port::HostOsSource rng;
    privatize_all(m, rng, values.values, o, writer);
  }
  std::cerr << "tinyldp: " << values.values.size() << " reports (" << o.mechanism << ", realized epsilon "
            << as_double(m.realized_epsilon()) << ") written to " << o.output << "\n";
  return 0;
}

// ---- aggregate ------------------------------------------------------------------------------

struct AggregateOptions {
  std::vector<std::string> inputs, merge_states;
  std::string format = "csv", postprocess = "none";
  double confidence = 0.95;
  std::optional<std::string> truth, truth_column, labels, plot, save_state;
  bool truth_no_header = false, allow_rejected = false;
};

int run_aggregate(const AggregateOptions& o) {
  const auto post = postprocess_from_name(o.postprocess);
  if (!post) throw BadInput("unknown --postprocess \"" + o.postprocess + "\" (none, clip, norm-sub, simplex)");
  if (!(o.confidence > 0 && o.confidence < 1)) throw BadInput("--confidence must be in (0, 1)");
  std::optional<Aggregator> total;
  std::string first;  // the file that fixed the mechanism
  auto add = [&](const Aggregator& a, const std::string& from) {
    if (!total) {
      total = a;
      first = from;
    } else if (!total->merge(a)) {
      throw BadInput(from + " holds reports of another mechanism or other parameters (" +
                     describe(a.mechanism()) + ") than " + first + " (" +
                     describe(total->mechanism()) + ")");
    }
  };
  std::uint64_t read = 0;
  const bool show_progress = stderr_is_terminal();
  std::map<std::string, std::uint64_t> rejected;
  for (const auto& path : o.inputs) {
    ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    Aggregator a(reader.mechanism());
    std::vector<std::uint8_t> report;
    while (reader.next(report)) {
      const ParseError e = a.ingest(report);
      if (e != ParseError::none) ++rejected[to_string(e)];
      if (show_progress && ++read % 65536 == 0)
        std::fprintf(stderr, "\raggregated %llu reports", static_cast<unsigned long long>(read));
    }
    if (!reader.ok()) throw BadInput(path + ": " + reader.error());
    add(a, path);
  }
  for (const auto& path : o.merge_states) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw BadInput("cannot open " + path);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    std::string error;
    const auto a = Aggregator::deserialize(bytes, error);
    if (!a) throw BadInput(path + ": " + error);
    add(*a, path);
  }
  if (show_progress && read >= 65536) std::fprintf(stderr, "\n");
  if (!total) throw BadInput("nothing to aggregate: give report files or --merge-state");
  if (o.save_state) {
    const auto bytes = total->serialize();
    std::ofstream out(*o.save_state, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw BadInput("cannot write " + *o.save_state);
  }
  std::uint64_t rejected_total = 0;
  for (const auto& [reason, count] : rejected) {
    std::cerr << "tinyldp: rejected " << count << " report(s): " << reason << "\n";
    rejected_total += count;
  }
  if (total->reports() == 0)
    throw BadInput(rejected_total > 0 ? "every report was rejected; nothing to estimate from"
                                      : "the inputs hold no reports; nothing to estimate from");
  const Mechanism& m = total->mechanism();
  const auto estimates = estimate(*total, *post, o.confidence);
  std::vector<std::string> labels;
  if (o.labels) labels = tools::read_label_file(*o.labels);
  std::optional<std::vector<double>> truth;
  if (o.truth) {
    ValueSource source{*o.truth, o.truth_column, !o.truth_no_header, o.labels.has_value()};
    const auto t = tools::read_values(source, m.domain(), o.labels ? &labels : nullptr);
    truth.emplace(m.domain(), 0.0);
    for (auto v : t.values) (*truth)[v] += 1.0 / static_cast<double>(t.values.size());
  }
  auto label_of = [&](std::size_t i) { return i < labels.size() ? labels[i] : std::to_string(i); };
  if (o.format == "json") {
    Json j;
    j["mechanism"] = wire::name_of(m.description().id);
    j["requested_epsilon"] = as_double(m.config().epsilon);
    j["realized_epsilon"] = as_double(m.realized_epsilon());
    j["domain"] = m.domain();
    j["reports"] = total->reports();
    j["rejected"] = rejected_total;
    j["postprocess"] = name_of(*post);
    j["confidence"] = o.confidence;
    for (std::size_t i = 0; i < estimates.size(); ++i) {
      Json item = {{"item", label_of(i)},       {"count", estimates[i].count},
                             {"frequency", estimates[i].frequency},
                             {"standard_error", estimates[i].standard_error},
                             {"ci_low", estimates[i].ci_low}, {"ci_high", estimates[i].ci_high}};
      if (truth) item["true_frequency"] = (*truth)[i];
      j["items"].push_back(item);
    }
    std::cout << j.dump(2) << "\n";
  } else if (o.format == "csv") {
    std::cout << "item,count,frequency,standard_error,ci_low,ci_high" << (truth ? ",true_frequency" : "")
              << "\n";
    std::cout.precision(6);
    for (std::size_t i = 0; i < estimates.size(); ++i) {
      const auto& e = estimates[i];
      std::cout << label_of(i) << "," << e.count << "," << e.frequency << "," << e.standard_error
                << "," << e.ci_low << "," << e.ci_high;
      if (truth) std::cout << "," << (*truth)[i];
      std::cout << "\n";
    }
  } else {
    throw BadInput("unknown --format \"" + o.format + "\" (csv, json)");
  }
  if (o.plot) {
    std::ofstream out(*o.plot);
    std::ostringstream title;
    title << wire::name_of(m.description().id) << ", epsilon " << as_double(m.realized_epsilon())
          << ", " << total->reports() << " reports, " << static_cast<int>(o.confidence * 100)
          << " % intervals";
    out << tools::frequency_plot_svg(estimates, truth, labels, title.str());
    if (!out) throw BadInput("cannot write " + *o.plot);
  }
  return rejected_total > 0 && !o.allow_rejected ? exit_rejected : 0;
}

// ---- plan -----------------------------------------------------------------------------------

struct PlanOptions {
  std::string mechanism, epsilon;
  std::uint32_t domain = 2;
  std::uint64_t n = 10000;
  std::optional<double> target_se;
  std::optional<std::uint32_t> group;
  bool json = false;
};

double per_report_variance(const Mechanism& m) {
  return count_variance(1, 0, m.channel());  // Var of one report's contribution, item nobody holds
}

int run_plan(const PlanOptions& o) {
  bool exact = false;
  const Epsilon eps = parse_epsilon(o.epsilon, &exact);
  const Mechanism m = configure(o.mechanism, eps, o.domain);
  const double v1 = per_report_variance(m);
  const double se = std::sqrt(v1 / static_cast<double>(o.n));
  Json j;
  j["mechanism"] = o.mechanism;
  j["domain"] = m.domain();
  j["requested_epsilon"] = as_double(eps);
  j["realized_epsilon"] = as_double(m.realized_epsilon());
  j["realized_epsilon_q32"] = m.realized_epsilon().q32;
  j["probabilities"] = m.probabilities_as_fractions();
  j["random_bits_per_report"] = m.random_bits_per_report();
  j["report_bytes"] = m.description().report_bytes(0);
  j["n"] = o.n;
  j["frequency_standard_error"] = se;
  if (o.target_se) {
    if (!(*o.target_se > 0)) throw BadInput("--target-se must be positive");
    j["n_for_target_se"] = static_cast<std::uint64_t>(std::ceil(v1 / (*o.target_se * *o.target_se)));
    // Smallest ε (on a 1e-4 grid) whose configured mechanism reaches the target at this n.
    auto se_at = [&](std::uint64_t q) -> double {
      Mechanism t;
      if (Mechanism::configure({m.config().id, Epsilon::from_q32(q), o.domain, {}}, t) != Status::ok)
        return INFINITY;
      return std::sqrt(per_report_variance(t) / static_cast<double>(o.n));
    };
    std::uint64_t lo = 0, hi = max_epsilon.q32;
    if (se_at(hi) > *o.target_se) {
      j["epsilon_for_target_se"] = nullptr;
    } else {
      while (hi - lo > (max_epsilon.q32 >> 18)) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (se_at(mid) <= *o.target_se ? hi : lo) = mid;
      }
      j["epsilon_for_target_se"] = as_double(Epsilon::from_q32(hi));
    }
  }
  if (o.group) j["group_epsilon"] = as_double(m.realized_epsilon()) * *o.group;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout.precision(10);
  std::cout << "mechanism           " << o.mechanism << " over " << m.domain() << " items\n"
            << "requested epsilon   " << tools::to_decimal(eps)
            << (exact ? "" : "  (" + o.epsilon + " rounded down to a multiple of 2^-32)") << "\n"
            << "realized epsilon    " << as_double(m.realized_epsilon()) << "  (= "
            << m.realized_epsilon().q32 << " / 2^32, from the integers below)\n"
            << "probabilities       " << m.probabilities_as_fractions() << "\n"
            << "random bits/report  " << m.random_bits_per_report() << "\n"
            << "report size         " << m.description().report_bytes(0) << " bytes\n";
  std::cout.precision(4);
  std::cout << "frequency SE        " << se << " at n = " << o.n << "\n";
  if (o.target_se) {
    std::cout << "n for SE " << *o.target_se << "     " << j["n_for_target_se"] << "\n";
    if (j["epsilon_for_target_se"].is_null())
      std::cout << "epsilon for SE " << *o.target_se << " at n = " << o.n << ": not reachable (epsilon ≤ 20)\n";
    else
      std::cout << "epsilon for SE " << *o.target_se << " at n = " << o.n << ": "
                << j["epsilon_for_target_se"].get<double>() << "\n";
  }
  std::cout.precision(10);
  if (o.group)
    std::cout << "group of " << *o.group << "         epsilon " << *o.group << " x "
              << as_double(m.realized_epsilon()) << " = " << j["group_epsilon"].get<double>() << "\n";
  return 0;
}

// ---- inspect --------------------------------------------------------------------------------

int run_inspect(const std::vector<std::string>& inputs, bool json) {
  int status = 0;
  for (const auto& path : inputs) {
    ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    const Mechanism& m = reader.mechanism();
    const auto& d = m.description();
    std::vector<std::uint8_t> report;
    std::uint64_t index = 0;
    while (reader.next(report)) {
      ++index;
      ParseResult r = parse_report(report, d);
      if (r.ok()) {
        const ParseError e = m.check_payload(r.report.payload);
        if (e != ParseError::none) r.error = e;
      }
      Json j;
      j["record"] = index;
      if (!r.ok()) {
        j["rejected"] = to_string(r.error);
        status = exit_rejected;
      } else {
        j["mechanism"] = wire::name_of(d.id);
        const auto& h = r.report.header;
        if (h.fields & wire::field_device_id) j["device_id"] = h.device_id;
        if (h.fields & wire::field_epoch) j["epoch"] = h.epoch;
        if (h.fields & wire::field_cohort) j["cohort"] = h.cohort;
        const std::uint64_t bits =
            d.payload_bits <= 64 ? wire::unpack_bits(r.report.payload.data(), d.payload_bits) : 0;
        switch (d.id) {
          case wire::MechanismId::rr:
          case wire::MechanismId::krr: j["value"] = bits; break;
          case wire::MechanismId::olh:
          case wire::MechanismId::blh:
            j["seed"] = bits & 0xFFFFFFFFu;
            j["value"] = bits >> 32;
            break;
          case wire::MechanismId::hr: {
            unsigned row_bits = d.payload_bits - 1;
            j["row"] = bits & ((std::uint64_t{1} << row_bits) - 1);
            j["bit"] = bits >> row_bits;
            break;
          }
          default: {
            std::vector<std::uint32_t> set;
            for (std::uint32_t i = 0; i < d.payload_bits; ++i)
              if ((r.report.payload[i / 8] >> (i % 8)) & 1u) set.push_back(i);
            j["bits_set"] = set;
          }
        }
      }
      if (json) {
        std::cout << j.dump() << "\n";
      } else {
        std::cout << path << " #" << index;
        for (auto it = j.begin(); it != j.end(); ++it)
          if (it.key() != "record") std::cout << " " << it.key() << "=" << it.value().dump();
        std::cout << "\n";
      }
    }
    if (!reader.ok()) throw BadInput(path + ": " + reader.error());
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tinyldp — local differential privacy on the device, accurate statistics on the collector.\n"
      "Simulate devices privatizing a column of data, aggregate their reports into frequency\n"
      "estimates with confidence intervals, plan epsilon and sample sizes, inspect reports."};
  app.require_subcommand(1);
  const std::string mechanisms = mechanism_list();
  app.footer(
      "Examples:\n"
      "  tinyldp plan --mechanism oue --epsilon 1 --domain 16 --n 100000\n"
      "  tinyldp simulate --mechanism oue --epsilon 1 --domain 16 --input ages.txt --output r.tldp\n"
      "  tinyldp aggregate r.tldp --postprocess norm-sub --truth ages.txt --plot ages.svg\n"
      "  tinyldp simulate -m krr -e 0.5 -d 16 -i adult.csv -c education --labels -o edu.tldp\n"
      "  tinyldp aggregate edu.tldp --labels edu.tldp.labels -f json\n"
      "  tinyldp inspect r.tldp --json\n"
      "Mechanisms: " + mechanisms + " (rr is binary: domain 2).\n"
      "Epsilon is a decimal (0.5, 2, 1e-1), read exactly and rounded down to 2^-32.\n"
      "Exit codes: 0 ok, 1 bad usage, 2 bad input, 3 reports rejected (aggregate, inspect).\n"
      "Full manual: docs/cli.md");

  SimulateOptions sim;
  auto* s = app.add_subcommand("simulate", "privatize a column of values into a report file");
  s->add_option("--mechanism,-m", sim.mechanism, mechanisms)->required();
  s->add_option("--epsilon,-e", sim.epsilon, "privacy budget per report, a decimal like 0.5")->required();
  s->add_option("--domain,-d", sim.domain, "number of categories; values are 0 … D−1")->required();
  s->add_option("--input,-i", sim.input, "CSV file, or one integer per line")->required();
  s->add_option("--column,-c", sim.column, "CSV column: header name or 0-based index");
  s->add_flag("--no-header", sim.no_header, "the CSV has no header row");
  s->add_flag("--labels", sim.labels,
              "values are labels, numbered in order of first appearance (mapping saved to OUTPUT.labels)");
  s->add_option("--output,-o", sim.output, "report file to write")->required();
  s->add_option("--seed", sim.seed, "use the DETERMINISTIC test source with this seed (not private)");
  s->add_flag("--device-ids", sim.device_ids, "send the row number as the device id field");
  s->add_option("--epoch", sim.epoch, "send this epoch field");
  s->add_option("--cohort", sim.cohort, "send this cohort field")->check(CLI::Range(0, 65535));

  AggregateOptions agg;
  auto* a = app.add_subcommand("aggregate", "estimate frequencies from report files");
  a->add_option("reports", agg.inputs, "report files (same mechanism and parameters)");
  a->add_option("--format,-f", agg.format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  a->add_option("--postprocess,-p", agg.postprocess, "none, clip, norm-sub or simplex")
      ->check(CLI::IsMember({"none", "clip", "norm-sub", "simplex"}));
  a->add_option("--confidence", agg.confidence, "confidence level of the intervals (default 0.95)");
  a->add_option("--truth", agg.truth, "the raw input, to compare with (same format as simulate's)");
  a->add_option("--column,--truth-column,-c", agg.truth_column, "CSV column of --truth: header name or 0-based index");
  a->add_flag("--truth-no-header", agg.truth_no_header, "the --truth CSV has no header row");
  a->add_option("--labels", agg.labels, "label file written by simulate --labels");
  a->add_option("--plot", agg.plot, "write an SVG chart of the estimates (and truth)");
  a->add_option("--save-state", agg.save_state, "save the merged aggregate state to this file");
  a->add_option("--merge-state", agg.merge_states, "add saved aggregate states (shards)");
  a->add_flag("--allow-rejected", agg.allow_rejected, "exit 0 even if reports were rejected");

  PlanOptions plan;
  auto* p = app.add_subcommand("plan", "realized probabilities, epsilon and expected accuracy");
  p->add_option("--mechanism,-m", plan.mechanism, mechanisms)->required();
  p->add_option("--epsilon,-e", plan.epsilon, "privacy budget per report")->required();
  p->add_option("--domain,-d", plan.domain, "number of categories (default 2)");
  p->add_option("--n", plan.n, "number of reports (default 10000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 53));
  p->add_option("--target-se", plan.target_se, "also answer: n and epsilon needed for this frequency SE");
  p->add_option("--group", plan.group, "privacy loss for a group of t records (t·epsilon)")
      ->check(CLI::Range(1u, 1000000u));
  p->add_flag("--json", plan.json, "machine-readable output");

  std::vector<std::string> inspect_inputs;
  bool inspect_json = false;
  auto* i = app.add_subcommand("inspect", "decode report files, one report per line");
  i->add_option("reports", inspect_inputs, "report files")->required();
  i->add_flag("--json", inspect_json, "one JSON object per line");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  try {
    if (*s) return run_simulate(sim);
    if (*a) return run_aggregate(agg);
    if (*p) return run_plan(plan);
    if (*i) return run_inspect(inspect_inputs, inspect_json);
  } catch (const std::exception& e) {
    std::cerr << "tinyldp: error: " << e.what() << "\n";
    return exit_bad_input;
  }
  return 1;
}
