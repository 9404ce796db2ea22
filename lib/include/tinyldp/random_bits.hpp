// SPDX-License-Identifier: Apache-2.0
// tinyldp/random_bits.hpp — draws exactly n random bits at a time from an entropy source.
//
// Mechanisms never read a source directly: they draw bit strings from a RandomBits, so every
// random bit pulled from the source is used (no rounding of requests up to whole bytes or
// words) and the number consumed per report is exact and countable. Bytes become bits least
// significant bit first, bytes in order, so the same source bytes give the same draws on
// every architecture (results are bit-identical on host, Cortex-M and RISC-V).
//
// Failure is sticky: after a source answers anything but ok, every draw returns 0 and
// status() keeps the first failure until reset(); mechanisms check it and emit nothing.
// Nothing handed out stays behind: every mechanism ends its report with forget_drawn() (through
// release(), fail_closed.hpp), which zeroes the buffered bytes already handed out; the
// reservoir keeps only bits not yet drawn. So after a report the object holds no bit the report
// used (tests/privacy/test_no_noise_left; issue #14, F6), and the type is trivially
// destructible: what is left when it ends are bits no report drew (wipe() forgets them too;
// WipedOnExit<RandomBits<…>> does it on scope exit).
// Cost: RAM = BufferBytes + 48 bytes on 32-bit targets (80 B with the default 32-byte buffer;
// caller-owned, usually on the stack); time per draw is a few shifts plus one source call per
// BufferBytes bytes (hosts: use a few hundred bytes, e.g. RandomBits<Source, 256>). Bulk words
// (each_word_run / WordRun::take, the unary-encoding ladder) cost a load, two shifts and an "or"
// each, plus a refill every BufferBytes: RandomBits<Source, 128> for UE on microcontrollers
// (docs/target-costs.md).
#ifndef TINYLDP_RANDOM_BITS_HPP
#define TINYLDP_RANDOM_BITS_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wipe.hpp"

namespace tinyldp {

template <EntropySource Source, size_t BufferBytes = 32>
class RandomBits {
  static_assert(BufferBytes >= 8 && BufferBytes % 8 == 0, "buffer holds whole 64-bit words");

 public:
  explicit RandomBits(Source& source, uint32_t flags = TINYLDP_ENTROPY_BLOCKING)
      : source_(source), flags_(flags) {}

  RandomBits(const RandomBits&) = delete;
  RandomBits& operator=(const RandomBits&) = delete;

  // Returns n (1..64) fresh random bits in the low bits of the result.
  uint64_t draw(unsigned n) {
    bits_drawn_ += n;
    if (n <= available_) {
      const uint64_t r = reservoir_ & low_mask(n);
      reservoir_ = shift_right(reservoir_, n);
      available_ -= n;
      return r;
    }
    return draw_across(n);
  }

  // draw(32), for the lane words of 32-bit machines: when 32 bits are buffered, a word move
  // (the 64-bit shift by 32 is a register move on a 32-bit core).
  uint32_t draw32() {
    if (available_ < 32) return static_cast<uint32_t>(draw(32));
    bits_drawn_ += 32;
    const uint32_t r = static_cast<uint32_t>(reservoir_);
    reservoir_ >>= 32;
    available_ -= 32;
    return r;
  }

  // draw(64), for bulk consumers: one word load and two shifts.
  uint64_t draw64() {
    bits_drawn_ += 64;
    const uint64_t next = next_word();
    if (available_ == 0) return next;
    const uint64_t r = reservoir_ | (next << available_);
    reservoir_ = next >> (64 - available_);  // the unused high bits; available_ is unchanged
    return r;
  }

