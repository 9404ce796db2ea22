// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>

#include "svg_plot.hpp"

namespace tinyldp::tools {

namespace {

// A number as a plain decimal with `digits` significant digits (no exponent between 1e-4 and
// 1e15, where pandas and people read it alike), trailing zeros dropped.
std::string number(double v, int digits = 6) {
  char buffer[64];
  const double magnitude = std::fabs(v);
  if (v == 0) return "0";
  if (!(magnitude >= 1e-4 && magnitude < 1e15)) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    return buffer;
  }
  const int decimals = std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(magnitude))));
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  std::string s = buffer;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// A count: a plain number with one decimal (an estimate need not be whole).
std::string count_text(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

std::string significant(double v, int digits) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

// A value rounded for people: whole numbers as such, others to the decimals that tell
// neighbours `spacing` apart at 3 significant digits (27.42857143 → 27.4 at spacing 10.4).
std::string rounded(double v, double spacing) {
  if (std::fabs(v - std::round(v)) < 1e-9) return number(std::round(v));
  const int decimals = spacing > 0 ? std::clamp(2 - static_cast<int>(std::floor(std::log10(spacing))), 0, 9) : 3;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

// A value with the decimals its standard error warrants (two significant digits of the SE).
std::string with_error(double v, double se) {
  const int decimals = se > 0 ? std::clamp(1 - static_cast<int>(std::floor(std::log10(se))), 0, 9) : 3;
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%.*f ± %.*f", decimals, v, decimals, se);
  return buffer;
}

// The post-processing the chart draws (the table's, unless a numeric chart shows EM's).
std::string chart_postprocess(const EstimateTable& t) {
  return t.chart_postprocess.empty() ? t.about.value("postprocess", "none") : t.chart_postprocess;
}

// A bar; post-processed, with the unbiased estimate beside it as a marker.
PlotBar bar_of(const std::string& label, const collector::ItemEstimate& e, std::optional<double> truth,
               bool post_processed) {
  return {label, e.frequency, e.ci_low, e.ci_high, truth,
          post_processed ? std::optional(e.unbiased_frequency) : std::nullopt};
}

// The bars: every item; a numeric distribution's bins; or a long categorical domain's most
// frequent items and "other".
std::vector<PlotBar> bars_of(const EstimateTable& t, std::string& note) {
  std::vector<PlotBar> bars;
  const std::vector<collector::ItemEstimate>& items = t.chart_items.empty() ? t.items : t.chart_items;
  const bool post = chart_postprocess(t) != "none";
  const auto truth_of = [&](std::size_t i) { return t.truth ? std::optional((*t.truth)[i]) : std::nullopt; };
  if (t.mean) {  // numeric: the items are values
    std::vector<double> values;
    for (const Json& key : t.item_key) values.push_back(key.get<double>());
    const double spacing = values.size() > 1 ? (values.back() - values.front()) / static_cast<double>(values.size() - 1) : 0;
    if (t.bin_start.empty()) {
      for (std::size_t i = 0; i < items.size(); ++i) bars.push_back(bar_of(rounded(values[i], spacing), items[i], truth_of(i), post));
      return bars;
    }
    for (std::size_t b = 0; b < t.bins.size(); ++b) {
      const std::size_t first = t.bin_start[b];
      const std::size_t end = b + 1 < t.bin_start.size() ? t.bin_start[b + 1] : values.size();
      std::optional<double> truth;
      if (t.truth) truth = std::accumulate(t.truth->begin() + static_cast<std::ptrdiff_t>(first),
                                           t.truth->begin() + static_cast<std::ptrdiff_t>(end), 0.0);
      const std::string label = end - first == 1 ? rounded(values[first], spacing)
                                                 : rounded(values[first], spacing) + "–" + rounded(values[end - 1], spacing);
      bars.push_back(bar_of(label, t.bins[b], truth, post));
    }
    note = "bars: " + std::to_string(values.size()) + " values in " + std::to_string(t.bins.size()) +
           " bins, each bin's estimate and interval computed for the bin";
    return bars;
  }
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  if (order.size() <= chart_max_bars) {
    for (std::size_t i : order) bars.push_back(bar_of(t.item_text[i], items[i], truth_of(i), post));
    return bars;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return items[a].frequency > items[b].frequency; });
  const std::size_t shown = chart_max_bars - 1;
  for (std::size_t k = 0; k < shown; ++k) bars.push_back(bar_of(t.item_text[order[k]], items[order[k]], truth_of(order[k]), post));
  PlotBar other{"other (" + std::to_string(order.size() - shown) + ")", 0, std::nullopt, std::nullopt,
                t.truth ? std::optional(0.0) : std::nullopt, std::nullopt};
  for (std::size_t k = shown; k < order.size(); ++k) {
    other.estimate += items[order[k]].frequency;
    if (t.truth) *other.truth += (*t.truth)[order[k]];
  }
  bars.push_back(other);
  note = "other: the " + std::to_string(order.size() - shown) + " less frequent items summed (no interval)";
  return bars;
}

Plot chart_of(const EstimateTable& t) {
  Plot p;
  std::string note;
  p.bars = bars_of(t, note);
  const bool numeric = t.mean.has_value();
  std::string first = (t.column.empty() ? std::string() : t.column + ": ") + "estimated " +
                      (numeric ? "distribution" : "frequencies");
  if (numeric) {
    first += ", mean " + with_error(t.mean->mean, t.mean->standard_error);
    if (t.true_mean) first += " (true " + significant(*t.true_mean, 4) + ")";
  }
  const std::string post = chart_postprocess(t);
  const std::string confidence = significant(t.about.value("confidence", 0.95) * 100, 4);
  p.title = {first, t.about.value("mechanism", "") + ", ε = " + significant(t.about.value("realized_epsilon", 0.0), 4) +
                        ", " + std::to_string(t.about.value("reports", std::uint64_t{0})) + " reports" +
                        (post == "none" ? ""
                         : post == "em" ? ", bars: maximum likelihood (em)"
                                        : ", post-processed: " + post) +
                        ", " + confidence + " % intervals"};
  if (!t.chart_warning.empty()) p.title.push_back("warning: " + t.chart_warning);
  p.x_name = t.column.empty() ? (numeric ? "value" : "category") : t.column;
  p.y_name = "frequency";
  p.y_min = -1;
  p.y_max = 1;
  p.legend = {"estimate with its " + confidence + " % interval", "true frequency"};
  if (!t.truth) p.legend.pop_back();
  if (post != "none")  // a Bloom decode's raw answer is its least-squares fit (bloom_decode.hpp)
    p.unbiased_legend = std::string(t.about.contains("candidates") ? "least-squares fit" : "unbiased estimate") +
                        " (before " + post + ")";
  if (!note.empty()) p.legend.push_back(note);
  return p;
}

}  // namespace

