// SPDX-License-Identifier: Apache-2.0
// The device's sealing (port/auth/report_auth) against the gate's verification (OpenSSL's
// libcrypto, gate/authenticated_report.hpp): the golden report of tests/support verifies and
// splits back into its version-1 body; the device key and sealed bytes are the gate's for
// random keys, device ids, counters and report lengths; the device's RFC 8439 tag is OpenSSL's
// for random AAD and ciphertext (plaintext encrypted by OpenSSL); a report sealed by ReportAuth
// over emulated flash verifies, and any changed byte does not.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "report_auth_golden.hpp"
#include "tinyldp/gate/authenticated_report.hpp"
#include "tinyldp/port/auth/report_auth.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"

namespace {

using namespace tinyldp;
namespace golden = test::golden_auth;

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

gate::FleetSecret golden_secret() {
  std::string error;
  auto s = gate::FleetSecret::from_bytes(golden::fleet_secret, error);
  EXPECT_TRUE(s.has_value()) << error;
  return *s;
}

std::array<std::uint32_t, 8> words(const gate::Key& key) {
  std::array<std::uint32_t, 8> w{};
  for (std::size_t i = 0; i < 8; ++i) w[i] = get_le<std::uint32_t>(key.data() + 4 * i);
  return w;
}

TEST(ReportAuthGate, TheGoldenReportVerifiesAndSplits) {
  const gate::Key key = golden_secret().device_key(golden::device_id);
  EXPECT_EQ(std::vector<std::uint8_t>(key.begin(), key.end()), from_hex(golden::device_key_hex));
  const wire::Description what{static_cast<wire::MechanismId>(golden::mechanism), golden::payload_bits, golden::digest};
  for (std::uint32_t i = 0; i < 2; ++i) {
    const std::vector<std::uint8_t> sealed = from_hex(golden::sealed_hex[i]);
    ASSERT_EQ(sealed.size(), golden::sealed_bytes);
    EXPECT_EQ(gate::seal(golden::v1_report, golden::first_counter + i, key), sealed);
    EXPECT_TRUE(gate::tag_verifies(sealed, key));
    const gate::AuthenticatedReport split = gate::split_authenticated(sealed, what);
    ASSERT_TRUE(split.ok()) << gate::to_string(split.error);
    EXPECT_EQ(split.counter, golden::first_counter + i);
    EXPECT_EQ(split.body, std::vector<std::uint8_t>(std::begin(golden::v1_report), std::end(golden::v1_report)));
    EXPECT_EQ(split.parsed.header.device_id, golden::device_id);
    EXPECT_EQ(split.parsed.header.epoch, 7u);
    // Every byte matters: one bit changed anywhere and the tag fails.
    for (std::size_t b = 0; b < sealed.size(); ++b) {
      std::vector<std::uint8_t> changed = sealed;
      changed[b] ^= 0x10;
      EXPECT_FALSE(gate::tag_verifies(changed, key)) << "byte " << b;
    }
  }
}

TEST(ReportAuthGate, DeviceKeysAndSealsAreTheGatesForRandomInputs) {
  std::mt19937_64 random(30);
  for (int trial = 0; trial < 2000; ++trial) {
    std::array<std::uint8_t, 32> secret{};
    for (auto& b : secret) b = static_cast<std::uint8_t>(random() | 1);
    std::string error;
    const auto fleet = gate::FleetSecret::from_bytes(secret, error);
    ASSERT_TRUE(fleet.has_value()) << error;
    const auto device_id = static_cast<std::uint32_t>(random());
    std::array<std::uint8_t, 32> device_key{};
    port::derive_device_key(secret.data(), device_id, device_key.data());
    const gate::Key key = fleet->device_key(device_id);
    ASSERT_EQ(device_key, key);
    // A version-1 report with identity fields (and perhaps the others) and 0 … 200 payload bytes.
    const auto fields = static_cast<std::uint8_t>(wire::authenticated_fields | (random() & 0xC));
    std::vector<std::uint8_t> report(wire::Description::header_bytes(fields) + random() % 201);
    for (auto& b : report) b = static_cast<std::uint8_t>(random());
    report[0] = wire::format_version;
    report[6] = fields;
    put_le(report.data() + 7, device_id);
    const auto counter = static_cast<std::uint32_t>(trial < 3 ? wire::exhausted_report_counter - 1 - trial : random() % 0xFFFFFFFFu);
    ASSERT_EQ(port::report_auth_detail::check(report.data(), report.size(), report.size() + 20, device_id),
              port::ReportAuthResult::ok);
    std::vector<std::uint8_t> sealed(report.size() + 20);
    const auto w = words(key);
    port::report_auth_detail::write_sealed(w.data(), counter, report.data(), report.size(), sealed.data());
    ASSERT_EQ(sealed, gate::seal(report, counter, key)) << "trial " << trial;
    ASSERT_TRUE(gate::tag_verifies(sealed, key));
  }
}

TEST(ReportAuthGate, TheDevicesAeadTagIsOpenSSLsForRandomAadAndCiphertext) {
  std::mt19937_64 random(8439);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ASSERT_NE(ctx, nullptr);
  for (int trial = 0; trial < 1000; ++trial) {
    std::array<std::uint8_t, 32> key{};
    std::array<std::uint8_t, 12> nonce{};
    for (auto& b : key) b = static_cast<std::uint8_t>(random());
    for (auto& b : nonce) b = static_cast<std::uint8_t>(random());
    std::vector<std::uint8_t> aad(random() % 80), plain(random() % 300);
    for (auto& b : aad) b = static_cast<std::uint8_t>(random());
    for (auto& b : plain) b = static_cast<std::uint8_t>(random());
    std::vector<std::uint8_t> cipher(plain.size() + 16);
    std::array<std::uint8_t, 16> tag{};
    int n = 0;
    ASSERT_EQ(EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), nullptr, key.data(), nonce.data()), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx, cipher.data(), &n, plain.data(), static_cast<int>(plain.size())), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(ctx, cipher.data() + n, &n), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    std::array<std::uint32_t, 8> k{};
    std::array<std::uint32_t, 3> nw{};
    for (std::size_t i = 0; i < 8; ++i) k[i] = get_le<std::uint32_t>(key.data() + 4 * i);
    for (std::size_t i = 0; i < 3; ++i) nw[i] = get_le<std::uint32_t>(nonce.data() + 4 * i);
    std::array<std::uint8_t, 16> ours{};
    port::chacha20_poly1305_tag(k.data(), nw.data(), aad.data(), aad.size(), cipher.data(), plain.size(), ours.data());
    ASSERT_EQ(ours, tag) << "trial " << trial;
  }
  EVP_CIPHER_CTX_free(ctx);
}

