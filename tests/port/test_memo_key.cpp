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
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

using tinyldp::EntropyResult;
using tinyldp::Record;
using tinyldp::StorageGeometry;
using tinyldp::port::ChaCha20Drbg;
using tinyldp::port::EmulatedFlash;
using tinyldp::port::InsecureTestSource;
using tinyldp::port::load_memo_key;
using tinyldp::port::provision_memo_key;
using tinyldp::port::MemoKey;
using tinyldp::port::MemoKeyResult;
using tinyldp::port::PowerCut;
using tinyldp::port::rekey_memo_key;

using tinyldp::test::bytes_equal;

namespace {

constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];

void seeded(ChaCha20Drbg& drbg, uint64_t seed) {
  InsecureTestSource source(seed);
  CHECK(drbg.seed(source) == EntropyResult::ok);
}

// The first 16 bytes of the memo stream of (attribute 0, value 7).
void fingerprint(const MemoKey& key, uint8_t out[16]) {
  auto stream = key.memo_stream(0, 7);
  for (int i = 0; i < 4; ++i) tinyldp::put_le(out + 4 * i, stream.next_word());
}

}  // namespace

TEST(a_memo_stream_is_the_chacha20_keystream_under_its_nonce) {
  uint8_t secret[32];
  for (uint8_t i = 0; i < 32; ++i) secret[i] = static_cast<uint8_t>(3 * i + 1);
  MemoKey key;
  key.set(secret, 5);
  CHECK(key.provisioned());
  CHECK_EQ(key.generation(), 5u);
  uint32_t words[8];
  for (int i = 0; i < 8; ++i) words[i] = tinyldp::get_le<uint32_t>(secret + 4 * i);
  const uint32_t nonce[3] = {2, 1000, 5};  // attribute, value, generation
  uint8_t expected[128];
  tinyldp::port::chacha20_block(words, 0, nonce, expected);
  tinyldp::port::chacha20_block(words, 1, nonce, expected + 64);
  uint8_t got[128];
  auto stream = key.memo_stream(2, 1000);
  for (int i = 0; i < 32; ++i) tinyldp::put_le(got + 4 * i, stream.next_word());
  CHECK(bytes_equal(got, expected, 128));  // words of consecutive blocks, little-endian
  // Another value, attribute or generation: another stream.
  auto other = key.memo_stream(2, 1001);
  for (int i = 0; i < 16; ++i) tinyldp::put_le(got + 4 * i, other.next_word());
  CHECK(!bytes_equal(got, expected, 64));
  auto attribute = key.memo_stream(3, 1000);
  for (int i = 0; i < 16; ++i) tinyldp::put_le(got + 4 * i, attribute.next_word());
  CHECK(!bytes_equal(got, expected, 64));
  // The cohort is stable and in range.
  const uint32_t c = key.cohort(64);
  CHECK(c < 64);
  CHECK_EQ(key.cohort(64), c);
}

TEST(provisioning_survives_reboots_and_never_replaces_a_key) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  uint8_t first[16];
  {
    ChaCha20Drbg drbg;
    seeded(drbg, 1);
    Record<EmulatedFlash> record(flash, 0, 2);
    MemoKey key;
    CHECK(load_memo_key(record, key) == MemoKeyResult::not_provisioned);  // a boot never creates
    CHECK(!key.provisioned());
    CHECK(provision_memo_key(drbg, record, 0, key) == MemoKeyResult::ok);  // the factory's step
    CHECK_EQ(key.generation(), 0u);
    fingerprint(key, first);
  }
  for (uint64_t boot = 2; boot < 12; ++boot) {  // reboots with differently seeded DRBGs
    flash.power_on();
    ChaCha20Drbg drbg;
    seeded(drbg, boot);
    Record<EmulatedFlash> record(flash, 0, 2);
    MemoKey key;
    CHECK(provision_memo_key(drbg, record, 9, key) == MemoKeyResult::already_provisioned);
    CHECK(!key.provisioned());
    CHECK(load_memo_key(record, key) == MemoKeyResult::ok);
    CHECK_EQ(key.generation(), 0u);
    uint8_t again[16];
    fingerprint(key, again);
    CHECK(bytes_equal(first, again, 16));
  }
}

