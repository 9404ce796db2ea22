// SPDX-License-Identifier: Apache-2.0
// One OUE report, as a project that uses tinyldp would make it: a ChaCha20 DRBG seeded from
// the deterministic test source, privatized into a wire frame; on the host the collector parses
// it back. Exit code 0 when all of that succeeds.
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/version.hpp"
#include "tinyldp/wire.hpp"
#ifdef CONSUMER_WITH_COLLECTOR
#include <cstdio>

#include "tinyldp/collector/report_parser.hpp"
#endif

namespace {
constexpr auto oue = tinyldp::UnaryEncoding::make_oue(tinyldp::Epsilon::from_double(1.0), 16);
constexpr auto description = oue.description();

int run() {
  tinyldp::port::InsecureTestSource seed_source(17);
  tinyldp::port::ChaCha20Drbg drbg;
  if (drbg.seed(seed_source) != tinyldp::EntropyResult::ok) return 1;
  tinyldp::RandomBits<tinyldp::port::ChaCha20Drbg> rng(drbg);
  uint8_t frame[description.report_bytes(0)];
  uint8_t* payload = frame + tinyldp::wire::Description::header_bytes(0);
  if (oue.privatize(5, rng, payload, oue.report_bytes()) != tinyldp::Status::ok) return 2;
  size_t written = 0;
  if (tinyldp::wire::encode(description, {}, payload, frame, sizeof frame, written) !=
          tinyldp::Status::ok ||
      written != sizeof frame)
    return 3;
#ifdef CONSUMER_WITH_COLLECTOR
  const auto parsed = tinyldp::collector::parse_report({frame, written}, description);
  if (!parsed.ok()) return 4;
  std::printf("consumer: tinyldp %s: one OUE report, %zu bytes on the wire, parsed back\n",
              TINYLDP_VERSION_STRING, written);
#endif
  return 0;
}
}  // namespace

#ifdef CONSUMER_BARE_METAL
// No board code: the entry point of the default linker script runs the report and stops.
volatile int consumer_result = -1;
extern "C" [[noreturn]] void _start() {
  consumer_result = run();
  for (;;) {
  }
}
#else
int main() { return run(); }
#endif
