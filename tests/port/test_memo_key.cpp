// SPDX-License-Identifier: Apache-2.0
// The memo key (port/…/memo_key.hpp): its streams are ChaCha20 keystreams under the
// (attribute, value, generation) nonce; a key is created only by the explicit provisioning step
// (a boot only loads), survives reboots and is never replaced by provisioning; re-keying
// advances the generation durably; a power cut at any step of provisioning or re-keying never
// leaves a key in use that the next boot does not load; and no damage to the record — every
// byte of either slot or both corrupted or erased — brings back an older key or generation or
// makes a new one: the device reads the right key or refuses until provisioned again, under a
// later generation.
#include "bytes_equal.hpp"
#include "check.hpp"
#include "slot_damage.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::test {
namespace {

constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];

void seeded(port::ChaCha20Drbg& drbg, uint64_t seed) {
  port::InsecureTestSource source(seed);
  CHECK(drbg.seed(source) == EntropyResult::ok);
}

// The first 16 bytes of the memo stream of (attribute 0, value 7).
void fingerprint(const port::MemoKey& key, uint8_t out[16]) {
  auto stream = key.memo_stream(0, 7);
  for (int i = 0; i < 4; ++i) put_le(out + 4 * i, stream.next_word());
}

TEST(a_memo_stream_is_the_chacha20_keystream_under_its_nonce) {
  uint8_t secret[32];
  for (uint8_t i = 0; i < 32; ++i) secret[i] = static_cast<uint8_t>(3 * i + 1);
  port::MemoKey key;
  key.set(secret, 5);
  CHECK(key.provisioned());
  CHECK_EQ(key.generation(), 5u);
  uint32_t words[8];
  for (int i = 0; i < 8; ++i) words[i] = get_le<uint32_t>(secret + 4 * i);
  const uint32_t nonce[3] = {2, 1000, 5};  // attribute, value, generation
  uint8_t expected[128];
  port::chacha20_block(words, 0, nonce, expected);
  port::chacha20_block(words, 1, nonce, expected + 64);
  uint8_t got[128];
  auto stream = key.memo_stream(2, 1000);
  for (int i = 0; i < 32; ++i) put_le(got + 4 * i, stream.next_word());
  CHECK(bytes_equal(got, expected, 128));  // words of consecutive blocks, little-endian
  // Another value, attribute or generation: another stream.
  auto other = key.memo_stream(2, 1001);
  for (int i = 0; i < 16; ++i) put_le(got + 4 * i, other.next_word());
  CHECK(!bytes_equal(got, expected, 64));
  auto attribute = key.memo_stream(3, 1000);
  for (int i = 0; i < 16; ++i) put_le(got + 4 * i, attribute.next_word());
  CHECK(!bytes_equal(got, expected, 64));
  // The cohort is stable and in range.
  const uint32_t c = key.cohort(64);
  CHECK(c < 64);
  CHECK_EQ(key.cohort(64), c);
}

TEST(provisioning_survives_reboots_and_never_replaces_a_key) {
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  uint8_t first[16];
  {
    port::ChaCha20Drbg drbg;
    seeded(drbg, 1);
    Record<port::EmulatedFlash> record(flash, 0, 2);
    port::MemoKey key;
    CHECK(port::load_memo_key(record, key) == port::MemoKeyResult::not_provisioned);  // a boot never creates
    CHECK(!key.provisioned());
    CHECK(port::provision_memo_key(drbg, record, 0, key) == port::MemoKeyResult::ok);  // the factory's step
    CHECK_EQ(key.generation(), 0u);
    fingerprint(key, first);
  }
  for (uint64_t boot = 2; boot < 12; ++boot) {  // reboots with differently seeded DRBGs
    flash.power_on();
    port::ChaCha20Drbg drbg;
    seeded(drbg, boot);
    Record<port::EmulatedFlash> record(flash, 0, 2);
    port::MemoKey key;
    CHECK(port::provision_memo_key(drbg, record, 9, key) == port::MemoKeyResult::already_provisioned);
    CHECK(!key.provisioned());
    CHECK(port::load_memo_key(record, key) == port::MemoKeyResult::ok);
    CHECK_EQ(key.generation(), 0u);
    uint8_t again[16];
    fingerprint(key, again);
    CHECK(bytes_equal(first, again, 16));
  }
}