TEST(rekeying_advances_the_generation_durably) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  ChaCha20Drbg drbg;
  seeded(drbg, 9);
  Record<EmulatedFlash> record(flash, 0, 2);
  MemoKey key;
  CHECK(provision_memo_key(drbg, record, 0, key) == MemoKeyResult::ok);
  uint8_t before[16], after[16], loaded[16];
  fingerprint(key, before);
  CHECK(rekey_memo_key(drbg, record, key) == MemoKeyResult::ok);
  CHECK_EQ(key.generation(), 1u);
  fingerprint(key, after);
  CHECK(!bytes_equal(before, after, 16));
  Record<EmulatedFlash> reboot(flash, 0, 2);
  MemoKey reloaded;
  CHECK(load_memo_key(reboot, reloaded) == MemoKeyResult::ok);
  CHECK_EQ(reloaded.generation(), 1u);
  fingerprint(reloaded, loaded);
  CHECK(bytes_equal(after, loaded, 16));
}

TEST(no_key_without_a_seeded_generator_or_a_durable_record) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<EmulatedFlash> record(flash, 0, 2);
  MemoKey key;
  ChaCha20Drbg unseeded;
  CHECK(provision_memo_key(unseeded, record, 0, key) == MemoKeyResult::generator_failed);
  CHECK(!key.provisioned());
  CHECK(load_memo_key(record, key) == MemoKeyResult::not_provisioned);
  ChaCha20Drbg drbg;
  seeded(drbg, 4);
  flash.cut_power(0, PowerCut::before);
  CHECK(provision_memo_key(drbg, record, 0, key) == MemoKeyResult::storage_failed);
  CHECK(!key.provisioned());
}

