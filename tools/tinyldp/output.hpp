// SPDX-License-Identifier: Apache-2.0
// The one writer of estimates — `tinyldp aggregate`'s JSON, CSV and SVG chart, and `multi`'s
// JSON and CSV — from one table:
// what the estimates are of (JSON only), the mean for the numeric mechanisms, and one row per
// item with its estimate and, when known, the true frequency.
//
// Every item has its unbiased estimate with a standard error, and the answer (`estimate`,
// post-processed when asked, `count` = estimate × reports) with an interval that contains it
// (collector/estimates.hpp says how). The CSV is one tidy RFC 4180 table: a `kind` column
// (`mean`, `frequency`), fields quoted when they hold a comma, a quote or a line break.
#ifndef TINYLDP_TOOLS_OUTPUT_HPP
#define TINYLDP_TOOLS_OUTPUT_HPP

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "svg_plot.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"

namespace tinyldp::tools {

struct EstimateTable {
  Json about;          // mechanism, ε, parameters, report counts, post-processing, confidence
  std::string column;  // what the values are (the input's column name), for the chart; may be empty
  std::optional<collector::MeanEstimate> mean;
  std::optional<double> true_mean;
  std::vector<std::string> item_text;  // an item as CSV shows it
  std::vector<Json> item_key;          // an item as JSON shows it (a label, or the value)
  std::vector<collector::ItemEstimate> items;
  std::optional<std::vector<double>> truth;  // true frequency of each item
  // A numeric distribution's quantiles (aggregate --quantiles) and a range's share (--range
  // LO:HI), with the truth's over the same atoms when given.
  std::vector<collector::QuantileEstimate> quantiles;
  std::vector<double> true_quantiles;
  std::optional<collector::ItemEstimate> range;
  std::string range_text;
  std::optional<double> true_range;
  // A numeric distribution too long for a chart, estimated over runs of items (chart_bins).
  std::vector<std::uint32_t> bin_start;
  std::vector<collector::ItemEstimate> bins;
  // What the chart draws when it differs from the table: a numeric distribution's chart shows a
  // non-negative estimate (EM's when the table's is unbiased), its post-processing named here;
  // bins are then estimated with it.
  std::string chart_postprocess;
  std::vector<collector::ItemEstimate> chart_items;  // empty: the table's items
  // Why the drawn estimate is not what its name promises (EM stopped at its iteration cap):
  // a line of the chart's title, so that the picture never hides it. Empty: nothing to say.
  std::string chart_warning;
};

// The most bars a chart draws: a longer categorical domain shows its most frequent items and
// one "other" bar, a longer numeric one is binned.
inline constexpr std::size_t chart_max_bars = 30;

// For a numeric distribution over `values` (ascending) with more than chart_max_bars items: the
// first item of each bin — equal widths of 1, 2 or 5 × 10^k (integers) or of whole runs of
// items, aligned to multiples of the width. Empty when every item gets its own bar.
std::vector<std::uint32_t> chart_bins(const std::vector<double>& values);

// The one vocabulary of every estimate tinyldp writes (aggregate, its time series, multi; Python's
// dicts and data frames use the same names): `estimate` (post-processed when asked), `count`,
// `ci_low`, `ci_high`, `unbiased_estimate`, `standard_error` and, when known, `true_value`.
inline constexpr const char* csv_columns = "kind,item,estimate,count,ci_low,ci_high,unbiased_estimate,standard_error";

// JSON: `about`, then "mean" (numeric: estimate, standard_error, ci_low, ci_high[, true_value]),
// "quantiles" (q, estimate, ci_low, ci_high[, true_value]) and "range" (item "LO:HI", an item's
// fields) when estimated, then "items" (item, count, estimate, ci_low, ci_high,
// unbiased_estimate, standard_error [, true_value]). CSV: one table, header
// csv_columns[,true_value]: the mean row, quantile rows (item q), the range row, then the items.
void write_json(std::ostream& out, const EstimateTable& t);
void write_csv(std::ostream& out, const EstimateTable& t);
// The "mean" and "items" of t added to the JSON object j.
void add_estimates(Json& j, const EstimateTable& t);
// Several tables as one CSV: a first column named key_column holds each table's key (an
// epoch, an attribute), then csv_columns[,true_value].
struct KeyedTable {
  std::string key;
  const EstimateTable* table;
};
void write_csv(std::ostream& out, const std::string& key_column, const std::vector<KeyedTable>& tables);
// A time series: one table per epoch (`about` then holds the epoch), written as one table —
// JSON: the series' `about`, then "epochs", each {epoch, reports, [mean], items}; CSV: the
// columns above with `epoch` first.
struct EpochTable {
  std::optional<std::uint32_t> epoch;
  EstimateTable table;
};
void write_json(std::ostream& out, const Json& about, const std::vector<EpochTable>& series);
void write_csv(std::ostream& out, const std::vector<EpochTable>& series);
// A bar chart with interval bars (and the truth) as a standalone SVG file; throws BadInput if
// the file cannot be written.
void write_svg(const std::string& path, const EstimateTable& t);
// Any chart (svg_plot.hpp) to `path`; BadInput if it cannot be written.
void write_svg(const std::string& path, const Plot& plot);

// A CSV field as RFC 4180 wants it: quoted (quotes doubled) if it holds , " CR or LF.
std::string csv_field(const std::string& text);

}  // namespace tinyldp::tools

#endif
