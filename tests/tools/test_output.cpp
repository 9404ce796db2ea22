// SPDX-License-Identifier: Apache-2.0
// The output writer's CSV quoting and the chart's geometry: every text inside the canvas by the
// chart's own (conservative) width estimate, long domains reduced to at most chart_max_bars
// bars, long labels shortened with the whole label kept in a tooltip, a y-range chosen from
// the estimates (not from one huge interval), values rounded for people, the column named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "output.hpp"
#include "svg_plot.hpp"

namespace tinyldp::tools {
namespace {

struct Text {
  double left, right, top, bottom;
  std::string content;
};

std::string unescape(std::string s) {
  for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (std::size_t at; (at = s.find(entity)) != std::string::npos;) s.replace(at, std::string(entity).size(), c);
  }
  return s;
}

double attribute(const std::string& attrs, const std::string& name, double otherwise) {
  std::smatch m;
  if (std::regex_search(attrs, m, std::regex(" " + name + "=\"([-0-9.]+)\""))) return std::stod(m[1]);
  return otherwise;
}

struct Svg {
  double width = 0, height = 0;
  std::vector<Text> texts;
  std::string source;
};

// The <text> elements with their extents: anchor and rotation (0, −45 or −90 degrees) applied.
Svg parse(const std::string& svg) {
  Svg out;
  out.source = svg;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("viewBox=\"0 0 ([0-9.]+) ([0-9.]+)\"")));
  out.width = std::stod(m[1]);
  out.height = std::stod(m[2]);
  const std::regex text("<text([^>]*)>(?:<title>[^<]*</title>)?([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1];
    const std::string content = unescape((*it)[2]);
    const double size = attribute(attrs, "font-size", 11);
    const double w = text_width(content, size);
    std::string anchor = "start";
    if (std::smatch a; std::regex_search(attrs, a, std::regex("text-anchor=\"(\\w+)\""))) anchor = a[1];
    double x = attribute(attrs, "x", 0), y = attribute(attrs, "y", 0), angle = 0;
    if (std::smatch t; std::regex_search(attrs, t, std::regex("translate\\(([-0-9.]+),([-0-9.]+)\\) rotate\\(([-0-9.]+)\\)"))) {
      x = std::stod(t[1]);
      y = std::stod(t[2]);
      angle = std::stod(t[3]);
    }
    const double before = anchor == "end" ? w : anchor == "middle" ? w / 2 : 0, after = w - before;
    const double c = std::sqrt(0.5);
    Text box{0, 0, 0, 0, content};
    if (angle == 0) {
      box = {x - before, x + after, y - size, y + 0.3 * size, content};
    } else if (angle == -90) {
      box = {x - size, x + 0.3 * size, y - after, y + before, content};
    } else {
      EXPECT_EQ(angle, -45) << attrs;
      box = {x - c * (before + size), x + c * (after + size), y - c * (after + size), y + c * (before + size), content};
    }
    out.texts.push_back(box);
  }
  return out;
}

Svg chart(const EstimateTable& t) {
  const std::string path = ::testing::TempDir() + "/chart.svg";
  write_svg(path, t);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return parse(s.str());
}

void expect_all_text_inside(const Svg& svg) {
  EXPECT_LE(svg.width, 960.0);
  for (const Text& t : svg.texts) {
    EXPECT_GE(t.left, 0) << t.content;
    EXPECT_LE(t.right, svg.width) << t.content;
    EXPECT_GE(t.top, 0) << t.content;
    EXPECT_LE(t.bottom, svg.height) << t.content;
  }
}

std::size_t bars(const Svg& svg) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = svg.source.find("<g>", at)) != std::string::npos; ++at) ++n;
  return n;
}

EstimateTable table(std::size_t items, double spread) {
  EstimateTable t;
  t.about = {{"mechanism", "oue"}, {"realized_epsilon", 0.9999996}, {"reports", 32561},
             {"postprocess", "none"}, {"confidence", 0.95}};
  t.truth.emplace();
  for (std::size_t i = 0; i < items; ++i) {
    const double f = (i % 2 ? 1 : -1) * spread * static_cast<double>(i % 7) / 7;
    collector::ItemEstimate e{f * 32561, f, f, spread, f - 2 * spread, f + 2 * spread};
    t.items.push_back(e);
    t.item_text.push_back("item " + std::to_string(i));
    t.item_key.emplace_back(t.item_text.back());
    t.truth->push_back(1.0 / static_cast<double>(items));
  }
  return t;
}

