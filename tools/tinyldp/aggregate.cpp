// SPDX-License-Identifier: Apache-2.0
// tinyldp aggregate: parse report files (and saved states), merge them, estimate the
// frequency of every item — and for the numeric mechanisms the mean — with intervals, and
// write them through the one writer (output.hpp).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "cli_common.hpp"
#include "counts_files.hpp"
#include "output.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/bayesian_update.hpp"
#include "tinyldp/collector/bloom_decode.hpp"
#include "tinyldp/collector/epoch_series.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::tools {
namespace {

using collector::Aggregator;
using collector::EpochSeries;
using collector::Mechanism;

struct AggregateOptions {
  std::vector<std::string> inputs, merge_states;
  std::string format = "csv", postprocess = "none";
  double confidence = 0.95;
  std::optional<std::string> truth, truth_column, labels, plot, save_state, candidates;
  double significance = 0.05;  // Bloom: the detection threshold's α (Bonferroni over the candidates)
  bool truth_no_header = false, allow_rejected = false;
  ValueSource truth_fields;  // --missing, --clamp
  std::optional<std::uint32_t> epoch;
  bool by_epoch = false, pool_epochs = false;
  std::optional<std::string> truth_rounds;
  collector::BayesianUpdateOptions em;  // --em-tolerance, --em-max-iterations
  std::optional<double> em_smoothing;   // --em-smoothing (else 0: plain EM)
  std::string quantiles = "0.5,0.9,0.95,0.99";  // --quantiles (numeric distributions), "none"
  bool quantiles_given = false;
  std::optional<std::string> range;              // --range LO:HI
  // Parsed by run() before any file is read: --quantiles' qs, --range's bounds.
  std::vector<double> quantile_list;
  std::pair<double, double> range_bounds{};
  double delta = default_shuffle_delta;  // the shuffled batch's central δ
};

// Every report file and saved state, merged into one time series (an aggregate per epoch);
// rejected reports counted by reason.
struct Merged {
  std::optional<EpochSeries> total;
  std::map<std::string, std::uint64_t> rejected;
  std::uint64_t other_epochs = 0;  // reports left out by --epoch
};

// Whether a report belongs to the epoch --epoch asks for (every report without the option).
// A report that does not parse is left to ingest(), which counts its reason.
bool in_epoch(std::span<const std::uint8_t> report, const Mechanism& m, std::optional<std::uint32_t> epoch) {
  if (!epoch) return true;
  const collector::ParseResult p = collector::parse_report(report, m.description());
  if (!p.ok()) return true;
  return (p.report.header.fields & wire::field_epoch) != 0 && p.report.header.epoch == *epoch;
}

// The size of every file, for the progress line.
std::uint64_t total_size(const std::vector<std::string>& paths) {
  std::uint64_t total = 0;
  for (const auto& p : paths) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(p, ec);
    if (!ec) total += size;
  }
  return total;
}

// A labels file names one-hot items by their index; a Bloom report holds a string's hash, no
// index, so its rows are named by the candidate strings themselves.
std::string bloom_labels_refusal(const std::string& path) {
  return "--labels names the items of one-hot reports by their index; Bloom-filter reports carry a hash of the "
         "string itself, so their rows are the candidates: give the strings with --candidates FILE (one per line; " +
         path + " is such a file if it lists them)";
}

