// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/gate/authenticated_report.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <new>
#include <stdexcept>

#include <cstring>
#include <fstream>
#include <memory>

#include "tinyldp/endian.hpp"

namespace tinyldp::gate {

namespace {

struct CipherContext {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ~CipherContext() { EVP_CIPHER_CTX_free(ctx); }
};
// One context per thread, re-keyed per call: making one costs more than the tag itself.
EVP_CIPHER_CTX* cipher_context() {
  thread_local CipherContext c;
  if (c.ctx == nullptr) throw std::bad_alloc();
  return c.ctx;
}

// Fetched once: an implicit fetch by name on every init is a third of a tag's time.
const EVP_CIPHER* cipher(const char* name) {
  const EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
  if (c == nullptr) throw std::runtime_error(std::string("OpenSSL has no ") + name);
  return c;
}
const EVP_CIPHER* chacha20() {
  static const EVP_CIPHER* c = cipher("ChaCha20");
  return c;
}
const EVP_CIPHER* chacha20_poly1305() {
  static const EVP_CIPHER* c = cipher("ChaCha20-Poly1305");
  return c;
}

// The wire format's tag is OpenSSL's ChaCha20-Poly1305 tag, whole.
static_assert(tag_bytes == EVP_CHACHAPOLY_TLS_TAG_LEN);

void check(int ok) {
  if (ok != 1) throw std::runtime_error("OpenSSL's ChaCha20-Poly1305 failed");
}

}  // namespace

const char* to_string(AuthError e) {
  switch (e) {
    case AuthError::none: return "ok";
    case AuthError::unauthenticated: return "an unauthenticated report (format version 1: no tag)";
    case AuthError::malformed: return "a malformed authenticated report";
    case AuthError::missing_identity: return "an authenticated report without its device id or epoch field";
    case AuthError::exhausted_counter: return "the reserved counter value 0xFFFFFFFF";
    case AuthError::bad_tag: return "the tag does not verify under the device's key (forged or changed)";
  }
  return "unknown error";
}

std::optional<FleetSecret> FleetSecret::from_bytes(std::span<const std::uint8_t> bytes, std::string& error) {
  if (bytes.size() != 32) {
    error = "not a fleet secret (32 bytes)";
    return std::nullopt;
  }
  FleetSecret s;
  std::memcpy(s.secret_.data(), bytes.data(), 32);
  std::uint8_t any = 0;
  for (std::uint8_t b : s.secret_) any |= b;
  if (any == 0) {
    error = "an all-zero fleet secret is refused (no default key)";
    return std::nullopt;
  }
  return s;
}

std::optional<FleetSecret> FleetSecret::read(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot read the fleet secret";
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes(33);
  in.read(reinterpret_cast<char*>(bytes.data()), 33);
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  auto s = from_bytes(bytes, error);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  if (!s) error = path + ": " + error;
  return s;
}

FleetSecret::~FleetSecret() { OPENSSL_cleanse(secret_.data(), secret_.size()); }

Key FleetSecret::device_key(std::uint32_t device_id) const {
  // OpenSSL's ChaCha20 IV: the block counter (u32 LE), then the 96-bit nonce.
  std::uint8_t iv[16] = {0, 0, 0, 0, 'T', 'L', 'D', 'K'};
  put_le(iv + 8, device_id);
  const std::uint8_t zeros[32] = {};
  Key key{};
  EVP_CIPHER_CTX* ctx = cipher_context();
  int len = 0;
  check(EVP_EncryptInit_ex(ctx, chacha20(), nullptr, secret_.data(), iv));
  check(EVP_EncryptUpdate(ctx, key.data(), &len, zeros, sizeof zeros));
  return key;
}

std::array<std::uint8_t, 32> FleetSecret::fingerprint() const {
  static constexpr char label[] = "tinyldp fleet secret fingerprint";
  std::array<std::uint8_t, 32> out{};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  unsigned n = 0;
  const bool ok = md != nullptr && EVP_DigestInit_ex(md, EVP_sha256(), nullptr) == 1 &&
                  EVP_DigestUpdate(md, label, sizeof label - 1) == 1 &&
                  EVP_DigestUpdate(md, secret_.data(), secret_.size()) == 1 && EVP_DigestFinal_ex(md, out.data(), &n) == 1;
  EVP_MD_CTX_free(md);
  if (!ok) throw std::runtime_error("OpenSSL's SHA-256 failed");
  return out;
}

std::array<std::uint8_t, tag_bytes> compute_tag(std::span<const std::uint8_t> signed_bytes, std::uint32_t counter,
                                                const Key& key) {
  std::uint8_t nonce[12] = {'T', 'L', 'D', 'P'};
  put_le(nonce + 4, std::uint64_t{counter});
  EVP_CIPHER_CTX* ctx = cipher_context();
  std::array<std::uint8_t, tag_bytes> tag{};
  int len = 0;
  check(EVP_EncryptInit_ex(ctx, chacha20_poly1305(), nullptr, nullptr, nullptr));
  check(EVP_EncryptInit_ex(ctx, nullptr, nullptr, key.data(), nonce));
  check(EVP_EncryptUpdate(ctx, nullptr, &len, signed_bytes.data(), static_cast<int>(signed_bytes.size())));
  check(EVP_EncryptFinal_ex(ctx, nullptr, &len));
  check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_bytes), tag.data()));
  return tag;
}

