// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/configure.hpp — the one configure of the front ends: a mechanism by name
// and the parameters a user gave (the CLI's options, Python's keywords) become a configured
// Mechanism, or the reason it is refused. What each mechanism takes, and the spelling of each
// parameter in each front end, come from the table of parameters (parameters.hpp), so the CLI
// and Python accept and refuse the same configurations with the same sentences, naming a
// parameter as the user wrote it ("--grid-step" or "grid_step"). Host only; cost: one
// Mechanism::configure.
#ifndef TINYLDP_COLLECTOR_CONFIGURE_HPP
#define TINYLDP_COLLECTOR_CONFIGURE_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/parameters.hpp"

namespace tinyldp::collector {

// How a front end spells a parameter: the CLI's option ("--grid-step") or Python's keyword
// ("grid_step").
enum class FrontEnd { cli, python };

// What a user gave; a parameter not given is nullopt (a value of 0 is given, and refused
// where it is not allowed).
struct ParameterValues {
  std::string mechanism;
  Epsilon epsilon{};  // read by the front end (the CLI also tells whether it was exact); {} not given
  // ε₁, RAPPOR's f, p, q and the ε tolerance of the precision as decimal text
  // (epsilon_text.hpp), read here.
  std::optional<std::string> epsilon_one, f, p, q, epsilon_tolerance;
  std::optional<std::vector<std::uint32_t>> attribute_sizes;
  // The integer parameters (the rows with a `set`), by ParameterId.
  std::array<std::optional<std::int64_t>, parameter_count> integers{};

  std::optional<std::int64_t>& operator[](ParameterId id) { return integers[static_cast<std::size_t>(id)]; }
  const std::optional<std::int64_t>& operator[](ParameterId id) const {
    return integers[static_cast<std::size_t>(id)];
  }
};

// The configured mechanism, or why not: the sentence the front end shows as it is.
using Configured = std::variant<Mechanism, std::string>;
// `default_domain` stands in for a domain not given to a categorical mechanism (`plan`'s 2).
Configured configure_mechanism(const ParameterValues& given, FrontEnd front_end,
                               std::optional<std::uint32_t> default_domain = std::nullopt);

// A parameter as the front end spells it: "--grid-step", "grid_step".
std::string spelled(ParameterId id, FrontEnd front_end);

}  // namespace tinyldp::collector

#endif