// `labels`: the mapping --labels names. An input that records none (its items are indices, or
// it predates label digests) is taken to have it, with a warning; one that records another is
// refused when merged.
Merged merge_inputs(const AggregateOptions& o, const collector::LabelMappingId& labels) {
  Merged out;
  CountsMerge<EpochSeries> all;
  // A file that records no label mapping is taken to have --labels' (warned); another is refused.
  auto add = [&](EpochSeries a, const std::string& from, const std::string& counted_as) {
    if (labels && !a.labels() && !a.mechanism().numeric() && !a.mechanism().bloom()) {
      std::cerr << "tinyldp: warning: " << from << " records no label mapping (written without --labels, or "
                   "before tinyldp recorded them): taking " << *o.labels << " as its mapping, unchecked\n";
      a.assume_labels(*labels);
    }
    all.add(std::move(a), from, counted_as);
  };
  std::uint64_t read = 0, bytes = 0;
  Progress progress("aggregating", "reports", total_size(o.inputs));
  for (const auto& path : o.inputs) {
    collector::ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    refuse_record(reader.mechanism(), "aggregate (" + path + ")");
    EpochSeries a(reader.mechanism(), reader.labels());
    std::vector<std::uint8_t> report;
    while (reader.next(report)) {
      if (!in_epoch(report, a.mechanism(), o.epoch)) {
        ++out.other_epochs;
        continue;
      }
      const collector::ParseError e = a.ingest(report);
      if (e != collector::ParseError::none) ++out.rejected[to_string(e)];
      bytes += 2 + report.size();
      if (++read % 65536 == 0) progress.update(bytes, read);
    }
    if (!reader.ok()) throw BadInput(path + ": " + reader.error());
    progress.finish(bytes, read);
    if (!reader.has_trailer())
      std::cerr << "tinyldp: warning: " << path << " has no trailer (written before report files had trailers): a file cut short "
                   "at a record boundary cannot be told from a whole one\n";
    if (reader.digest().records > 0) a.add_source({reader.digest().sum, o.epoch});
    add(std::move(a), path, path);
  }
  for (const auto& path : o.merge_states) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
    std::string error;
    auto a = EpochSeries::deserialize(bytes, error);
    if (!a) throw BadInput(path + ": " + error);
    refuse_record(a->mechanism(), "aggregate (" + path + ")");
    add(std::move(*a), path, "a file that " + path + " counted");
  }
  if (all.empty()) throw BadInput("nothing to aggregate: give report files or --merge-state");
  out.total = std::move(all.total());
  if (labels && out.total->mechanism().numeric())
    throw BadInput("--labels is for categorical mechanisms; " + describe(out.total->mechanism()) + " reports numbers");
  if (labels && out.total->mechanism().bloom()) throw BadInput(bloom_labels_refusal(*o.labels));
  if (labels && out.total->labels() != labels)
    throw BadInput(*o.labels + " is not the label mapping of these reports (" +
                   collector::describe(labels) + "; the reports record " +
                   collector::describe(out.total->labels()) + ")");
  if (!labels && out.total->labels() && !out.total->mechanism().bloom())
    std::cerr << "tinyldp: note: the items have labels (" << collector::describe(out.total->labels())
              << "); --labels FILE prints them\n";
  return out;
}

// EM's run on the aggregate, once: the table's answer with --postprocess em (its iterations in
// `about`, a warning when it stopped at the cap) and a numeric chart's bars.
collector::BayesianUpdateResult run_em(const Aggregator& total, const collector::ObservationModel& model,
                                       const AggregateOptions& o, collector::Postprocess post, EstimateTable& t) {
  collector::BayesianUpdateOptions options = o.em;
  options.smoothing = o.em_smoothing.value_or(0.0);
  auto run = collector::bayesian_update(model, total.support(), total.reports(), options);
  if (!run.converged) {  // the table's answer (-p em) or the chart's bars: said in both places
    t.chart_warning = "em not converged after " + std::to_string(run.iterations) +
                      " iterations: the bars are not yet the maximum-likelihood estimate";
    std::cerr << "tinyldp: warning: em stopped at --em-max-iterations " << o.em.max_iterations
              << " with frequencies still moving by more than --em-tolerance " << o.em.tolerance
              << ": the estimate " << (post == collector::Postprocess::em ? "" : "the chart draws ")
              << "after that many steps, not yet the maximum (docs/accuracy.md)\n";
  }
  if (post != collector::Postprocess::em) return run;
  t.about["em_iterations"] = run.iterations;
  t.about["em_converged"] = run.converged;
  t.about["em_smoothing"] = options.smoothing;
  return run;
}

// What every table is of: the mechanism, its ε, parameters, report counts, post-processing.
Json about_reports(const Aggregator& total, const AggregateOptions& o, std::uint64_t rejected,
                   const std::string& postprocess) {
  const Mechanism& m = total.mechanism();
  Json about;
  about["mechanism"] = collector::name_of(m.config().id);
  about["requested_epsilon"] = as_double(m.config().epsilon);
  about["realized_epsilon"] = as_double(m.realized_epsilon());
  if (m.takes_sensitivity()) about["local_epsilon"] = as_double(m.local_epsilon());
  if (m.memoized()) {
    about["epsilon_one"] = as_double(m.local_epsilon());
    about["epsilon_infinity"] = as_double(*m.epsilon_infinity());
  }
  if (o.epoch) about["epoch"] = *o.epoch;
  for (const auto& p : m.parameters()) about[p.name] = p.value;
  about["reports"] = total.reports();
  about["rejected"] = rejected;
  about["postprocess"] = postprocess;
  about["confidence"] = o.confidence;
  // The reports counted as one shuffled batch; pooled epochs hold several reports per device.
  if (!total.pools_epochs())
    about["shuffled_batch"] = shuffled_batch_json(as_double(m.local_epsilon()), total.reports(), o.delta, m.memoized());
  return about;
}

// --truth FILE as a column to read (--column, --truth-no-header, --missing, --clamp).
ValueSource truth_source(const AggregateOptions& o) {
  ValueSource source = o.truth_fields;
  source.path = *o.truth;
  source.column = o.truth_column;
  source.has_header = !o.truth_no_header;
  return source;
}

