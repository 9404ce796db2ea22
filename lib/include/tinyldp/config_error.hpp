// SPDX-License-Identifier: Apache-2.0
// tinyldp/config_error.hpp — turns a configuration error into a compile error in consteval
// factories (`BinaryRr::make(Epsilon::from_double(1.0))`): the call below is not constexpr,
// so reaching it during constant evaluation fails the build. Never reached at run time.
#ifndef TINYLDP_CONFIG_ERROR_HPP
#define TINYLDP_CONFIG_ERROR_HPP

#include "tinyldp/status.hpp"

namespace tinyldp::detail {
inline void configuration_rejected_at_compile_time(Status) {}

constexpr void require_ok(Status s) {
  if (s != Status::ok) configuration_rejected_at_compile_time(s);
}

// What every consteval make() returns: a T set up by configure(T&), or a build error.
template <class T, class Configure>
consteval T configured(Configure configure) {
  T out;
  require_ok(configure(out));
  return out;
}
}  // namespace tinyldp::detail

#endif
