// SPDX-License-Identifier: Apache-2.0
// ε from the command line, exactly: a decimal string ("0.5", "2", "1.25", "5e-1") is read as
// the rational number it denotes (significant digits over a power of ten — no floating point)
// and turned into the library's fixed-point Epsilon by Epsilon::from_ratio, which rounds down
// to the 2^-32 grid (never more privacy loss than asked for).
#ifndef TINYLDP_TOOLS_EPSILON_TEXT_HPP
#define TINYLDP_TOOLS_EPSILON_TEXT_HPP

#include <stdexcept>
#include <string>
#include <string_view>

#include "tinyldp/epsilon.hpp"

namespace tinyldp::tools {

// Throws std::invalid_argument with a message fit for the user when `text` is not a positive
// decimal number, has more than 40 significant digits, rounds to 0 on the 2^-32 grid, or is
// above max_epsilon (20). `exact` (when given) tells whether no rounding was needed.
Epsilon parse_epsilon(std::string_view text, bool* exact = nullptr);

// The exact decimal expansion of e (every Epsilon is a finite binary, hence decimal, fraction),
// shortened to `max_fraction_digits` with a trailing "…" when it is longer.
std::string to_decimal(Epsilon e, int max_fraction_digits = 10);

}  // namespace tinyldp::tools

#endif