// --quantiles: the qs asked for (empty for "none"); refused unless each is in (0, 1).
std::vector<double> parse_quantiles(const std::string& text) {
  std::vector<double> out;
  if (text == "none") return out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    char* end = nullptr;
    const double q = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !(q > 0 && q < 1))
      throw BadInput("--quantiles " + text + ": each q must be a number in (0, 1), e.g. 0.5,0.9 (or none)");
    out.push_back(q);
    start = comma + 1;
  }
  return out;
}

// --range LO:HI as two values, LO ≤ HI.
std::pair<double, double> parse_range(const std::string& text) {
  const std::size_t colon = text.find(':');
  char* end = nullptr;
  const std::string lo = text.substr(0, colon), hi = colon == std::string::npos ? "" : text.substr(colon + 1);
  const double a = std::strtod(lo.c_str(), &end);
  const bool lo_ok = !lo.empty() && end == lo.c_str() + lo.size();
  const double b = std::strtod(hi.c_str(), &end);
  const bool hi_ok = !hi.empty() && end == hi.c_str() + hi.size();
  if (colon == std::string::npos || !lo_ok || !hi_ok || !(a <= b))
    throw BadInput("--range " + text + ": give LO:HI with LO ≤ HI, e.g. --range 18:65");
  return {a, b};
}

// The quantiles and the range of a numeric distribution (sd, dlaplace, sw): not for the memoized
// ones (1bitmean's two ends, dbitflip's sampled buckets) — refused when asked for, skipped by default.
void add_quantiles_and_range(const Aggregator& total, const collector::NumericModel& model, const AggregateOptions& o,
                             collector::Postprocess post, const collector::BayesianUpdateResult* run, EstimateTable& t) {
  const Mechanism& m = total.mechanism();
  const std::vector<double>& qs = o.quantile_list;
  if (m.memoized()) {
    if (o.quantiles_given && !qs.empty())
      throw BadInput("--quantiles: " + describe(m) + " reports over time for a mean or a histogram of buckets; "
                     "sd, dlaplace and sw estimate quantiles");
    if (o.range) throw BadInput("--range: sd, dlaplace and sw estimate a range's share, not " + describe(m));
    return;
  }
  if (total.reports() == 0) return;
  if (!qs.empty()) t.quantiles = collector::estimate_quantiles(collector::estimate_cdf(total, model, post, run), qs, o.confidence);
  if (o.range) {
    t.range = collector::estimate_range(total, model, o.range_bounds.first, o.range_bounds.second, post,
                                        o.confidence, run);
    t.range_text = *o.range;
  }
}

// The truth's quantiles and range share over the same atoms (the rows' values).
void add_true_quantiles_and_range(const Mechanism& m, const std::vector<double>& truth, const AggregateOptions& o,
                                  EstimateTable& t) {
  for (const auto& q : t.quantiles) {
    double below = 0;
    std::uint32_t x = 0;
    while (x + 1 < truth.size() && (below += truth[x]) < q.q - 1e-12) ++x;
    t.true_quantiles.push_back(m.atom_value(x));
  }
  if (t.range) {
    const auto [lo, hi] = o.range_bounds;
    double share = 0;
    for (std::uint32_t x = 0; x < truth.size(); ++x)
      if (m.atom_value(x) >= lo && m.atom_value(x) <= hi) share += truth[x];
    t.true_range = share;
  }
}

