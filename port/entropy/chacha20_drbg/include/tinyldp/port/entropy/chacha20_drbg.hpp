// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/chacha20_drbg.hpp — a ChaCha20 deterministic random bit generator: turns 256 bits
// of seed entropy from any source into a fast stream of random bytes. It is itself an entropy
// source (fill/min_entropy_q8), so the core uses it like any other.
//
// - Seeding goes through the entropy contract: seed(source) reads as many bytes as the source's
//   own min-entropy estimate says carry >= 256 bits (32 from a full-entropy source), and
//   refuses a source without an estimate or with less than 1/4 bit per byte. Seed material is
//   condensed into the key with the ChaCha20 block function used as a keyed chain (not an
//   SP 800-90B vetted conditioner: seed from a full-entropy source where that matters).
// - Fast key erasure: every generate step draws its next key from its own first keystream
//   block before any output leaves, and output bytes are zeroed in the buffer as they are
//   handed out, so a later state compromise reveals nothing already returned.
// - Reseed interval: after reseed_interval_blocks() keystream blocks it reseeds from the
//   reseed source if one was set, and otherwise fails closed (answers `failed`) until seeded;
//   a firmware may instead reseed from its main loop when blocks_until_reseed() runs low.
// - An unseeded generator answers `failed`. wipe() forgets the state; nothing is left to wipe
//   on destruction that a report used (fast key erasure: the key and buffer only ever hold
//   output nobody has seen), so the type is trivially destructible and its initial state is
//   all zero: a plain global `ChaCha20Drbg drbg;` lands in .bss and registers no destructor
//   (docs/privacy-model.md, "Static placement"). WipedOnExit<ChaCha20Drbg> (wipe.hpp) wipes on
//   scope exit, for host code that wants that too.
// - FROM_ISR and NONBLOCKING are served (pure computation); a due reseed passes the flags on to
//   the reseed source. One instance must not be used from an ISR and a thread at once.
// Cost: RAM sizeof(ChaCha20Drbg) = 64 * TINYLDP_CHACHA20_DRBG_BLOCKS + 72 bytes on 32-bit
// targets (328 with the default 4 blocks; 336 on a 64-bit host). Stack and code: blocks are
// computed in the buffer and seeding works there too, not on the stack; docs/footprint.md has
// a fill on the OUE firmware's call path (no reseed source set) and, in the `chacha20_drbg`
// row, seeding plus a request with a reseed nested in it, on every target. Time: whole blocks
// of a long request go straight to the caller; on x86-64 hosts 16 blocks are computed side by
// side in vector registers, and with AVX-512VL a refill (and a request of up to three direct
// blocks) in the four lanes of 128-bit vectors (chacha20.hpp) — the same bytes on every path.
// Each refill still costs one sequential 4-block computation per 224 bytes (the next key comes
// from its block 0), so small requests cost more per byte than long ones. Instructions per
// byte on every target: docs/target-costs.md; host bytes per second: docs/benchmarks.md.
#ifndef TINYLDP_PORT_CHACHA20_DRBG_HPP
#define TINYLDP_PORT_CHACHA20_DRBG_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/wipe.hpp"

// Keystream blocks generated per refill (more: less key-erasure overhead, more RAM).
#ifndef TINYLDP_CHACHA20_DRBG_BLOCKS
#define TINYLDP_CHACHA20_DRBG_BLOCKS 4
#endif
static_assert(TINYLDP_CHACHA20_DRBG_BLOCKS >= 1 && TINYLDP_CHACHA20_DRBG_BLOCKS <= 64,
              "TINYLDP_CHACHA20_DRBG_BLOCKS must be 1..64");

namespace tinyldp::port {

class ChaCha20Drbg {
 public:
  static constexpr uint32_t security_bits = 256;
  // Lowest seed-source estimate accepted (1/256 bit per byte): 64 = 1/4 bit per byte, i.e. at
  // most 1024 bytes are read for one seeding.
  static constexpr uint16_t min_seed_estimate_q8 = 64;
  static constexpr uint64_t default_reseed_interval_blocks = uint64_t{1} << 24;  // 1 GiB

  // All zero (constinit-able, .bss); trivially destructible (no destructor registered).
  constexpr ChaCha20Drbg() = default;
  ChaCha20Drbg(const ChaCha20Drbg&) = delete;
  ChaCha20Drbg& operator=(const ChaCha20Drbg&) = delete;

  // (Re)seeds from `source`: >= 256 bits by its estimate, then the optional personalization
  // string (e.g. a device id). The old state is mixed in, never discarded; on any failure
  // the key is left exactly as it was (an unseeded generator stays unseeded). Output buffered
  // before the call is discarded either way (seeding works in the buffer).
  template <EntropySource S>
  EntropyResult seed(S& source, uint32_t flags = TINYLDP_ENTROPY_BLOCKING,
                     const uint8_t* personalization = nullptr, size_t personalization_length = 0) {
    return seed_from(to_c_source(source), entropy_estimate(source), flags, personalization,
                     personalization_length);
  }
  EntropyResult seed_from(tinyldp_entropy_source source, uint16_t estimate_q8, uint32_t flags,
                          const uint8_t* personalization, size_t personalization_length);