TEST(rekeying_advances_the_generation_durably) {
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  port::ChaCha20Drbg drbg;
  seeded(drbg, 9);
  Record<port::EmulatedFlash> record(flash, 0, 2);
  port::MemoKey key;
  CHECK(port::provision_memo_key(drbg, record, 0, key) == port::MemoKeyResult::ok);
  uint8_t before[16], after[16], loaded[16];
  fingerprint(key, before);
  CHECK(port::rekey_memo_key(drbg, record, key) == port::MemoKeyResult::ok);
  CHECK_EQ(key.generation(), 1u);
  fingerprint(key, after);
  CHECK(!bytes_equal(before, after, 16));
  Record<port::EmulatedFlash> reboot(flash, 0, 2);
  port::MemoKey reloaded;
  CHECK(port::load_memo_key(reboot, reloaded) == port::MemoKeyResult::ok);
  CHECK_EQ(reloaded.generation(), 1u);
  fingerprint(reloaded, loaded);
  CHECK(bytes_equal(after, loaded, 16));
}

TEST(no_key_without_a_seeded_generator_or_a_durable_record) {
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<port::EmulatedFlash> record(flash, 0, 2);
  port::MemoKey key;
  port::ChaCha20Drbg unseeded;
  CHECK(port::provision_memo_key(unseeded, record, 0, key) == port::MemoKeyResult::generator_failed);
  CHECK(!key.provisioned());
  CHECK(port::load_memo_key(record, key) == port::MemoKeyResult::not_provisioned);
  port::ChaCha20Drbg drbg;
  seeded(drbg, 4);
  flash.cut_power(0, port::PowerCut::before);
  CHECK(port::provision_memo_key(drbg, record, 0, key) == port::MemoKeyResult::storage_failed);
  CHECK(!key.provisioned());
}

TEST(a_power_cut_never_leaves_a_key_in_use_that_the_next_boot_does_not_load) {
  // Provision, then re-key, with power lost at every step of each (before, during, after): if
  // a call answered ok, the next boot loads exactly that key; if not, the key was not handed
  // out, and the next boot loads the previous key, the new one, or none (not_provisioned).
  const port::PowerCut whens[] = {port::PowerCut::before, port::PowerCut::during, port::PowerCut::after};
  uint32_t cuts = 0;
  for (port::PowerCut when : whens) {
    for (uint32_t step = 0; step < 40; ++step) {
      for (int phase = 0; phase < 2; ++phase) {
        port::EmulatedFlash flash(memory, geometry, step + 1);
        flash.format();
        port::ChaCha20Drbg drbg;
        seeded(drbg, 100 + step);
        port::MemoKey key;
        uint8_t previous[16] = {};
        if (phase == 1) {  // re-keying: a key is already there
          Record<port::EmulatedFlash> record(flash, 0, 2);
          CHECK(port::provision_memo_key(drbg, record, 0, key) == port::MemoKeyResult::ok);
          fingerprint(key, previous);
        }
        flash.cut_power(step, when);
        Record<port::EmulatedFlash> record(flash, 0, 2);
        const port::MemoKeyResult r = phase == 0 ? port::provision_memo_key(drbg, record, 0, key)
                                           : port::rekey_memo_key(drbg, record, key);
        uint8_t used[16] = {};
        const bool ok = r == port::MemoKeyResult::ok;
        if (ok) fingerprint(key, used);
        CHECK_EQ(key.provisioned(), ok);
        cuts += flash.powered() ? 0u : 1u;
        flash.power_on();
        Record<port::EmulatedFlash> reboot(flash, 0, 2);
        port::MemoKey next;
        const port::MemoKeyResult loaded = port::load_memo_key(reboot, next);
        uint8_t now[16] = {};
        if (loaded == port::MemoKeyResult::ok) fingerprint(next, now);
        if (ok) {
          CHECK(loaded == port::MemoKeyResult::ok);
          CHECK(bytes_equal(now, used, 16));
        } else if (phase == 1 && loaded == port::MemoKeyResult::ok && next.generation() == 0) {
          CHECK(bytes_equal(now, previous, 16));  // the old key is still the one stored
        } else {
          CHECK(loaded == port::MemoKeyResult::ok || loaded == port::MemoKeyResult::not_provisioned);
        }
      }
    }
  }
  CHECK(cuts > 50);  // power was really lost inside most of these runs
}

