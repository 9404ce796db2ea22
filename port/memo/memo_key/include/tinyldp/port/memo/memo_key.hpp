// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/memo/memo_key.hpp — the device secret behind memoized reports
// (two_stage_rr.hpp): a 256-bit key and a re-key counter, kept in a storage Record, and the
// keyed PRF that turns (attribute, value) into the memo's random stream.
//
// The memo of a value is never stored: it is recomputed at every report from
// ChaCha20(key, block counter, nonce = attribute ‖ value ‖ generation) — the same after a
// reboot or a power cut, different for every value, attribute and key generation, and
// unpredictable without the key. The mechanisms pass as attribute their memo_attribute word
// (memo.hpp: the wire id above the attribute index), so mechanisms never share memos. The cohort (Bloom encodings) is the first word of block
// 0xFFFFFFFF under nonce (0, 0, generation), scaled to [0, m): a memo stream never reaches
// that block (it would need 256 GiB); the ledger's value tags come from block 0xFFFFFFFE under
// the memo's own nonce. Re-keying (rekey_memo_key) draws a new key from the DRBG
// and increments the generation, durably, before the new key is used: every memo is new,
// and the collector, which sees the generation in each report, accounts ε∞ per key.
//
// Boot loads the key (load_memo_key) and never creates one: a record that holds no readable
// key — never provisioned, erased, or corrupt in both slots — is not_provisioned, the key stays
// unprovisioned and every memoized report refuses it (Status::key_not_provisioned). A key is
// created only by the explicit provisioning step, provision_memo_key(…, generation, …): at the
// factory with generation 0; after a loss with a generation above every one the device has
// reported under, so the collector sees the re-key — the larger of the privacy ledger's
// generation + 1 (the ledger keeps the generation of its last memoized charge in its own
// record: a second copy; it refuses charges under an older generation) and the fleet
// registry's (the highest generation the collector has counted for the device, + 1).
// provision_memo_key refuses a record that still holds a readable key (already_provisioned):
// replacing a key is re-keying. Every write goes to both slots (Record::write_both), so damage
// to one slot at rest never brings back an older key or generation.
// Keep the record in storage the threat model treats as secret: whoever reads the key can
// recompute every memo, that is, undo the permanent randomized response.
// Cost: RAM sizeof(MemoKey) = 40 bytes; a memo stream object 88 bytes on 32-bit targets, 96 on
// 64-bit hosts (test_context_sizes; its
// block buffer included, on the stack during a report); one ChaCha20 block per 16 memo words. Storage: a Record with a 36-byte payload (key, generation), each write to both slots (two slot erases).
#ifndef TINYLDP_PORT_MEMO_KEY_HPP
#define TINYLDP_PORT_MEMO_KEY_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/storage.hpp"
#include "tinyldp/wipe.hpp"

namespace tinyldp::port {

inline constexpr size_t memo_key_bytes = 32;
inline constexpr size_t memo_record_bytes = memo_key_bytes + 4;  // key, generation (u32 LE)

// The ChaCha20 keystream for one (attribute, value, generation) as 32-bit words (word i of
// block j is bytes 4i … 4i + 3 of keystream block j, little-endian). It refers to its MemoKey,
// which must outlive it; its block buffer and nonce (which holds the value) are wiped when it
// goes out of scope.
class MemoStream {
 public:
  MemoStream(const uint32_t* key, uint32_t attribute, uint32_t value, uint32_t generation)
      : key_(key), nonce_{attribute, value, generation} {}
  MemoStream(const MemoStream&) = delete;
  MemoStream& operator=(const MemoStream&) = delete;
  ~MemoStream() {
    tinyldp::wipe(block_, sizeof block_);
    tinyldp::wipe(nonce_, sizeof nonce_);
  }

