// SPDX-License-Identifier: Apache-2.0
// Every entropy backend that runs on this target passes the conformance suite; and the suite
// itself catches each kind of broken source it is meant to catch.
#include "tinyldp/port/test/entropy_conformance.hpp"

#include "check.hpp"
#include "register_models.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/port/entropy/nrf51_rng.hpp"
#include "tinyldp/port/entropy/stm32_rng.hpp"

using tinyldp::EntropyResult;
using tinyldp::port::ChaCha20Drbg;
using tinyldp::port::HealthConfig;
using tinyldp::port::HealthTested;
using tinyldp::port::InsecureTestSource;
using tinyldp::conformance::entropy_conformance;
using tinyldp::conformance::EntropyConformanceOptions;

namespace {

// A real backend's options: its name, how to make it fail and, for a peripheral that is not
// ready at once, how often a NONBLOCKING or FROM_ISR request may be retried.
EntropyConformanceOptions backend(const char* name, void (*inject_failure)(void*), void* context,
                                  uint32_t retries = 0) {
  return {.nonblocking_retries = retries,
          .isr_retries = retries,
          .inject_failure = inject_failure,
          .inject_context = context,
          .name = name,
          .output = tinyldp::test::write};
}

EntropyConformanceOptions quiet() {
  EntropyConformanceOptions o;
  o.print_violations = false;
  return o;
}

void fail_insecure(void* c) { static_cast<InsecureTestSource*>(c)->fail_on_call(1); }
void stick_insecure(void* c) { static_cast<InsecureTestSource*>(c)->stick_at(0x42); }
void wipe_drbg(void* c) { static_cast<ChaCha20Drbg*>(c)->wipe(); }
void kill_nrf51(void* c) { static_cast<tinyldp::test::Nrf51Model*>(c)->dead = true; }
void seed_error_stm32(void* c) {
  auto* m = static_cast<tinyldp::test::Stm32Model*>(c);
  m->seed_error_at = m->words + 1;
}
void nothing(void*) {}

// Writes one byte past the end of every request.
struct Overrunning {
  InsecureTestSource inner{3};
  EntropyResult fill(uint8_t* out, size_t n, uint32_t flags) {
    if (n == 0) return EntropyResult::ok;
    return inner.fill(out, n + 1, flags);
  }
};

}  // namespace

TEST(insecure_test_source_conforms) {
  InsecureTestSource s(1);
  CHECK_EQ(entropy_conformance(s, backend("insecure_test", &fail_insecure, &s)), 0u);
}

TEST(c_source_adapter_conforms) {
  InsecureTestSource inner(2);
  tinyldp::CEntropySource s(tinyldp::to_c_source(inner), TINYLDP_ENTROPY_ESTIMATE_FULL);
  CHECK_EQ(entropy_conformance(s, backend("c_adapter", &fail_insecure, &inner)), 0u);
}

TEST(chacha20_drbg_conforms) {
  InsecureTestSource seed(3);
  ChaCha20Drbg s;
  CHECK(s.seed(seed) == EntropyResult::ok);
  CHECK_EQ(entropy_conformance(s, backend("chacha20_drbg", &wipe_drbg, &s)), 0u);
}

TEST(health_tested_source_conforms) {
  InsecureTestSource raw(4);
  HealthTested<InsecureTestSource> s(raw, HealthConfig{});
  CHECK_EQ(entropy_conformance(s, backend("health_tested", &stick_insecure, &raw)), 0u);
}

TEST(nrf51_rng_on_register_model_conforms) {
  tinyldp::test::Nrf51Model model;
  tinyldp::port::nrf51_rng::Config config;
  config.max_spins_per_byte = 1000;
  tinyldp::port::Nrf51RngT<tinyldp::test::Nrf51ModelBus> s(config, {&model});
  CHECK_EQ(entropy_conformance(s, backend("nrf51_rng(model)", &kill_nrf51, &model, 1000)), 0u);
}

TEST(stm32_rng_on_register_model_conforms) {
  tinyldp::test::Stm32Model model;
  tinyldp::port::Stm32RngT<tinyldp::test::Stm32ModelBus> s({}, {&model});
  const EntropyConformanceOptions o = backend("stm32_rng(model)", &seed_error_stm32, &model, 1000);
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(suite_catches_short_reads) {
  InsecureTestSource s(5);
  s.short_reads(7);
  CHECK_GT(entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_stuck_output) {
  InsecureTestSource s(6);
  s.stick_at(0x00);
  CHECK_GT(entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_writes_past_the_end) {
  Overrunning s;
  CHECK_GT(entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_an_unreported_failure) {
  InsecureTestSource s(7);
  EntropyConformanceOptions o = quiet();
  o.inject_failure = &nothing;  // the "failure" never shows: the suite must say so
  CHECK_GT(entropy_conformance(s, o), 0u);
}