std::vector<std::uint32_t> chart_bins(const std::vector<double>& values) {
  std::vector<std::uint32_t> start;
  if (values.size() <= chart_max_bars) return start;
  const bool integers = std::all_of(values.begin(), values.end(), [](double v) { return v == std::round(v); });
  if (!integers) {  // runs of whole items
    const std::size_t run = (values.size() + chart_max_bars - 1) / chart_max_bars;
    for (std::size_t i = 0; i < values.size(); i += run) start.push_back(static_cast<std::uint32_t>(i));
    return start;
  }
  for (double width = 1;; width *= 10)
    for (const double w : {width, 2 * width, 5 * width}) {
      start.clear();
      double current = NAN;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double bin = std::floor(values[i] / w);
        if (!(bin == current)) start.push_back(static_cast<std::uint32_t>(i));
        current = bin;
      }
      if (start.size() <= chart_max_bars) return start;
    }
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {
// The rows of one table, each after `prefix` (a time series' epoch, a record's attribute).
void write_csv_rows(std::ostream& out, const EstimateTable& t, const std::string& prefix, bool truth_column) {
  if (t.mean) {
    const auto& m = *t.mean;
    // Values of the attribute's own scale: 10 significant digits, as the items' values.
    out << prefix << "mean,," << number(m.mean, 10) << ",," << number(m.ci_low, 10) << "," << number(m.ci_high, 10) << ","
        << number(m.mean, 10) << "," << number(m.standard_error);
    if (truth_column) out << "," << (t.true_mean ? number(*t.true_mean, 10) : "");
    out << "\n";
  }
  for (std::size_t i = 0; i < t.quantiles.size(); ++i) {
    const auto& q = t.quantiles[i];
    out << prefix << "quantile," << number(q.q) << "," << number(q.value, 10) << ",," << number(q.ci_low, 10) << ","
        << number(q.ci_high, 10) << ",,";
    if (truth_column) out << "," << (i < t.true_quantiles.size() ? number(t.true_quantiles[i], 10) : "");
    out << "\n";
  }
  if (t.range) {
    const auto& e = *t.range;
    out << prefix << "range," << csv_field(t.range_text) << "," << number(e.frequency) << "," << count_text(e.count)
        << "," << number(e.ci_low) << "," << number(e.ci_high) << "," << number(e.unbiased_frequency) << ","
        << number(e.standard_error);
    if (truth_column) out << "," << (t.true_range ? number(*t.true_range) : "");
    out << "\n";
  }
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    const auto& e = t.items[i];
    out << prefix << "frequency," << csv_field(t.item_text[i]) << "," << number(e.frequency) << "," << count_text(e.count)
        << "," << number(e.ci_low) << "," << number(e.ci_high) << "," << number(e.unbiased_frequency) << ","
        << number(e.standard_error);
    if (truth_column) out << "," << (t.truth ? number((*t.truth)[i]) : "");
    out << "\n";
  }
}
}  // namespace

