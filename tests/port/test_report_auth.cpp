// SPDX-License-Identifier: Apache-2.0
// Authenticated reports from the device (port/auth/report_auth): RFC 8439's vectors for
// Poly1305 (§2.5.2), the one-time key (§2.6.2) and the AEAD tag (§2.8.2); Poly1305's carries at
// the extremes (tags from Python's `cryptography`); the device key and a golden sealed report
// fixed from an independent implementation (tests/support/report_auth_golden.hpp); counters
// that only grow across reboots; power cuts at every program and erase step of a run of seals
// never letting a counter be used twice; and every refusal, with nothing written.
#include "bytes_equal.hpp"
#include "check.hpp"
#include "report_auth_golden.hpp"
#include "test_util.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"

namespace tinyldp::test {
namespace {

using Auth = port::ReportAuth<port::EmulatedFlash>;
using port::ReportAuthResult;

constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];

void words_of(const uint8_t* bytes, uint32_t* words, size_t n) {
  for (size_t i = 0; i < n; ++i) words[i] = get_le<uint32_t>(bytes + 4 * i);
}

TEST(poly1305_rfc8439_2_5_2) {
  uint8_t key[32];
  from_hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b", key, 32);
  const char message[] = "Cryptographic Forum Research Group";
  port::Poly1305 mac;
  mac.init(key);
  mac.update(reinterpret_cast<const uint8_t*>(message), sizeof message - 1);
  uint8_t tag[16];
  mac.finish(tag);
  CHECK(equals_hex(tag, "a8061dc1305136c6c22b8baf0c0127a9", 16));
  // The same message in pieces of every size: the buffering must not change the tag.
  for (size_t piece = 1; piece < 20; ++piece) {
    mac.init(key);
    for (size_t at = 0; at < sizeof message - 1; at += piece) {
      const size_t n = sizeof message - 1 - at < piece ? sizeof message - 1 - at : piece;
      mac.update(reinterpret_cast<const uint8_t*>(message) + at, n);
    }
    uint8_t again[16];
    mac.finish(again);
    CHECK(bytes_equal(tag, again, 16));
  }
}

TEST(poly1305_carries_at_the_extremes) {
  // r and s all ones (clamped), messages of 0xFF bytes: every limb at its largest, the final
  // reduction's h ≥ p path and the carry out of h + s (tags from Python's `cryptography`).
  uint8_t key[32];
  for (uint8_t& b : key) b = 0xFF;
  uint8_t message[64];
  for (uint8_t& b : message) b = 0xFF;
  const char* expected[] = {
      "ffffffffffffffffffffffffffffffff",  // empty: h = 0, tag = s
      "fbffff17faffff17faffff17faffff17",  // 16 bytes
      "86fa6a437bf4ec24a274504dc37495bc",  // 33 bytes
      "900fe32bc15fa8d7bca8efe4c7e37eb1",  // 64 bytes
  };
  const size_t lengths[] = {0, 16, 33, 64};
  for (int i = 0; i < 4; ++i) {
    port::Poly1305 mac;
    mac.init(key);
    mac.update(message, lengths[i]);
    uint8_t tag[16];
    mac.finish(tag);
    CHECK(equals_hex(tag, expected[i], 16));
  }
  // RFC 8439 A.3's edge cases: h reaching p (its reduction) and the carry out of h + s.
  struct Edge {
    const char* key;
    const char* message;
    size_t length;
  };
  const Edge edges[] = {
      {"0200000000000000000000000000000000000000000000000000000000000000", "ffffffffffffffffffffffffffffffff", 16},
      {"02000000000000000000000000000000ffffffffffffffffffffffffffffffff", "02000000000000000000000000000000", 16},
      {"0100000000000000000000000000000000000000000000000000000000000000",
       "fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff11000000000000000000000000000000", 48},
  };
  const char* edge_tags[] = {"03000000000000000000000000000000", "03000000000000000000000000000000",
                             "05000000000000000000000000000000"};
  for (int i = 0; i < 3; ++i) {
    from_hex(edges[i].key, key, 32);
    from_hex(edges[i].message, message, edges[i].length);
    port::Poly1305 mac;
    mac.init(key);
    mac.update(message, edges[i].length);
    uint8_t tag[16];
    mac.finish(tag);
    CHECK(equals_hex(tag, edge_tags[i], 16));
  }
}

// The key of RFC 8439's §2.6.2 and §2.8.2 vectors (bytes 80 … 9f) and a nonce, as words.
struct RfcKey {
  uint32_t key[8];
  uint32_t nonce[3];
};
RfcKey rfc_key(const char* nonce_hex) {
  uint8_t key_bytes[32];
  for (uint8_t i = 0; i < 32; ++i) key_bytes[i] = static_cast<uint8_t>(0x80 + i);
  uint8_t nonce_bytes[12];
  from_hex(nonce_hex, nonce_bytes, 12);
  RfcKey k{};
  words_of(key_bytes, k.key, 8);
  words_of(nonce_bytes, k.nonce, 3);
  return k;
}

TEST(poly1305_key_generation_rfc8439_2_6_2) {
  const RfcKey k = rfc_key("000000000001020304050607");
  uint8_t out[32];
  port::poly1305_key_gen(k.key, k.nonce, out);
  CHECK(equals_hex(out, "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646", 32));
}

// §2.8.2's ciphertext of the sunscreen plaintext (114 bytes): the tag covers it as it is.
constexpr const char* aead_ciphertext =
    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
    "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
    "3ff4def08e4b7a9de576d26586cec64b6116";

TEST(aead_tag_rfc8439_2_8_2) {
  const RfcKey k = rfc_key("070000004041424344454647");
  const uint32_t* key = k.key;
  const uint32_t* nonce = k.nonce;
  uint8_t aad[12];
  from_hex("50515253c0c1c2c3c4c5c6c7", aad, 12);
  uint8_t ciphertext[114];
  from_hex(aead_ciphertext, ciphertext, sizeof ciphertext);
  uint8_t tag[16];
  port::chacha20_poly1305_tag(key, nonce, aad, sizeof aad, ciphertext, sizeof ciphertext, tag);
  CHECK(equals_hex(tag, "1ae10b594f09e26a7e902ecbd0600691", 16));
  // One bit of the ciphertext or the AAD changed: another tag.
  ciphertext[113] ^= 1;
  uint8_t other[16];
  port::chacha20_poly1305_tag(key, nonce, aad, sizeof aad, ciphertext, sizeof ciphertext, other);
  CHECK(!bytes_equal(tag, other, 16));
  ciphertext[113] ^= 1;
  aad[0] ^= 0x80;
  port::chacha20_poly1305_tag(key, nonce, aad, sizeof aad, ciphertext, sizeof ciphertext, other);
  CHECK(!bytes_equal(tag, other, 16));
}

TEST(the_device_key_is_chacha20_under_the_fleet_secret) {
  uint8_t key[32];
  port::derive_device_key(golden_auth::fleet_secret, golden_auth::device_id, key);
  CHECK(equals_hex(key, golden_auth::device_key_hex, 32));
  uint8_t other[32];
  port::derive_device_key(golden_auth::fleet_secret, golden_auth::device_id + 1, other);
  CHECK(!bytes_equal(key, other, 32));
}

// A formatted flash with the golden device provisioned at `first_counter`.
void provision_golden(port::EmulatedFlash& flash, Record<port::EmulatedFlash>& record, Auth& auth,
                      uint32_t first_counter = golden_auth::first_counter) {
  flash.format();
  uint8_t key[32];
  port::derive_device_key(golden_auth::fleet_secret, golden_auth::device_id, key);
  CHECK(auth.provision(record, golden_auth::device_id, key, first_counter) == ReportAuthResult::ok);
}

TEST(the_golden_report_seals_byte_for_byte) {
  port::EmulatedFlash flash(memory, geometry);
  Record<port::EmulatedFlash> record(flash, 0, 1);
  Auth auth;
  provision_golden(flash, record, auth);
  CHECK(auth.provisioned());
  CHECK_EQ(auth.device_id(), golden_auth::device_id);
  CHECK_EQ(auth.next_counter(), golden_auth::first_counter);
  // Into a separate buffer, then in place.
  uint8_t out[64] = {};
  size_t written = 0;
  CHECK(auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written) ==
        ReportAuthResult::ok);
  CHECK_EQ(written, golden_auth::sealed_bytes);
  CHECK(equals_hex(out, golden_auth::sealed_hex[0], golden_auth::sealed_bytes));
  uint8_t in_place[golden_auth::sealed_bytes];
  for (size_t i = 0; i < sizeof golden_auth::v1_report; ++i) in_place[i] = golden_auth::v1_report[i];
  CHECK(auth.seal(in_place, sizeof golden_auth::v1_report, in_place, sizeof in_place, &written) ==
        ReportAuthResult::ok);
  CHECK_EQ(written, golden_auth::sealed_bytes);
  CHECK(equals_hex(in_place, golden_auth::sealed_hex[1], golden_auth::sealed_bytes));
}

