// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/rr.hpp"

namespace tinyldp::collector {

std::string RrModel::check_parameters(const MechanismConfig& c) {
  if (c.domain == 2 || c.domain == 0) return {};  // 0: not given (configure sets 2)
  return "rr is binary randomized response: its domain is 2 (values 0 and 1), not " +
         std::to_string(c.domain) + "; krr takes more categories";
}

Status RrModel::configure(const MechanismConfig& c, RrModel& out, MechanismConfig& normalized) {
  const Status s = BinaryRr::configure(c.epsilon, out.core, c.precision);
  normalized.domain = 2;
  return s;
}

std::string RrModel::fractions() const {
  return "p = " + fraction_text(core.keep_probability()) + ", q = 1 - p";
}

}  // namespace tinyldp::collector
