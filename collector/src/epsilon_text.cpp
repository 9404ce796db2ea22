// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/epsilon_text.hpp"

#include <cstdint>

#include "tinyldp/wide_uint.hpp"

namespace tinyldp::collector {

namespace {
constexpr int max_significant_digits = 40;  // enough for every multiple of 2^-32 below 100 (≤ 34)

std::invalid_argument bad(std::string_view text, const std::string& why) {
  return std::invalid_argument("epsilon \"" + std::string(text) + "\" " + why);
}
}  // namespace

Epsilon parse_epsilon(std::string_view text, bool* exact) {
  // [digits][.digits][(e|E)[+|-]digits], at least one mantissa digit.
  std::string digits;  // significant digits, leading zeros dropped
  long exponent = 0;   // value = digits · 10^exponent
  bool seen_digit = false, seen_dot = false;
  std::size_t i = 0;
  if (!text.empty() && text[0] == '-') throw bad(text, "is negative; epsilon must be positive");
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (seen_dot) --exponent;
      if (c != '0' || !digits.empty()) digits += c;
    } else {
      break;
    }
  }
  if (!seen_digit) throw bad(text, "is not a decimal number like 0.5, 2 or 1e-1");
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') throw bad(text, "is not a decimal number like 0.5, 2 or 1e-1");
    ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    if (i == text.size()) throw bad(text, "has no digits after its exponent mark");
    long e = 0;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') throw bad(text, "is not a decimal number like 0.5, 2 or 1e-1");
      if (e < 1000) e = e * 10 + (text[i] - '0');
    }
    exponent += negative ? -e : e;
  }
  while (!digits.empty() && digits.back() == '0') {  // 1.500 → 15 · 10^-1
    digits.pop_back();
    ++exponent;
  }
  if (digits.empty()) throw bad(text, "is zero; epsilon must be positive");
  const long magnitude = static_cast<long>(digits.size()) + exponent;  // value < 10^magnitude
  if (magnitude > 2) throw bad(text, "is above the largest accepted epsilon, 20");
  if (magnitude <= -10) throw bad(text, "is below 2^-32, the resolution of epsilon");
  if (static_cast<int>(digits.size()) > max_significant_digits)
    throw bad(text, "has more than 40 significant digits");
  // ⌊digits · 10^exponent · 2^32⌋, as Epsilon::from_ratio computes it, in integers wide enough
  // for 40 digits (< 2^133) times 2^32 over 10^49 (< 2^163).
  using W = UInt<8>;
  W num = W::from(0);
  for (char c : digits) num = num.times(10) + W::from(static_cast<std::uint64_t>(c - '0'));
  W den = W::from(1);
  for (; exponent > 0; --exponent) num = num.times(10);  // magnitude ≤ 2: at most 10^2
  for (; exponent < 0; ++exponent) den = den.times(10);  // at most 10^49
  const W scaled = num.shl(32);
  const W q32 = floor_div(scaled, den);
  const Epsilon e = Epsilon::from_q32(q32.low64());
  if (exact != nullptr) *exact = q32 * den == scaled;
  if (e.q32 == 0) throw bad(text, "is below 2^-32, the resolution of epsilon");
  if (!is_valid_epsilon(e)) throw bad(text, "is above the largest accepted epsilon, 20");
  return e;
}

Dyadic parse_probability(std::string_view what, std::string_view text) {
  const auto bad = [&] {
    return std::invalid_argument(std::string(what) + " \"" + std::string(text) +
                                 "\" is not a probability: a decimal in [0, 1] like 0.25");
  };
  if (!text.empty() && text.find_first_not_of("0.") == std::string_view::npos &&
      text.find('0') != std::string_view::npos)
    return Dyadic{0, 0};  // "0", "0.0": parse_epsilon refuses zero
  Epsilon scaled;
  try {
    scaled = parse_epsilon(text);  // ⌊x · 2^32⌋, exactly
  } catch (const std::invalid_argument&) {
    throw bad();
  }
  if (scaled.q32 > (std::uint64_t{1} << 32)) throw bad();
  return make_dyadic(scaled.q32, 32);
}

std::string to_decimal(Epsilon e, int max_fraction_digits) {
  std::string out = std::to_string(e.q32 >> 32);
  std::uint64_t frac = e.q32 & 0xFFFFFFFFu;
  if (frac == 0) return out;
  out += '.';
  for (int k = 0; frac != 0; ++k) {
    if (k == max_fraction_digits) return out + "…";
    frac *= 10;  // < 10 · 2^32, fits
    out += static_cast<char>('0' + (frac >> 32));
    frac &= 0xFFFFFFFFu;
  }
  return out;
}

}  // namespace tinyldp::collector
