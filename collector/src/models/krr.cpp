// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/krr.hpp"

namespace tinyldp::collector {

Status KrrModel::configure(const MechanismConfig& c, KrrModel& out, MechanismConfig&) {
  return KaryRr::configure(c.epsilon, c.domain, out.core, c.precision);
}

std::string KrrModel::fractions() const {
  const Dyadic q = core.other_probability();
  return "p = " + fraction_text(core.keep_numerator(), q.bits) + ", q = " + fraction_text(q);
}

}  // namespace tinyldp::collector
