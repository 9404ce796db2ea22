// SPDX-License-Identifier: Apache-2.0
// tinyldp/bernoulli_bits.hpp — d independent Bernoulli(q) bits at once, bit-sliced: the
// sampler behind unary encodings (and any mechanism that randomizes many bits with one
// probability).
//
// fill(q, d, rng, out) writes ⌈d/8⌉ bytes; bit i (bit i % 8 of byte i / 8) is 1 with
// probability exactly q.num/2^q.bits, all bits independent. It runs the AND/OR ladder over q's
// bits from the least significant up on every lane at once: r ← bit ? (r | u) : (r & u), u a
// fresh uniform bit per lane and step — the comparison U < q evaluated on all lanes together.
// Random-bit order: step-major — for each of q.bits steps, d fresh bits in lane order — so the
// output is the same for any machine word (32 lanes on MCUs, 64 on hosts) and any draw size.
// Random bits: exactly d·q.bits. Requires 0 < q < 1 as a Dyadic with 1 ≤ q.bits ≤ 64 (what
// UnaryEncoding::configure guarantees, once, at configuration); q.bits = 0 is a programmer
// error, not checked on every report.
// Time and memory access depend on d and q only: q's bit picks "or" or "and" for a whole step
// (a branch on the configuration), never on a random or private value.
// Draws arrive in whole words from RandomBits::each_word_run — every step's at once where d is
// a multiple of the word, any bit offset, one loop (ladder_bulk) — or one draw per word from an
// Rng without it. On cores without unaligned access (Cortex-M0, RV32) give the report a
// word-aligned address: the lanes are then read and written as words, else bytewise — 3.4×
// the instructions per output bit at d = 1024 (docs/target-costs.md, "odd address").
// Cost: no RAM beyond out on 32-bit targets; on 64-bit machines with a bulk-capable Rng
// (RandomBits' draw64_block_raw) and d a multiple of 64 (≤ 2^14), several steps' draws arrive
// at once in a 2 KiB stack block (plus 2 KiB of lanes) and each step is one vector operation
// per lane word. Instruction counts: docs/target-costs.md; host speed: docs/benchmarks.md.
#ifndef TINYLDP_BERNOULLI_BITS_HPP
#define TINYLDP_BERNOULLI_BITS_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/wipe.hpp"

// 32-bit cores without unaligned access (Cortex-M0, RV32): the bulk ladder reads and writes
// lanes at an unaligned address bytewise (a word memcpy of unknown alignment is a call there).
#if __SIZEOF_POINTER__ == 4 && !defined(__ARM_FEATURE_UNALIGNED)
#define TINYLDP_BYTEWISE_LANES 1
#endif

namespace tinyldp {

class BernoulliBits {
 public:
  // The machine word the lanes are processed in: 64 lanes on 64-bit hosts, 32 on MCUs.
  using Word = __UINTPTR_TYPE__;
  static constexpr unsigned word_bits = sizeof(Word) * 8;

  static constexpr size_t bytes_for(uint32_t d) { return (size_t{d} + 7) / 8; }

  // Writes bytes_for(d) bytes of out (the unused high bits of the last byte are 0).
  template <class Rng>
  static void fill(Dyadic q, uint32_t d, Rng& rng, uint8_t* out) {
    // The ladder over q's bits, step-major. Whole machine words where they fit, then one
    // partial word; the random bit order is the same either way.
    const uint32_t full_words = d / word_bits;
    const unsigned tail_lanes = d % word_bits;
    if (ladder_word_major(q, rng, out, bytes_for(d), full_words, tail_lanes)) return;
    // One draw at a time (and the partial word): the lanes start at 0, so step 0 is an
    // ordinary step ("or" gives u, "and" gives 0). q is shifted down one bit per step: a 64-bit
    // shift by one is two instructions on a 32-bit core.
    uint8_t* const tail = out + size_t{full_words} * sizeof(Word);
    zero(tail, bytes_for(d) - size_t{full_words} * sizeof(Word));
    if constexpr (bulk_words<Rng>) {
      // The bulk ladder's lanes hold r ^ (the step's q bit as a mask): at first, q's low bit.
      for (uint8_t* w = out; w != tail; w += sizeof(Word)) lane_store(w, bit_mask(q.num));
      // Whole lane words only: every step's draws in one bulk delivery.
      if (tail_lanes == 0) return ladder_bulk(rng, q.num, out, steps_and_words(q.bits, full_words));
    } else {
      zero(out, size_t{full_words} * sizeof(Word));
    }
    uint64_t q_rest = q.num;
    for (unsigned step = 0; step < q.bits; ++step, q_rest >>= 1) {
      const bool q_bit = (static_cast<uint32_t>(q_rest) & 1u) != 0;
      if (full_words != 0) {
        if constexpr (bulk_words<Rng>)
          ladder_bulk(rng, q_rest, out, steps_and_words(1, full_words));
        else
          ladder_full_words(rng, q_bit, out, full_words);
      }
      if (tail_lanes != 0) {
        const Word u = static_cast<Word>(rng.draw(tail_lanes));
        store_tail(tail, tail_lanes,
                   ladder_step(load_tail(tail, tail_lanes), u, static_cast<Word>(Word{0} - Word{q_bit})));
      }
    }
  }