  // Mixes caller-held material into the state and marks the generator seeded. The caller
  // vouches for its entropy: for a persisted seed (see persisted_seed.hpp) and for
  // known-answer tests. Does not reset the reseed counter unless `counts_as_reseed`.
  void seed_from_bytes(const uint8_t* material, size_t length, bool counts_as_reseed = true);

  // The source used when the reseed interval runs out; must outlive the generator. The
  // generator itself is refused (it would recurse): it then fails closed when a reseed is due.
  template <EntropySource S>
  void set_reseed_source(S& source) {
    set_reseed_source(to_c_source(source), entropy_estimate(source));
  }
  void set_reseed_source(tinyldp_entropy_source source, uint16_t estimate_q8) {
    reseed_source_ = source;
    reseed_estimate_ = estimate_q8;
    reseed_ = source.fill != nullptr && source.context != this ? &ChaCha20Drbg::reseed_from_source
                                                                 : nullptr;
  }
  void set_reseed_interval_blocks(uint64_t blocks) { interval_ = blocks == 0 ? 1 : blocks; }
  uint64_t reseed_interval_blocks() const {
    return interval_ == 0 ? default_reseed_interval_blocks : interval_;
  }
  uint64_t blocks_since_reseed() const { return blocks_; }
  // Keystream blocks left before a reseed is due. A firmware without a reseed source reseeds
  // from its main loop when this runs low (e.g. below the blocks of one report), so a report
  // never waits for the TRNG and never carries a reseed's stack.
  uint64_t blocks_until_reseed() const {
    const uint64_t interval = reseed_interval_blocks();
    return blocks_ >= interval ? 0 : interval - blocks_;
  }
  bool seeded() const { return seeded_; }

  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags);
  uint16_t min_entropy_q8() const {
    return seeded_ ? uint16_t{TINYLDP_ENTROPY_ESTIMATE_FULL}
                   : uint16_t{TINYLDP_ENTROPY_ESTIMATE_UNKNOWN};
  }

  // Forgets the key, the buffered output and the counters: the generator is unseeded (the
  // reseed source and interval stay as set).
  void wipe();

 private:
  static constexpr size_t buffer_bytes = chacha20_block_bytes * TINYLDP_CHACHA20_DRBG_BLOCKS;
  // Generates `blocks` keystream blocks for output: block 0's first half becomes the next key,
  // its second half goes to the buffer, blocks 1.. go to `direct` (or the buffer if null).
  void generate(uint8_t* direct, size_t blocks);
  EntropyResult reseed_if_due(size_t blocks, uint32_t flags);
  // What a due reseed runs (absorb_seed from the reseed source). fill reaches it only through
  // reseed_, which set_reseed_source sets: a program that never sets a reseed source links no
  // reseed below fill, and the call-graph stack analysis (docs/footprint.md) sees that.
  using Reseeder = EntropyResult (*)(ChaCha20Drbg&, uint32_t flags);
  static EntropyResult reseed_from_source(ChaCha20Drbg& drbg, uint32_t flags);
  // seed_from without the personalization string: what a due reseed runs (so the reseed
  // nested in a report's fill does not carry the personalization path's stack).
  EntropyResult absorb_seed(tinyldp_entropy_source source, uint16_t estimate_q8, uint32_t flags);

  // Seeding's working words (the key being built, a seed chunk, a block) live in the
  // buffer, which a seeding empties anyway: they are not on the stack of a report that
  // triggers a due reseed. With a one-block buffer they are locals instead.
  static constexpr size_t seed_work_words = 32;
  uint8_t* buffer() { return reinterpret_cast<uint8_t*>(buffer_words_); }

  uint32_t key_[chacha20_key_words] = {};
  uint32_t buffer_words_[buffer_bytes / 4] = {};  // keystream bytes, read through buffer()
  uint64_t blocks_ = 0;
  uint64_t interval_ = 0;  // 0: default_reseed_interval_blocks (so the initial state is all zero)
  tinyldp_entropy_source reseed_source_ = {nullptr, nullptr};
  Reseeder reseed_ = nullptr;
  uint16_t position_ = 0;  // next unread byte of buffer_
  uint16_t end_ = 0;       // end of the unread bytes
  uint16_t reseed_estimate_ = TINYLDP_ENTROPY_ESTIMATE_UNKNOWN;
  bool seeded_ = false;
  // Makes the layout padding-free (a wiped object is all zero): 5 bytes with 4-byte pointers.
  [[maybe_unused]] uint8_t spare_[sizeof(void*) == 4 ? 5 : 1] = {};
};

// Every port is checked against its contract where it is declared.
static_assert(EntropySource<ChaCha20Drbg> && EntropyEstimating<ChaCha20Drbg>);
static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(ChaCha20Drbg), "a global must register no destructor");

}  // namespace tinyldp::port

#endif
