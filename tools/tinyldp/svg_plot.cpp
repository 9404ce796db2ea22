// SPDX-License-Identifier: Apache-2.0
#include "svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace tinyldp::tools {

namespace {

// DejaVu Sans advance widths of ASCII 32 … 126 in thousandths of an em, rounded up (measured
// from the font's hmtx table; Arial and Liberation Sans are narrower, so this overestimates).
constexpr std::uint16_t ascii_width[95] = {
    318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361, 318, 337,
    637, 637, 637, 637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 531,
    1000, 685, 687, 699, 771, 632, 576, 775, 752, 295, 295, 656, 558, 863, 749, 788,
    604, 788, 695, 635, 611, 732, 685, 989, 686, 611, 686, 391, 337, 391, 838, 500,
    500, 613, 635, 550, 635, 616, 353, 635, 634, 278, 278, 580, 278, 975, 634, 612,
    635, 635, 412, 521, 393, 634, 592, 818, 592, 592, 525, 637, 337, 637, 838,
};

constexpr double font = 11, title_font = 14;
constexpr double max_label_width = 120;  // an axis label is shortened beyond this (px)
constexpr double min_slot = 26, min_plot_width = 360, plot_height = 260;
constexpr double max_canvas_width = 960;  // titles wrap rather than widen past this
constexpr double margin = 12;             // canvas edge to any text
constexpr double diagonal = 0.7071067811865476;

bool continues_utf8(unsigned char c) { return (c & 0xC0) == 0x80; }

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Greedy word wrap of one line to max_width.
std::vector<std::string> wrap(const std::string& line, double max_width, double size) {
  std::vector<std::string> out;
  std::istringstream words(line);
  std::string word, current;
  while (words >> word) {
    const std::string candidate = current.empty() ? word : current + " " + word;
    if (!current.empty() && text_width(candidate, size) > max_width) {
      out.push_back(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(decimals);
  o << v;
  return o.str();
}

std::string significant(double v) {
  std::ostringstream o;
  o.precision(4);
  o << v;
  return o.str();
}

// A hollow diamond centred on (x, y): the unbiased estimate beside a post-processed bar.
std::string diamond(double x, double y) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "<polygon points=\"" << x << "," << y - 5 << " " << x + 5 << "," << y << " " << x << "," << y + 5 << " "
    << x - 5 << "," << y << "\" fill=\"white\" fill-opacity=\"0.6\" stroke=\"#222\"/>";
  return s.str();
}

// The y-range: everything the bars and the truth need (and 0), widened for the intervals by at
// most half that span each way — a whisker past it is cut and ends in an arrowhead, so one
// very uncertain item cannot flatten the others — then bounded by the plot's hard limits and
// rounded out to the tick step.
struct YAxis {
  double lo = 0, hi = 1, step = 0.2;
  int decimals = 1;
};

YAxis choose_y_axis(const Plot& p) {
  double core_lo = 0, core_hi = 0, whisker_lo = 0, whisker_hi = 0;
  for (const PlotBar& b : p.bars) {
    core_lo = std::min({core_lo, b.estimate, b.truth.value_or(0.0)});
    core_hi = std::max({core_hi, b.estimate, b.truth.value_or(0.0)});
    whisker_lo = std::min(whisker_lo, b.ci_low.value_or(0.0));
    whisker_hi = std::max(whisker_hi, b.ci_high.value_or(0.0));
  }
  const double span = std::max(core_hi - core_lo, 1e-9);
  YAxis a;
  double lo = std::max(whisker_lo, core_lo - span / 2), hi = std::min(whisker_hi, core_hi + span / 2);
  lo = std::min(lo, core_lo);
  hi = std::max(hi, core_hi);
  if (p.y_min) lo = std::max(lo, *p.y_min);
  if (p.y_max) hi = std::min(hi, *p.y_max);
  if (!(hi > lo)) hi = lo + 1;
  // A "nice" step: 1, 2 or 5 times a power of ten, about 5 of them.
  const double raw_step = (hi - lo) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double ratio = raw_step / magnitude;
  a.step = magnitude * (ratio < 1.5 ? 1 : ratio < 3.5 ? 2 : ratio < 7.5 ? 5 : 10);
  a.lo = std::floor(lo / a.step + 1e-9) * a.step;
  a.hi = std::ceil(hi / a.step - 1e-9) * a.step;
  a.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(a.step) + 1e-9)));
  return a;
}

}  // namespace

double text_width(std::string_view text, double font_size) {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 32 && c < 127)
      em += ascii_width[c - 32] / 1000.0;
    else if (!continues_utf8(c))
      em += 1.0;  // one character, of whatever width: assume a full em
  }
  return em * font_size;
}

