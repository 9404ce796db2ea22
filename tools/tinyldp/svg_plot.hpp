// SPDX-License-Identifier: Apache-2.0
// A bar chart of estimated frequencies with confidence-interval bars, and the true
// frequencies when known, as a standalone SVG file.
#ifndef TINYLDP_TOOLS_SVG_PLOT_HPP
#define TINYLDP_TOOLS_SVG_PLOT_HPP

#include <optional>
#include <string>
#include <vector>

#include "tinyldp/collector/estimates.hpp"

namespace tinyldp::tools {

std::string frequency_plot_svg(const std::vector<collector::ItemEstimate>& estimates,
                               const std::optional<std::vector<double>>& truth,
                               const std::vector<std::string>& labels, const std::string& title);

}  // namespace tinyldp::tools

#endif
