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
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
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

// The mechanisms the collector configures by name, in id order: the table's rows, so a new
// mechanism needs no change here.
std::vector<std::string> mechanism_names() {
  std::vector<std::string> names;
  for (const auto& row : collector::mechanism_table())
    if (row.configure != nullptr) names.emplace_back(row.name);
  return names;
}

bool is_numeric(MechanismId id) {
  const auto* row = collector::find_mechanism(id);
  return row != nullptr && row->kind == collector::MechanismKind::numeric;
}

std::string mechanism_list() {
  std::string out;
  for (const auto& n : mechanism_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The numeric mechanisms' options (sd, dlaplace): the value range, sd's levels, dlaplace's Δ.
struct NumericOptions {
  std::optional<std::int32_t> lo, hi;
  std::optional<std::uint32_t> levels, sensitivity;
};

Mechanism configure_numeric(MechanismId id, const std::string& name, Epsilon eps,
                            std::optional<std::uint32_t> domain, const NumericOptions& num) {
  if (domain)
    throw BadInput("--domain is not used by " + name + ": its values are the integers --lo … --hi");
  if (!num.lo || !num.hi) throw BadInput(name + " needs the value range: --lo and --hi");
  if (*num.hi <= *num.lo)
    throw BadInput("--hi must be above --lo (got [" + std::to_string(*num.lo) + ", " + std::to_string(*num.hi) + "])");
  const std::int64_t width = std::int64_t{*num.hi} - *num.lo;
  MechanismConfig c{id, eps, 0, {}};
  c.lo = *num.lo;
  c.hi = *num.hi;
  if (id == MechanismId::sd) {
    if (num.sensitivity) throw BadInput("--sensitivity is for dlaplace; sd's privacy covers the whole range");
    c.levels = num.levels.value_or(2);
    if (c.levels < 2 || c.levels > StochasticDiscretization::max_levels)
      throw BadInput("--levels must be 2 … 256 (got " + std::to_string(c.levels) + ")");
    if (width >= (std::int64_t{1} << 31)) throw BadInput("sd needs hi − lo < 2^31");
  } else {
    if (num.levels) throw BadInput("--levels is for sd; dlaplace reports every integer of the range");
    if (width > max_collector_dlaplace_width)
      throw BadInput("dlaplace: hi − lo = " + std::to_string(width) + " is above the collector's limit " +
                     std::to_string(max_collector_dlaplace_width) + " (its estimator inverts the (W+1)² noise matrix)");
    c.sensitivity = num.sensitivity.value_or(static_cast<std::uint32_t>(width));
    if (c.sensitivity < 1 || c.sensitivity > width)
      throw BadInput("--sensitivity must be 1 … hi − lo = " + std::to_string(width));
  }
  Mechanism m;
  const Status s = Mechanism::configure(c, m);
  if (s != Status::ok)
    throw BadInput(std::string("cannot configure ") + name + " with this epsilon and range: " + to_string(s));
  return m;
}

Mechanism configure(const std::string& name, Epsilon eps, std::optional<std::uint32_t> given_domain,
                    const NumericOptions& num = {}) {
  const auto id = mechanism_from_name(name);
  if (!id) throw BadInput("unknown mechanism \"" + name + "\" (known: " + mechanism_list() + ")");
  if (is_numeric(*id)) return configure_numeric(*id, name, eps, given_domain, num);
  if (num.lo || num.hi || num.levels || num.sensitivity)
    throw BadInput("--lo, --hi, --levels and --sensitivity are for the numeric mechanisms (sd, dlaplace), not " + name);
  if (!given_domain) throw BadInput(name + " needs --domain (the number of categories)");
  const std::uint32_t domain = *given_domain;
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

// What a file's reports are, for messages: "krr, epsilon 1, domain 8", "sd, epsilon 1, range
// [0, 100], 5 levels".
std::string describe(const Mechanism& m) {
  const MechanismConfig& c = m.config();
  std::string out = std::string(collector::name_of(c.id)) + ", epsilon " + tools::to_decimal(c.epsilon);
  if (!m.numeric()) return out + ", domain " + std::to_string(m.domain());
  out += ", range [" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "]";
  if (c.id == MechanismId::sd) return out + ", " + std::to_string(c.levels) + " levels";
  return out + ", sensitivity " + std::to_string(c.sensitivity);
}

// How an item of a numeric mechanism is printed: the value it stands for.
std::string value_text(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

// ---- simulate -------------------------------------------------------------------------------

struct SimulateOptions {
  std::string mechanism, epsilon, input, output;
  std::optional<std::uint32_t> domain;
  NumericOptions numeric;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> column;
  bool no_header = false, labels = false;
  std::optional<std::uint32_t> epoch, cohort;
  bool device_ids = false;
};

template <class Source, class Value>
void privatize_all(const Mechanism& m, Source& source, const std::vector<Value>& values,
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
    Status s = Status::ok;
    if constexpr (std::is_same_v<Value, std::int32_t>)
      s = m.privatize_number(values[i], rng, h, report);
    else
      s = m.privatize(values[i], rng, h, report);
    if (s != Status::ok)
      throw BadInput(std::string("no report for row ") + std::to_string(i + 1) + ": " + to_string(s));
    writer.write(report);
    progress("privatized", i + 1, values.size());
  }
}

template <class Value>
void privatize_with_chosen_source(const Mechanism& m, const std::vector<Value>& values,
                                  const SimulateOptions& o, ReportFileWriter& writer) {
  if (o.seed) {
    std::cerr << "tinyldp: WARNING: --seed uses the deterministic test source; these reports are "
                 "NOT private (anyone with the seed can remove the noise). Simulation only.\n";
    port::InsecureTestSource rng(*o.seed);
    privatize_all(m, rng, values, o, writer);
  } else {
    port::HostOsSource rng;
    privatize_all(m, rng, values, o, writer);
  }
}

int run_simulate(const SimulateOptions& o) {
  const Mechanism m = configure(o.mechanism, parse_epsilon(o.epsilon), o.domain, o.numeric);
  ValueSource source{o.input, o.column, !o.no_header, o.labels};
  std::size_t count = 0;
  if (m.numeric()) {
    if (o.labels) throw BadInput("--labels is for categorical mechanisms; " + o.mechanism + " reads integers");
    const auto values = tools::read_numbers(source, m.config().lo, m.config().hi);
    if (values.empty()) throw BadInput(o.input + ": no values to privatize");
    ReportFileWriter writer(o.output, m);
    if (!writer.ok()) throw BadInput("cannot write " + o.output);
    privatize_with_chosen_source(m, values, o, writer);
    count = values.size();
  } else {
    const auto values = tools::read_values(source, m.domain());
    if (values.values.empty()) throw BadInput(o.input + ": no values to privatize");
    if (o.labels) tools::write_label_file(o.output + ".labels", values.labels);
    ReportFileWriter writer(o.output, m);
    if (!writer.ok()) throw BadInput("cannot write " + o.output);
    privatize_with_chosen_source(m, values.values, o, writer);
    count = values.values.size();
  }
  // The local ε — the loss between any two values, what each report guarantees — and, for
  // dlaplace with Δ < W, the ε between values at most Δ apart, labelled as such.
  std::cerr << "tinyldp: " << count << " reports (" << o.mechanism << ", local epsilon "
            << as_double(m.local_epsilon());
  if (m.local_epsilon().q32 != m.realized_epsilon().q32)
    std::cerr << "; epsilon " << as_double(m.realized_epsilon()) << " between values at most "
              << m.config().sensitivity << " apart";
  std::cerr << ") written to " << o.output << "\n";
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

// sd / dlaplace: the mean with its interval, then the distribution over the levels (sd) or the
// values (dlaplace). Truth: the input's mean, and its distribution over the same items (for sd
// the expected distribution of the rounded levels).
void print_numeric(const Aggregator& total, const AggregateOptions& o, Postprocess post,
                   std::uint64_t rejected_total) {
  const Mechanism& m = total.mechanism();
  const MechanismConfig& c = m.config();
  if (o.labels) throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reports numbers");
  const NumericModel model = numeric_model(m);
  const MeanEstimate mean = estimate_mean(total, model, o.confidence);
  const auto items = estimate_distribution(total, model, post, o.confidence);
  std::optional<double> true_mean;
  std::optional<std::vector<double>> truth;
  if (o.truth) {
    ValueSource source{*o.truth, o.truth_column, !o.truth_no_header, false};
    const auto values = tools::read_numbers(source, c.lo, c.hi);
    if (values.empty()) throw BadInput(*o.truth + ": no values");
    const double n = static_cast<double>(values.size());
    truth.emplace(m.domain(), 0.0);
    double sum = 0;
    for (std::int32_t v : values) {
      sum += v;
      if (const auto* sd = m.discretization()) {
        const auto levels = sd_level_distribution(*sd, v);
        for (std::size_t j = 0; j < levels.size(); ++j) (*truth)[j] += levels[j] / n;
      } else {
        (*truth)[static_cast<std::size_t>(std::int64_t{v} - c.lo)] += 1 / n;
      }
    }
    true_mean = sum / n;
  }
  std::vector<std::string> labels;
  for (std::uint32_t i = 0; i < m.domain(); ++i) labels.push_back(value_text(m.item_value(i)));
  if (o.format == "json") {
    Json j;
    j["mechanism"] = collector::name_of(c.id);
    j["requested_epsilon"] = as_double(c.epsilon);
    j["realized_epsilon"] = as_double(m.realized_epsilon());
    if (m.discrete_laplace()) j["local_epsilon"] = as_double(m.local_epsilon());
    j["lo"] = c.lo;
    j["hi"] = c.hi;
    if (m.discretization()) j["levels"] = c.levels;
    else j["sensitivity"] = c.sensitivity;
    j["reports"] = total.reports();
    j["rejected"] = rejected_total;
    j["postprocess"] = name_of(post);
    j["confidence"] = o.confidence;
    Json jm = {{"estimate", mean.mean}, {"standard_error", mean.standard_error},
               {"ci_low", mean.ci_low}, {"ci_high", mean.ci_high}};
    if (true_mean) jm["true_mean"] = *true_mean;
    j["mean"] = jm;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double value = m.item_value(static_cast<std::uint32_t>(i));
      Json item = {{"item", m.discrete_laplace() ? Json(static_cast<std::int64_t>(value)) : Json(value)},
                   {"count", items[i].count},
                   {"frequency", items[i].frequency}, {"standard_error", items[i].standard_error},
                   {"ci_low", items[i].ci_low}, {"ci_high", items[i].ci_high}};
      if (truth) item["true_frequency"] = (*truth)[i];
      j["items"].push_back(item);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout.precision(6);
    std::cout << "statistic,estimate,standard_error,ci_low,ci_high" << (truth ? ",true_value" : "") << "\n"
              << "mean," << mean.mean << "," << mean.standard_error << "," << mean.ci_low << ","
              << mean.ci_high;
    if (true_mean) std::cout << "," << *true_mean;
    std::cout << "\n\nitem,count,frequency,standard_error,ci_low,ci_high" << (truth ? ",true_frequency" : "")
              << "\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& e = items[i];
      std::cout << labels[i] << "," << e.count << "," << e.frequency << "," << e.standard_error << ","
                << e.ci_low << "," << e.ci_high;
      if (truth) std::cout << "," << (*truth)[i];
      std::cout << "\n";
    }
  }
  if (o.plot) {
    std::ofstream out(*o.plot);
    std::ostringstream title;
    title << collector::name_of(c.id) << ", epsilon " << as_double(m.realized_epsilon()) << ", "
          << total.reports() << " reports, mean " << mean.mean << " ± " << mean.standard_error << ", "
          << static_cast<int>(o.confidence * 100) << " % intervals";
    out << tools::frequency_plot_svg(items, truth, labels, title.str());
    if (!out) throw BadInput("cannot write " + *o.plot);
  }
}

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
    } else if (const auto merged = total->merge(a); !merged) {
      if (merged.error == collector::MergeResult::Error::other_parameters)
        throw BadInput(from + " holds reports of another mechanism or other parameters (" +
                       describe(a.mechanism()) + ") than " + first + " (" +
                       describe(total->mechanism()) + ")");
      throw BadInput("cannot add " + from + " to " + first + ": " + merged.reason());
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
  if (m.numeric()) {
    print_numeric(*total, o, *post, rejected_total);
    return rejected_total > 0 && !o.allow_rejected ? exit_rejected : 0;
  }
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
    j["mechanism"] = collector::name_of(m.description().id);
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
    title << collector::name_of(m.description().id) << ", epsilon " << as_double(m.realized_epsilon())
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
  std::optional<std::uint32_t> domain;  // categorical: default 2
  NumericOptions numeric;
  std::uint64_t n = 10000;
  std::optional<double> target_se;
  std::optional<std::uint32_t> group;
  bool json = false;
};

// Categorical: Var of one report's contribution to a frequency, for an item nobody holds.
// Numeric: Var of one report's mean score for the worst data (in squared value units).
double per_report_variance(const Mechanism& m) {
  if (m.numeric()) return worst_case_score_variance(numeric_model(m));
  return count_variance(1, 0, m.channel());
}

std::optional<std::uint32_t> m_domain(const PlanOptions& o) {
  const auto id = mechanism_from_name(o.mechanism);
  const bool numeric = id && is_numeric(*id);
  return o.domain || numeric ? o.domain : std::optional<std::uint32_t>(2);  // categorical default 2
}

int run_plan(const PlanOptions& o) {
  bool exact = false;
  const Epsilon eps = parse_epsilon(o.epsilon, &exact);
  const Mechanism m = configure(o.mechanism, eps, m_domain(o), o.numeric);
  const MechanismConfig& c = m.config();
  const double v1 = per_report_variance(m);
  const double se = std::sqrt(v1 / static_cast<double>(o.n));
  const char* se_key = m.numeric() ? "mean_standard_error" : "frequency_standard_error";
  Json j;
  j["mechanism"] = o.mechanism;
  j["domain"] = m.domain();
  if (m.numeric()) {
    j["lo"] = c.lo;
    j["hi"] = c.hi;
    if (m.discretization()) j["levels"] = c.levels;
    else j["sensitivity"] = c.sensitivity;
  }
  j["requested_epsilon"] = as_double(eps);
  j["realized_epsilon"] = as_double(m.realized_epsilon());
  j["realized_epsilon_q32"] = m.realized_epsilon().q32;
  if (m.discrete_laplace()) j["local_epsilon"] = as_double(m.local_epsilon());
  j["probabilities"] = m.probabilities_as_fractions();
  j["random_bits_per_report"] = m.random_bits_per_report();
  j["report_bytes"] = m.description().report_bytes(0);
  j["n"] = o.n;
  j[se_key] = se;
  if (m.discretization())  // the level distribution: k-RR over the L levels
    j["frequency_standard_error"] = std::sqrt(count_variance(1, 0, m.channel()) / static_cast<double>(o.n));
  if (o.target_se) {
    if (!(*o.target_se > 0)) throw BadInput("--target-se must be positive");
    j["n_for_target_se"] = static_cast<std::uint64_t>(std::ceil(v1 / (*o.target_se * *o.target_se)));
    // Smallest ε (on a 1e-4 grid) whose configured mechanism reaches the target at this n.
    auto se_at = [&](std::uint64_t q) -> double {
      Mechanism t;
      MechanismConfig tc = m.config();
      tc.epsilon = Epsilon::from_q32(q);
      if (Mechanism::configure(tc, t) != Status::ok) return INFINITY;
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
  std::cout << "mechanism           " << o.mechanism;
  const std::string range = "[" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "]";
  if (m.discretization())
    std::cout << " over " << range << ", " << c.levels << " levels\n";
  else if (m.discrete_laplace())
    std::cout << " over " << range << " (" << m.domain() << " values), sensitivity " << c.sensitivity << "\n";
  else
    std::cout << " over " << m.domain() << " items\n";
  std::cout << "requested epsilon   " << tools::to_decimal(eps)
            << (exact ? "" : "  (" + o.epsilon + " rounded down to a multiple of 2^-32)") << "\n"
            << "realized epsilon    " << as_double(m.realized_epsilon()) << "  (= "
            << m.realized_epsilon().q32 << " / 2^32, from the integers below"
            << (m.discrete_laplace() ? "; inputs at most the sensitivity apart" : "") << ")\n";
  if (m.discrete_laplace())
    std::cout << "local epsilon       " << as_double(m.local_epsilon())
              << "  (any two inputs of the range: the local-DP guarantee)\n";
  std::cout << "probabilities       " << m.probabilities_as_fractions() << "\n"
            << "random bits/report  " << m.random_bits_per_report() << "\n"
            << "report size         " << m.description().report_bytes(0) << " bytes\n";
  std::cout.precision(4);
  if (m.numeric()) {
    std::cout << "mean SE             " << se << " at n = " << o.n << " (worst case over the data)\n";
    if (m.discretization())
      std::cout << "level frequency SE  " << j["frequency_standard_error"].get<double>() << " at n = " << o.n
                << "\n";
  } else {
    std::cout << "frequency SE        " << se << " at n = " << o.n << "\n";
  }
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
        j["mechanism"] = collector::name_of(d.id);
        const auto& h = r.report.header;
        if (h.fields & wire::field_device_id) j["device_id"] = h.device_id;
        if (h.fields & wire::field_epoch) j["epoch"] = h.epoch;
        if (h.fields & wire::field_cohort) j["cohort"] = h.cohort;
        for (const auto& field : m.payload_fields(r.report.payload))
          std::visit([&](const auto& v) { j[field.name] = v; }, field.value);
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
      "  tinyldp simulate -m sd -e 1 --lo 17 --hi 90 --levels 8 -i adult.csv -c age -o age.tldp\n"
      "  tinyldp plan -m dlaplace -e 1 --lo 0 --hi 99 --n 50000\n"
      "Mechanisms: " + mechanisms + " (rr is binary: domain 2).\n"
      "Numeric mechanisms (sd, dlaplace) take integers of [--lo, --hi] instead of --domain;\n"
      "aggregate prints their mean with an interval, then the distribution.\n"
      "Epsilon is a decimal (0.5, 2, 1e-1), read exactly and rounded down to 2^-32.\n"
      "Exit codes: 0 ok, 1 bad usage, 2 bad input, 3 reports rejected (aggregate, inspect).\n"
      "Full manual: docs/cli.md");

  SimulateOptions sim;
  auto* s = app.add_subcommand("simulate", "privatize a column of values into a report file");
  s->add_option("--mechanism,-m", sim.mechanism, mechanisms)->required();
  s->add_option("--epsilon,-e", sim.epsilon, "privacy budget per report, a decimal like 0.5")->required();
  s->add_option("--domain,-d", sim.domain, "number of categories; values are 0 … D−1 (categorical mechanisms)");
  s->add_option("--lo", sim.numeric.lo, "sd, dlaplace: smallest value (an integer)");
  s->add_option("--hi", sim.numeric.hi, "sd, dlaplace: largest value (an integer)");
  s->add_option("--levels", sim.numeric.levels, "sd: number of levels L, 2 … 256 (default 2)");
  s->add_option("--sensitivity", sim.numeric.sensitivity,
                "dlaplace: protect inputs this far apart (default hi − lo: local DP)");
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
  auto* a = app.add_subcommand("aggregate", "estimate frequencies (numeric: the mean too) from report files");
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
  p->add_option("--lo", plan.numeric.lo, "sd, dlaplace: smallest value");
  p->add_option("--hi", plan.numeric.hi, "sd, dlaplace: largest value");
  p->add_option("--levels", plan.numeric.levels, "sd: number of levels (default 2)");
  p->add_option("--sensitivity", plan.numeric.sensitivity, "dlaplace: Δ (default hi − lo)");
  p->add_option("--n", plan.n, "number of reports (default 10000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 53));
  p->add_option("--target-se", plan.target_se,
                "also answer: n and epsilon needed for this frequency SE (sd, dlaplace: mean SE)");
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