TEST(counters_only_grow_across_reboots) {
  port::EmulatedFlash flash(memory, geometry);
  uint32_t last = 0;
  bool any = false;
  {
    Record<port::EmulatedFlash> record(flash, 0, 1);
    Auth auth;
    provision_golden(flash, record, auth, 0);
  }
  for (uint32_t boot = 0; boot < 6; ++boot) {
    flash.power_on();
    Record<port::EmulatedFlash> record(flash, 0, 1);
    Auth auth;
    CHECK(auth.load(record) == ReportAuthResult::ok);
    // A reboot starts at the window after the last one reserved (the rest of it skipped).
    CHECK_EQ(auth.next_counter() % port::report_counter_window, 0u);
    for (uint32_t i = 0; i < boot * 7 + 1; ++i) {
      uint8_t out[64];
      size_t written = 0;
      CHECK(auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written) ==
            ReportAuthResult::ok);
      const uint32_t counter = get_le<uint32_t>(out + sizeof golden_auth::v1_report);
      CHECK(!any || counter > last);
      last = counter, any = true;
    }
  }
  // Windows of 16: 1 + 8 + 15 + 22 + 29 + 36 reports used 14 windows at most.
  CHECK(last < 16 * 14);
}

TEST(a_power_cut_at_any_step_never_lets_a_counter_be_used_twice) {
  // A run of seals with power lost at the step-th program or erase step (before, during or
  // after it), a reboot, and more seals: every counter of a report that came out must be larger
  // than every earlier one. 20 seals before the cut cross two window writes (2 × 30 steps).
  const port::PowerCut whens[] = {port::PowerCut::before, port::PowerCut::during, port::PowerCut::after};
  uint32_t cuts = 0, refused = 0;
  for (port::PowerCut when : whens) {
    for (uint32_t step = 0; step < 64; ++step) {
      port::EmulatedFlash flash(memory, geometry, step + 7);
      {
        Record<port::EmulatedFlash> record(flash, 0, 1);
        Auth auth;
        provision_golden(flash, record, auth, 3);
      }
      uint32_t used[48];
      uint32_t count = 0;
      for (int boot = 0; boot < 2; ++boot) {
        flash.power_on();
        if (boot == 0) flash.cut_power(step, when);
        Record<port::EmulatedFlash> record(flash, 0, 1);
        Auth auth;
        const ReportAuthResult loaded = auth.load(record);
        CHECK(loaded == ReportAuthResult::ok);  // the record survives: provisioning was whole
        if (loaded != ReportAuthResult::ok) continue;
        for (int i = 0; i < 20 && flash.powered(); ++i) {
          uint8_t out[64];
          size_t written = 0;
          const ReportAuthResult r =
              auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written);
          if (r != ReportAuthResult::ok) {
            CHECK(r == ReportAuthResult::storage_failed);
            CHECK_EQ(written, 0u);
            ++refused;
            continue;
          }
          if (count < 48) used[count++] = get_le<uint32_t>(out + sizeof golden_auth::v1_report);
        }
        cuts += flash.powered() ? 0u : 1u;
      }
      for (uint32_t i = 1; i < count; ++i) CHECK(used[i] > used[i - 1]);
      CHECK(count >= 20);  // the second boot seals its 20
    }
  }
  CHECK(cuts > 100);    // power was really lost inside most runs
  CHECK(refused > 100);  // and a seal refused it
}

