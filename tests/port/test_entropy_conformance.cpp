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

namespace tinyldp::test {
namespace {

// A real backend's options: its name, how to make it fail and, for a peripheral that is not
// ready at once, how often a NONBLOCKING or FROM_ISR request may be retried.
conformance::EntropyConformanceOptions backend(const char* name, void (*inject_failure)(void*), void* context,
                                  uint32_t retries = 0) {
  return {.nonblocking_retries = retries,
          .isr_retries = retries,
          .inject_failure = inject_failure,
          .inject_context = context,
          .name = name,
          .output = write};
}

conformance::EntropyConformanceOptions quiet() {
  conformance::EntropyConformanceOptions o;
  o.print_violations = false;
  return o;
}

void fail_insecure(void* c) { static_cast<port::InsecureTestSource*>(c)->fail_on_call(1); }
void stick_insecure(void* c) { static_cast<port::InsecureTestSource*>(c)->stick_at(0x42); }
void wipe_drbg(void* c) { static_cast<port::ChaCha20Drbg*>(c)->wipe(); }
void kill_nrf51(void* c) { static_cast<Nrf51Model*>(c)->dead = true; }
void seed_error_stm32(void* c) {
  auto* m = static_cast<Stm32Model*>(c);
  m->seed_error_at = m->words + 1;
}
void nothing(void*) {}

// Writes one byte past the end of every request.
struct Overrunning {
  port::InsecureTestSource inner{3};
  EntropyResult fill(uint8_t* out, size_t n, uint32_t flags) {
    if (n == 0) return EntropyResult::ok;
    return inner.fill(out, n + 1, flags);
  }
};

// Leaves the last byte of every request untouched (an off-by-one), still answering ok.
struct LastByteUnwritten {
  port::InsecureTestSource inner{8};
  EntropyResult fill(uint8_t* out, size_t n, uint32_t flags) {
    if (n == 0) return EntropyResult::ok;
    return inner.fill(out, n - 1, flags);
  }
};

TEST(insecure_test_source_conforms) {
  port::InsecureTestSource s(1);
  CHECK_EQ(conformance::entropy_conformance(s, backend("insecure_test", &fail_insecure, &s)), 0u);
}

TEST(c_source_adapter_conforms) {
  port::InsecureTestSource inner(2);
  CEntropySource s(to_c_source(inner), TINYLDP_ENTROPY_ESTIMATE_FULL);
  CHECK_EQ(conformance::entropy_conformance(s, backend("c_adapter", &fail_insecure, &inner)), 0u);
}

TEST(chacha20_drbg_conforms) {
  port::InsecureTestSource seed(3);
  port::ChaCha20Drbg s;
  CHECK(s.seed(seed) == EntropyResult::ok);
  CHECK_EQ(conformance::entropy_conformance(s, backend("chacha20_drbg", &wipe_drbg, &s)), 0u);
}

TEST(health_tested_source_conforms) {
  port::InsecureTestSource raw(4);
  port::HealthTested<port::InsecureTestSource> s(raw, port::HealthConfig{});
  CHECK_EQ(conformance::entropy_conformance(s, backend("health_tested", &stick_insecure, &raw)), 0u);
}

TEST(nrf51_rng_on_register_model_conforms) {
  Nrf51Model model;
  port::nrf51_rng::Config config;
  config.max_spins_per_byte = 1000;
  port::Nrf51RngT<Nrf51ModelBus> s(config, {&model});
  CHECK_EQ(conformance::entropy_conformance(s, backend("nrf51_rng(model)", &kill_nrf51, &model, 1000)), 0u);
}

TEST(stm32_rng_on_register_model_conforms) {
  Stm32Model model;
  port::Stm32RngT<Stm32ModelBus> s({}, {&model});
  const conformance::EntropyConformanceOptions o = backend("stm32_rng(model)", &seed_error_stm32, &model, 1000);
  CHECK_EQ(conformance::entropy_conformance(s, o), 0u);
}

TEST(suite_catches_short_reads) {
  port::InsecureTestSource s(5);
  s.short_reads(7);
  CHECK_GT(conformance::entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_stuck_output) {
  port::InsecureTestSource s(6);
  s.stick_at(0x00);
  CHECK_GT(conformance::entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_a_byte_left_unwritten) {
  LastByteUnwritten s;
  CHECK_GT(conformance::entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_writes_past_the_end) {
  Overrunning s;
  CHECK_GT(conformance::entropy_conformance(s, quiet()), 0u);
}

TEST(suite_catches_an_unreported_failure) {
  port::InsecureTestSource s(7);
  conformance::EntropyConformanceOptions o = quiet();
  o.inject_failure = &nothing;  // the "failure" never shows: the suite must say so
  CHECK_GT(conformance::entropy_conformance(s, o), 0u);
}

}  // namespace
}  // namespace tinyldp::test
