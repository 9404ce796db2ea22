// SPDX-License-Identifier: Apache-2.0
// The ChaCha20 DRBG: seeding through the entropy contract, fast key erasure, reseed interval.
#include "tinyldp/port/entropy/chacha20_drbg.hpp"

#include "tinyldp/endian.hpp"

namespace tinyldp::port {
namespace {

// Domain separators for the seed chain (ASCII, little-endian).
constexpr uint32_t domain_seed = 0x64656573u;      // "seed": bytes from an entropy source
constexpr uint32_t domain_personal = 0x73726570u;  // "pers": personalization string
constexpr uint32_t domain_bytes = 0x65747962u;     // "byte": caller-held material

constexpr size_t chunk_bytes = 32;

template <class T>
void secure_zero(T* p, size_t count) {
  volatile T* v = p;
  for (size_t i = 0; i < count; ++i) v[i] = 0;
}

// key <- first half of ChaCha20(key xor chunk, counter 0, nonce (domain, index, length)).
// The length in the nonce keeps a short final chunk distinct from its zero-padded form.
// work[0..7] holds the 32-byte chunk (as bytes) and is overwritten; work[8..23] is scratch
// for the block. The caller wipes both.
void absorb(uint32_t key[chacha20_key_words], uint32_t work[24], size_t length, uint32_t index,
            uint32_t domain) {
  uint32_t* mixed = work;
  for (size_t i = 0; i < chacha20_key_words; ++i)
    mixed[i] = key[i] ^ load_le32(reinterpret_cast<const uint8_t*>(work) + 4 * i);
  const uint32_t nonce[chacha20_nonce_words] = {domain, index, static_cast<uint32_t>(length)};
  uint32_t* block = work + 8;
  chacha20_block_words(mixed, 0, nonce, block);
  for (size_t i = 0; i < chacha20_key_words; ++i) key[i] = block[i];
}

// Absorbs a byte string in 32-byte chunks (the last one zero-padded); work: 24 words.
void absorb_bytes(uint32_t key[chacha20_key_words], const uint8_t* data, size_t length,
                  uint32_t domain, uint32_t work[24]) {
  uint8_t* chunk = reinterpret_cast<uint8_t*>(work);
  uint32_t index = 0;
  do {
    const size_t n = length < chunk_bytes ? length : chunk_bytes;
    for (size_t i = 0; i < chunk_bytes; ++i) chunk[i] = i < n ? data[i] : 0;
    absorb(key, work, n, index++, domain);
    data += n;
    length -= n;
  } while (length > 0);
  secure_zero(work, 24);
}

// ⌈n / d⌉, d ≥ 1. Cores without a divide instruction (Cortex-M0) count up: libgcc's division
// (266 B there) would otherwise be linked for this one division at seeding, and n/d ≤ 1024 here.
// (Not constant time, and need not be: n and d are the public security level and estimate.)
uint32_t ceil_div(uint32_t n, uint32_t d) {
#if defined(__ARM_FEATURE_IDIV) || !defined(__arm__)
  return (n + d - 1u) / d;
#else
  uint32_t quotient = 0;
  for (uint32_t covered = 0; covered < n; covered += d) ++quotient;
  return quotient;
#endif
}

}  // namespace

EntropyResult ChaCha20Drbg::seed_from(tinyldp_entropy_source source, uint16_t estimate_q8,
                                      uint32_t flags, const uint8_t* personalization,
                                      size_t personalization_length) {
  const EntropyResult result = absorb_seed(source, estimate_q8, flags);
  // After the seed, as if absorbed before the commit: the same key either way.
  if (result == EntropyResult::ok && personalization_length > 0 && personalization != nullptr) {
    uint32_t own[buffer_bytes / 4 >= seed_work_words ? 1 : seed_work_words];
    uint32_t* work = buffer_bytes / 4 >= seed_work_words ? buffer_words_ : own;
    absorb_bytes(key_, personalization, personalization_length, domain_personal, work);
  }
  return result;
}

EntropyResult ChaCha20Drbg::absorb_seed(tinyldp_entropy_source source, uint16_t estimate_q8,
                                        uint32_t flags) {
  if (source.fill == nullptr) return EntropyResult::failed;
  if (estimate_q8 < min_seed_estimate_q8) return EntropyResult::not_supported;
  // Bytes carrying >= 256 bits: ceil(256 * 256 / estimate), estimate in 1/256 bit per byte.
  const uint32_t estimate = estimate_q8 > TINYLDP_ENTROPY_ESTIMATE_FULL
                                ? uint32_t{TINYLDP_ENTROPY_ESTIMATE_FULL}
                                : uint32_t{estimate_q8};
  size_t remaining = ceil_div(security_bits * 256u, estimate);

  // Buffered output is discarded whatever the outcome (a success would discard it anyway):
  // the buffer becomes the working memory — the key being built in words 0..7, then a chunk
  // and a block for absorb.
  secure_zero(buffer_words_, buffer_bytes / 4);
  position_ = end_ = 0;
  uint32_t own[buffer_bytes / 4 >= seed_work_words ? 1 : seed_work_words];
  uint32_t* key = buffer_bytes / 4 >= seed_work_words ? buffer_words_ : own;
  uint32_t* work = key + chacha20_key_words;
  uint8_t* chunk = reinterpret_cast<uint8_t*>(work);
  for (size_t i = 0; i < chacha20_key_words; ++i) key[i] = key_[i];

  CEntropySource from(source);
  uint32_t index = 0;
  EntropyResult result = EntropyResult::ok;
  while (remaining > 0) {
    const size_t n = remaining < chunk_bytes ? remaining : chunk_bytes;
    result = from.fill(chunk, n, flags);
    if (result != EntropyResult::ok) break;
    for (size_t i = n; i < chunk_bytes; ++i) chunk[i] = 0;
    absorb(key, work, n, index++, domain_seed);
    remaining -= n;
  }
  if (result == EntropyResult::ok) {
    for (size_t i = 0; i < chacha20_key_words; ++i) key_[i] = key[i];
    blocks_ = 0;
    seeded_ = true;
  }
  secure_zero(key, seed_work_words);
  return result;
}

void ChaCha20Drbg::seed_from_bytes(const uint8_t* material, size_t length, bool counts_as_reseed) {
  secure_zero(buffer_words_, buffer_bytes / 4);
  position_ = end_ = 0;
  uint32_t own[buffer_bytes / 4 >= seed_work_words ? 1 : seed_work_words];
  uint32_t* work = buffer_bytes / 4 >= seed_work_words ? buffer_words_ : own;
  absorb_bytes(key_, material, length, domain_bytes, work);
  if (counts_as_reseed) blocks_ = 0;
  seeded_ = true;
}

void ChaCha20Drbg::generate(uint8_t* direct, size_t blocks) {
  // Blocks are computed in the buffer's words, so no block state goes on the stack.
  static constexpr uint32_t nonce[chacha20_nonce_words] = {0, 0, 0};  // in flash, not the stack
#if TINYLDP_CHACHA20_WIDE
  // x86-64 hosts with AVX-512VL, up to four blocks (a refill; one to three direct blocks): one
  // four-lane computation, block 0 in the buffer's words, the rest in the buffer or the
  // caller's. (Preprocessed away elsewhere: the targets' code is what it was.)
  if (chacha20_blocks_four_split(key_, nonce, buffer_words_,
                                 direct != nullptr ? direct : buffer() + chacha20_block_bytes,
                                 blocks)) {
  } else
#endif
  if (direct == nullptr) {
    chacha20_blocks_words(key_, 0, nonce, buffer_words_, blocks);
  } else if (!chacha20_blocks_wide_split(key_, nonce, buffer_words_, direct, blocks)) {
    // Block 0 in place; blocks 1.. one at a time in the buffer's second block (a local one
    // when the buffer holds one block), copied to the caller.
    uint32_t own[buffer_bytes >= 2 * chacha20_block_bytes ? 1 : chacha20_block_words_count];
    uint32_t* scratch = buffer_bytes >= 2 * chacha20_block_bytes
                            ? buffer_words_ + chacha20_block_words_count
                            : own;
    chacha20_block_words(key_, 0, nonce, buffer_words_);
    for (size_t i = 1; i < blocks; ++i) {
      chacha20_block_words(key_, static_cast<uint32_t>(i), nonce, scratch);
      for (size_t w = 0; w < chacha20_block_words_count; ++w) scratch[w] = le_native(scratch[w]);
      __builtin_memcpy(direct + (i - 1) * chacha20_block_bytes, scratch, chacha20_block_bytes);
    }
    secure_zero(scratch, chacha20_block_words_count);
  }
  // Fast key erasure: the next key is the first half of block 0, which never leaves.
  for (size_t i = 0; i < chacha20_key_words; ++i) key_[i] = buffer_words_[i];
  secure_zero(buffer_words_, chacha20_key_words);
  // The buffer's bytes in the RFC's order (nothing to do on a little-endian core).
  const size_t buffered_words = (direct != nullptr ? 1 : blocks) * chacha20_block_words_count;
  for (size_t i = chacha20_key_words; i < buffered_words; ++i)
    buffer_words_[i] = le_native(buffer_words_[i]);
  position_ = chacha20_key_words * 4;
  end_ = static_cast<uint16_t>(direct != nullptr ? chacha20_block_bytes
                                                 : chacha20_block_bytes * blocks);
  blocks_ += blocks;
}

EntropyResult ChaCha20Drbg::reseed_if_due(size_t blocks, uint32_t flags) {
  if (blocks_ + blocks <= reseed_interval_blocks()) return EntropyResult::ok;
  if (reseed_ == nullptr) return EntropyResult::failed;  // fail closed
  return reseed_(*this, flags);
}

EntropyResult ChaCha20Drbg::reseed_from_source(ChaCha20Drbg& drbg, uint32_t flags) {
  return drbg.absorb_seed(drbg.reseed_source_, drbg.reseed_estimate_, flags);
}

EntropyResult ChaCha20Drbg::fill(uint8_t* out, size_t length, uint32_t flags) {
  if (!seeded_) return EntropyResult::failed;
  size_t done = 0;
  while (done < length) {
    if (position_ == end_) {
      const size_t left = length - done;
      // Long requests get whole blocks straight into the caller's buffer.
      size_t direct = left / chacha20_block_bytes;
      constexpr size_t max_direct = 4096;  // 256 KiB per key, then a fresh key
      if (direct > max_direct) direct = max_direct;
      size_t blocks = direct > 0 ? direct + 1 : size_t{TINYLDP_CHACHA20_DRBG_BLOCKS};
      if (blocks > reseed_interval_blocks()) blocks = static_cast<size_t>(reseed_interval_blocks());
      if (direct > 0) direct = blocks - 1;
      const EntropyResult r = reseed_if_due(blocks, flags);
      if (r != EntropyResult::ok) {
        secure_zero(out, done);
        return r;
      }
      generate(direct > 0 ? out + done : nullptr, blocks);
      done += direct * chacha20_block_bytes;
      continue;
    }
    size_t take = static_cast<size_t>(end_ - position_);
    if (take > length - done) take = length - done;
    uint8_t* from = buffer() + position_;
    uint8_t* to = out + done;
    size_t i = 0;
    // Word-sized moves (single unaligned loads/stores where the core allows them), each
    // handed-out byte erased, so a later compromise cannot recover it.
    for (; i + 4 <= take; i += 4) {
      uint32_t w;
      __builtin_memcpy(&w, from + i, 4);
      __builtin_memcpy(to + i, &w, 4);
      w = 0;
      __builtin_memcpy(from + i, &w, 4);
    }
    for (; i < take; ++i) {
      to[i] = from[i];
      from[i] = 0;
    }
    position_ = static_cast<uint16_t>(position_ + take);
    done += take;
  }
  return EntropyResult::ok;
}

void ChaCha20Drbg::wipe() {
  secure_zero(key_, chacha20_key_words);
  secure_zero(buffer_words_, buffer_bytes / 4);
  position_ = end_ = 0;
  blocks_ = 0;
  seeded_ = false;
}

}  // namespace tinyldp::port