  // Bulk draws for 64-bit machines (the unary-encoding ladder), without shifting every word:
  // out[0] receives the a bits left from earlier draws (a = 0..63) in its top bits, out[1..n]
  // the next n source words as they are; the returned offset is 64 − a. The next 64·n bits of
  // the stream — what n calls of draw64() would return — are then bits [offset, offset + 64n)
  // of out[0..n] read as one little-endian bit array. The source is asked for the same
  // BufferBytes requests in the same order as by draw64(); whole requests land straight in out.
  unsigned draw64_block_raw(uint64_t* out, size_t n) {
    bits_drawn_ += 64 * uint64_t{n};
    const unsigned a = available_;
    out[0] = a == 0 ? 0 : reservoir_ << (64 - a);
    uint8_t* dst = reinterpret_cast<uint8_t*>(out + 1);
    size_t left = 8 * n;
    while (left != 0) {
      if (position_ == BufferBytes && left >= BufferBytes) {
        fill_from_source(dst);
      } else {
        if (position_ == BufferBytes) refill_buffer();
        const size_t bytes = BufferBytes - position_ < left ? BufferBytes - position_ : left;
        __builtin_memcpy(dst, buffer_ + position_, bytes);
        position_ += bytes;
        dst += bytes;
        left -= bytes;
        continue;
      }
      dst += BufferBytes;
      left -= BufferBytes;
    }
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    for (size_t i = 1; i <= n; ++i) out[i] = load_le<uint64_t>(reinterpret_cast<uint8_t*>(out + i));
#endif
    if (a != 0) reservoir_ = out[n] >> (64 - a);
    return 64 - a;
  }

  // Bulk delivery for word-wide consumers (the unary-encoding ladder on every machine): n
  // words, each a Word (uint32_t or uint64_t) holding exactly what a call of
  // draw(8·sizeof(Word)) would return, with the same BufferBytes requests to the source in the
  // same order. The words come straight from the buffer: the stream is the reservoir's bits
  // followed by the buffered bytes, so every word is (carry | next << c) with c, the
  // reservoir's bit count, fixed for the whole call — one loop for every bit offset, aligned
  // or not, and no 64-bit shifts on a 32-bit core.
  // each_word_run(n ≥ 1, run) calls run(WordRun&) once per stretch of buffered words; run takes
  // its words in runs of take(k, use) until done() (the ladder cuts them where its steps end,
  // each piece in an out-of-line loop), and keeps a single copy of this code.
  template <class Word>
  class WordRun {
   public:
    bool done() const { return p_ == end_; }
    size_t words_left() const { return static_cast<size_t>(end_ - p_) / sizeof(Word); }
    // use(w) for the next n (1 … words_left()) words, the run's state in locals meanwhile: a
    // consumer's byte stores cannot alias those, so they stay in registers.
    template <class Use>
    __attribute__((always_inline)) void take(size_t n, Use&& use) {
      const uint8_t* p = p_;
      Word carry = carry_;
      const unsigned c = c_;
      do {
        Word v;
        __builtin_memcpy(&v, __builtin_assume_aligned(p, sizeof(Word)), sizeof v);
        v = le_native(v);
        use(static_cast<Word>(carry | static_cast<Word>(v << c)));
        carry = shift_right_whole(v, 8 * sizeof(Word) - c);
        p += sizeof(Word);
      } while (--n != 0);
      p_ = p;
      carry_ = carry;
    }

   private:
    friend class RandomBits;
    const uint8_t* p_;  // in buffer_, Word-aligned: word loads even where unaligned ones trap
    const uint8_t* end_;
    Word carry_;  // c_ < 8·sizeof(Word) bits
    unsigned c_;
  };