TEST(the_last_counter_is_never_used) {
  port::EmulatedFlash flash(memory, geometry);
  Record<port::EmulatedFlash> record(flash, 0, 1);
  Auth auth;
  provision_golden(flash, record, auth, 0xFFFFFFFCu);
  uint8_t out[64];
  size_t written = 0;
  for (uint32_t c = 0xFFFFFFFCu; c < 0xFFFFFFFFu; ++c) {
    CHECK(auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written) ==
          ReportAuthResult::ok);
    CHECK_EQ(get_le<uint32_t>(out + sizeof golden_auth::v1_report), c);
  }
  CHECK(auth.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written) ==
        ReportAuthResult::counter_exhausted);
  CHECK_EQ(written, 0u);
  Record<port::EmulatedFlash> reboot(flash, 0, 1);
  Auth again;
  CHECK(again.load(reboot) == ReportAuthResult::ok);
  CHECK(again.seal(golden_auth::v1_report, sizeof golden_auth::v1_report, out, sizeof out, &written) ==
        ReportAuthResult::counter_exhausted);
  // Provisioning at the exhausted counter is refused.
  flash.format();
  uint8_t key[32];
  from_hex(golden_auth::device_key_hex, key, 32);
  Record<port::EmulatedFlash> fresh(flash, 0, 1);
  CHECK(again.provision(fresh, 1, key, 0xFFFFFFFFu) == ReportAuthResult::counter_exhausted);
}

// Seals `report` (length n) and checks it is refused with `expected`, nothing written.
void check_refused(Auth& auth, const uint8_t* report, size_t n, size_t capacity, ReportAuthResult expected) {
  uint8_t out[64];
  for (uint8_t& b : out) b = 0xA5;
  size_t written = 99;
  CHECK(auth.seal(report, n, out, capacity, &written) == expected);
  CHECK_EQ(written, 0u);
  bool untouched = true;
  for (uint8_t b : out) untouched = untouched && b == 0xA5;
  CHECK(untouched);
}

