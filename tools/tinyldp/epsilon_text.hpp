// SPDX-License-Identifier: Apache-2.0
// ε from the command line, exactly: the collector's reading (collector/epsilon_text.hpp), which
// the Python bindings share, so that "--epsilon 0.1" and epsilon="0.1" configure the same
// mechanism.
#ifndef TINYLDP_TOOLS_EPSILON_TEXT_HPP
#define TINYLDP_TOOLS_EPSILON_TEXT_HPP

#include <string>

#include "tinyldp/collector/epsilon_text.hpp"

namespace tinyldp::tools {

using collector::parse_epsilon;
using collector::to_decimal;

// ε as the record commands print it: four decimals.
inline std::string eps_text(Epsilon e) { return to_decimal(e, 4); }

}  // namespace tinyldp::tools

#endif