TEST(no_damage_to_the_record_brings_back_an_old_key_or_makes_a_new_one) {
  // A key provisioned (generation 0) and re-keyed (generation 1): before the fix the older slot
  // still held generation 0's key, so damage to the newest slot silently brought it back, and
  // a record damaged in both slots was provisioned anew at boot as generation 0. Each byte of
  // each slot's record (header and payload) is flipped in one bit, inverted and erased (0xFF);
  // then the same byte in both slots; then each slot wholly erased, and both. One damaged slot:
  // the generation-1 key; both: refused (not_provisioned), never another key.
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  port::ChaCha20Drbg drbg;
  seeded(drbg, 21);
  uint8_t acked[16];
  {
    Record<port::EmulatedFlash> record(flash, 0, 2);
    port::MemoKey key;
    CHECK(port::provision_memo_key(drbg, record, 0, key) == port::MemoKeyResult::ok);
    CHECK(port::rekey_memo_key(drbg, record, key) == port::MemoKeyResult::ok);
    CHECK_EQ(key.generation(), 1u);
    fingerprint(key, acked);
  }
  const uint32_t slot_bytes = 2 * geometry.sector_size;
  const uint32_t record_bytes = Record<port::EmulatedFlash>::header_bytes + port::memo_record_bytes;
  SlotDamage damage(memory, flash, slot_bytes, record_bytes);
  uint32_t cases = 0, right = 0, refused = 0, wrong = 0;
  // One boot on the damaged flash: the right key, or a refusal (and a report refused with it).
  const auto boot = [&](bool one_slot) {
    Record<port::EmulatedFlash> record(flash, 0, 2);
    port::MemoKey key;
    const port::MemoKeyResult r = port::load_memo_key(record, key);
    ++cases;
    uint8_t now[16];
    if (r == port::MemoKeyResult::ok) {
      fingerprint(key, now);
      if (key.generation() == 1 && bytes_equal(now, acked, 16)) ++right;
      else ++wrong;
    } else if ((r == port::MemoKeyResult::not_provisioned || r == port::MemoKeyResult::storage_failed) && !key.provisioned()) {
      ++refused;
      if (one_slot) ++wrong;  // one good slot must be enough
    } else {
      ++wrong;
    }
  };
  damage.sweep(boot);
  CHECK_EQ(cases, 3 * record_bytes * 3 + 3);
  CHECK_EQ(wrong, 0u);
  CHECK(refused >= record_bytes);
  CHECK_EQ(right + refused, cases);
  // After a loss: the explicit step, under a later generation (here the ledger's + 1 = 2): the
  // collector sees the re-key in every report's generation.
  damage.restore();
  for (uint32_t i = 0; i < 2 * slot_bytes; ++i) memory[i] = 0xFF;
  Record<port::EmulatedFlash> record(flash, 0, 2);
  port::MemoKey key;
  CHECK(port::load_memo_key(record, key) == port::MemoKeyResult::not_provisioned);
  CHECK(port::load_memo_key(record, key) == port::MemoKeyResult::not_provisioned);  // still: boots never create
  CHECK(port::provision_memo_key(drbg, record, 2, key) == port::MemoKeyResult::ok);
  CHECK_EQ(key.generation(), 2u);
  uint8_t now[16];
  fingerprint(key, now);
  CHECK(!bytes_equal(now, acked, 16));
  print("    memo key damage: ");
  print_u64(cases);
  print(" cases, ");
  print_u64(right);
  print(" loaded the generation-1 key, ");
  print_u64(refused);
  print(" refused, ");
  print_u64(wrong);
  print(" wrong (an old or new key)\n");
}

TEST(the_generation_cannot_wrap) {
  uint8_t secret[32] = {};
  port::MemoKey key;
  key.set(secret, ~uint32_t{0});
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<port::EmulatedFlash> record(flash, 0, 2);
  port::ChaCha20Drbg drbg;
  seeded(drbg, 5);
  CHECK(port::rekey_memo_key(drbg, record, key) == port::MemoKeyResult::generation_exhausted);
  CHECK_EQ(key.generation(), ~uint32_t{0});
}

}  // namespace
}  // namespace tinyldp::test