// The estimates as one table: the items' frequencies (numeric: over the levels or values,
// and the mean), the truth when given, and what they are of. A numeric distribution's chart
// shows the non-negative estimate: with --postprocess none, EM's (chart_em) — hh's, which has no
// EM, the consistent tree's bins.
EstimateTable estimate_table(const Aggregator& total, const AggregateOptions& o,
                             collector::Postprocess post, std::uint64_t rejected) {
  const Mechanism& m = total.mechanism();
  if (o.labels && m.numeric())
    throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reports numbers");
  const bool asks_quantiles = o.quantiles_given && o.quantiles != "none";
  if ((asks_quantiles || o.range) && (!m.numeric() || m.mean_only()))
    throw BadInput(std::string(o.range ? "--range" : "--quantiles") + " is for a numeric distribution (sd, dlaplace, sw, hh, haar-hrr); " +
                   (m.mean_only() ? std::string(collector::mean_only_refusal) : describe(m) + " reports categories"));
  if (o.em_smoothing && *o.em_smoothing > 0 && !m.numeric())
    throw BadInput("--em-smoothing is for numeric mechanisms (it mixes neighbouring values); " + describe(m) +
                   "'s categories have no order");
  EstimateTable t;
  t.about = about_reports(total, o, rejected, name_of(post));
  using collector::Postprocess;
  if (o.truth_column) {
    const bool index = o.truth_column->find_first_not_of("0123456789") == std::string::npos;
    t.column = index ? "column " + *o.truth_column : *o.truth_column;
  }

  std::optional<LabelMap> labels;
  if (o.labels) labels = LabelMap::read(*o.labels, m.domain(), "--labels");
  if (m.mean_only()) {  // pm: the mean, and no items (mean_only_refusal says why)
    if (o.plot) throw BadInput(std::string("--plot: ") + collector::mean_only_refusal);
    if (post != Postprocess::none)
      throw BadInput("--postprocess " + std::string(name_of(post)) + ": " + collector::mean_only_refusal);
    t.mean = collector::estimate_mean(total, collector::numeric_model(m), o.confidence);
  } else if (m.numeric()) {
    const collector::NumericModel model = collector::numeric_model(m);
    // hh has no EM (a report is a level's node): its chart draws the consistent tree's bins as
    // they are, each an unbiased sum of many leaves.
    const bool tree = model.tree.levels() != 0;
    const Postprocess chart = o.plot && post == Postprocess::none && !tree ? Postprocess::em : post;
    std::optional<collector::BayesianUpdateResult> em;
    if (chart == Postprocess::em) em = run_em(total, collector::observation_model(m, model), o, post, t);
    const collector::BayesianUpdateResult* run = em ? &*em : nullptr;
    t.mean = collector::estimate_mean(total, model, o.confidence);
    t.items = collector::estimate_distribution(total, model, post, o.confidence, run);
    add_quantiles_and_range(total, model, o, post, run, t);
    if (o.plot) {
      std::vector<double> values;
      for (std::uint32_t i = 0; i < m.atoms(); ++i) values.push_back(m.atom_value(i));
      t.bin_start = chart_bins(values);
      if (chart != post) t.chart_items = collector::estimate_distribution(total, model, chart, o.confidence, run);
      if (!t.bin_start.empty()) t.bins = collector::estimate_bins(total, model, t.bin_start, chart, o.confidence, run);
      t.chart_postprocess = name_of(chart);
    }
  } else {
    std::optional<collector::BayesianUpdateResult> em;
    if (post == Postprocess::em) em = run_em(total, collector::observation_model(m), o, post, t);
    t.items = collector::estimate(total, post, o.confidence, em ? &*em : nullptr);
  }
  // The rows: a numeric mechanism's atoms (what values round to; sw's buckets), else the items.
  for (std::uint32_t i = 0; i < m.atoms() && !m.mean_only(); ++i) {
    if (m.numeric()) {
      const double value = m.atom_value(i);
      t.item_text.push_back(value_text(value));
      t.item_key.emplace_back(m.integer_items() ? Json(static_cast<std::int64_t>(value)) : Json(value));
    } else {
      t.item_text.push_back(labels && i < labels->labels().size() ? labels->labels()[i] : std::to_string(i));
      t.item_key.emplace_back(t.item_text.back());
    }
  }
  if (o.truth) {
    const ValueSource source = truth_source(o);
    std::vector<double> counts(m.atoms(), 0.0);
    double sum = 0;
    const InputCounts read = for_each_private_value(source, m, labels ? &*labels : nullptr, [&](std::int64_t v) {
      sum += static_cast<double>(v);
      for (const auto& [item, weight] : m.item_weights(v)) counts[item] += weight;
    });
    if (read.values == 0) throw BadInput(*o.truth + ": no values");
    const double n = static_cast<double>(read.values);
    for (double& c : counts) c /= n;
    t.truth = std::move(counts);
    if (m.numeric()) t.true_mean = sum / n;
    add_true_quantiles_and_range(m, *t.truth, o, t);
  }
  return t;
}

// The candidates file: one candidate string per line (an empty line is skipped).
std::vector<std::string> read_candidates(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
  if (out.empty()) throw BadInput(path + ": no candidates (one per line)");
  return out;
}

// Why --postprocess `post` does not apply to Bloom-filter reports (empty: it does).
std::string bloom_postprocess_refusal(collector::Postprocess post) {
  using collector::Postprocess;
  switch (post) {
    case Postprocess::none:
    case Postprocess::norm_sub: return {};
    case Postprocess::clip:
    case Postprocess::simplex:
      return "it would make the candidates' frequencies sum to 1, giving them the mass of strings outside the "
             "list; the fit is non-negative already, and --postprocess norm-sub caps the sum at 1";
    case Postprocess::em:
      return "the decode is a least-squares fit of the cohorts' bit rates, with no EM over them; "
             "--postprocess norm-sub brings the fit within the possible answers (sum at most 1)";
  }
  return {};
}