  uint32_t next_word() {
    if (used_ == chacha20_block_words_count) {
      chacha20_block_words(key_, counter_++, nonce_, block_);
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  const uint32_t* key_;
  uint32_t nonce_[chacha20_nonce_words];
  uint32_t counter_ = 0;
  uint32_t used_ = chacha20_block_words_count;
  uint32_t block_[chacha20_block_words_count] = {};
};

class MemoKey {
 public:
  constexpr MemoKey() = default;

  // Takes a 32-byte secret and its generation (what the record holds).
  void set(const uint8_t* secret, uint32_t generation) {
    for (size_t i = 0; i < chacha20_key_words; ++i) key_[i] = get_le<uint32_t>(secret + 4 * i);
    generation_ = generation;
    provisioned_ = true;
  }
  void wipe() {
    tinyldp::wipe(key_, sizeof key_);
    generation_ = 0;
    provisioned_ = false;
  }

  bool provisioned() const { return provisioned_; }
  uint32_t generation() const { return generation_; }
  MemoStream memo_stream(uint32_t attribute, uint32_t value) const {
    return MemoStream(key_, attribute, value, generation_);
  }
  // This device's cohort among m (m ≥ 1), fixed for the key's generation.
  uint32_t cohort(uint32_t cohorts) const {
    return ct::mul_high(static_cast<uint32_t>(word_pair(cohort_block, 0, 0)), cohorts);
  }
  // A 64-bit keyed tag of (mechanism, attribute, value) for the privacy ledger, which must
  // recognise a value it has charged for without storing it (privacy_ledger.hpp). The mechanism
  // is folded in as the memos fold it (memo_attribute: its wire id above the attribute index):
  // two mechanisms sharing a ledger slot hold different memos of one value, so their tags
  // differ and each is charged.
  uint64_t value_tag(wire::MechanismId mechanism, uint32_t attribute, uint32_t value) const {
    return memo_value_tag(memo_attribute(mechanism, attribute), value);
  }
  // The same from a mechanism's memo attribute word (its memo_attribute_word(): a record's
  // attribute memoized under the record's id, record_rr.hpp).
  uint64_t memo_value_tag(uint32_t memo_attribute_word, uint32_t value) const {
    return word_pair(tag_block, memo_attribute_word, value);
  }

 private:
  // Blocks no memo stream reaches (a stream would need 2^32 − 2 blocks first).
  static constexpr uint32_t cohort_block = 0xFFFFFFFFu;
  static constexpr uint32_t tag_block = 0xFFFFFFFEu;

  // The first two words of `block` under nonce (a, b, generation).
  uint64_t word_pair(uint32_t block_counter, uint32_t a, uint32_t b) const {
    const uint32_t nonce[chacha20_nonce_words] = {a, b, generation_};
    uint32_t block[chacha20_block_words_count];
    chacha20_block_words(key_, block_counter, nonce, block);
    const uint64_t r = block[0] | uint64_t{block[1]} << 32;
    tinyldp::wipe(block, sizeof block);
    return r;
  }

  uint32_t key_[chacha20_key_words] = {};
  uint32_t generation_ = 0;
  bool provisioned_ = false;
};

enum class MemoKeyResult : uint8_t {
  ok = 0,
  not_provisioned,   // the record holds no readable key (never provisioned, erased, corrupt)
  storage_failed,    // the record could not be read or written: the key is not usable
  generator_failed,  // the DRBG was not seeded or failed
  already_provisioned,   // provision_memo_key: the record holds a readable key (re-key instead)
  generation_exhausted,  // rekey_memo_key: the generation is at its last value (2^32 − 1)
};

// Loads the key from `record`.
template <StorageDevice D>
MemoKeyResult load_memo_key(Record<D>& record, MemoKey& key) {
  uint8_t stored[memo_record_bytes];
  size_t length = 0;
  const StorageResult r = record.read(stored, sizeof stored, &length);
  MemoKeyResult result = MemoKeyResult::ok;
  if (r == StorageResult::not_found || r == StorageResult::too_large ||
      (r == StorageResult::ok && length != sizeof stored)) {
    result = MemoKeyResult::not_provisioned;
  } else if (r != StorageResult::ok) {
    result = MemoKeyResult::storage_failed;
  } else {
    key.set(stored, get_le<uint32_t>(stored + memo_key_bytes));
  }
  if (result != MemoKeyResult::ok) key.wipe();
  tinyldp::wipe(stored, sizeof stored);
  return result;
}

namespace memo_key_detail {
// Draws a new key from `drbg`, makes (key, generation) durable, then takes it.
template <StorageDevice D>
MemoKeyResult store_new_key(ChaCha20Drbg& drbg, Record<D>& record, uint32_t generation,
                            MemoKey& key) {
  uint8_t stored[memo_record_bytes];
  MemoKeyResult result = MemoKeyResult::ok;
  if (!drbg.seeded() ||
      drbg.fill(stored, memo_key_bytes, TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) {
    result = MemoKeyResult::generator_failed;
  } else {
    put_le(stored + memo_key_bytes, generation);
    if (record.write_both(stored, sizeof stored) != StorageResult::ok)
      result = MemoKeyResult::storage_failed;
    else
      key.set(stored, generation);
  }
  if (result != MemoKeyResult::ok) key.wipe();
  tinyldp::wipe(stored, sizeof stored);
  return result;
}
}  // namespace memo_key_detail

// The explicit provisioning step (see the top of this file): a new key with `generation`, made
// durable in both slots before it is used — only when the record holds no readable key
// (load_memo_key answers not_provisioned). A readable key is left as it is
// (already_provisioned; `key` wiped: load it); a read error is storage_failed.
template <StorageDevice D>
MemoKeyResult provision_memo_key(ChaCha20Drbg& drbg, Record<D>& record, uint32_t generation,
                                 MemoKey& key) {
  MemoKeyResult r = load_memo_key(record, key);
  if (r == MemoKeyResult::not_provisioned) return memo_key_detail::store_new_key(drbg, record, generation, key);
  key.wipe();
  return r == MemoKeyResult::ok ? MemoKeyResult::already_provisioned : r;
}

// A new key with the next generation: every value gets a fresh memo (and a fresh ε∞). Until
// the write is durable the old key stays in the record; on failure `key` is wiped.
template <StorageDevice D>
MemoKeyResult rekey_memo_key(ChaCha20Drbg& drbg, Record<D>& record, MemoKey& key) {
  if (!key.provisioned()) return MemoKeyResult::not_provisioned;
  if (key.generation() == ~uint32_t{0}) return MemoKeyResult::generation_exhausted;
  return memo_key_detail::store_new_key(drbg, record, key.generation() + 1u, key);
}

}  // namespace tinyldp::port

#endif
