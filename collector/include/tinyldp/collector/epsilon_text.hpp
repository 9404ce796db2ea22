// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/epsilon_text.hpp — ε (and a probability) written as a decimal, read
// exactly: "0.5", "2", "1.25", "5e-1" is the rational number it denotes (significant digits
// over a power of ten — no floating point), turned into the library's fixed-point Epsilon by
// Epsilon::from_ratio's rule, rounding down to the 2^-32 grid (never more privacy loss than
// written). The CLI's options and the Python bindings' keyword arguments both read ε here, so
// the same text gives the same configuration everywhere. Host only. Cost: O(length of text).
#ifndef TINYLDP_COLLECTOR_EPSILON_TEXT_HPP
#define TINYLDP_COLLECTOR_EPSILON_TEXT_HPP

#include <stdexcept>
#include <string>
#include <string_view>

#include "tinyldp/epsilon.hpp"
#include "tinyldp/probability.hpp"

namespace tinyldp::collector {

// Throws std::invalid_argument with a message fit for the user when `text` is not a positive
// decimal number, has more than 40 significant digits, rounds to 0 on the 2^-32 grid, or is
// above max_epsilon (20). `exact` (when given) tells whether no rounding was needed.
Epsilon parse_epsilon(std::string_view text, bool* exact = nullptr);

// The exact decimal expansion of e (every Epsilon is a finite binary, hence decimal, fraction),
// shortened to `max_fraction_digits` with a trailing "…" when it is longer.
std::string to_decimal(Epsilon e, int max_fraction_digits = 10);

// A probability in [0, 1] written as a decimal ("0.25", "1", "0"), read as parse_epsilon reads
// it and rounded down to a multiple of 2^-32 (RAPPOR's f, p and q). Throws
// std::invalid_argument, naming `what`, when it is not such a decimal.
Dyadic parse_probability(std::string_view what, std::string_view text);

}  // namespace tinyldp::collector

#endif