std::string shorten(const std::string& text, double max_width, double font_size) {
  if (text_width(text, font_size) <= max_width) return text;
  const double budget = max_width - text_width("…", font_size);
  std::size_t end = 0;
  for (std::size_t i = 1; i <= text.size(); ++i) {
    if (i < text.size() && continues_utf8(static_cast<unsigned char>(text[i]))) continue;
    if (text_width(std::string_view(text).substr(0, i), font_size) > budget) break;
    end = i;
  }
  return text.substr(0, end) + "…";
}

std::string plot_svg(const Plot& p) {
  const std::size_t n = std::max<std::size_t>(p.bars.size(), 1);
  const YAxis axis = choose_y_axis(p);
  std::vector<std::string> shown;  // labels as drawn
  double widest_label = 0;
  for (const PlotBar& b : p.bars) {
    shown.push_back(shorten(b.label, max_label_width, font));
    widest_label = std::max(widest_label, text_width(shown.back(), font));
  }
  // Horizontal labels when every one fits a slot of at most 60 px and the slots fit the widest
  // canvas, else at 45 degrees.
  const bool level_labels =
      widest_label + 6 <= 60 && (widest_label + 6) * static_cast<double>(n) + 120 <= max_canvas_width;
  double slot = level_labels ? std::max(min_slot, widest_label + 6) : min_slot;
  double plot_w = std::max(min_plot_width, slot * static_cast<double>(n));
  double widest_tick = 0;
  for (double v = axis.lo; v <= axis.hi + axis.step / 2; v += axis.step)
    widest_tick = std::max(widest_tick, text_width(fixed(v, axis.decimals), font));
  double left = margin + font + 8 + widest_tick + 6;  // y-axis name, ticks
  if (!level_labels)  // a rotated label reaches down-left of its bar
    for (std::size_t i = 0; i < p.bars.size(); ++i) {
      const double reach = diagonal * (text_width(shown[i], font) + font);
      left = std::max(left, margin + reach - plot_w / static_cast<double>(n) * (static_cast<double>(i) + 0.5));
    }
  const double right = margin + 8;
  double width = left + plot_w + right;
  // The title decides the width up to max_canvas_width, then wraps; so does the legend.
  double widest_title = 0;
  for (const std::string& line : p.title) widest_title = std::max(widest_title, text_width(line, title_font));
  double widest_legend = 0;
  for (const std::string& entry : p.legend) widest_legend = std::max(widest_legend, 20 + text_width(entry, font));
  widest_legend = std::max(widest_legend, 20 + text_width(p.unbiased_legend, font));
  width = std::max(width, std::min(max_canvas_width, std::max(widest_title, widest_legend + left - margin) + 2 * margin));
  plot_w = width - left - right;
  slot = plot_w / static_cast<double>(n);
  std::vector<std::string> title_lines;
  for (const std::string& line : p.title)
    for (const std::string& wrapped : wrap(line, width - 2 * margin, title_font)) title_lines.push_back(wrapped);
  // The legend: [0] with a bar's swatch, the truth's with its dot, the diamonds' entry after it.
  enum class Symbol { none, bar, truth, diamond };
  const bool has_truth = std::any_of(p.bars.begin(), p.bars.end(), [](const PlotBar& b) { return b.truth; });
  const bool has_unbiased = !p.unbiased_legend.empty() &&
                            std::any_of(p.bars.begin(), p.bars.end(), [](const PlotBar& b) { return b.unbiased; });
  std::vector<std::pair<Symbol, std::string>> legend;
  const auto add = [&](Symbol symbol, const std::string& text) {
    legend.emplace_back(symbol, shorten(text, width - left - right - 20, font));
  };
  for (std::size_t i = 0; i < p.legend.size(); ++i) {
    add(i == 0 ? Symbol::bar : i == 1 && has_truth ? Symbol::truth : Symbol::none, p.legend[i]);
    if (has_unbiased && i == (has_truth ? 1u : 0u)) add(Symbol::diamond, p.unbiased_legend);
  }
  const auto outside = [&](std::optional<double> v) { return v && (*v < axis.lo || *v > axis.hi); };
  const bool cut = std::any_of(p.bars.begin(), p.bars.end(), [&](const PlotBar& b) {
    return b.ci_low.value_or(axis.lo) < axis.lo || b.ci_high.value_or(axis.hi) > axis.hi;
  });
  const bool diamonds_cut = std::any_of(p.bars.begin(), p.bars.end(), [&](const PlotBar& b) { return outside(b.unbiased); });
  if (cut) add(Symbol::none, "arrowheads: intervals that reach past the axis");
  if (diamonds_cut) add(Symbol::none, "diamonds on the axis's edge: " + p.unbiased_name + " values beyond it");

  const double top = margin + 18 * static_cast<double>(title_lines.size()) + 16 * static_cast<double>(legend.size()) + 10;
  const double label_depth = level_labels ? font + 4 : diagonal * (widest_label + font) + 4;
  const double height = top + plot_height + 8 + label_depth + 8 + font + margin;
  const double bottom_of_plot = top + plot_height;
  auto y = [&](double v) {
    return bottom_of_plot - plot_height * (std::clamp(v, axis.lo, axis.hi) - axis.lo) / (axis.hi - axis.lo);
  };

  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"" << font
    << "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (std::size_t i = 0; i < title_lines.size(); ++i)
    s << "<text x=\"" << width / 2 << "\" y=\"" << margin + 14 + 18 * static_cast<double>(i)
      << "\" text-anchor=\"middle\" font-size=\"" << title_font << "\">" << escape(title_lines[i]) << "</text>\n";
  const double legend_top = margin + 18 * static_cast<double>(title_lines.size()) + 4;
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const double ly = legend_top + 16 * static_cast<double>(i);
    switch (legend[i].first) {
      case Symbol::bar:
        s << "<rect x=\"" << left << "\" y=\"" << ly << "\" width=\"12\" height=\"10\" fill=\"#4a7fc1\"/>";
        break;
      case Symbol::truth:
        s << "<circle cx=\"" << left + 6 << "\" cy=\"" << ly + 5 << "\" r=\"4\" fill=\"#d9534f\"/>";
        break;
      case Symbol::diamond: s << diamond(left + 6, ly + 5); break;
      case Symbol::none: break;
    }
    s << "<text x=\"" << left + 18 << "\" y=\"" << ly + 9 << "\">" << escape(legend[i].second) << "</text>\n";
  }
  for (double v = axis.lo; v <= axis.hi + axis.step / 2; v += axis.step) {
    const double shown_v = std::fabs(v) < axis.step * 1e-6 ? 0.0 : v;
    s << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y(v) << "\" y2=\"" << y(v)
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">"
      << fixed(shown_v, axis.decimals) << "</text>\n";
  }
  s << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y(0) << "\" y2=\"" << y(0)
    << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\""
    << bottom_of_plot << "\" stroke=\"black\"/>\n";
  s << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - margin << "\" text-anchor=\"middle\">"
    << escape(shorten(p.x_name, plot_w, font)) << "</text>\n";
  s << "<text transform=\"translate(" << margin + font << "," << top + plot_height / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << escape(p.y_name) << "</text>\n";
  const double bar_w = std::min(18.0, slot * 0.6);
  for (std::size_t i = 0; i < p.bars.size(); ++i) {
    const PlotBar& b = p.bars[i];
    const double cx = left + slot * (static_cast<double>(i) + 0.5);
    s << "<g><title>" << escape(b.label) << ": " << significant(b.estimate);
    if (b.ci_low && b.ci_high) s << " [" << significant(*b.ci_low) << ", " << significant(*b.ci_high) << "]";
    if (b.unbiased) s << ", " << p.unbiased_name << " " << significant(*b.unbiased);
    if (b.truth) s << ", true " << significant(*b.truth);
    s << "</title>";
    s << "<rect x=\"" << cx - bar_w / 2 << "\" y=\"" << std::min(y(b.estimate), y(0)) << "\" width=\"" << bar_w
      << "\" height=\"" << std::fabs(y(b.estimate) - y(0)) << "\" fill=\"#4a7fc1\"/>";
    if (b.ci_low && b.ci_high) {
      s << "<line x1=\"" << cx << "\" x2=\"" << cx << "\" y1=\"" << y(*b.ci_low) << "\" y2=\"" << y(*b.ci_high)
        << "\" stroke=\"black\"/>";
      for (const double v : {*b.ci_low, *b.ci_high}) {
        if (v < axis.lo || v > axis.hi) {  // cut: an arrowhead pointing past the edge
          const double tip = y(v), back = v > axis.hi ? tip + 6 : tip - 6;
          s << "<polyline points=\"" << cx - 4 << "," << back << " " << cx << "," << tip << " " << cx + 4 << ","
            << back << "\" fill=\"none\" stroke=\"black\"/>";
        } else {
          s << "<line x1=\"" << cx - 4 << "\" x2=\"" << cx + 4 << "\" y1=\"" << y(v) << "\" y2=\"" << y(v)
            << "\" stroke=\"black\"/>";
        }
      }
    }
    if (b.unbiased) s << diamond(cx, y(*b.unbiased));  // y() holds one beyond the axis on its edge
    if (b.truth) s << "<circle cx=\"" << cx << "\" cy=\"" << y(*b.truth) << "\" r=\"4\" fill=\"#d9534f\"/>";
    s << "</g>\n";
    const bool cut = shown[i] != b.label;
    if (level_labels)
      s << "<text x=\"" << cx << "\" y=\"" << bottom_of_plot + 8 + font << "\" text-anchor=\"middle\">";
    else
      s << "<text transform=\"translate(" << cx + 3 << "," << bottom_of_plot + 8
        << ") rotate(-45)\" text-anchor=\"end\">";
    if (cut) s << "<title>" << escape(b.label) << "</title>";
    s << escape(shown[i]) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace tinyldp::tools
