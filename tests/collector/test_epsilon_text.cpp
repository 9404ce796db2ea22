// SPDX-License-Identifier: Apache-2.0
// ε as typed on the command line or given to the Python bindings → the library's Epsilon, exactly
// (collector/epsilon_text).
#include "tinyldp/collector/epsilon_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

namespace tinyldp::collector {
namespace {

constexpr std::uint64_t one = std::uint64_t{1} << 32;

TEST(EpsilonText, DecimalsThatAreBinaryFractionsAreExact) {
  bool exact = false;
  EXPECT_EQ(parse_epsilon("1", &exact).q32, one);
  EXPECT_TRUE(exact);
  EXPECT_EQ(parse_epsilon("0.5").q32, one / 2);
  EXPECT_EQ(parse_epsilon(".5").q32, one / 2);
  EXPECT_EQ(parse_epsilon("1.").q32, one);
  EXPECT_EQ(parse_epsilon("1.25").q32, one + one / 4);
  EXPECT_EQ(parse_epsilon("20").q32, 20 * one);
  EXPECT_EQ(parse_epsilon("007.000").q32, 7 * one);
}

TEST(EpsilonText, SpellingsOfTheSameNumberAgree) {
  for (const char* s : {"1.5", "1.50", "1.5000000000000000000000000000", "15e-1", "0.15e1", "150E-2",
                        "0.0015e+3"})
    EXPECT_EQ(parse_epsilon(s).q32, one + one / 2) << s;
}

TEST(EpsilonText, OtherDecimalsRoundDownToTheGrid) {
  bool exact = true;
  EXPECT_EQ(parse_epsilon("0.1", &exact).q32, one / 10);  // ⌊2^32/10⌋
  EXPECT_FALSE(exact);
  EXPECT_EQ(parse_epsilon("1e-1").q32, one / 10);
  // 2^-32 itself, written out in full (23 significant digits), is the smallest ε.
  EXPECT_EQ(parse_epsilon("0.00000000023283064365386962890625", &exact).q32, 1u);
  EXPECT_TRUE(exact);
  // Just below 2^-32 rounds to 0 and is refused.
  EXPECT_THROW(parse_epsilon("0.00000000023283064365386962890624"), std::invalid_argument);
}

TEST(EpsilonText, AgreesWithFromRatio) {
  std::mt19937_64 gen(5);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t whole = gen() % 20;
    const int places = static_cast<int>(gen() % 12) + 1;
    std::uint64_t den = 1;
    for (int k = 0; k < places; ++k) den *= 10;
    const std::uint64_t frac = gen() % den;
    std::string f = std::to_string(frac);
    f.insert(0, static_cast<std::size_t>(places) - f.size(), '0');
    const std::string text = std::to_string(whole) + "." + f;
    if (whole == 0 && frac == 0) continue;
    const Epsilon expected = Epsilon::from_ratio(whole * den + frac, den);
    if (expected.q32 == 0) continue;
    EXPECT_EQ(parse_epsilon(text).q32, expected.q32) << text;
  }
}

TEST(EpsilonText, ToDecimalRoundTripsEveryGridPoint) {
  std::mt19937_64 gen(7);
  for (int i = 0; i < 20000; ++i) {
    const Epsilon e = Epsilon::from_q32(gen() % (20 * one) + 1);
    bool exact = false;
    EXPECT_EQ(parse_epsilon(to_decimal(e, 40), &exact).q32, e.q32) << to_decimal(e, 40);
    EXPECT_TRUE(exact);
  }
  EXPECT_EQ(to_decimal(Epsilon::from_q32(one / 4)), "0.25");
  EXPECT_EQ(to_decimal(Epsilon::from_q32(one / 10)), "0.0999999998…");
}

TEST(EpsilonText, RefusesWhatIsNotAPositiveDecimalUpTo20) {
  for (const char* s : {"", ".", "abc", "1x", "1.2.3", "e1", "1e", "1e+", "--1", "1,5", " 1", "1 ", "inf",
                        "nan", "0x10"})
    EXPECT_THROW(parse_epsilon(s), std::invalid_argument) << '"' << s << '"';
  for (const char* s : {"0", "0.000", "-1", "-0.5", "20.0000001", "21", "1e3", "1e-11", "1e-9999"})
    EXPECT_THROW(parse_epsilon(s), std::invalid_argument) << s;
  EXPECT_THROW(parse_epsilon("1.00000000000000000000000000000000000000001"), std::invalid_argument);
}

TEST(EpsilonText, MessagesSayWhatIsWrong) {
  auto message = [](const char* s) {
    try {
      parse_epsilon(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("abc").find("not a decimal number"), std::string::npos);
  EXPECT_NE(message("0").find("positive"), std::string::npos);
  EXPECT_NE(message("-2").find("negative"), std::string::npos);
  EXPECT_NE(message("25").find("largest accepted epsilon, 20"), std::string::npos);
  EXPECT_NE(message("1e-12").find("2^-32"), std::string::npos);
}

TEST(EpsilonText, ProbabilitiesRoundDownTo2PowMinus32) {
  const auto value = [](const char* s) {
    const tinyldp::Dyadic d = parse_probability("f", s);
    return std::ldexp(static_cast<double>(d.num), -static_cast<int>(d.bits));
  };
  EXPECT_EQ(value("0"), 0.0);
  EXPECT_EQ(value("0.0"), 0.0);
  EXPECT_EQ(value("1"), 1.0);
  EXPECT_EQ(value("0.25"), 0.25);
  EXPECT_EQ(value(".5"), 0.5);
  // 0.1 · 2^32 = 429496729.6: rounded down.
  EXPECT_EQ(value("0.1"), std::ldexp(429496729.0, -32));
  for (const char* s : {"1.5", "-0.1", "abc", "", "2"}) {
    try {
      parse_probability("f", s);
      ADD_FAILURE() << '"' << s << "\" accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("f \""), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("not a probability"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tinyldp::collector