TEST(ReportAuthGate, ReportsSealedOnEmulatedFlashVerify) {
  constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
  std::vector<std::uint8_t> memory(128 * 4);
  port::EmulatedFlash flash(memory.data(), geometry);
  flash.format();
  Record<port::EmulatedFlash> record(flash, 0, 1);
  const gate::Key key = golden_secret().device_key(golden::device_id);
  port::ReportAuth<port::EmulatedFlash> auth;
  ASSERT_EQ(auth.provision(record, golden::device_id, key.data()), port::ReportAuthResult::ok);
  const wire::Description what{static_cast<wire::MechanismId>(golden::mechanism), golden::payload_bits, golden::digest};
  for (std::uint32_t i = 0; i < 40; ++i) {
    std::uint8_t out[64];
    std::size_t written = 0;
    ASSERT_EQ(auth.seal(golden::v1_report, sizeof golden::v1_report, out, sizeof out, &written), port::ReportAuthResult::ok);
    const std::span<const std::uint8_t> sealed(out, written);
    EXPECT_TRUE(gate::tag_verifies(sealed, key));
    const gate::AuthenticatedReport split = gate::split_authenticated(sealed, what);
    ASSERT_TRUE(split.ok()) << gate::to_string(split.error);
    EXPECT_EQ(split.counter, i);
  }
}

}  // namespace