  template <class Word, class Run>
  __attribute__((always_inline)) void each_word_run(size_t n, Run&& run) {
    static_assert(sizeof(Word) == 4 || sizeof(Word) == 8, "32- or 64-bit words");
    WordRun<Word> words;  // (n ≥ 1: each_word checks, the ladder never asks for 0)
    words.c_ = available_;
    words.carry_ = static_cast<Word>(reservoir_);
    if (sizeof(Word) == 4 && words.c_ >= 32) {
      // 32 + c reservoir bits: the carry keeps the low c, the next 32 go back in front of the
      // buffered bytes (over bytes already consumed: the reservoir came from the 8 before
      // position_), so that the first word is (carry | those << c) like every other.
      const unsigned c = words.c_ - 32;
      const uint32_t low = static_cast<uint32_t>(reservoir_), high = static_cast<uint32_t>(reservoir_ >> 32);
      position_ -= 4;
      store_le<uint32_t>(static_cast<uint8_t*>(__builtin_assume_aligned(buffer_ + position_, 4)),
                         (low >> c) | ((high << 1) << (31 - c)));  // bits c..c+31 (32-bit shifts)
      words.carry_ = static_cast<Word>(low & ((uint32_t{1} << c) - 1));
      words.c_ = c;
    }
    // (Counted once: a shift, where a 64-bit product per stretch would be a long multiply.)
    bits_drawn_ += uint64_t{n} << (sizeof(Word) == 4 ? 5 : 6);
    size_t bytes = n * sizeof(Word);
    do {
      if (position_ == BufferBytes) refill_buffer();
      const size_t buffered = BufferBytes - position_;
      const size_t here = buffered < bytes ? buffered : bytes;  // whole words, ≥ 1
      words.p_ = buffer_ + position_;
      words.end_ = words.p_ + here;
      run(words);
      position_ += here;
      bytes -= here;
    } while (bytes != 0);
    end_words<Word>(words.carry_, words.c_);
  }

  // The same, one word at a time: use(w) for each of the n words.
  template <class Word, class Use>
  __attribute__((always_inline)) void each_word(size_t n, Use&& use) {
    if (n == 0) return;
    each_word_run<Word>(n, [&](WordRun<Word>& words) __attribute__((always_inline)) {
      words.take(words.words_left(), use);
    });
  }

  // Zeroes the buffered bytes handed out since the last call (or the last refill), once per
  // report: the bytes before them are zero already, so the cost is the report's draws, not the
  // buffer's size (zeroing the whole drawn prefix of a 16 KiB host buffer took 0.5 µs a report).
  // Out of line, so the per-draw path keeps its registers (a store per drawn word there costs
  // stack on Cortex-M0). Word stores (position_ is a multiple of 8 between draws), kept by
  // volatile: no memset call, whose code the smallest firmware would link for this alone.
  __attribute__((noinline)) void forget_drawn() {
    volatile uint32_t* const words = static_cast<uint32_t*>(__builtin_assume_aligned(static_cast<void*>(buffer_), 8));
    for (size_t i = zeroed_ / 4; i < position_ / 4; ++i) words[i] = 0;
    zeroed_ = position_;
  }

  Status status() const { return status_; }
  bool ok() const { return status_ == Status::ok; }
  // Bits handed out by draw() since construction or reset().
  uint64_t bits_drawn() const { return bits_drawn_; }
  // Bytes taken from the source since construction or reset().
  uint64_t bytes_pulled() const { return bytes_pulled_; }

  // Forgets the buffered bits (zeroed): the next draw asks the source again.
  void wipe() {
    volatile uint8_t* b = buffer_;  // (a byte loop: memset's call costs the OUE firmware stack)
    for (size_t i = 0; i < BufferBytes; ++i) b[i] = 0;
    position_ = zeroed_ = BufferBytes;
    reservoir_ = 0;
    available_ = 0;
  }

  // Forgets buffered bits and any failure: the next draw asks the source again.
  void reset() {
    wipe();
    status_ = Status::ok;
    bits_drawn_ = 0;
    bytes_pulled_ = 0;
  }

 private:
  static constexpr uint64_t low_mask(unsigned n) {
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  }
  static constexpr uint64_t shift_right(uint64_t v, unsigned n) { return n >= 64 ? 0 : v >> n; }

