// SPDX-License-Identifier: Apache-2.0
// Poly1305 (RFC 8439 §2.5) in 26-bit limbs, the AEAD construction's tag (§2.8) and the sealing
// of a report (report_auth.hpp). Written from the RFC's description of the arithmetic: the
// accumulator h and the clamped r as five 26-bit limbs, h·r reduced with 2^130 ≡ 5 (mod p),
// every limb product through ct::mul_wide so that no 32-bit core calls a variable-time helper.
#include "tinyldp/port/auth/report_auth.hpp"

#include "tinyldp/constant_time.hpp"

namespace tinyldp::port {

namespace {

constexpr uint32_t limb_mask = 0x3FFFFFFu;

// The four little-endian words of a 16-byte block as five 26-bit limbs.
void to_limbs(const uint8_t b[16], uint32_t out[5]) {
  const uint32_t t0 = get_le<uint32_t>(b), t1 = get_le<uint32_t>(b + 4), t2 = get_le<uint32_t>(b + 8),
                 t3 = get_le<uint32_t>(b + 12);
  out[0] = t0 & limb_mask;
  out[1] = ((t0 >> 26) | (t1 << 6)) & limb_mask;
  out[2] = ((t1 >> 20) | (t2 << 12)) & limb_mask;
  out[3] = ((t2 >> 14) | (t3 << 18)) & limb_mask;
  out[4] = t3 >> 8;
}

}  // namespace

void Poly1305::init(const uint8_t key[poly1305_key_bytes]) {
  // r with the RFC's clamp (the top four bits of bytes 3, 7, 11, 15 and the bottom two of 4, 8,
  // 12 cleared): on the limbs, the masks below.
  to_limbs(key, r_);
  r_[0] &= 0x3FFFFFFu;
  r_[1] &= 0x3FFFF03u;
  r_[2] &= 0x3FFC0FFu;
  r_[3] &= 0x3F03FFFu;
  r_[4] &= 0x00FFFFFu;
  for (int i = 0; i < 4; ++i) s_[i] = get_le<uint32_t>(key + 16 + 4 * i);
  for (uint32_t& h : h_) h = 0;
  used_ = 0;
}

// h = (h + block + high_bit · 2^128) · r mod 2^130 − 5, partly reduced (limbs below 2^26 but
// the second, which may carry a little more).
void Poly1305::block(const uint8_t b[16], uint32_t high_bit) {
  uint32_t n[5];
  to_limbs(b, n);
  const uint32_t h0 = h_[0] + n[0], h1 = h_[1] + n[1], h2 = h_[2] + n[2], h3 = h_[3] + n[3],
                 h4 = h_[4] + n[4] + (high_bit << 24);
  const uint32_t r0 = r_[0], r1 = r_[1], r2 = r_[2], r3 = r_[3], r4 = r_[4];
  // Limb i·j with i + j ≥ 5 carries 2^130 = 5 (mod p): those products take 5·r.
  const uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
  using ct::mul_wide;
  uint64_t d0 = mul_wide(h0, r0) + mul_wide(h1, s4) + mul_wide(h2, s3) + mul_wide(h3, s2) + mul_wide(h4, s1);
  uint64_t d1 = mul_wide(h0, r1) + mul_wide(h1, r0) + mul_wide(h2, s4) + mul_wide(h3, s3) + mul_wide(h4, s2);
  uint64_t d2 = mul_wide(h0, r2) + mul_wide(h1, r1) + mul_wide(h2, r0) + mul_wide(h3, s4) + mul_wide(h4, s3);
  uint64_t d3 = mul_wide(h0, r3) + mul_wide(h1, r2) + mul_wide(h2, r1) + mul_wide(h3, r0) + mul_wide(h4, s4);
  uint64_t d4 = mul_wide(h0, r4) + mul_wide(h1, r3) + mul_wide(h2, r2) + mul_wide(h3, r1) + mul_wide(h4, r0);
  d1 += d0 >> 26;
  d2 += d1 >> 26;
  d3 += d2 >> 26;
  d4 += d3 >> 26;
  const uint64_t top = d4 >> 26;  // below 2^34: the limbs' bounds keep d4 below 2^60
  const uint64_t low = (d0 & limb_mask) + (top << 2) + top;
  h_[0] = static_cast<uint32_t>(low & limb_mask);
  h_[1] = static_cast<uint32_t>(d1 & limb_mask) + static_cast<uint32_t>(low >> 26);
  h_[2] = static_cast<uint32_t>(d2 & limb_mask);
  h_[3] = static_cast<uint32_t>(d3 & limb_mask);
  h_[4] = static_cast<uint32_t>(d4 & limb_mask);
  tinyldp::wipe(n, sizeof n);
}

void Poly1305::update(const uint8_t* data, size_t length) {
  for (size_t i = 0; i < length; ++i) {
    buffer_[used_++] = data[i];
    if (used_ == 16) {
      block(buffer_, 1);
      used_ = 0;
    }
  }
}

void Poly1305::pad16() {
  if (used_ == 0) return;
  for (size_t i = used_; i < 16; ++i) buffer_[i] = 0;
  block(buffer_, 1);
  used_ = 0;
}

void Poly1305::finish(uint8_t tag[poly1305_tag_bytes]) {
  // A last partial block: its bytes, then 1, then zeros, and no 2^128.
  if (used_ != 0) {
    buffer_[used_] = 1;
    for (size_t i = used_ + 1; i < 16; ++i) buffer_[i] = 0;
    block(buffer_, 0);
  }
  // Full carry, twice: the first may leave the second limb at 2^26, the second leaves every
  // limb below 2^26 (h < 2^130 < 2p).
  uint32_t h0 = h_[0], h1 = h_[1], h2 = h_[2], h3 = h_[3], h4 = h_[4];
  for (int pass = 0; pass < 2; ++pass) {
    h2 += h1 >> 26, h1 &= limb_mask;
    h3 += h2 >> 26, h2 &= limb_mask;
    h4 += h3 >> 26, h3 &= limb_mask;
    h0 += (h4 >> 26) * 5, h4 &= limb_mask;
    h1 += h0 >> 26, h0 &= limb_mask;
  }
  // g = h + 5 − 2^130: h ≥ p exactly when g does not borrow; take g then, by a mask.
  uint32_t g0 = h0 + 5;
  uint32_t g1 = h1 + (g0 >> 26);
  g0 &= limb_mask;
  uint32_t g2 = h2 + (g1 >> 26);
  g1 &= limb_mask;
  uint32_t g3 = h3 + (g2 >> 26);
  g2 &= limb_mask;
  uint32_t g4 = h4 + (g3 >> 26) - (1u << 26);
  g3 &= limb_mask;
  const uint32_t take_g = ct::mask(1u ^ (g4 >> 31));
  h0 = ct::select(take_g & 1u, g0, h0);
  h1 = ct::select(take_g & 1u, g1, h1);
  h2 = ct::select(take_g & 1u, g2, h2);
  h3 = ct::select(take_g & 1u, g3, h3);
  h4 = ct::select(take_g & 1u, g4 & limb_mask, h4);
  // h mod 2^128 as four words, plus s mod 2^128.
  const uint32_t w0 = h0 | (h1 << 26), w1 = (h1 >> 6) | (h2 << 20), w2 = (h2 >> 12) | (h3 << 14),
                 w3 = (h3 >> 18) | (h4 << 8);
  uint64_t f = uint64_t{w0} + s_[0];
  put_le(tag, static_cast<uint32_t>(f));
  f = uint64_t{w1} + s_[1] + (f >> 32);
  put_le(tag + 4, static_cast<uint32_t>(f));
  f = uint64_t{w2} + s_[2] + (f >> 32);
  put_le(tag + 8, static_cast<uint32_t>(f));
  f = uint64_t{w3} + s_[3] + (f >> 32);
  put_le(tag + 12, static_cast<uint32_t>(f));
  wipe();
}

void Poly1305::wipe() {
  tinyldp::wipe(r_, sizeof r_);
  tinyldp::wipe(s_, sizeof s_);
  tinyldp::wipe(h_, sizeof h_);
  tinyldp::wipe(buffer_, sizeof buffer_);
  used_ = 0;
}

void poly1305_key_gen(const uint32_t key[chacha20_key_words], const uint32_t nonce[chacha20_nonce_words],
                      uint8_t out[poly1305_key_bytes]) {
  uint32_t block[chacha20_block_words_count];
  chacha20_block_words(key, 0, nonce, block);
  for (size_t i = 0; i < poly1305_key_bytes / 4; ++i) put_le(out + 4 * i, block[i]);
  tinyldp::wipe(block, sizeof block);
}

void chacha20_poly1305_tag(const uint32_t key[chacha20_key_words], const uint32_t nonce[chacha20_nonce_words],
                           const uint8_t* aad, size_t aad_length, const uint8_t* ciphertext,
                           size_t ciphertext_length, uint8_t tag[poly1305_tag_bytes]) {
  uint8_t one_time[poly1305_key_bytes];
  poly1305_key_gen(key, nonce, one_time);
  Poly1305 mac;
  mac.init(one_time);
  tinyldp::wipe(one_time, sizeof one_time);
  mac.update(aad, aad_length);
  mac.pad16();
  mac.update(ciphertext, ciphertext_length);
  mac.pad16();
  uint8_t lengths[16];
  put_le(lengths, uint64_t{aad_length});
  put_le(lengths + 8, uint64_t{ciphertext_length});
  mac.update(lengths, sizeof lengths);
  mac.finish(tag);
}

void derive_device_key(const uint8_t fleet_secret[fleet_secret_bytes], uint32_t device_id,
                       uint8_t key[device_key_bytes]) {
  static constexpr uint8_t label[4] = {'T', 'L', 'D', 'K'};
  uint32_t secret[chacha20_key_words];
  for (size_t i = 0; i < chacha20_key_words; ++i) secret[i] = get_le<uint32_t>(fleet_secret + 4 * i);
  const uint32_t nonce[chacha20_nonce_words] = {load_le32(label), device_id, 0};
  uint32_t block[chacha20_block_words_count];
  chacha20_block_words(secret, 0, nonce, block);
  for (size_t i = 0; i < device_key_bytes / 4; ++i) put_le(key + 4 * i, block[i]);
  tinyldp::wipe(block, sizeof block);
  tinyldp::wipe(secret, sizeof secret);
}

namespace report_auth_detail {

bool all_zero(const uint8_t* bytes, size_t length) {
  uint32_t any = 0;
  for (size_t i = 0; i < length; ++i) any |= bytes[i];
  return ct::is_zero(any) != 0;
}

ReportAuthResult check(const uint8_t* report, size_t length, size_t capacity, uint32_t device_id) {
  // The device id is the first optional field (byte 7), the epoch the second.
  if (report == nullptr || length < wire::Description::header_bytes(wire::authenticated_fields) ||
      report[0] != wire::format_version)
    return ReportAuthResult::not_a_report;
  if ((report[6] & wire::authenticated_fields) != wire::authenticated_fields) return ReportAuthResult::missing_identity;
  if (get_le<uint32_t>(report + wire::fixed_header_bytes) != device_id) return ReportAuthResult::wrong_device;
  if (capacity < length || capacity - length < wire::authenticated_trailer_bytes) return ReportAuthResult::buffer_too_small;
  return ReportAuthResult::ok;
}

void write_sealed(const uint32_t key[chacha20_key_words], uint32_t counter, const uint8_t* report,
                  size_t length, uint8_t* out) {
  static constexpr uint8_t label[4] = {'T', 'L', 'D', 'P'};
  if (out != report)
    for (size_t i = 0; i < length; ++i) out[i] = report[i];
  out[0] = wire::authenticated_version;
  put_le(out + length, counter);
  // Nonce "TLDP" ‖ counter as u64 little-endian: its high word is 0.
  const uint32_t nonce[chacha20_nonce_words] = {load_le32(label), counter, 0};
  const size_t signed_length = length + wire::report_counter_bytes;
  chacha20_poly1305_tag(key, nonce, out, signed_length, nullptr, 0, out + signed_length);
}

}  // namespace report_auth_detail

}  // namespace tinyldp::port
