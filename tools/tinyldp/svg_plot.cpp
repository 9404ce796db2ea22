// SPDX-License-Identifier: Apache-2.0
#include "svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tinyldp::tools {

namespace {
std::string escape(const std::string& s) {
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
}  // namespace

std::string frequency_plot_svg(const std::vector<collector::ItemEstimate>& e,
                               const std::optional<std::vector<double>>& truth,
                               const std::vector<std::string>& labels, const std::string& title) {
  const std::size_t n = e.size();
  const double width = std::max(480.0, 70.0 + 28.0 * static_cast<double>(n)), height = 400;
  const double left = 60, right = 20, top = 66, bottom = 90;  // legend above the plot
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min({lo, e[i].ci_low, e[i].frequency});
    hi = std::max({hi, e[i].ci_high, e[i].frequency, truth ? (*truth)[i] : 0.0});
  }
  hi = hi <= lo ? lo + 1 : hi;
  auto y = [&](double v) { return top + plot_h * (hi - v) / (hi - lo); };
  const double slot = plot_w / static_cast<double>(std::max<std::size_t>(n, 1));
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << width / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">"
    << escape(title) << "</text>\n";
  // y axis grid and ticks at a "nice" step: 1, 2 or 5 times a power of ten, about 5 of them.
  const double raw_step = (hi - lo) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double step = magnitude * (raw_step / magnitude < 1.5 ? 1 : raw_step / magnitude < 3.5 ? 2 : 5);
  const int digits = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    std::ostringstream tick;
    tick.setf(std::ios::fixed);
    tick.precision(digits);
    tick << (std::fabs(v) < step * 1e-9 ? 0.0 : v);
    s << "<line x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\"" << y(v) << "\" y2=\""
      << y(v) << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << y(v) + 4
      << "\" text-anchor=\"end\">" << tick.str() << "</text>\n";
  }
  s << "<line x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\"" << y(0) << "\" y2=\""
    << y(0) << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\"" << top + plot_h
    << "\" stroke=\"black\"/>\n";  // y axis
  s << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 6
    << "\" text-anchor=\"middle\">item</text>\n";
  s << "<text transform=\"translate(16," << top + plot_h / 2
    << ") rotate(-90)\" text-anchor=\"middle\">frequency</text>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const double cx = left + slot * (static_cast<double>(i) + 0.5);
    const double bw = std::min(18.0, slot * 0.6);
    const double f = e[i].frequency;
    s << "<rect x=\"" << cx - bw / 2 << "\" y=\"" << std::min(y(f), y(0)) << "\" width=\"" << bw
      << "\" height=\"" << std::fabs(y(f) - y(0)) << "\" fill=\"#4a7fc1\"/>\n";
    s << "<line x1=\"" << cx << "\" x2=\"" << cx << "\" y1=\"" << y(e[i].ci_low) << "\" y2=\""
      << y(e[i].ci_high) << "\" stroke=\"black\"/>\n";
    for (double v : {e[i].ci_low, e[i].ci_high})
      s << "<line x1=\"" << cx - 4 << "\" x2=\"" << cx + 4 << "\" y1=\"" << y(v) << "\" y2=\"" << y(v)
        << "\" stroke=\"black\"/>\n";
    if (truth)
      s << "<circle cx=\"" << cx << "\" cy=\"" << y((*truth)[i]) << "\" r=\"4\" fill=\"#d9534f\"/>\n";
    const std::string name = i < labels.size() ? labels[i] : std::to_string(i);
    s << "<text transform=\"translate(" << cx << "," << top + plot_h + 14
      << ") rotate(45)\">" << escape(name.substr(0, 16)) << "</text>\n";
  }
  const double lx = width - right - 230;
  s << "<rect x=\"" << lx << "\" y=\"30\" width=\"12\" height=\"10\" fill=\"#4a7fc1\"/><text x=\""
    << lx + 16 << "\" y=\"39\">estimate, with confidence interval</text>\n";
  if (truth)
    s << "<circle cx=\"" << lx + 6 << "\" cy=\"52\" r=\"4\" fill=\"#d9534f\"/><text x=\"" << lx + 16
      << "\" y=\"56\">true frequency</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace tinyldp::tools
