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
// Cost: RAM = BufferBytes + 48 bytes on 32-bit targets (80 B with the default 32-byte buffer;
// caller-owned, usually on the stack); time per draw is a few shifts plus one source call per
// BufferBytes bytes.
#ifndef TINYLDP_RANDOM_BITS_HPP
#define TINYLDP_RANDOM_BITS_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/entropy.hpp"
#include "tinyldp/status.hpp"

namespace tinyldp {

template <EntropySource Source, size_t BufferBytes = 32>
class RandomBits {
  static_assert(BufferBytes >= 8 && BufferBytes % 8 == 0, "buffer holds whole 64-bit words");

 public:
  explicit RandomBits(Source& source, uint32_t flags = TINYLDP_ENTROPY_BLOCKING)
      : source_(source), flags_(flags) {}

  RandomBits(const RandomBits&) = delete;
  RandomBits& operator=(const RandomBits&) = delete;
  ~RandomBits() { wipe(); }

  // Returns n (1..64) fresh random bits in the low bits of the result.
  uint64_t draw(unsigned n) {
    bits_drawn_ += n;
    if (n <= available_) {
      const uint64_t r = reservoir_ & low_mask(n);
      reservoir_ = shift_right(reservoir_, n);
      available_ -= n;
      return r;
    }
    // Take the `have` bits left, then the rest from the next 64-bit word.
    const uint64_t low = reservoir_;
    const unsigned have = available_;
    const unsigned need = n - have;  // 1..64
    const uint64_t next = next_word();
    const uint64_t r = low | ((next & low_mask(need)) << have);  // have < 64 here
    reservoir_ = shift_right(next, need);
    available_ = 64 - need;
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

  Status status() const { return status_; }
  bool ok() const { return status_ == Status::ok; }
  // Bits handed out by draw() since construction or reset().
  uint64_t bits_drawn() const { return bits_drawn_; }
  // Bytes taken from the source since construction or reset().
  uint64_t bytes_pulled() const { return bytes_pulled_; }

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

  // The next 64 bits of the stream, refilling the buffer from the source when it is empty.
  uint64_t next_word() {
    if (position_ == BufferBytes) refill_buffer();
    const uint64_t word = load_le<uint64_t>(buffer_ + position_);
    position_ += 8;
    return word;
  }

  // Kept out of line so the per-draw path stays small (no register spills around the call).
  __attribute__((noinline)) void refill_buffer() {
    position_ = 0;
    if (status_ == Status::ok) {
      const EntropyResult r = source_.fill(buffer_, BufferBytes, flags_);
      if (r == EntropyResult::ok) {
        bytes_pulled_ += BufferBytes;
      } else {
        status_ = to_status(r);
      }
    }
    if (status_ != Status::ok) {
      for (size_t i = 0; i < BufferBytes; ++i) buffer_[i] = 0;
    }
  }

  void wipe() {
    volatile uint8_t* b = buffer_;
    for (size_t i = 0; i < BufferBytes; ++i) b[i] = 0;
    position_ = BufferBytes;
    reservoir_ = 0;
    available_ = 0;
  }

  Source& source_;
  uint32_t flags_;
  Status status_ = Status::ok;
  unsigned available_ = 0;
  size_t position_ = BufferBytes;
  uint64_t reservoir_ = 0;
  uint64_t bits_drawn_ = 0;
  uint64_t bytes_pulled_ = 0;
  uint8_t buffer_[BufferBytes] = {};
};

}  // namespace tinyldp

#endif