// A Bloom filter's reports over the candidates (bloom_decode.hpp): one row per candidate, its
// non-negative least-squares frequency with the fit's standard error; the detection threshold,
// the detected candidates and the unexplained mass (the fit's) in `about` (and on stderr).
// norm-sub: the frequencies projected onto {f ≥ 0, Σ f ≤ 1} (estimates.hpp), the fit's beside them.
EstimateTable bloom_table(const Aggregator& total, const AggregateOptions& o, collector::Postprocess post,
                          std::uint64_t rejected) {
  const Mechanism& m = total.mechanism();
  if (!o.candidates)
    throw BadInput("these are Bloom-filter reports (" + describe(m) +
                   "): give the strings they may hold with --candidates FILE (one per line)");
  if (const std::string why = bloom_postprocess_refusal(post); !why.empty())
    throw BadInput("--postprocess " + o.postprocess + " is not for Bloom filters: " + why);
  const std::vector<std::string> candidates = read_candidates(*o.candidates);
  std::string error;
  const auto decode = collector::decode_bloom(m, total.support(), candidates, o.significance, error);
  if (!decode) throw BadInput(*o.candidates + ": " + error);
  EstimateTable t;
  t.about = about_reports(total, o, rejected, post == collector::Postprocess::none ? "nnls" : name_of(post));
  t.about["candidates"] = candidates.size();
  t.chart_postprocess = name_of(post);  // the fit alone is drawn as it is, not as post-processed
  t.about["cohorts_reporting"] = decode->cohorts_reporting;
  t.about["detection_significance"] = decode->significance;
  t.about["detection_z"] = decode->threshold_z;
  t.about["unexplained_mass"] = decode->unexplained;
  Json detected = Json::array();
  const double z = collector::normal_quantile_two_sided(o.confidence);
  const double n = static_cast<double>(total.reports());
  std::vector<double> fit;
  for (const auto& c : decode->candidates) fit.push_back(c.frequency);
  const std::vector<double> answer =
      post == collector::Postprocess::none ? fit : collector::project_onto_capped_simplex(fit);
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const collector::BloomCandidate& c = decode->candidates[j];
    collector::ItemEstimate e;
    e.unbiased_frequency = c.frequency;
    e.frequency = answer[j];
    e.standard_error = c.standard_error;
    e.count = e.frequency * n;
    if (post == collector::Postprocess::none) {
      e.ci_low = std::max(0.0, c.frequency - z * c.standard_error);
      e.ci_high = c.frequency + z * c.standard_error;
    } else {
      std::tie(e.ci_low, e.ci_high) = collector::interval_around(c.frequency, c.standard_error, z, e.frequency, post);
    }
    t.items.push_back(e);
    t.item_text.push_back(c.label);
    t.item_key.emplace_back(c.label);
    if (c.detected) detected.push_back(c.label);
  }
  std::cerr << "tinyldp: bloom: " << detected.size() << " of " << candidates.size()
            << " candidates detected (estimate above " << decode->threshold_z
            << " standard errors: significance " << o.significance << ", Bonferroni over the candidates); "
            << "unexplained mass " << decode->unexplained;
  if (post != collector::Postprocess::none) {
    double sum = 0;
    for (double f : answer) sum += f;
    const double left = std::max(0.0, 1 - sum);  // Σ ≤ 1 once projected; rounding may pass it by 1 ulp
    t.about["unexplained_mass_postprocessed"] = left;
    std::cerr << ", after " << name_of(post) << " " << left;
  }
  std::cerr << "\n";
  t.about["detected"] = std::move(detected);
  if (o.truth) {
    const ValueSource source = truth_source(o);
    std::map<std::uint32_t, std::size_t> index;
    for (std::size_t j = 0; j < candidates.size(); ++j) index[collector::bloom_value(candidates[j])] = j;
    std::vector<double> counts(candidates.size(), 0.0);
    const InputCounts read = for_each_private_value(source, m, nullptr, [&](std::int64_t v) {
      if (const auto at = index.find(static_cast<std::uint32_t>(v)); at != index.end()) counts[at->second] += 1;
    });
    if (read.values == 0) throw BadInput(*o.truth + ": no values");
    for (double& c : counts) c /= static_cast<double>(read.values);
    t.truth = std::move(counts);
  }
  if (o.truth_column) t.column = *o.truth_column;
  return t;
}

