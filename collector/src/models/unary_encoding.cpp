// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/unary_encoding.hpp"

namespace tinyldp::collector {

Status UeModel::configure(const MechanismConfig& c, UeModel& out, MechanismConfig&) {
  return c.id == MechanismId::sue
             ? UnaryEncoding::configure_sue(c.epsilon, c.domain, out.core, c.precision)
             : UnaryEncoding::configure_oue(c.epsilon, c.domain, out.core, c.precision);
}

std::string UeModel::fractions() const {
  return "p = " + fraction_text(core.p()) + ", q = " + fraction_text(core.q());
}

}  // namespace tinyldp::collector
