// SPDX-License-Identifier: Apache-2.0
// The averaging attack that memoization exists to stop, run against the real stack: one device
// with a fixed value boots 1000 times (a fresh DRBG seed each boot, its memo key loaded from
// emulated flash) and sends one RAPPOR report (f = 1/2, p = 1/2, q = 3/4, k = 256) per boot.
// The attacker sums every bit over all reports and guesses each bit of the one-hot encoding
// by comparing its mean with the midpoint of the two per-bit report rates (q* + p*)/2 — the
// per-bit majority vote for this channel. With memoization the guess can recover at most
// the memo, whose bits equal the encoding's with probability 1 − f/2: per-bit accuracy stays
// ≤ 1 − f/2 + 3σ (σ of a mean of k Bernoulli(1 − f/2)). A device that re-draws its memo at every
// boot (a new key each boot: memoization off) is attacked the same way, and the attack must
// succeed — the check can fail.
#include "check.hpp"
#include "frequency_check.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

constexpr uint32_t k = 256, value = 77, boots = 1000;
constexpr TwoStageRr rappor =
    TwoStageRr::make_rappor(Dyadic{1, 1}, Dyadic{1, 1}, Dyadic{3, 2}, TwoStageRr::one_hot(k));
constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];
uint32_t ones[k];

// Boots `boots` times and counts each report bit. memoized = false: the key is re-provisioned
// at every boot (the memo re-drawn), as a client that keeps no state would.
void run_device(bool memoized) {
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  for (uint32_t i = 0; i < k; ++i) ones[i] = 0;
  for (uint32_t boot = 0; boot < boots; ++boot) {
    flash.power_on();
    if (!memoized) flash.format();
    port::InsecureTestSource trng(0xB007 + boot);
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(trng) == EntropyResult::ok);
    Record<port::EmulatedFlash> record(flash, 0, 2);
    port::MemoKey key;
    port::MemoKeyResult loaded = port::load_memo_key(record, key);
    if (loaded == port::MemoKeyResult::not_provisioned)  // a blank flash: the factory's explicit step
      loaded = port::provision_memo_key(drbg, record, 0, key);
    CHECK(loaded == port::MemoKeyResult::ok);
    RandomBits<port::ChaCha20Drbg> rng(drbg);
    uint8_t report[k / 8];
    CHECK(rappor.privatize(value, key, rng, report, sizeof report) == Status::ok);
    for (uint32_t i = 0; i < k; ++i) ones[i] += static_cast<uint32_t>(report[i / 8] >> (i % 8)) & 1u;
  }
}

// The attacker's per-bit accuracy against the true one-hot encoding.
double attack_accuracy() {
  // Midpoint of q* = 11/16 and p* = 9/16, times the number of reports.
  const double threshold = boots * (11.0 / 16 + 9.0 / 16) / 2;
  uint32_t right = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t guess = ones[i] > threshold ? 1u : 0u;
    right += guess == (i == value ? 1u : 0u) ? 1u : 0u;
  }
  return static_cast<double>(right) / k;
}

// The memo's bits equal the encoding's with probability 1 − f/2; σ of their mean over k bits.
constexpr double keep = 0.75;
double sigma() { return sqrt_newton(keep * (1 - keep) / k); }
double bound() { return keep + 3 * sigma(); }

void report(const char* what, double accuracy) {
  print("    ");
  print(what);
  print(": per-bit accuracy ");
  print_u64(static_cast<uint64_t>(accuracy * 1000));
  print("/1000, bound ");
  print_u64(static_cast<uint64_t>(bound() * 1000));
  print("/1000\n");
}

TEST(averaging_a_thousand_reboots_recovers_no_more_than_the_memo) {
  run_device(true);
  const double accuracy = attack_accuracy();
  report("memoized", accuracy);
  CHECK(accuracy <= bound());
  CHECK(accuracy >= keep - 5 * sigma());  // it does recover the memo itself
}

TEST(the_same_attack_succeeds_against_a_device_that_redraws_its_memo) {
  run_device(false);
  const double accuracy = attack_accuracy();
  report("memo re-drawn", accuracy);
  CHECK(accuracy > bound());
  CHECK(accuracy > 0.97);
}

}  // namespace
}  // namespace tinyldp::test