// --truth-rounds FILE (simulate --rounds' OUTPUT.rounds.csv: round,value,true_count): each
// epoch's true frequency of every item.
std::map<std::uint32_t, std::vector<double>> read_truth_rounds(const std::string& path, const Mechanism& m) {
  std::ifstream in(path);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
  std::map<std::uint32_t, std::vector<double>> counts;
  std::map<std::uint32_t, double> totals;
  std::string line;
  std::getline(in, line);
  if (line.rfind("round,value,true_count", 0) != 0)
    throw BadInput(path + ": not a rounds file (its header is not round,value,true_count)");
  for (std::uint64_t row = 2; std::getline(in, line); ++row) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::uint32_t round = 0;
    long long value = 0;
    unsigned long long count = 0;
    char tail = 0;
    if (std::sscanf(line.c_str(), "%u,%lld,%llu%c", &round, &value, &count, &tail) != 3)
      throw BadInput(path + ":" + std::to_string(row) + ": expected round,value,true_count");
    auto& c = counts[round];
    c.resize(m.domain(), 0.0);
    for (const auto& [item, weight] : m.item_weights(value)) c[item] += weight * static_cast<double>(count);
    totals[round] += static_cast<double>(count);
  }
  for (auto& [round, c] : counts)
    for (double& x : c) x /= totals[round];
  return counts;
}

// How the epochs of the merged reports are estimated: one table per epoch (a time series), or
// one table of them pooled.
struct Plan {
  std::vector<std::pair<std::optional<std::uint32_t>, Aggregator>> tables;
  bool series = false;
};

Plan plan_epochs(const EpochSeries& series, const AggregateOptions& o) {
  const Mechanism& m = series.mechanism();
  Plan plan;
  if (series.epochs().size() <= 1) {
    if (series.epochs().empty())
      plan.tables.emplace_back(std::nullopt, Aggregator(m, series.labels()));
    else
      plan.tables.emplace_back(series.epochs().begin()->first, series.epochs().begin()->second);
    return plan;
  }
  const std::size_t n = series.epochs().size();
  if (o.pool_epochs || (!m.memoized() && !o.by_epoch)) {
    auto pooled = series.pooled();
    if (!pooled)
      throw BadInput(describe(m) + ": its reports of " + std::to_string(n) +
                     " epochs share memos, and tinyldp has no model of how they covary for this mechanism, so "
                     "they cannot be pooled with an honest standard error: drop --pool-epochs to get one row per "
                     "epoch and item (or --epoch E for one)");
    if (m.memoized())
      std::cerr << "tinyldp: pooling " << n << " epochs of memoized reports: a device's reports share its memo, and "
                   "the standard errors account for it (at most "
                << collector::same_device_pairs(*pooled)
                << " pairs of reports from one device; exact when every device reports every epoch with the same "
                   "value, an upper bound otherwise)\n";
    else
      std::cerr << "tinyldp: note: pooling the reports of " << n
                << " epochs as independent reports (fresh noise in each); --by-epoch gives one row per epoch\n";
    plan.tables.emplace_back(std::nullopt, std::move(*pooled));
    return plan;
  }
  plan.series = true;
  for (const auto& [epoch, a] : series.epochs()) plan.tables.emplace_back(epoch, a);
  std::cerr << "tinyldp: " << n << " epochs: one row per epoch and item"
            << (m.memoized() ? " (memoized reports of several epochs share memos: each epoch is estimated apart; "
                               "--pool-epochs pools them with standard errors that account for it)"
                             : "")
            << "\n";
  return plan;
}

