// SPDX-License-Identifier: Apache-2.0
// tinyldp/memo.hpp — what memoized mechanisms (two_stage_rr.hpp and the other longitudinal
// protocols) need from the device secret: the MemoKey concept.
//
// A memo is never stored. A mechanism recomputes it at every report from a deterministic
// stream of 32-bit words that a keyed PRF hands out for (attribute word, value) — the attribute
// word is memo_attribute(the mechanism's wire id, its attribute index) — `next_word()`,
// which never fails — so a reboot, a power cut or a value that comes back gives the same memo.
// (Words, not bits: a draw of n ≤ 32 bits takes a whole word, which keeps the reader a few
// instructions; the stream is a PRF, so nothing is lost by the unused bits.) The
// key also fixes the device's cohort among m (Bloom encodings), gives keyed 64-bit tags of
// values for the privacy ledger (privacy_ledger.hpp), and names its generation (the re-key
// counter that reports carry), and says whether it was provisioned: a key that was not (never
// provisioned, or its record could not be read) would draw its memos from the all-zero key,
// which anyone can compute, so every memoized privatize refuses it (Status::key_not_provisioned,
// an all-zero report) before it draws anything. The port is port/entropy/chacha20_drbg/…/memo_key.hpp
// (ChaCha20 under the device secret, kept in a storage Record); tests substitute keys whose
// streams they enumerate. Cost: nothing of its own.
#ifndef TINYLDP_MEMO_HPP
#define TINYLDP_MEMO_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/uniform.hpp"
#include "tinyldp/wipe.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

template <class S>
concept MemoStream = requires(S& stream) {
  requires is_same_type<decltype(stream.next_word()), uint32_t>;
};

template <class K>
concept MemoKey = requires(const K& key, uint32_t attribute, uint32_t value, uint32_t cohorts) {
  requires MemoStream<decltype(key.memo_stream(attribute, value))>;
  requires is_same_type<decltype(key.cohort(cohorts)), uint32_t>;
  requires is_same_type<decltype(key.generation()), uint32_t>;
  requires is_same_type<decltype(key.provisioned()), bool>;
};

// The first step of every memoized privatize: true (the report zeroed; return
// Status::key_not_provisioned) when `key` is not provisioned. Whether a key is provisioned is
// public (the device's state, not its value), so it may decide a branch.
template <MemoKey Key, class Report>
constexpr bool refuse_unprovisioned(const Key& key, Report& report) {
  if (key.provisioned()) return false;
  report = Report{};
  return true;
}
// The same for a report written into a buffer of n bytes (null: nothing to zero).
template <MemoKey Key>
constexpr bool refuse_unprovisioned(const Key& key, uint8_t* report, size_t n) {
  if (key.provisioned()) return false;
  if (report != nullptr)
    for (size_t i = 0; i < n; ++i) report[i] = 0;
  return true;
}

// The attribute word of a memo's PRF input: the mechanism's wire id in the top byte, the
// attribute index (< 2^24) below it. Two memoized mechanisms given one attribute index on a
// device (L-GRR and LOLOHA, a RAPPOR report and a record's attribute) thus draw independent
// memos; configurations refuse a larger attribute index.
inline constexpr uint32_t max_memo_attribute = (uint32_t{1} << 24) - 1u;
constexpr uint32_t memo_attribute(wire::MechanismId id, uint32_t attribute) {
  return (uint32_t{static_cast<uint8_t>(id)} << 24) | (attribute & max_memo_attribute);
}

namespace detail {
// A reserved value for per-device draws from the memo key (LOLOHA's hash seed, 1BitMean's α,
// dBitFlip's α and buckets, a hierarchical histogram's level): memo_stream(attribute word,
// device_draw_value) — never a value those mechanisms memoize.
inline constexpr uint32_t device_draw_value = 0xFFFFFFFFu;
}  // namespace detail

// Draws of up to 32 bits from a memo stream, one word each (what the memoized mechanisms' PRR
// ladders ask for): the low n bits of the next word.
template <MemoStream S>
class MemoDraws {
 public:
  explicit constexpr MemoDraws(S& stream) : stream_(stream) {}
  uint64_t draw(unsigned n) {
    const uint32_t w = stream_.next_word();
    return n >= 32 ? w : w & ((uint32_t{1} << n) - 1u);
  }
  static constexpr bool ok() { return true; }

 private:
  S& stream_;
};

namespace detail {
// A device's level of a tree, 1 … levels, uniform and the same at every call: from the device
// stream of `attribute` (hierarchical_histogram.hpp, haar_hrr.hpp). A rejection draw: its time
// depends on the key, never on a value. On 64-bit hosts the stream's ChaCha20 block leaves key-
// stream words below this frame (test_no_noise_left: 304 B deep), scrubbed here for every caller;
// on the 32-bit targets the reports' own scrubs reach them (measured there).
template <MemoKey Key>
uint32_t device_level(const Key& key, uint32_t attribute, uint32_t levels) {
  uint32_t level;
  {
    auto stream = key.memo_stream(attribute, device_draw_value);
    MemoDraws<decltype(stream)> draws(stream);
    level = 1u + static_cast<uint32_t>(uniform_below(levels, draws));
  }
  if constexpr (__SIZEOF_POINTER__ == 8) scrub_stack<stack_scrub_bytes(0, 304)>();
  return level;
}
}  // namespace detail

}  // namespace tinyldp

#endif
