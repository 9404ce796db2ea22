// Every entropy backend that runs on this target passes the conformance suite; and the suite
// itself catches each kind of broken source it is meant to catch.
#include "entropy_conformance.hpp"

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
using tinyldp::test::entropy_conformance;
using tinyldp::test::EntropyConformanceOptions;

namespace {

EntropyConformanceOptions named(const char* name) {
  EntropyConformanceOptions o;
  o.name = name;
  return o;
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
  EntropyConformanceOptions o = named("insecure_test");
  o.inject_failure = &fail_insecure;
  o.inject_context = &s;
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(c_source_adapter_conforms) {
  InsecureTestSource inner(2);
  tinyldp::CEntropySource s(tinyldp::to_c_source(inner), TINYLDP_ENTROPY_ESTIMATE_FULL);
  EntropyConformanceOptions o = named("c_adapter");
  o.inject_failure = &fail_insecure;
  o.inject_context = &inner;
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(chacha20_drbg_conforms) {
  InsecureTestSource seed(3);
  ChaCha20Drbg s;
  CHECK(s.seed(seed) == EntropyResult::ok);
  EntropyConformanceOptions o = named("chacha20_drbg");
  o.inject_failure = &wipe_drbg;
  o.inject_context = &s;
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(health_tested_source_conforms) {
  InsecureTestSource raw(4);
  HealthTested<InsecureTestSource> s(raw, HealthConfig{});
  EntropyConformanceOptions o = named("health_tested");
  o.inject_failure = &stick_insecure;
  o.inject_context = &raw;
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(nrf51_rng_on_register_model_conforms) {
  tinyldp::test::Nrf51Model model;
  tinyldp::port::nrf51_rng::Config config;
  config.max_spins_per_byte = 1000;
  tinyldp::port::Nrf51RngT<tinyldp::test::Nrf51ModelBus> s(config, {&model});
  EntropyConformanceOptions o = named("nrf51_rng(model)");
  o.nonblocking_retries = 1000;
  o.isr_retries = 1000;
  o.inject_failure = &kill_nrf51;
  o.inject_context = &model;
  CHECK_EQ(entropy_conformance(s, o), 0u);
}

TEST(stm32_rng_on_register_model_conforms) {
  tinyldp::test::Stm32Model model;
  tinyldp::port::Stm32RngT<tinyldp::test::Stm32ModelBus> s({}, {&model});
  EntropyConformanceOptions o = named("stm32_rng(model)");
  o.nonblocking_retries = 1000;
  o.isr_retries = 1000;
  o.inject_failure = &seed_error_stm32;
  o.inject_context = &model;
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
