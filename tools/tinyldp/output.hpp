// SPDX-License-Identifier: Apache-2.0
// The one writer of estimates — `tinyldp aggregate`'s JSON, CSV and SVG chart — from one table:
// what the estimates are of (JSON only), the mean for the numeric mechanisms, and one row per
// item with its estimate and, when known, the true frequency.
#ifndef TINYLDP_TOOLS_OUTPUT_HPP
#define TINYLDP_TOOLS_OUTPUT_HPP

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"

namespace tinyldp::tools {

struct EstimateTable {
  Json about;  // mechanism, ε, parameters, report counts, post-processing, confidence
  std::optional<collector::MeanEstimate> mean;
  std::optional<double> true_mean;
  std::vector<std::string> item_text;  // an item as CSV and the chart show it
  std::vector<Json> item_key;          // an item as JSON shows it (a label, or the value)
  std::vector<collector::ItemEstimate> items;
  std::optional<std::vector<double>> truth;  // true frequency of each item
};

// JSON: `about`, then "mean" (numeric), then "items". CSV: the mean's table first (numeric) and
// a blank line, then one row per item, numbers with 6 significant digits.
void write_json(std::ostream& out, const EstimateTable& t);
void write_csv(std::ostream& out, const EstimateTable& t);
// A bar chart with interval bars (and the truth) as a standalone SVG file; throws BadInput if
// the file cannot be written.
void write_svg(const std::string& path, const EstimateTable& t, const std::string& title);

}  // namespace tinyldp::tools

#endif
