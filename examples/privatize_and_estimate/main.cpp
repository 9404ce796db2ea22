// SPDX-License-Identifier: Apache-2.0
// tinyldp demo: privatize on the device, estimate on the collector.
//
// 20000 simulated devices each hold one of 8 categories (a skewed distribution). Each device
// makes one OUE report at ε = 1 — the configuration is computed at compile time, the report
// with integers only. The collector side counts how many reports set each bit and turns the
// counts into unbiased frequency estimates with standard errors.
//
// The same program runs on an emulated Cortex-M0 and on the host. Its randomness is the
// deterministic *test* source with a fixed seed, so both print the same reports fingerprint:
// bit-identical results across architectures. A real device uses its TRNG or a DRBG.
#include <stddef.h>
#include <stdint.h>

#include "example_print.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace {

constexpr uint32_t categories = 8;
constexpr uint32_t devices = 20000;
// True shares in per-mille: 35 %, 25 %, 15 %, 10 %, 8 %, 5 %, 2 %, 0 %.
constexpr uint32_t share_permille[categories] = {350, 250, 150, 100, 80, 50, 20, 0};

constexpr auto oue = tinyldp::UnaryEncoding::make_oue(tinyldp::Epsilon::from_double(1.0), categories);

using example::print;
using example::print_uint;
// Prints x (may be negative) with one decimal, right-aligned in 6 characters.
void print_percent(double x) {
  const bool negative = x < 0;
  const uint64_t tenths = static_cast<uint64_t>((negative ? -x : x) * 10.0 + 0.5);
  print(tenths < 100 ? (negative ? "  -" : "   ") : (negative ? " -" : "  "));
  print_uint(tenths / 10);
  print(".");
  print_uint(tenths % 10);
}
double sqrt_newton(double x) {
  double r = x > 1 ? x : 1;
  for (int i = 0; i < 60; ++i) r = 0.5 * (r + x / r);
  return r;
}
double as_double(tinyldp::Dyadic p) {
  double v = static_cast<double>(p.num);
  for (unsigned i = 0; i < p.bits; ++i) v *= 0.5;
  return v;
}

}  // namespace

int main() {
  tinyldp::port::InsecureTestSource source(20261122);
  tinyldp::RandomBits<tinyldp::port::InsecureTestSource> rng(source);

  uint64_t support[categories] = {};
  uint64_t fingerprint = 0xcbf29ce484222325ull;  // FNV-1a over every report byte
  uint32_t device = 0;
  for (uint32_t value = 0; value < categories; ++value) {
    const uint32_t holders = devices * share_permille[value] / 1000;
    for (uint32_t i = 0; i < holders; ++i, ++device) {
      uint8_t report[oue.report_bytes()];
      if (oue.privatize(value, rng, report, sizeof report) != tinyldp::Status::ok) {
        print("entropy failure: no report\n");
        return 1;
      }
      for (uint8_t byte : report) fingerprint = (fingerprint ^ byte) * 0x100000001b3ull;
      for (uint32_t b = 0; b < categories; ++b) support[b] += (report[b / 8] >> (b % 8)) & 1u;
    }
  }

  const double p = as_double(oue.p()), q = as_double(oue.q()), n = device;
  print("tinyldp demo: OUE, d = 8, requested epsilon = 1, realized epsilon = ");
  const uint64_t eps = oue.realized_epsilon().q32;  // ε·2^32, printed with 7 decimals
  print_uint(eps >> 32);
  print(".");
  const uint64_t frac = ((eps & 0xFFFFFFFFu) * 10000000u) >> 32;
  for (uint64_t d = 1000000; d > 0; d /= 10) print_uint(frac / d % 10);
  print("\n  p = 1/2, q = ");
  print_uint(oue.q().num);
  print(" / 2^");
  print_uint(oue.q().bits);
  print(", ");
  print_uint(oue.random_bits_per_report());
  print(" random bits per report\n");
  print_uint(device);
  print(" reports, fingerprint ");
  for (int i = 60; i >= 0; i -= 4) {
    const char hex[2] = {"0123456789abcdef"[(fingerprint >> i) & 0xF], 0};
    print(hex);
  }
  print("\n category   true %   estimated %   std. error %\n");
  const double se = sqrt_newton(n * q * (1 - q)) / (p - q) / n * 100;
  for (uint32_t b = 0; b < categories; ++b) {
    const double estimate = (static_cast<double>(support[b]) - n * q) / (p - q) / n * 100;
    print_uint(b, 9);
    print("   ");
    print_percent(share_permille[b] / 10.0);
    print("        ");
    print_percent(estimate);
    print("         ");
    print_percent(se);
    print("\n");
  }
  return 0;
}
