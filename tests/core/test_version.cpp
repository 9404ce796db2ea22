// SPDX-License-Identifier: Apache-2.0
// tinyldp/version.hpp (generated from project(... VERSION ...)): the numbers, the string and
// the combined integer say the same thing.
#include "check.hpp"
#include "tinyldp/version.hpp"

namespace tinyldp::test {
namespace {

constexpr bool digits_equal(const char*& s, unsigned value) {
  char buffer[12] = {};
  int n = 0;
  do {
    buffer[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0)
    if (*s++ != buffer[--n]) return false;
  return true;
}

constexpr bool string_matches_numbers() {
  const char* s = TINYLDP_VERSION_STRING;
  return digits_equal(s, TINYLDP_VERSION_MAJOR) && *s++ == '.' &&
         digits_equal(s, TINYLDP_VERSION_MINOR) && *s++ == '.' &&
         digits_equal(s, TINYLDP_VERSION_PATCH) && *s == '\0';
}

TEST(version_string_matches_numbers) {
  static_assert(string_matches_numbers());
  static_assert(TINYLDP_VERSION_MINOR < 100 && TINYLDP_VERSION_PATCH < 100);
  CHECK(TINYLDP_VERSION ==
        TINYLDP_VERSION_MAJOR * 10000 + TINYLDP_VERSION_MINOR * 100 + TINYLDP_VERSION_PATCH);
}

}  // namespace
}  // namespace tinyldp::test