  // Little-endian access to the ⌈lanes/8⌉ bytes of a partial word.
  // (Loops over lanes, not get_le/put_le: -Os compiles these tighter on the 32-bit cores.)
  static Word load_tail(const uint8_t* p, unsigned lanes) {
    Word w = 0;
    for (unsigned i = 0; i * 8 < lanes; ++i) w |= static_cast<Word>(Word{p[i]} << (8 * i));
    return w;
  }
  static void store_tail(uint8_t* p, unsigned lanes, Word w) {
    for (unsigned i = 0; i * 8 < lanes; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
  }


 private:
  static constexpr void zero(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = 0;
  }

  // One ladder step on a lane word: r = "u < q" over the q bits seen so far (LSB first).
  static constexpr Word ladder_step(Word r, Word u, Word q_bit_mask) {
    return static_cast<Word>((r & u) | (q_bit_mask & (r | u)));
  }

  template <class Rng>
  static constexpr bool bulk_draws =
      sizeof(Word) == 8 && requires(Rng& rng, uint64_t* out) { rng.draw64_block_raw(out, size_t{1}); };

  // 64-bit machines with a bulk-capable Rng and d a multiple of 64, d ≤ 2^14. Each step's d
  // draws are d/64 whole words of the stream, all starting at the same bit offset within a
  // source word, so the ladder runs on the source words as they come ("rotated" lanes: lane i
  // at bit offset + i of the rotated array) and the lanes are shifted into place once per
  // block of steps, not once per step. Several steps' draws come at once into a 2 KiB stack
  // block — the same bits, in the same order, as step-major draw64() calls. Returns false
  // (nothing drawn) where it does not apply.
  template <class Rng>
  static bool ladder_word_major(Dyadic q, Rng& rng, uint8_t* out, size_t out_size,
                                uint32_t words, unsigned tail_lanes) {
    if constexpr (bulk_draws<Rng>) {
      constexpr uint32_t block_words = 256, group = 16;
      if (tail_lanes != 0 || words == 0 || words > block_words) return false;
      zero(out, out_size);  // the lanes start at 0
      uint64_t raw[block_words + 1];
      uint64_t rotated[block_words + 1];
      const uint32_t span = words + 1;  // rotated words covering one step's lanes
      const unsigned steps_per_block = block_words / words;
      for (unsigned first = 0; first < q.bits; first += steps_per_block) {
        const unsigned steps = q.bits - first < steps_per_block ? q.bits - first : steps_per_block;
        const unsigned offset = rng.draw64_block_raw(raw, size_t{steps} * words);
        rotate_lanes(out, rotated, words, offset);
        uint32_t k = 0;
        for (; k + group <= span; k += group) run_steps<group>(q, rotated, raw, k, words, first, steps);
        for (; k < span; ++k) run_steps<1>(q, rotated, raw, k, words, first, steps);
        unrotate_lanes(rotated, out, words, offset);
      }
      // The raw draws and the lanes before the splice are noise: not left on the stack.
      const size_t most_steps = q.bits < steps_per_block ? q.bits : steps_per_block;
      wipe(raw, (most_steps * words + 1) * sizeof raw[0]);  // what the blocks wrote
      wipe(rotated, span * sizeof rotated[0]);
      return true;
    } else {
      (void)q, (void)rng, (void)out, (void)out_size, (void)words, (void)tail_lanes;
      return false;
    }
  }

  // Lane i (output bit i) ↔ bit offset + i of the rotated array (offset 1..64), and back.
  static void rotate_lanes(const uint8_t* out, uint64_t* rotated, uint32_t words, unsigned offset) {
    uint64_t previous = 0;
    for (uint32_t k = 0; k < words; ++k) {
      const uint64_t lanes = load_le<uint64_t>(out + 8 * k);
      rotated[k] = offset == 64 ? previous : (previous >> (64 - offset)) | (lanes << offset);
      previous = lanes;
    }
    rotated[words] = offset == 64 ? previous : previous >> (64 - offset);
  }
  static void unrotate_lanes(const uint64_t* rotated, uint8_t* out, uint32_t words, unsigned offset) {
    for (uint32_t k = 0; k < words; ++k) {
      const uint64_t lanes =
          offset == 64 ? rotated[k + 1] : (rotated[k] >> offset) | (rotated[k + 1] << (64 - offset));
      store_le<uint64_t>(out + 8 * k, lanes);
    }
  }

  // Rotated words [k, k + N) through `steps` ladder steps starting at `first`; step s of the
  // block reads raw words s·words + k … (raw[0] holds the bits left from earlier draws).
  template <uint32_t N>
  static void run_steps(Dyadic q, uint64_t* rotated, const uint64_t* raw, uint32_t k, uint32_t words,
                        unsigned first, unsigned steps) {
    // N words in vector registers (GCC vector extension; plain words where the machine has no
    // vectors): one load and one "or"/"and" per word and step.
    constexpr uint32_t per = N % 2 == 0 ? 2 : 1;
    typedef uint64_t Lanes __attribute__((vector_size(8 * per)));
    Lanes acc[N / per];
#pragma GCC unroll 16
    for (uint32_t j = 0; j < N / per; ++j) __builtin_memcpy(&acc[j], rotated + k + per * j, sizeof(Lanes));
    for (unsigned s = 0; s < steps; ++s) {
      // The ladder step with q's bit known: "or" where it is 1, "and" where it is 0. A branch
      // on the configuration only, taken the same way for every value and every draw.
      const uint64_t* u = raw + size_t{s} * words + k;
      if ((q.num >> (first + s)) & 1u) {
#pragma GCC unroll 16
        for (uint32_t j = 0; j < N / per; ++j) acc[j] |= load_lanes<Lanes>(u + per * j);
      } else {
#pragma GCC unroll 16
        for (uint32_t j = 0; j < N / per; ++j) acc[j] &= load_lanes<Lanes>(u + per * j);
      }
    }
#pragma GCC unroll 16
    for (uint32_t j = 0; j < N / per; ++j) __builtin_memcpy(rotated + k + per * j, &acc[j], sizeof(Lanes));
  }

  template <class Lanes>
  static Lanes load_lanes(const uint64_t* p) {
    Lanes v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }

  // The output's lane words, always inlined in the ladder loops: as out-of-line calls (what
  // -Os picks for load_le/store_le once they have several callers) they made UE on Cortex-M0
  // and RV32 several times slower (commit 81f16e0 has the before/after instruction counts).
  __attribute__((always_inline)) static Word load_word(const uint8_t* p) {
    Word w;
    __builtin_memcpy(&w, p, sizeof w);
    return le_native(w);
  }
  __attribute__((always_inline)) static void store_word(uint8_t* p, Word w) {
    w = le_native(w);
    __builtin_memcpy(p, &w, sizeof w);
  }

  // One ladder step on the first `words` whole lane words, one draw at a time: "or" (q's bit
  // 1) or "and" (0) with the step's draws — a choice by the configuration only, the same for
  // every value and draw. `word` is restrict: the output is not the Rng's state, so the Rng's
  // pointers and counters may stay in registers across the output's byte-typed stores.
  template <class Rng>
  static void ladder_full_words(Rng& rng, bool q_bit, uint8_t* __restrict word, uint32_t words) {
    if (q_bit) {
      for (uint32_t i = 0; i < words; ++i, word += sizeof(Word)) step<true>(word, draw_word(rng));
    } else {
      for (uint32_t i = 0; i < words; ++i, word += sizeof(Word)) step<false>(word, draw_word(rng));
    }
  }

  template <class Rng>
  static constexpr bool bulk_words = requires(Rng& rng) {
    rng.template each_word_run<Word>(size_t{1}, [](auto&) {});
  };

  // `steps` ladder steps (q's bits from the low bit of q_rest up) on the first `words` lane
  // words, with all their draws in one bulk delivery (RandomBits::each_word_run: steps·words
  // words of the stream, step-major, the order of the per-step draws). Each stretch of buffered
  // words is cut where a step ends; at a step's end the lanes start over with q's next bit.
  // Per step and per stretch a few branches on the configuration and the buffer's fill level,
  // never on a random or private value. Out of line: one copy for every caller.
  // The lanes hold R = r ^ m, m the current step's q bit as a mask (the caller starts them at
  // m₀; after the last step m is 0 and R = r). A step is then three operations a word, one
  // loop for "or" and "and": the step r' = m ? r | u : r & u is the majority of (r, u, m), and
  // maj(r, u, m) ^ m = (r ^ m) & (u ^ m), so R' = r' ^ m' = (R & (u ^ m)) ^ (m ^ m').
  // (The step count and the lane words travel in one argument: four fit in registers on
  // Cortex-M0, and a fifth cost the caller's frame 16 B of the smallest firmware's stack.)
  static constexpr size_t steps_and_words(unsigned steps, uint32_t words) { return size_t{words} << 7 | steps; }
  template <class Rng>
  __attribute__((noinline)) static void ladder_bulk(Rng& rng, uint64_t q_rest, uint8_t* __restrict out,
                                                    size_t steps_words) {
    const unsigned steps = steps_words & 127u;  // 1..64
    const uint32_t words = static_cast<uint32_t>(steps_words >> 7);
    uint8_t* lane = out;
    size_t step_left = words;
    rng.template each_word_run<Word>(size_t{steps} * words, [&](auto& run) __attribute__((always_inline)) {
      do {
        const size_t here = run.words_left() < step_left ? run.words_left() : step_left;
        ladder_stretch(run, here, lane, static_cast<unsigned>(q_rest & 3u));
        lane += here * sizeof(Word);
        step_left -= here;
        if (step_left == 0) {  // the step is done: the next one starts over with q's next bit
          lane = out;
          step_left = words;
          q_rest >>= 1;
        }
      } while (!run.done());
    });
  }
  static Word bit_mask(uint64_t bits) { return static_cast<Word>(Word{0} - static_cast<Word>(bits & 1u)); }

  // n ≥ 1 words of a run through one step, R' = (R & (u ^ m)) ^ flip (see ladder_bulk). Out of
  // line with four arguments and the run's state in locals (WordRun::take): every loop variable
  // stays in a register (inlined, -Os spilled the source pointer and the mask on every word; a
  // fifth argument it reloaded from the stack on every word). Where the core has no unaligned
  // access (Cortex-M0, RV32) the lanes of a report at an unaligned address go bytewise.
  template <class Run>
  __attribute__((noinline)) static void ladder_stretch(Run& run, size_t n, uint8_t* __restrict word,
                                                       unsigned q_bits) {
    // q_bits: this step's q bit (bit 0) and the next step's (bit 1, 0 after the last step).
    const Word mask = bit_mask(q_bits), flip = static_cast<Word>(mask ^ bit_mask(q_bits >> 1));
#if defined(TINYLDP_BYTEWISE_LANES)
    if ((reinterpret_cast<__UINTPTR_TYPE__>(word) & (sizeof(Word) - 1)) == 0) {
      // Word-aligned lanes (the report's address decides, public): whole-word access. The lanes
      // are little-endian in memory on every machine; mask and flip are all zeros or all ones,
      // so byte-swapping the draw instead of the lane word is the same step — le_native is the
      // identity on little-endian cores (no cost there), one swap per word on big-endian ones.
      run.take(n, [&](Word u) __attribute__((always_inline)) {
        Word* const lane = static_cast<Word*>(__builtin_assume_aligned(word, sizeof(Word)));
        *lane = static_cast<Word>((*lane & (le_native(u) ^ mask)) ^ flip);
        word += sizeof(Word);
      });
      return;
    }
#endif
    run.take(n, [&](Word u) __attribute__((always_inline)) {
      lane_store(word, static_cast<Word>((lane_load(word) & (u ^ mask)) ^ flip));
      word += sizeof(Word);
    });
  }

  // A lane word of the bulk ladder at any address: bytes where TINYLDP_BYTEWISE_LANES.
  __attribute__((always_inline)) static Word lane_load(const uint8_t* p) {
#if defined(TINYLDP_BYTEWISE_LANES)
    return get_le<Word>(p);
#else
    return load_word(p);
#endif
  }
  __attribute__((always_inline)) static void lane_store(uint8_t* p, Word w) {
#if defined(TINYLDP_BYTEWISE_LANES)
    put_le<Word>(p, w);
#else
    store_word(p, w);
#endif
  }

  template <bool Or>
  __attribute__((always_inline)) static void step(uint8_t* word, Word u) {
    const Word r = load_word(word);
    store_word(word, Or ? static_cast<Word>(r | u) : static_cast<Word>(r & u));
  }

  template <class Rng>
  static Word draw_word(Rng& rng) {
    if constexpr (word_bits == 64 && requires { rng.draw64(); })
      return static_cast<Word>(rng.draw64());
    else if constexpr (word_bits == 32 && requires { rng.draw32(); })
      return static_cast<Word>(rng.draw32());
    else
      return static_cast<Word>(rng.draw(word_bits));
  }
};

}  // namespace tinyldp

#endif
