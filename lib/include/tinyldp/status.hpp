// SPDX-License-Identifier: Apache-2.0
// tinyldp/status.hpp — the library's small error vocabulary.
//
// Every fallible call returns a Status; there are no exceptions and no asserts on user
// input. On any status other than `ok`, a mechanism has zeroed its report: nothing partial
// escapes (fail_closed.hpp, the one place that writes that rule). Cost: one byte.
#ifndef TINYLDP_STATUS_HPP
#define TINYLDP_STATUS_HPP

#include <stdint.h>

namespace tinyldp {

enum class [[nodiscard]] Status : uint8_t {
  ok = 0,
  bad_epsilon,            // ε not in (0, max_epsilon]
  bad_parameter,          // a domain size, level count or probability out of its range
  precision_too_low,      // the requested probability precision cannot realise the mechanism
  value_out_of_domain,    // the private value is not in the mechanism's domain
  buffer_too_small,       // the report buffer is shorter than report_bytes()
  entropy_not_ready,      // a non-blocking source had no entropy yet; try again later
  entropy_failed,         // the source failed (health test, hardware error); final until reset
  entropy_not_supported,  // the source cannot serve this kind of request (e.g. from an ISR)
  key_not_provisioned,    // a memoized report's memo key was never provisioned or not loaded
  not_configured,         // the mechanism was never configured, or its configure failed
  epsilon_too_small,      // ε (or the share of it one component gets) is below min_epsilon
};

constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::bad_epsilon: return "bad epsilon";
    case Status::bad_parameter: return "bad parameter";
    case Status::precision_too_low: return "precision too low";
    case Status::value_out_of_domain: return "value out of domain";
    case Status::buffer_too_small: return "buffer too small";
    case Status::entropy_not_ready: return "entropy not ready";
    case Status::entropy_failed: return "entropy failed";
    case Status::entropy_not_supported: return "entropy not supported";
    case Status::key_not_provisioned: return "memo key not provisioned";
    case Status::not_configured: return "mechanism not configured (or its configuration failed)";
    case Status::epsilon_too_small: return "epsilon below the smallest supported (2^-16)";
  }
  return "unknown status";
}

}  // namespace tinyldp

#endif
