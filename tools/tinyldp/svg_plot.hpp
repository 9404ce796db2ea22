// SPDX-License-Identifier: Apache-2.0
// A bar chart of estimates with their intervals (and the truth, when known) as a standalone SVG
// file, laid out so that it can be read: every text measured (a conservative width estimate)
// and the canvas sized to hold it, long labels shortened with an ellipsis (the whole label in a
// tooltip), a y-range chosen from the bars and the truth rather than from the widest interval
// (cut whiskers end in an arrowhead). What to draw — which bars, how labelled — is the
// caller's (output.cpp); this file only lays it out. Cost: O(bars) time and output.
#ifndef TINYLDP_TOOLS_SVG_PLOT_HPP
#define TINYLDP_TOOLS_SVG_PLOT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyldp::tools {

struct PlotBar {
  std::string label;  // as the axis shows it (full; shortened when drawn)
  double estimate = 0;
  std::optional<double> ci_low, ci_high;  // none: no interval to draw
  std::optional<double> truth;
  std::optional<double> unbiased;  // beside a post-processed estimate: a hollow diamond
};

struct Plot {
  std::vector<std::string> title;  // lines, wrapped to the canvas when drawn
  std::string x_name, y_name;
  std::vector<PlotBar> bars;
  std::optional<double> y_min, y_max;  // hard limits of the y-axis (frequencies: −1 and 1)
  std::vector<std::string> legend;  // [0] the bars, [1] the truth (if any bar has one), then notes
  std::string unbiased_legend;      // the diamonds' entry (after the truth), if any bar has one
  std::string unbiased_name = "unbiased";  // the diamonds' value in a bar's tooltip and notes
};

std::string plot_svg(const Plot& plot);

// Width in pixels of `text` drawn at `font_size` in a sans-serif font: DejaVu Sans's advance
// widths (among the widest common sans fonts) rounded up, one em for anything not ASCII.
double text_width(std::string_view text, double font_size);

// The longest prefix of `text` (whole UTF-8 characters) that, with "…" appended, is at most
// `max_width` pixels wide; `text` itself if it fits.
std::string shorten(const std::string& text, double max_width, double font_size);

}  // namespace tinyldp::tools

#endif