bool tag_verifies(std::span<const std::uint8_t> bytes, const Key& key) {
  if (bytes.size() < wire::fixed_header_bytes + trailer_bytes) return false;
  const std::size_t signed_size = bytes.size() - tag_bytes;
  const std::uint32_t counter = get_le<std::uint32_t>(&bytes[signed_size - counter_bytes]);
  const auto tag = compute_tag(bytes.first(signed_size), counter, key);
  return CRYPTO_memcmp(tag.data(), &bytes[signed_size], tag_bytes) == 0;
}

std::vector<std::uint8_t> seal(std::span<const std::uint8_t> v1_report, std::uint32_t counter, const Key& key) {
  constexpr std::uint8_t identity = wire::authenticated_fields;
  if (v1_report.size() < wire::fixed_header_bytes || v1_report[0] != wire::format_version ||
      (v1_report[6] & identity) != identity || counter == exhausted_counter)
    return {};
  std::vector<std::uint8_t> out(v1_report.begin(), v1_report.end());
  out[0] = authenticated_version;
  out.resize(out.size() + counter_bytes);
  put_le(&out[out.size() - counter_bytes], counter);
  const auto tag = compute_tag(out, counter, key);
  out.insert(out.end(), tag.begin(), tag.end());
  return out;
}

AuthenticatedReport split_authenticated(std::span<const std::uint8_t> bytes, const wire::Description& expected) {
  AuthenticatedReport r;
  const auto malformed = [&](collector::ParseError e) {
    r.error = AuthError::malformed;
    r.parse_error = e;
    return r;
  };
  if (bytes.empty()) return malformed(collector::ParseError::truncated);
  const bool authenticated = bytes[0] == authenticated_version;
  if (!authenticated && bytes[0] != wire::format_version) return malformed(collector::ParseError::bad_version);
  if (authenticated && bytes.size() < wire::fixed_header_bytes + trailer_bytes)
    return malformed(collector::ParseError::truncated);
  // The version-1 body: the report itself, or an authenticated one without its trailer.
  const std::size_t body_size = bytes.size() - (authenticated ? trailer_bytes : 0);
  r.body.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(body_size));
  r.body[0] = wire::format_version;
  if (authenticated) r.counter = get_le<std::uint32_t>(&bytes[body_size]);
  const collector::ParseResult parsed = collector::parse_report(r.body, expected);
  if (!parsed.ok()) return malformed(parsed.error);
  r.parsed = parsed.report;
  constexpr std::uint8_t identity = wire::authenticated_fields;
  if ((r.parsed.header.fields & identity) != identity) r.error = AuthError::missing_identity;
  else if (!authenticated) r.error = AuthError::unauthenticated;
  else if (r.counter == exhausted_counter) r.error = AuthError::exhausted_counter;
  return r;
}

std::vector<std::uint8_t> anonymous_report(const collector::ParsedReport& parsed, const wire::Description& what) {
  wire::Header h = parsed.header;
  h.fields &= static_cast<std::uint8_t>(~(wire::field_device_id | wire::field_memo_generation));
  h.device_id = 0;
  h.memo_generation = 0;
  std::vector<std::uint8_t> out(what.report_bytes(h.fields));
  std::size_t written = 0;
  if (wire::encode(what, h, parsed.payload.data(), out.data(), out.size(), written) != Status::ok)
    throw std::logic_error("anonymous_report: a parsed report does not encode");
  return out;
}

}  // namespace tinyldp::gate
