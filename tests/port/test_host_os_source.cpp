// SPDX-License-Identifier: Apache-2.0
// The host OS source (getrandom) passes the entropy conformance suite; FROM_ISR requests are
// answered not_supported, and its C form behaves the same. Host only.
#include "tinyldp/port/entropy/host_os_source.hpp"

#include "check.hpp"
#include "tinyldp/port/test/entropy_conformance.hpp"

namespace tinyldp::test {
namespace {

TEST(host_os_source_conforms) {
  port::HostOsSource source;
  conformance::EntropyConformanceOptions o;
  o.output = write;
  o.name = "host_os";
  o.isr_supported = false;  // a system call is no place for an interrupt handler
  o.nonblocking_retries = 1000;
  CHECK_EQ(conformance::entropy_conformance(source, o), 0u);
  uint8_t out[4];
  CHECK(source.fill(out, sizeof out, TINYLDP_ENTROPY_FROM_ISR) == EntropyResult::not_supported);
  CHECK_EQ(source.min_entropy_q8(), 2048u);
}

TEST(host_os_c_form_conforms) {
  CEntropySource source(port::HostOsSource::as_c_source(), TINYLDP_ENTROPY_ESTIMATE_FULL);
  conformance::EntropyConformanceOptions o;
  o.output = write;
  o.name = "host_os(c)";
  o.isr_supported = false;
  o.nonblocking_retries = 1000;
  CHECK_EQ(conformance::entropy_conformance(source, o), 0u);
}

}  // namespace
}  // namespace tinyldp::test