TEST(Csv, FieldsAreQuotedAsRfc4180Says) {
  EXPECT_EQ(csv_field("plain label"), "plain label");
  EXPECT_EQ(csv_field("green, light"), "\"green, light\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
}

TEST(Csv, OneTableWithPlainCounts) {
  EstimateTable t = table(3, 0.01);
  t.items[0].count = 1617143.6;
  t.items[0].frequency = 1617143.6 / 32561;
  t.mean = collector::MeanEstimate{1234567.5, 0.5, 1234566.5, 1234568.5};
  std::ostringstream out;
  write_csv(out, t);
  const std::string csv = out.str();
  EXPECT_EQ(csv.find("\n\n"), std::string::npos);
  EXPECT_EQ(csv.find("e+"), std::string::npos) << csv;  // no 1.61714e+06
  EXPECT_NE(csv.find(",1617143.6,"), std::string::npos) << csv;
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "kind,item,estimate,count,ci_low,ci_high,unbiased_estimate,standard_error,true_value");
  EXPECT_NE(csv.find("\nmean,,1234567.5,,1234566.5,1234568.5,1234567.5,0.5,\n"), std::string::npos) << csv;
}

TEST(Chart, ALongDomainWithLongLabelsFitsTheCanvas) {
  EstimateTable t = table(48, 0.02);
  t.item_text[3] = "a label much longer than any chart has room for, in full in its tooltip";
  t.item_text[5] = "Zürich–Genève ünïcödé";
  t.items[3].frequency = 0.5;  // among the most frequent, so it is drawn
  t.column = "a column whose name is long enough to matter";
  const Svg svg = chart(t);
  expect_all_text_inside(svg);
  EXPECT_EQ(bars(svg), chart_max_bars);  // 29 items and "other"
  EXPECT_NE(svg.source.find("<title>" + t.item_text[3] + "</title>"), std::string::npos);
  EXPECT_NE(svg.source.find("…"), std::string::npos);
  EXPECT_NE(svg.source.find(">other (19)<"), std::string::npos);
  EXPECT_NE(svg.source.find(">" + t.column + "<"), std::string::npos);  // the x-axis names the column
  EXPECT_EQ(svg.source.find(">item<"), std::string::npos);
}

TEST(Chart, ALongTitleWrapsWithinTheWidestCanvas) {
  EstimateTable t = table(3, 0.02);
  t.column = std::string(300, 'W');  // one unbreakable word is shortened by the axis, wrapped in the title
  t.column = "words " + std::string(40, 'x') + " " + std::string(60, 'y') + " " + std::string(70, 'z');
  expect_all_text_inside(chart(t));
}

void check_numeric_range(int lo, int hi);

TEST(Chart, AHeavyTailedNumericDomainIsBinnedWithASaneYRange) {
  // dlaplace over ages 17 … 90 at ε = 2 with Δ = W: estimates of ±3, intervals of ±7.
  check_numeric_range(17, 90);
  check_numeric_range(1, 99);  // hours per week: 20 bins
  check_numeric_range(0, 1024);
}

void check_numeric_range(int lo, int hi) {
  SCOPED_TRACE(std::to_string(lo) + " … " + std::to_string(hi));
  EstimateTable t = table(static_cast<std::size_t>(hi - lo + 1), 3.5);
  t.mean = collector::MeanEstimate{38.58, 0.27, 38.05, 39.11};
  t.item_key.clear();
  std::vector<double> values;
  for (int v = lo; v <= hi; ++v) {
    values.push_back(v);
    t.item_key.emplace_back(v);
  }
  t.bin_start = chart_bins(values);
  ASSERT_FALSE(t.bin_start.empty());
  EXPECT_LE(t.bin_start.size(), chart_max_bars);
  for (std::size_t b = 1; b < t.bin_start.size(); ++b)  // aligned to the bin width
    EXPECT_EQ(static_cast<int>(values[t.bin_start[b]]) % (static_cast<int>(values[t.bin_start[2]] - values[t.bin_start[1]])), 0);
  for (std::size_t b = 0; b < t.bin_start.size(); ++b) t.bins.push_back(t.items[b % t.items.size()]);
  t.column = "age";
  const Svg svg = chart(t);
  expect_all_text_inside(svg);
  EXPECT_EQ(bars(svg), t.bin_start.size());
  if (lo == 17) {
    EXPECT_NE(svg.source.find(">17–19<"), std::string::npos);
  }
  // The y-axis: frequencies, so within [−1, 1] however wide the intervals.
  const std::regex tick("text-anchor=\"end\">(-?[0-9.]+)</text>");
  double lowest = 0, highest = 0;
  for (auto it = std::sregex_iterator(svg.source.begin(), svg.source.end(), tick); it != std::sregex_iterator(); ++it) {
    lowest = std::min(lowest, std::stod((*it)[1]));
    highest = std::max(highest, std::stod((*it)[1]));
  }
  EXPECT_GE(lowest, -1.0);
  EXPECT_LE(highest, 1.0);
  EXPECT_GT(highest, 0.0);
}