  // v >> n for n = 1..bits of Word, where a shift by the whole width gives 0: one register
  // shift on ARM (whose shifts by 32 give 0), two shifts elsewhere (C leaves it undefined).
  template <class Word>
  __attribute__((always_inline)) static Word shift_right_whole(Word v, unsigned n) {
#if defined(__arm__) && defined(__thumb2__)
    if constexpr (sizeof(Word) == 4) {
      __asm__("lsr %0, %1, %2" : "=r"(v) : "r"(v), "r"(n));
      return v;
    }
#elif defined(__arm__) && defined(__thumb__)
    if constexpr (sizeof(Word) == 4) {
      __asm__("lsr %0, %1" : "+l"(v) : "l"(n) : "cc");  // LSRS (inline asm is in divided syntax here)
      return v;
    }
#endif
    return static_cast<Word>((v >> 1) >> (n - 1));
  }

  // The reservoir takes a bulk delivery's carry (c bits); a half-used 64-bit buffer word
  // (32-bit delivery) joins it, so that position_ stays a multiple of 8 for next_word().
  template <class Word>
  void end_words(Word carry, unsigned c) {
    uint64_t rest = carry;
    if (sizeof(Word) == 4 && position_ % 8 != 0) {
      const uint32_t next = load_le<uint32_t>(static_cast<const uint8_t*>(__builtin_assume_aligned(buffer_ + position_, 4)));
      rest = uint64_t{shift_right_whole<uint32_t>(next, 32 - c)} << 32 | static_cast<uint32_t>(carry | next << c);
      position_ += 4;
      c += 32;
    }
    reservoir_ = rest;
    available_ = c;
  }

  // draw(n) when fewer than n bits are buffered: the `have` bits left, then the rest from the
  // next 64-bit word.
  uint64_t draw_across(unsigned n) {
    const uint64_t low = reservoir_;
    const unsigned have = available_;
    const unsigned need = n - have;  // 1..64
    const uint64_t next = next_word();
    const uint64_t r = low | ((next & low_mask(need)) << have);  // have < 64 here
    reservoir_ = shift_right(next, need);
    available_ = 64 - need;
    return r;
  }

  // The next 64 bits of the stream, refilling the buffer from the source when it is empty.
  uint64_t next_word() {
    if (position_ == BufferBytes) refill_buffer();
    const uint64_t word = load_le<uint64_t>(buffer_ + position_);
    position_ += 8;
    return word;
  }

  // Kept out of line so the per-draw path stays small (no register spills around the call).
  __attribute__((noinline)) void refill_buffer() {
    position_ = zeroed_ = 0;  // every byte fresh: none handed out, none to zero yet
    fill_from_source(buffer_);
  }

  // BufferBytes from the source into out; zeros once the source has failed.
  void fill_from_source(uint8_t* out) {
    if (status_ == Status::ok) {
      const EntropyResult r = source_.fill(out, BufferBytes, flags_);
      if (r == EntropyResult::ok) {
        bytes_pulled_ += BufferBytes;
      } else {
        status_ = to_status(r);
      }
    }
    if (status_ != Status::ok) {
      for (size_t i = 0; i < BufferBytes; ++i) out[i] = 0;
    }
  }

  Source& source_;
  uint32_t flags_;
  Status status_ = Status::ok;
  unsigned available_ = 0;
  size_t position_ = BufferBytes;
  size_t zeroed_ = BufferBytes;  // bytes [0, zeroed_) of the buffer are zero (handed out, forgotten)
  uint64_t reservoir_ = 0;
  uint64_t bits_drawn_ = 0;
  uint64_t bytes_pulled_ = 0;
  // Aligned: bulk delivery loads whole words. Not initialized: position_ starts at the end, so
  // the buffer is filled before it is read (and its initializer cost the smallest firmware a
  // memset call); a static RandomBits is zero in .bss anyway.
  alignas(8) uint8_t buffer_[BufferBytes];
};

}  // namespace tinyldp

#endif