TEST(a_power_cut_never_leaves_a_key_in_use_that_the_next_boot_does_not_load) {
  // Provision, then re-key, with power lost at every step of each (before, during, after): if
  // a call answered ok, the next boot loads exactly that key; if not, the key was not handed
  // out, and the next boot loads the previous key, the new one, or none (not_provisioned).
  const PowerCut whens[] = {PowerCut::before, PowerCut::during, PowerCut::after};
  uint32_t cuts = 0;
  for (PowerCut when : whens) {
    for (uint32_t step = 0; step < 40; ++step) {
      for (int phase = 0; phase < 2; ++phase) {
        EmulatedFlash flash(memory, geometry, step + 1);
        flash.format();
        ChaCha20Drbg drbg;
        seeded(drbg, 100 + step);
        MemoKey key;
        uint8_t previous[16] = {};
        if (phase == 1) {  // re-keying: a key is already there
          Record<EmulatedFlash> record(flash, 0, 2);
          CHECK(provision_memo_key(drbg, record, 0, key) == MemoKeyResult::ok);
          fingerprint(key, previous);
        }
        flash.cut_power(step, when);
        Record<EmulatedFlash> record(flash, 0, 2);
        const MemoKeyResult r = phase == 0 ? provision_memo_key(drbg, record, 0, key)
                                           : rekey_memo_key(drbg, record, key);
        uint8_t used[16] = {};
        const bool ok = r == MemoKeyResult::ok;
        if (ok) fingerprint(key, used);
        CHECK_EQ(key.provisioned(), ok);
        cuts += flash.powered() ? 0u : 1u;
        flash.power_on();
        Record<EmulatedFlash> reboot(flash, 0, 2);
        MemoKey next;
        const MemoKeyResult loaded = load_memo_key(reboot, next);
        uint8_t now[16] = {};
        if (loaded == MemoKeyResult::ok) fingerprint(next, now);
        if (ok) {
          CHECK(loaded == MemoKeyResult::ok);
          CHECK(bytes_equal(now, used, 16));
        } else if (phase == 1 && loaded == MemoKeyResult::ok && next.generation() == 0) {
          CHECK(bytes_equal(now, previous, 16));  // the old key is still the one stored
        } else {
          CHECK(loaded == MemoKeyResult::ok || loaded == MemoKeyResult::not_provisioned);
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
  EmulatedFlash flash(memory, geometry);
  flash.format();
  ChaCha20Drbg drbg;
  seeded(drbg, 21);
  uint8_t acked[16];
  {
    Record<EmulatedFlash> record(flash, 0, 2);
    MemoKey key;
    CHECK(provision_memo_key(drbg, record, 0, key) == MemoKeyResult::ok);
    CHECK(rekey_memo_key(drbg, record, key) == MemoKeyResult::ok);
    CHECK_EQ(key.generation(), 1u);
    fingerprint(key, acked);
  }
  uint8_t saved[sizeof memory];
  for (size_t i = 0; i < sizeof memory; ++i) saved[i] = memory[i];
  const uint32_t slot_bytes = 2 * geometry.sector_size;
  const uint32_t record_bytes = Record<EmulatedFlash>::header_bytes + tinyldp::port::memo_record_bytes;
  const auto restore = [&] {
    for (size_t i = 0; i < sizeof memory; ++i) memory[i] = saved[i];
    flash.power_on();
  };
  const auto damage = [](uint8_t b, int mode) -> uint8_t {
    return mode == 0 ? static_cast<uint8_t>(b ^ 0x01u) : mode == 1 ? static_cast<uint8_t>(~b) : 0xFFu;
  };
  uint32_t cases = 0, right = 0, refused = 0, wrong = 0;
  // One boot on the damaged flash: the right key, or a refusal (and a report refused with it).
  const auto boot = [&](bool one_slot) {
    Record<EmulatedFlash> record(flash, 0, 2);
    MemoKey key;
    const MemoKeyResult r = load_memo_key(record, key);
    ++cases;
    uint8_t now[16];
    if (r == MemoKeyResult::ok) {
      fingerprint(key, now);
      if (key.generation() == 1 && bytes_equal(now, acked, 16)) ++right;
      else ++wrong;
    } else if ((r == MemoKeyResult::not_provisioned || r == MemoKeyResult::storage_failed) && !key.provisioned()) {
      ++refused;
      if (one_slot) ++wrong;  // one good slot must be enough
    } else {
      ++wrong;
    }
  };
  for (uint32_t slot = 0; slot < 2; ++slot)
    for (uint32_t i = 0; i < record_bytes; ++i)
      for (int mode = 0; mode < 3; ++mode) {
        restore();
        uint8_t& b = memory[slot * slot_bytes + i];
        b = damage(b, mode);
        boot(true);
      }
  for (uint32_t i = 0; i < record_bytes; ++i)
    for (int mode = 0; mode < 3; ++mode) {
      restore();
      for (uint32_t slot = 0; slot < 2; ++slot) {
        uint8_t& b = memory[slot * slot_bytes + i];
        b = damage(b, mode);
      }
      boot(false);
    }
  for (uint32_t erased = 0; erased < 3; ++erased) {
    restore();
    for (uint32_t slot = 0; slot < 2; ++slot)
      if (erased == slot || erased == 2)
        for (uint32_t i = 0; i < slot_bytes; ++i) memory[slot * slot_bytes + i] = 0xFF;
    boot(erased != 2);
  }
  CHECK_EQ(cases, 3 * record_bytes * 3 + 3);
  CHECK_EQ(wrong, 0u);
  CHECK(refused >= record_bytes);
  CHECK_EQ(right + refused, cases);
  // After a loss: the explicit step, under a later generation (here the ledger's + 1 = 2): the
  // collector sees the re-key in every report's generation.
  restore();
  for (uint32_t i = 0; i < 2 * slot_bytes; ++i) memory[i] = 0xFF;
  Record<EmulatedFlash> record(flash, 0, 2);
  MemoKey key;
  CHECK(load_memo_key(record, key) == MemoKeyResult::not_provisioned);
  CHECK(load_memo_key(record, key) == MemoKeyResult::not_provisioned);  // still: boots never create
  CHECK(provision_memo_key(drbg, record, 2, key) == MemoKeyResult::ok);
  CHECK_EQ(key.generation(), 2u);
  uint8_t now[16];
  fingerprint(key, now);
  CHECK(!bytes_equal(now, acked, 16));
  tinyldp::test::print("    memo key damage: ");
  tinyldp::test::print_u64(cases);
  tinyldp::test::print(" cases, ");
  tinyldp::test::print_u64(right);
  tinyldp::test::print(" loaded the generation-1 key, ");
  tinyldp::test::print_u64(refused);
  tinyldp::test::print(" refused, ");
  tinyldp::test::print_u64(wrong);
  tinyldp::test::print(" wrong (an old or new key)\n");
}

TEST(the_generation_cannot_wrap) {
  uint8_t secret[32] = {};
  MemoKey key;
  key.set(secret, ~uint32_t{0});
  EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<EmulatedFlash> record(flash, 0, 2);
  ChaCha20Drbg drbg;
  seeded(drbg, 5);
  CHECK(rekey_memo_key(drbg, record, key) == MemoKeyResult::generation_exhausted);
  CHECK_EQ(key.generation(), ~uint32_t{0});
}