TEST(every_refusal_writes_nothing) {
  port::EmulatedFlash flash(memory, geometry);
  Record<port::EmulatedFlash> record(flash, 0, 1);
  uint8_t key[32];
  from_hex(golden_auth::device_key_hex, key, 32);
  const uint8_t* v1 = golden_auth::v1_report;
  const size_t n = sizeof golden_auth::v1_report;
  // A zeroed object and a never-provisioned record.
  Auth zeroed{};
  check_refused(zeroed, v1, n, 64, ReportAuthResult::not_provisioned);
  flash.format();
  CHECK(record.mount() == StorageResult::ok);  // the record forgets what it read before
  Auth auth;
  CHECK(auth.load(record) == ReportAuthResult::not_provisioned);
  check_refused(auth, v1, n, 64, ReportAuthResult::not_provisioned);
  // An all-zero key, provisioned or stored.
  const uint8_t zero[32] = {};
  CHECK(auth.provision(record, golden_auth::device_id, zero) == ReportAuthResult::zero_key);
  uint8_t stored[port::report_auth_record_bytes] = {};
  put_le(stored, golden_auth::device_id);
  CHECK(record.write(stored, sizeof stored) == StorageResult::ok);
  CHECK(auth.load(record) == ReportAuthResult::zero_key);
  check_refused(auth, v1, n, 64, ReportAuthResult::not_provisioned);
  // A record of another size is not a report key.
  CHECK(record.write(stored, 12) == StorageResult::ok);
  CHECK(auth.load(record) == ReportAuthResult::not_provisioned);
  // Provisioning a record that holds one is refused and changes nothing.
  flash.format();
  CHECK(record.mount() == StorageResult::ok);  // the record forgets what it read before
  CHECK(auth.provision(record, golden_auth::device_id, key, golden_auth::first_counter) == ReportAuthResult::ok);
  const uint32_t sequence = record.sequence();
  Auth second;
  CHECK(second.provision(record, golden_auth::device_id, key, 0) == ReportAuthResult::already_provisioned);
  CHECK(!second.provisioned());
  CHECK_EQ(record.sequence(), sequence);
  // Reports it must not seal.
  uint8_t report[sizeof golden_auth::v1_report];
  for (size_t i = 0; i < n; ++i) report[i] = v1[i];
  report[7] ^= 1;  // another device id
  check_refused(auth, report, n, 64, ReportAuthResult::wrong_device);
  report[7] ^= 1;
  report[6] = wire::field_device_id;  // no epoch
  check_refused(auth, report, n, 64, ReportAuthResult::missing_identity);
  report[6] = wire::field_epoch;  // no device id
  check_refused(auth, report, n, 64, ReportAuthResult::missing_identity);
  report[6] = v1[6];
  report[0] = wire::authenticated_version;  // sealed already
  check_refused(auth, report, n, 64, ReportAuthResult::not_a_report);
  report[0] = v1[0];
  check_refused(auth, report, 14, 64, ReportAuthResult::not_a_report);  // shorter than id and epoch
  check_refused(auth, nullptr, n, 64, ReportAuthResult::not_a_report);
  check_refused(auth, report, n, n + 19, ReportAuthResult::buffer_too_small);
  check_refused(auth, report, n, 3, ReportAuthResult::buffer_too_small);
  // None of these spent a counter: the next report is the golden one.
  uint8_t out[64];
  size_t written = 0;
  CHECK(auth.seal(v1, n, out, n + 20, &written) == ReportAuthResult::ok);
  CHECK(equals_hex(out, golden_auth::sealed_hex[0], golden_auth::sealed_bytes));
  // A storage failure at a window's reservation: refused, nothing written; the next seal after
  // power returns uses a counter never used.
  flash.format();
  CHECK(record.mount() == StorageResult::ok);  // the record forgets what it read before
  Auth cut;
  CHECK(cut.provision(record, golden_auth::device_id, key, 0) == ReportAuthResult::ok);
  flash.cut_power(0, port::PowerCut::before);
  check_refused(cut, v1, n, 64, ReportAuthResult::storage_failed);
  flash.power_on();
  CHECK(cut.seal(v1, n, out, sizeof out, &written) == ReportAuthResult::ok);
  CHECK_EQ(get_le<uint32_t>(out + n), 0u);  // nothing was used before
  // Wiped: not provisioned.
  cut.wipe();
  check_refused(cut, v1, n, 64, ReportAuthResult::not_provisioned);
}

}  // namespace
}  // namespace tinyldp::test