// The chart of one epoch of a series: FILE.svg becomes FILE-epochE.svg.
std::string epoch_plot_path(const std::string& path, std::optional<std::uint32_t> epoch) {
  const std::string suffix = "-epoch" + (epoch ? std::to_string(*epoch) : std::string("none"));
  const auto dot = path.rfind('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

int run(AggregateOptions o) {  // by value: the parsed --quantiles and --range are stored
  const auto post = collector::postprocess_from_name(o.postprocess);
  if (!post) throw BadInput("unknown --postprocess \"" + o.postprocess + "\" (none, clip, norm-sub, simplex, em)");
  if (!(o.em.tolerance >= 0)) throw BadInput("--em-tolerance must be at least 0");
  if (o.em.max_iterations == 0) throw BadInput("--em-max-iterations must be at least 1");
  if (o.plot) {  // the chart is SVG: a .png (or other) name would hold SVG under the wrong name
    const auto dot = o.plot->rfind('.');
    std::string ext = dot == std::string::npos ? "" : o.plot->substr(dot);
    for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ext != ".svg")
      throw BadInput("--plot " + *o.plot + ": the chart is SVG; name the file .svg (rsvg-convert FILE.svg -o "
                     "FILE.png makes a PNG of it)");
  }
  if (!(o.em.likelihood_tolerance >= 0)) throw BadInput("--em-likelihood-tolerance must be at least 0");
  o.quantile_list = parse_quantiles(o.quantiles);
  if (o.range) o.range_bounds = parse_range(*o.range);
  if (o.em_smoothing && !(*o.em_smoothing >= 0 && *o.em_smoothing < 0.5))
    throw BadInput("--em-smoothing must be in [0, 0.5) (each neighbour's weight; EMS: 0.25)");
  if (!(o.confidence > 0 && o.confidence < 1)) throw BadInput("--confidence must be in (0, 1)");
  if (o.pool_epochs && o.by_epoch) throw BadInput("--pool-epochs and --by-epoch ask for opposite things: give one");
  if (o.epoch && (o.pool_epochs || o.by_epoch))
    throw BadInput("--epoch E estimates one epoch; --pool-epochs and --by-epoch are for several");
  if (o.truth && o.truth_rounds) throw BadInput("--truth and --truth-rounds both give the truth: give one");
  collector::LabelMappingId labels;
  if (o.labels) labels = LabelMap::read(*o.labels, collector::max_collector_domain, "--labels").digest();
  const Merged merged = merge_inputs(o, labels);
  const EpochSeries& total = *merged.total;
  if (o.save_state) {
    const auto bytes = total.serialize();
    std::ofstream out(*o.save_state, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw BadInput("cannot write " + *o.save_state + ": " + std::strerror(errno));
  }
  if (o.epoch)
    std::cerr << "tinyldp: epoch " << *o.epoch << ": " << total.reports() << " report(s) counted, "
              << merged.other_epochs << " of other epochs left out\n";
  std::uint64_t rejected = 0;
  for (const auto& [reason, count] : merged.rejected) {
    std::cerr << "tinyldp: rejected " << count << " report(s): " << reason << "\n";
    rejected += count;
  }
  if (total.reports() == 0)
    throw BadInput(rejected > 0 ? "every report was rejected; nothing to estimate from"
                                : "the inputs hold no reports; nothing to estimate from");
  const Mechanism& m = total.mechanism();
  if (o.candidates && !m.bloom())
    throw BadInput("--candidates decodes Bloom-filter reports; these are " + describe(m));
  const Plan plan = plan_epochs(total, o);
  if (o.truth && plan.series)
    throw BadInput("--truth gives one truth for every epoch; a time series needs each epoch's: give "
                   "--truth-rounds FILE (simulate --rounds writes OUTPUT.rounds.csv), or --epoch E");
  std::optional<std::map<std::uint32_t, std::vector<double>>> rounds;
  if (o.truth_rounds) {
    if (m.bloom()) throw BadInput("--truth-rounds is for one-hot items; Bloom-filter reports take --truth");
    rounds = read_truth_rounds(*o.truth_rounds, m);
  }
  std::vector<EpochTable> tables;
  for (const auto& [epoch, aggregate] : plan.tables) {
    EstimateTable t = m.bloom() ? bloom_table(aggregate, o, *post, rejected) : estimate_table(aggregate, o, *post, rejected);
    if (rounds) {
      const std::optional<std::uint32_t> key = epoch ? epoch : o.epoch;
      const auto at = key ? rounds->find(*key) : rounds->end();
      if (at == rounds->end())
        throw BadInput(*o.truth_rounds + ": no truth for " + (key ? "epoch " + std::to_string(*key) : std::string("these reports")) +
                       (plan.series ? "" : " (pooled epochs: give --by-epoch)"));
      t.truth = at->second;
    }
    if (plan.series) {
      t.about["epoch"] = epoch ? Json(*epoch) : Json(nullptr);
      t.about["rejected"] = nullptr;  // counted over every epoch, in the series' about
      if (m.memoized()) {
        // What a device of the fleet has spent by the end of this epoch, within the epochs
        // given: one report's ε₁, and at most one new memo per epoch (ε∞ each), capped by the
        // memos a device can hold. Epochs before the first given are not seen here.
        const std::uint64_t seen = static_cast<std::uint64_t>(tables.size()) + 1;
        const std::uint64_t memos = std::min<std::uint64_t>(seen, *m.most_memos());
        const double eps_inf = as_double(*m.epsilon_infinity());
        t.about["budget"] = {{"epsilon_per_report", as_double(m.local_epsilon())},
                             {"epsilon_infinity", eps_inf},
                             {"epochs_so_far", seen},
                             {"memos_at_most", memos},
                             {"lifetime_epsilon_at_most", static_cast<double>(memos) * eps_inf}};
      }
    }
    if (aggregate.pools_epochs()) {
      t.about["epochs_pooled"] = aggregate.epochs().size();
      t.about["standard_error_note"] = "accounts for memos shared by one device's reports of several epochs";
    }
    tables.push_back({epoch, std::move(t)});
  }
  if (!plan.series) {
    const EstimateTable& t = tables.front().table;
    if (o.format == "json") {
      write_json(std::cout, t);
    } else {
      write_csv(std::cout, t);
      if (t.about.contains("shuffled_batch")) print_shuffled_batch(std::cerr, t.about["shuffled_batch"], "tinyldp: ");
    }
    if (o.plot) write_svg(*o.plot, t);
  } else {
    Json about = tables.front().table.about;
    about.erase("epoch");
    about["reports"] = total.reports();
    about["rejected"] = rejected;
    about["epochs"] = tables.size();
    if (o.format == "json")
      write_json(std::cout, about, tables);
    else
      write_csv(std::cout, tables);
    if (o.plot)
      for (const auto& e : tables) {
        const std::string path = epoch_plot_path(*o.plot, e.epoch);
        write_svg(path, e.table);
        std::cerr << "tinyldp: wrote " << path << "\n";
      }
  }
  return rejected > 0 && !o.allow_rejected ? exit_rejected : 0;
}

}  // namespace

Subcommand add_aggregate(CLI::App& app) {
  auto o = std::make_shared<AggregateOptions>();
  auto* a = app.add_subcommand("aggregate", "estimate frequencies (numeric: the mean too) from report files");
  a->add_option("reports", o->inputs, "report files (same mechanism and parameters)");
  a->add_option("--format,-f", o->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  a->add_option("--postprocess,-p", o->postprocess,
                "none, clip, norm-sub, simplex or em (maximum likelihood from the counts)")
      ->check(CLI::IsMember({"none", "clip", "norm-sub", "simplex", "em"}));
  a->add_option("--em-tolerance", o->em.tolerance, "em: stop when no frequency changes by more (default 1e-6)");
  a->add_option("--em-max-iterations", o->em.max_iterations, "em: the most iterations (default 10000)");
  a->add_option("--em-likelihood-tolerance", o->em.likelihood_tolerance,
                "em: also stop when a step raises the log-likelihood (in counts) by less (the SW paper's rule: "
                "1e-3; default 0: --em-tolerance alone)");
  a->add_option("--quantiles", o->quantiles,
                "a numeric distribution's quantiles, with intervals (sd, dlaplace, sw; default "
                "0.5,0.9,0.95,0.99; none)")
      ->each([o](const std::string&) { o->quantiles_given = true; });
  a->add_option("--range", o->range, "a numeric distribution's share of values in LO:HI, with its interval");
  a->add_option("--em-smoothing", o->em_smoothing,
                "em over a numeric attribute's ordered values: each neighbour's weight in the smoothing after "
                "every step (EMS; the SW paper's 0.25; default 0: plain EM)");
  a->add_option("--confidence", o->confidence, "confidence level of the intervals (default 0.95)");
  a->add_option("--truth", o->truth, "the raw input, to compare with (same format as simulate's)");
  a->add_option("--column,--truth-column,-c", o->truth_column, "CSV column of --truth: header name or 0-based index");
  a->add_flag("--truth-no-header", o->truth_no_header, "the --truth CSV has no header row");
  add_field_options(*a, o->truth_fields, "--truth ");
  a->add_option("--labels", o->labels,
                 "labels file written by simulate --labels (checked against the mapping the reports record)");
  a->add_option("--candidates", o->candidates,
                "Bloom-filter reports: the strings they may hold, one per line (the rest is unexplained mass)");
  a->add_option("--significance", o->significance,
                "Bloom-filter reports: a candidate is detected when its estimate is significant at this level, "
                "Bonferroni-corrected over the candidates (default 0.05)")
      ->check(CLI::Range(1e-12, 0.5));
  a->add_option("--plot", o->plot, "write an SVG chart of the estimates (and truth)");
  a->add_option("--save-state", o->save_state, "save the merged aggregate state to this file");
  a->add_option("--merge-state", o->merge_states, "add saved aggregate states (shards)");
  add_delta_option(*a, o->delta);
  a->add_flag("--allow-rejected", o->allow_rejected, "exit 0 even if reports were rejected");
  a->add_option("--epoch", o->epoch,
                "count only the reports of this epoch (a round of simulate --rounds, a device's epoch field)");
  a->add_flag("--by-epoch", o->by_epoch,
              "one row per epoch and item (the default for memoized mechanisms, whose epochs share memos)");
  a->add_flag("--pool-epochs", o->pool_epochs,
              "memoized: pool the epochs into one estimate whose standard errors account for the shared memos");
  a->add_option("--truth-rounds", o->truth_rounds,
                "each epoch's truth: the OUTPUT.rounds.csv simulate --rounds writes (round,value,true_count)");
  return {a, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