void add_estimates(Json& j, const EstimateTable& t) {
  if (t.mean) {
    Json jm = {{"estimate", t.mean->mean}, {"standard_error", t.mean->standard_error},
               {"ci_low", t.mean->ci_low}, {"ci_high", t.mean->ci_high}};
    if (t.true_mean) jm["true_value"] = *t.true_mean;
    j["mean"] = jm;
  }
  if (!t.quantiles.empty()) {
    j["quantiles"] = Json::array();
    for (std::size_t i = 0; i < t.quantiles.size(); ++i) {
      const auto& q = t.quantiles[i];
      Json jq = {{"q", q.q}, {"estimate", q.value}, {"ci_low", q.ci_low}, {"ci_high", q.ci_high}};
      if (i < t.true_quantiles.size()) jq["true_value"] = t.true_quantiles[i];
      j["quantiles"].push_back(jq);
    }
  }
  if (t.range) {
    const auto& e = *t.range;
    Json jr = {{"item", t.range_text},       {"count", e.count},
               {"estimate", e.frequency},    {"ci_low", e.ci_low},
               {"ci_high", e.ci_high},       {"unbiased_estimate", e.unbiased_frequency},
               {"standard_error", e.standard_error}};
    if (t.true_range) jr["true_value"] = *t.true_range;
    j["range"] = jr;
  }
  j["items"] = Json::array();
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    const auto& e = t.items[i];
    Json item = {{"item", t.item_key[i]},
                 {"count", e.count},
                 {"estimate", e.frequency},
                 {"ci_low", e.ci_low},
                 {"ci_high", e.ci_high},
                 {"unbiased_estimate", e.unbiased_frequency},
                 {"standard_error", e.standard_error}};
    if (t.truth) item["true_value"] = (*t.truth)[i];
    j["items"].push_back(item);
  }
}

void write_json(std::ostream& out, const EstimateTable& t) {
  Json j = t.about;
  add_estimates(j, t);
  out << j.dump(2) << "\n";
}

void write_csv(std::ostream& out, const EstimateTable& t) {
  const bool truth = t.truth || t.true_mean;
  out << csv_columns << (truth ? ",true_value" : "") << "\n";
  write_csv_rows(out, t, "", truth);
}

void write_csv(std::ostream& out, const std::string& key_column, const std::vector<KeyedTable>& tables) {
  bool truth = false;
  for (const auto& k : tables) truth = truth || k.table->truth || k.table->true_mean;
  out << key_column << "," << csv_columns << (truth ? ",true_value" : "") << "\n";
  for (const auto& k : tables) write_csv_rows(out, *k.table, csv_field(k.key) + ",", truth);
}

void write_json(std::ostream& out, const Json& about, const std::vector<EpochTable>& series) {
  Json j = about;
  j["epochs"] = Json::array();
  for (const auto& e : series) {
    Json entry = {{"epoch", e.epoch ? Json(*e.epoch) : Json(nullptr)}, {"reports", e.table.about.value("reports", std::uint64_t{0})}};
    for (const char* key : {"em_iterations", "em_converged", "budget"})
      if (e.table.about.contains(key)) entry[key] = e.table.about[key];
    add_estimates(entry, e.table);
    j["epochs"].push_back(entry);
  }
  out << j.dump(2) << "\n";
}

void write_csv(std::ostream& out, const std::vector<EpochTable>& series) {
  std::vector<KeyedTable> tables;
  for (const auto& e : series) tables.push_back({e.epoch ? std::to_string(*e.epoch) : "", &e.table});
  write_csv(out, "epoch", tables);
}

void write_svg(const std::string& path, const EstimateTable& t) { write_svg(path, chart_of(t)); }

void write_svg(const std::string& path, const Plot& plot) {
  std::ofstream out(path);
  out << plot_svg(plot);
  if (!out) throw BadInput("cannot write " + path);
}

}  // namespace tinyldp::tools