TEST(Chart, OneUncertainItemDoesNotFlattenTheOthers) {
  EstimateTable t = table(8, 0.01);
  for (auto& e : t.items) e = {0, 0.1, 0.1, 0.005, 0.09, 0.11};
  t.items[7] = {0, 0.05, 0.05, 0.3, 0, 0.6};
  t.truth.reset();
  const Svg svg = chart(t);
  const std::regex tick("text-anchor=\"end\">(-?[0-9.]+)</text>");
  double highest = 0;
  for (auto it = std::sregex_iterator(svg.source.begin(), svg.source.end(), tick); it != std::sregex_iterator(); ++it)
    highest = std::max(highest, std::stod((*it)[1]));
  EXPECT_LE(highest, 0.2);                                // the bars' span and half of it again
  EXPECT_NE(svg.source.find("<polyline"), std::string::npos);  // the cut whisker's arrowhead
}

TEST(Chart, APostProcessedChartShowsTheUnbiasedEstimatesBesideTheBars) {
  // em over a numeric range: non-negative bars, and the unbiased estimates (far outside [0, 1]
  // for dlaplace) as diamonds, those beyond the axis on its edge, said in the legend.
  EstimateTable t = table(8, 0.01);
  t.about["postprocess"] = "em";
  for (std::size_t i = 0; i < t.items.size(); ++i) t.items[i] = {0, 0.125, 3.0 * (i % 2 ? 1 : -1), 0.5, 0, 1};
  const Svg svg = chart(t);
  expect_all_text_inside(svg);
  std::size_t diamonds = 0;
  for (std::size_t at = 0; (at = svg.source.find("<polygon", at)) != std::string::npos; ++at) ++diamonds;
  EXPECT_EQ(diamonds, t.items.size() + 1);  // one per bar and the legend's
  EXPECT_NE(svg.source.find("unbiased estimate (before em)"), std::string::npos);
  EXPECT_NE(svg.source.find("diamonds on the axis's edge"), std::string::npos);
  EXPECT_NE(svg.source.find("bars: maximum likelihood (em)"), std::string::npos);
  // Without post-processing the bars are the unbiased estimates: no diamonds.
  t.about["postprocess"] = "none";
  EXPECT_EQ(chart(t).source.find("<polygon"), std::string::npos);
}

TEST(Chart, AnUnconvergedEstimateSaysSoInTheTitle) {
  // EM stopped at its cap draws bars that are not the maximum-likelihood estimate: the title
  // says so (a line of its own, within the canvas); a converged run adds nothing.
  EstimateTable t = table(8, 0.01);
  t.about["postprocess"] = "em";
  EXPECT_EQ(chart(t).source.find("not converged"), std::string::npos);
  t.chart_warning = "em not converged after 10000 iterations: the bars are not yet the maximum-likelihood estimate";
  const Svg svg = chart(t);
  expect_all_text_inside(svg);
  bool in_title = false;
  for (const Text& text : svg.texts)
    in_title = in_title || text.content.find("warning: em not converged after 10000 iterations") == 0;
  EXPECT_TRUE(in_title);
}

TEST(Chart, LevelValuesAreRoundedForPeople) {
  EstimateTable t = table(8, 0.01);
  t.mean = collector::MeanEstimate{38.58, 0.73, 37.1, 40.0};
  t.item_key.clear();
  for (int j = 0; j < 8; ++j) t.item_key.emplace_back(17 + j * 73.0 / 7);
  const Svg svg = chart(t);
  expect_all_text_inside(svg);
  EXPECT_NE(svg.source.find(">27.4<"), std::string::npos);
  EXPECT_NE(svg.source.find(">17<"), std::string::npos);
  EXPECT_EQ(svg.source.find("27.428"), std::string::npos);
  EXPECT_NE(svg.source.find("mean 38.58 ± 0.73"), std::string::npos);
}

TEST(Chart, WidthEstimateIsConservative) {
  // DejaVu Sans (the widest common sans-serif) measures "Bachelors" at 4.923 em, Arial at 4.45.
  EXPECT_NEAR(text_width("Bachelors", 10), 49.23, 0.01);
  EXPECT_EQ(text_width("é", 10), 10.0);  // non-ASCII: a full em
  EXPECT_EQ(shorten("short", 100, 11), "short");
  const std::string cut = shorten(std::string(50, 'x') + "ü", 100, 11);
  EXPECT_LE(text_width(cut, 11), 100.0);
  EXPECT_EQ(cut.substr(cut.size() - 3), "…");
}

}  // namespace
}  // namespace tinyldp::tools
