// SPDX-License-Identifier: Apache-2.0
// Reboot safety: a DRBG seed persisted in a storage Record is advanced and rewritten before the
// generator's first use after each boot. 1000 simulated boots without fresh entropy never
// produce the same first output block — also when power fails during the rewrite (such a boot
// fails closed and emits nothing); and the check catches a boot path that does not advance.
#include "check.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/port/entropy/persisted_seed.hpp"

namespace tinyldp::test {
namespace {

constexpr uint32_t boots = 1000;
constexpr StorageGeometry geometry{128, 4, 4, 0xFF};

// First 8 bytes of each boot's first output block (distinct prefixes: distinct blocks).
uint64_t prints[boots];

uint64_t prefix(const uint8_t* b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | b[i];
  return v;
}

uint32_t duplicates(const uint64_t* p, uint32_t n) {
  uint32_t d = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j) d += p[i] == p[j] ? 1u : 0u;
  return d;
}

// Factory provisioning: a seed from a real (here: the test) source.
void provision(port::EmulatedFlash& flash) {
  flash.format();
  port::InsecureTestSource factory(0xF00D);
  port::ChaCha20Drbg drbg;
  CHECK(drbg.seed(factory) == EntropyResult::ok);
  Record<port::EmulatedFlash> record(flash, 0, 1);
  CHECK(port::save_seed(drbg, record) == port::SeedResult::ok);
}

// One boot: a fresh generator (RAM lost), no entropy source; the first 64-byte block.
port::SeedResult boot(port::EmulatedFlash& flash, uint8_t block[64]) {
  port::ChaCha20Drbg drbg;
  Record<port::EmulatedFlash> record(flash, 0, 1);
  const port::SeedResult r = port::restore_seed(drbg, record);
  const EntropyResult e = drbg.fill(block, 64, TINYLDP_ENTROPY_BLOCKING);
  if (r == port::SeedResult::ok) {
    CHECK(e == EntropyResult::ok);
  } else {
    CHECK(e == EntropyResult::failed);  // fail closed: nothing to use
  }
  return r;
}

TEST(thousand_boots_never_repeat_a_first_block) {
  uint8_t memory[4 * 128];
  port::EmulatedFlash flash(memory, geometry);
  provision(flash);
  uint32_t previous_sequence = 1;
  for (uint32_t i = 0; i < boots; ++i) {
    uint8_t block[64];
    CHECK(boot(flash, block) == port::SeedResult::ok);
    prints[i] = prefix(block);
    Record<port::EmulatedFlash> record(flash, 0, 1);
    CHECK(record.mount() == StorageResult::ok);
    CHECK_EQ(record.sequence(), previous_sequence + 1);  // rewritten on every boot
    previous_sequence = record.sequence();
  }
  CHECK_EQ(duplicates(prints, boots), 0u);
  CHECK_EQ(flash.counters().violations, 0u);
}

TEST(power_cuts_during_the_rewrite_never_repeat_a_used_block) {
  uint8_t memory[4 * 128];
  port::EmulatedFlash flash(memory, geometry, 77);
  provision(flash);
  uint32_t used = 0, failed = 0, state = 12345;
  for (uint32_t i = 0; i < boots; ++i) {
    state = state * 1103515245u + 12345u;
    const uint32_t pick = (state >> 8) % 30;  // write = 1 erase + 8 + 4 units: ~1/3 uncut
    if (pick < 20) flash.cut_power(pick % 13, static_cast<port::PowerCut>(pick % 3));
    uint8_t block[64];
    const port::SeedResult r = boot(flash, block);
    flash.power_on();
    if (r == port::SeedResult::ok) {
      prints[used++] = prefix(block);
    } else {
      CHECK(r == port::SeedResult::storage_failed);
      ++failed;
    }
  }
  print("boots that used their generator: ");
  print_u64(used);
  print(", failed closed: ");
  print_u64(failed);
  print("\n");
  CHECK_GT(used, boots / 4);
  CHECK_GT(failed, boots / 4);
  CHECK_EQ(duplicates(prints, used), 0u);
}

TEST(a_boot_that_does_not_advance_the_seed_is_caught) {
  // The mutant: load the seed and use it, without rewriting — every boot repeats itself.
  uint8_t memory[4 * 128];
  port::EmulatedFlash flash(memory, geometry);
  provision(flash);
  for (uint32_t i = 0; i < 50; ++i) {
    Record<port::EmulatedFlash> record(flash, 0, 1);
    uint8_t seed[32];
    size_t n = 0;
    CHECK(record.read(seed, sizeof seed, &n) == StorageResult::ok);
    port::ChaCha20Drbg drbg;
    drbg.seed_from_bytes(seed, n);
    uint8_t block[64];
    CHECK(drbg.fill(block, 64, TINYLDP_ENTROPY_BLOCKING) == EntropyResult::ok);
    prints[i] = prefix(block);
  }
  CHECK_EQ(duplicates(prints, 50), 50u * 49u / 2u);
}

TEST(unprovisioned_and_failing_storage) {
  uint8_t memory[4 * 128];
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  uint8_t block[64];
  CHECK(boot(flash, block) == port::SeedResult::not_provisioned);
  // A generator already seeded from a real source is left alone by not_provisioned.
  {
    port::InsecureTestSource trng(5);
    port::ChaCha20Drbg drbg;
    CHECK(drbg.seed(trng) == EntropyResult::ok);
    Record<port::EmulatedFlash> record(flash, 0, 1);
    CHECK(port::restore_seed(drbg, record) == port::SeedResult::not_provisioned);
    CHECK(drbg.fill(block, 64, 0) == EntropyResult::ok);
    // save_seed refuses an unseeded generator.
    port::ChaCha20Drbg empty;
    CHECK(port::save_seed(empty, record) == port::SeedResult::generator_failed);
  }
  // A record of the wrong size is not a seed.
  {
    Record<port::EmulatedFlash> record(flash, 0, 1);
    const uint8_t other[5] = {1, 2, 3, 4, 5};
    CHECK(record.write(other, 5) == StorageResult::ok);
    port::ChaCha20Drbg drbg;
    CHECK(port::restore_seed(drbg, record) == port::SeedResult::not_provisioned);
  }
  // Storage that fails on read: the generator is wiped.
  provision(flash);
  flash.cut_power_now();
  CHECK(boot(flash, block) == port::SeedResult::storage_failed);
  flash.power_on();
  CHECK(boot(flash, block) == port::SeedResult::ok);
}

TEST(personalization_separates_devices_with_the_same_seed) {
  uint8_t m1[4 * 128], m2[4 * 128];
  port::EmulatedFlash a(m1, geometry), b(m2, geometry);
  provision(a);
  provision(b);  // same factory seed: a cloned image
  const uint8_t id_a[4] = {0, 0, 0, 1}, id_b[4] = {0, 0, 0, 2};
  port::ChaCha20Drbg da, db;
  Record<port::EmulatedFlash> ra(a, 0, 1), rb(b, 0, 1);
  CHECK(port::restore_seed(da, ra, id_a, 4) == port::SeedResult::ok);
  CHECK(port::restore_seed(db, rb, id_b, 4) == port::SeedResult::ok);
  uint8_t xa[64], xb[64];
  CHECK(da.fill(xa, 64, 0) == EntropyResult::ok);
  CHECK(db.fill(xb, 64, 0) == EntropyResult::ok);
  CHECK(prefix(xa) != prefix(xb));
}

}  // namespace
}  // namespace tinyldp::test
