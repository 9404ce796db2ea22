// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/hadamard_response.hpp"

namespace tinyldp::collector {

Status HrModel::configure(const MechanismConfig& c, HrModel& out, MechanismConfig&) {
  return HadamardResponse::configure(c.epsilon, c.domain, out.core, c.precision);
}

std::string HrModel::fractions() const {
  return "K = " + std::to_string(1u << core.row_bits()) + ", p = " +
         fraction_text(core.randomizer().keep_probability()) + " (binary RR of the Hadamard bit)";
}

}  // namespace tinyldp::collector
