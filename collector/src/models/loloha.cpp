// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/models/loloha.hpp"

namespace tinyldp::collector {

std::string LolohaModel::check_parameters(const MechanismConfig& c) {
  if (std::string r = check_domain_at_most(c, Loloha::max_domain); !r.empty()) return r;
  return check_memo_epsilons(c);
}

Status LolohaModel::configure(const MechanismConfig& c, LolohaModel& out, MechanismConfig&) {
  const Status s =
      c.id == MechanismId::biloloha
          ? Loloha::configure_binary(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision)
          : Loloha::configure_optimal(c.epsilon, c.epsilon_one, c.domain, out.core, c.precision);
  if (s == Status::ok) out.hash_keys = local_hash_keys(c.domain);
  return s;
}

std::string LolohaModel::fractions() const {
  return "g = " + std::to_string(core.range()) + ", " + chain_fractions(core.chain()) +
         " over the hashed values";
}

}  // namespace tinyldp::collector
