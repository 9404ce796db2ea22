// SPDX-License-Identifier: Apache-2.0
// tinyldp aggregate: parse report files (and saved states), merge them, estimate the
// frequency of every item — and for the numeric mechanisms the mean — with intervals, and
// write them through the one writer (output.hpp).
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "cli_common.hpp"
#include "output.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::tools {
namespace {

using collector::Aggregator;
using collector::Mechanism;

struct AggregateOptions {
  std::vector<std::string> inputs, merge_states;
  std::string format = "csv", postprocess = "none";
  double confidence = 0.95;
  std::optional<std::string> truth, truth_column, labels, plot, save_state;
  bool truth_no_header = false, allow_rejected = false;
};

// Every report file and saved state, merged into one aggregate; rejected reports counted by
// reason.
struct Merged {
  std::optional<Aggregator> total;
  std::map<std::string, std::uint64_t> rejected;
};

Merged merge_inputs(const AggregateOptions& o) {
  Merged out;
  std::string first;  // the file that fixed the mechanism
  auto add = [&](const Aggregator& a, const std::string& from) {
    if (!out.total) {
      out.total = a;
      first = from;
    } else if (const auto merged = out.total->merge(a); !merged) {
      if (merged.error == collector::MergeResult::Error::other_parameters)
        throw BadInput(from + " holds reports of another mechanism or other parameters (" +
                       describe(a.mechanism()) + ") than " + first + " (" +
                       describe(out.total->mechanism()) + ")");
      throw BadInput("cannot add " + from + " to " + first + ": " + merged.reason());
    }
  };
  std::uint64_t read = 0;
  const bool show_progress = stderr_is_terminal();
  for (const auto& path : o.inputs) {
    collector::ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    Aggregator a(reader.mechanism());
    std::vector<std::uint8_t> report;
    while (reader.next(report)) {
      const collector::ParseError e = a.ingest(report);
      if (e != collector::ParseError::none) ++out.rejected[to_string(e)];
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
  if (!out.total) throw BadInput("nothing to aggregate: give report files or --merge-state");
  return out;
}

// The estimates as one table: the items' frequencies (numeric: over the levels or values,
// and the mean), the truth when given, and what they are of.
EstimateTable estimate_table(const Aggregator& total, const AggregateOptions& o,
                             collector::Postprocess post, std::uint64_t rejected) {
  const Mechanism& m = total.mechanism();
  if (o.labels && m.numeric())
    throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reports numbers");
  EstimateTable t;
  t.about["mechanism"] = collector::name_of(m.config().id);
  t.about["requested_epsilon"] = as_double(m.config().epsilon);
  t.about["realized_epsilon"] = as_double(m.realized_epsilon());
  if (m.takes_sensitivity()) t.about["local_epsilon"] = as_double(m.local_epsilon());
  for (const auto& p : m.parameters()) t.about[p.name] = p.value;
  t.about["reports"] = total.reports();
  t.about["rejected"] = rejected;
  t.about["postprocess"] = name_of(post);
  t.about["confidence"] = o.confidence;
  if (o.truth_column) {
    const bool index = o.truth_column->find_first_not_of("0123456789") == std::string::npos;
    t.column = index ? "column " + *o.truth_column : *o.truth_column;
  }

  std::vector<std::string> labels;
  if (o.labels) labels = read_label_file(*o.labels);
  if (m.numeric()) {
    const collector::NumericModel model = collector::numeric_model(m);
    t.mean = collector::estimate_mean(total, model, o.confidence);
    t.items = collector::estimate_distribution(total, model, post, o.confidence);
    if (o.plot) {
      std::vector<double> values;
      for (std::uint32_t i = 0; i < m.domain(); ++i) values.push_back(m.item_value(i));
      t.bin_start = chart_bins(values);
      if (!t.bin_start.empty()) t.bins = collector::estimate_bins(total, model, t.bin_start, post, o.confidence);
    }
  } else {
    t.items = collector::estimate(total, post, o.confidence);
  }
  for (std::uint32_t i = 0; i < m.domain(); ++i) {
    if (m.numeric()) {
      const double value = m.item_value(i);
      t.item_text.push_back(value_text(value));
      t.item_key.emplace_back(m.integer_items() ? Json(static_cast<std::int64_t>(value)) : Json(value));
    } else {
      t.item_text.push_back(i < labels.size() ? labels[i] : std::to_string(i));
      t.item_key.emplace_back(t.item_text.back());
    }
  }
  if (o.truth) {
    const ValueSource source{*o.truth, o.truth_column, !o.truth_no_header, o.labels.has_value()};
    const PrivateValues values = read_private_values(source, m, o.labels ? &labels : nullptr);
    if (values.values.empty()) throw BadInput(*o.truth + ": no values");
    const double n = static_cast<double>(values.values.size());
    t.truth.emplace(m.domain(), 0.0);
    double sum = 0;
    for (std::int64_t v : values.values) {
      sum += static_cast<double>(v);
      for (const auto& [item, weight] : m.item_weights(v)) (*t.truth)[item] += weight / n;
    }
    if (m.numeric()) t.true_mean = sum / n;
  }
  return t;
}

int run(const AggregateOptions& o) {
  const auto post = collector::postprocess_from_name(o.postprocess);
  if (!post) throw BadInput("unknown --postprocess \"" + o.postprocess + "\" (none, clip, norm-sub, simplex)");
  if (!(o.confidence > 0 && o.confidence < 1)) throw BadInput("--confidence must be in (0, 1)");
  const Merged merged = merge_inputs(o);
  const Aggregator& total = *merged.total;
  if (o.save_state) {
    const auto bytes = total.serialize();
    std::ofstream out(*o.save_state, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw BadInput("cannot write " + *o.save_state);
  }
  std::uint64_t rejected = 0;
  for (const auto& [reason, count] : merged.rejected) {
    std::cerr << "tinyldp: rejected " << count << " report(s): " << reason << "\n";
    rejected += count;
  }
  if (total.reports() == 0)
    throw BadInput(rejected > 0 ? "every report was rejected; nothing to estimate from"
                                : "the inputs hold no reports; nothing to estimate from");
  const EstimateTable t = estimate_table(total, o, *post, rejected);
  if (o.format == "json")
    write_json(std::cout, t);
  else
    write_csv(std::cout, t);
  if (o.plot) write_svg(*o.plot, t);
  return rejected > 0 && !o.allow_rejected ? exit_rejected : 0;
}

}  // namespace

Subcommand add_aggregate(CLI::App& app) {
  auto o = std::make_shared<AggregateOptions>();
  auto* a = app.add_subcommand("aggregate", "estimate frequencies (numeric: the mean too) from report files");
  a->add_option("reports", o->inputs, "report files (same mechanism and parameters)");
  a->add_option("--format,-f", o->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  a->add_option("--postprocess,-p", o->postprocess, "none, clip, norm-sub or simplex")
      ->check(CLI::IsMember({"none", "clip", "norm-sub", "simplex"}));
  a->add_option("--confidence", o->confidence, "confidence level of the intervals (default 0.95)");
  a->add_option("--truth", o->truth, "the raw input, to compare with (same format as simulate's)");
  a->add_option("--column,--truth-column,-c", o->truth_column, "CSV column of --truth: header name or 0-based index");
  a->add_flag("--truth-no-header", o->truth_no_header, "the --truth CSV has no header row");
  a->add_option("--labels", o->labels, "label file written by simulate --labels");
  a->add_option("--plot", o->plot, "write an SVG chart of the estimates (and truth)");
  a->add_option("--save-state", o->save_state, "save the merged aggregate state to this file");
  a->add_option("--merge-state", o->merge_states, "add saved aggregate states (shards)");
  a->add_flag("--allow-rejected", o->allow_rejected, "exit 0 even if reports were rejected");
  return {a, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
