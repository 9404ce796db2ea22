// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <fstream>

#include "svg_plot.hpp"

namespace tinyldp::tools {

void write_json(std::ostream& out, const EstimateTable& t) {
  Json j = t.about;
  if (t.mean) {
    Json jm = {{"estimate", t.mean->mean}, {"standard_error", t.mean->standard_error},
               {"ci_low", t.mean->ci_low}, {"ci_high", t.mean->ci_high}};
    if (t.true_mean) jm["true_mean"] = *t.true_mean;
    j["mean"] = jm;
  }
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    const auto& e = t.items[i];
    Json item = {{"item", t.item_key[i]},         {"count", e.count},
                 {"frequency", e.frequency},      {"standard_error", e.standard_error},
                 {"ci_low", e.ci_low},            {"ci_high", e.ci_high}};
    if (t.truth) item["true_frequency"] = (*t.truth)[i];
    j["items"].push_back(item);
  }
  out << j.dump(2) << "\n";
}

void write_csv(std::ostream& out, const EstimateTable& t) {
  out.precision(6);
  if (t.mean) {
    out << "statistic,estimate,standard_error,ci_low,ci_high" << (t.truth ? ",true_value" : "") << "\n"
        << "mean," << t.mean->mean << "," << t.mean->standard_error << "," << t.mean->ci_low << ","
        << t.mean->ci_high;
    if (t.true_mean) out << "," << *t.true_mean;
    out << "\n\n";
  }
  out << "item,count,frequency,standard_error,ci_low,ci_high" << (t.truth ? ",true_frequency" : "") << "\n";
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    const auto& e = t.items[i];
    out << t.item_text[i] << "," << e.count << "," << e.frequency << "," << e.standard_error << ","
        << e.ci_low << "," << e.ci_high;
    if (t.truth) out << "," << (*t.truth)[i];
    out << "\n";
  }
}

void write_svg(const std::string& path, const EstimateTable& t, const std::string& title) {
  std::ofstream out(path);
  out << frequency_plot_svg(t.items, t.truth, t.item_text, title);
  if (!out) throw BadInput("cannot write " + path);
}

}  // namespace tinyldp::tools
