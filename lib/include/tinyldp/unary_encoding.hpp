// tinyldp/unary_encoding.hpp — unary encoding UE(p, q) over {0, …, d−1}, with the SUE
// (symmetric, = basic one-time RAPPOR) and OUE (optimized) presets; any d ≥ 2.
//
// The report is d bits: bit v (the true value) is 1 with probability p, every other bit is 1
// with probability q, all independent. ε = ln(p(1−q)/((1−p)q)).
//  - SUE: p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p.   - OUE: p = 1/2, q = 1/(e^ε+1).
// Realized p is rounded down and q up (as Dyadics), so the ratio stays ≤ e^ε.
//
// How a report is made, and why it leaks nothing through time or memory:
//  1. one Bernoulli(p) bit for the true position (p.bits random bits);
//  2. all d bits as Bernoulli(q), bit-sliced: q.bits ladder steps, each drawing d fresh bits
//     in bit order (step-major), accumulated in the report buffer itself, a machine word
//     (32 or 64 lanes) at a time — the bit order, hence the report, is the same either way;
//  3. every word is rewritten with the true position's bit spliced in under a mask
//     computed without branches — the value picks neither a branch nor an address.
// Random bits per report: p.bits + d·q.bits, the same for every value.
// Cost: context 48 bytes; report ⌈d/8⌉ bytes (caller-owned, report_bytes()); no other RAM on
// 32-bit targets. Stack (Cortex-M0, -Os): privatize 72 B + draw 56 B, plus the caller's
// RandomBits (80 B); run-time configure ≈ 1.3 KiB (use make_oue/make_sue at compile time).
// Time ≈ q.bits·⌈d/32⌉ word steps, each one "or" or "and" (q's bit decides which — a public
// branch) plus a 32-bit draw, on 32-bit targets: with the draws from a table, 6.8
// instructions per output bit on Cortex-M3 at d = 1024, 8.2 at d = 256 (docs/target-costs.md);
// RandomBits' bit-exact delivery adds ~35 per bit. On 64-bit machines, when d is a multiple of 64
// (≤ 2^14) and the Rng offers bulk draws (RandomBits does), several steps' draws arrive at once
// in a 2 KiB stack block (plus 2 KiB of lanes) and each step is one vector operation per lane
// word: the same report, ≈ 5 M OUE reports/s at d = 1024, ε = 1 with the simulation source
// (docs/benchmarks.md).
// Estimator (collector): ĉ(i) = (c(i) − nq)/(p − q), Var = n q(1−q)/(p−q)².
#ifndef TINYLDP_UNARY_ENCODING_HPP
#define TINYLDP_UNARY_ENCODING_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/bernoulli.hpp"
#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class UnaryEncoding {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 24;

  static constexpr size_t report_bytes_for(uint32_t d) { return (size_t{d} + 7) / 8; }

  // SUE: p = e^{ε/2}/(e^{ε/2}+1) rounded down, q = 1 − p.
  static constexpr Status configure_sue(Epsilon eps, uint32_t d, UnaryEncoding& out,
                                        Precision precision = {}) {
    if (!is_valid_epsilon(eps)) return Status::bad_epsilon;
    if (!is_valid_precision(precision)) return Status::bad_parameter;
    const unsigned b = precision.max_bits;
    const Epsilon half{eps.q32 / 2};
    const Epsilon half_loose{detail::loosened(eps, precision).q32 / 2};
    if (half.q32 == 0) return Status::bad_epsilon;
    const uint64_t safe = detail::floor_scaled_ratio(half, b, 1);
    const uint64_t loose = detail::floor_scaled_ratio(half_loose, b, 1);
    const Dyadic p = make_dyadic(detail::pick_at_most(safe, loose), b);
    const Dyadic q = make_dyadic(((p.bits == 64 ? 0 : (uint64_t{1} << p.bits)) - p.num), p.bits);
    const Status s = configure(p, q, d, out);
    if (s == Status::ok) out.id_ = wire::MechanismId::sue;
    return s;
  }

  // OUE: p = 1/2, q = 1/(e^ε+1) rounded up.
  static constexpr Status configure_oue(Epsilon eps, uint32_t d, UnaryEncoding& out,
                                        Precision precision = {}) {
    if (!is_valid_epsilon(eps)) return Status::bad_epsilon;
    if (!is_valid_precision(precision)) return Status::bad_parameter;
    const unsigned b = precision.max_bits;
    const uint64_t safe = detail::ceil_scaled_inverse(eps, b, 1);
    const uint64_t loose = detail::floor_scaled_inverse(detail::loosened(eps, precision), b, 1);
    const Status s = configure(Dyadic{1, 1}, make_dyadic(detail::pick_at_least(safe, loose), b), d, out);
    if (s == Status::ok) out.id_ = wire::MechanismId::oue;
    return s;
  }

  // Generic UE(p, q) with 0 < q < p < 1 (on the wire as ue).
  static constexpr Status configure(Dyadic p, Dyadic q, uint32_t d, UnaryEncoding& out) {
    if (d < 2 || d > max_domain) return Status::bad_parameter;
    if (p.bits == 0 || q.bits == 0 || q.num == 0) return Status::precision_too_low;
    using detail::Wide;
    const Wide pn = Wide::from(p.num), qn = Wide::from(q.num);
    const Wide p_rest = detail::scale(p.bits) - pn;  // (1 − p)·2^pb
    const Wide q_rest = detail::scale(q.bits) - qn;  // (1 − q)·2^qb
    // p > q  ⇔  pn·2^qb > qn·2^pb
    if (pn * detail::scale(q.bits) <= qn * detail::scale(p.bits)) return Status::bad_parameter;
    Epsilon realized;
    if (!detail::realized_epsilon_of(pn * q_rest, p_rest * qn, realized))
      return Status::bad_epsilon;
    out.d_ = d;
    out.id_ = wire::MechanismId::ue;
    out.p_ = p;
    out.q_ = q;
    out.realized_ = realized;
    return Status::ok;
  }

  static consteval UnaryEncoding make_oue(Epsilon eps, uint32_t d, Precision precision = {}) {
    UnaryEncoding r;
    detail::require_ok(configure_oue(eps, d, r, precision));
    return r;
  }
  static consteval UnaryEncoding make_sue(Epsilon eps, uint32_t d, Precision precision = {}) {
    UnaryEncoding r;
    detail::require_ok(configure_sue(eps, d, r, precision));
    return r;
  }

  constexpr uint32_t domain() const { return d_; }
  constexpr Dyadic p() const { return p_; }
  constexpr Dyadic q() const { return q_; }
  constexpr Epsilon realized_epsilon() const { return realized_; }
  constexpr size_t report_bytes() const { return report_bytes_for(d_); }
  constexpr uint64_t random_bits_per_report() const {
    return p_.bits + uint64_t{d_} * q_.bits;
  }

  // On the wire (wire.hpp): id sue, oue or ue as configured; the payload is the report itself
  // (d bits, bit i of byte i / 8); the digest covers the id, d, p and q.
  constexpr wire::Description description() const {
    return {id_, d_,
            wire::Digest().byte(static_cast<uint8_t>(id_)).u32(d_).dyadic(p_).dyadic(q_).value()};
  }

  // Writes report_bytes() bytes: bit i of the report is bit (i % 8) of byte i / 8.
  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, uint8_t* report, size_t report_size) const {
    const size_t n = report_bytes();
    if (report == nullptr || report_size < n) {
      if (report != nullptr) zero(report, report_size);
      return Status::buffer_too_small;
    }
    const uint32_t in_domain = ct::less(value, d_);
    const uint32_t true_bit = bernoulli(p_, rng);
    // Bernoulli(q) on every lane: the ladder over q's bits, step-major. Whole machine words
    // where they fit, then one partial word; the random bit order is the same either way.
    const uint32_t full_words = d_ / word_bits;
    const unsigned tail_lanes = d_ % word_bits;
    if (!ladder_word_major(rng, report, n, full_words, tail_lanes)) {
      // Step 0 starts from all-zero lanes, so it stores "q's bit 0 and u" without reading the
      // report: every byte of the report is written (no zeroing pass). q is shifted down one
      // bit per step: a 64-bit shift by one is two instructions on a 32-bit core.
      uint64_t q_rest = q_.num;
      bool q_bit = (q_rest & 1u) != 0;
      uint8_t* const tail = ladder_first_words(rng, q_bit, report, full_words);
      if (tail_lanes != 0)
        store_tail(tail, tail_lanes, static_cast<Word>(rng.draw(tail_lanes)) & static_cast<Word>(Word{0} - Word{q_bit}));
      for (unsigned step = 1; step < q_.bits; ++step) {
        q_rest >>= 1;
        q_bit = (static_cast<uint32_t>(q_rest) & 1u) != 0;
        ladder_full_words(rng, q_bit, report, full_words);
        if (tail_lanes != 0) {
          const Word u = static_cast<Word>(rng.draw(tail_lanes));
          store_tail(tail, tail_lanes,
                     ladder_step(load_tail(tail, tail_lanes), u, static_cast<Word>(Word{0} - Word{q_bit})));
        }
      }
    }
    // Splice in the true position's bit, touching every word the same way.
    const Word true_bits = static_cast<Word>(Word{0} - true_bit);
    const Word keep_mask = static_cast<Word>(Word{0} - in_domain);
    const uint32_t true_word = value / word_bits;
    const unsigned true_lane = value % word_bits;
    for (uint32_t w = 0; w <= full_words; ++w) {
      const unsigned lanes = w < full_words ? word_bits : tail_lanes;
      if (lanes == 0) break;
      uint8_t* word = report + w * sizeof(Word);
      const Word here = static_cast<Word>(ct::is_zero(w ^ true_word) & in_domain);
      const Word position = static_cast<Word>(here << true_lane);
      const Word r = lanes == word_bits ? load_le<Word>(word) : load_tail(word, lanes);
      const Word out = static_cast<Word>(((r & ~position) | (true_bits & position)) & keep_mask);
      if (lanes == word_bits)
        store_le<Word>(word, out);
      else
        store_tail(word, lanes, out);
    }
    if (!rng.ok()) {
      zero(report, n);
      return rng.status();
    }
    return static_cast<Status>(static_cast<uint32_t>(Status::value_out_of_domain) *
                               (1u - in_domain));
  }

 private:
  static constexpr void zero(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = 0;
  }
  // The machine word the lanes are processed in: 64 lanes on 64-bit hosts, 32 on MCUs.
  using Word = __UINTPTR_TYPE__;
  static constexpr unsigned word_bits = sizeof(Word) * 8;

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
  bool ladder_word_major(Rng& rng, uint8_t* report, size_t report_size, uint32_t words,
                         unsigned tail_lanes) const {
    if constexpr (bulk_draws<Rng>) {
      constexpr uint32_t block_words = 256, group = 16;
      if (tail_lanes != 0 || words > block_words) return false;
      zero(report, report_size);  // the lanes start at 0
      uint64_t raw[block_words + 1];
      uint64_t rotated[block_words + 1];
      const uint32_t span = words + 1;  // rotated words covering one step's lanes
      const unsigned steps_per_block = block_words / words;
      for (unsigned first = 0; first < q_.bits; first += steps_per_block) {
        const unsigned steps = q_.bits - first < steps_per_block ? q_.bits - first : steps_per_block;
        const unsigned offset = rng.draw64_block_raw(raw, size_t{steps} * words);
        rotate_lanes(report, rotated, words, offset);
        uint32_t k = 0;
        for (; k + group <= span; k += group) run_steps<group>(rotated, raw, k, words, first, steps);
        for (; k < span; ++k) run_steps<1>(rotated, raw, k, words, first, steps);
        unrotate_lanes(rotated, report, words, offset);
      }
      return true;
    } else {
      (void)rng, (void)report, (void)report_size, (void)words, (void)tail_lanes;
      return false;
    }
  }

  // Lane i (report bit i) ↔ bit offset + i of the rotated array (offset 1..64), and back.
  static void rotate_lanes(const uint8_t* report, uint64_t* rotated, uint32_t words, unsigned offset) {
    uint64_t previous = 0;
    for (uint32_t k = 0; k < words; ++k) {
      const uint64_t lanes = load_le<uint64_t>(report + 8 * k);
      rotated[k] = offset == 64 ? previous : (previous >> (64 - offset)) | (lanes << offset);
      previous = lanes;
    }
    rotated[words] = offset == 64 ? previous : previous >> (64 - offset);
  }
  static void unrotate_lanes(const uint64_t* rotated, uint8_t* report, uint32_t words, unsigned offset) {
    for (uint32_t k = 0; k < words; ++k) {
      const uint64_t lanes =
          offset == 64 ? rotated[k + 1] : (rotated[k] >> offset) | (rotated[k + 1] << (64 - offset));
      store_le<uint64_t>(report + 8 * k, lanes);
    }
  }

  // Rotated words [k, k + N) through `steps` ladder steps starting at `first`; step s of the
  // block reads raw words s·words + k … (raw[0] holds the bits left from earlier draws).
  template <uint32_t N>
  void run_steps(uint64_t* rotated, const uint64_t* raw, uint32_t k, uint32_t words, unsigned first,
                 unsigned steps) const {
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
      if ((q_.num >> (first + s)) & 1u) {
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

  // The report's lane words, always inlined in the ladder loops: as out-of-line calls (what
  // -Os picks for load_le/store_le once they have several callers) they cost Cortex-M0 and
  // RV32 about 30 instructions per word.
  __attribute__((always_inline)) static Word load_word(const uint8_t* p) {
    Word w;
    __builtin_memcpy(&w, p, sizeof w);
    return le_native(w);
  }
  __attribute__((always_inline)) static void store_word(uint8_t* p, Word w) {
    w = le_native(w);
    __builtin_memcpy(p, &w, sizeof w);
  }

  // Ladder step 0 on all-zero lanes: "q's bit and u", stored without reading the report.
  template <class Rng>
  static uint8_t* ladder_first_words(Rng& rng, bool q_bit, uint8_t* __restrict word, uint32_t words) {
    const Word mask = static_cast<Word>(Word{0} - Word{q_bit});
    for (uint32_t i = 0; i < words; ++i, word += sizeof(Word)) store_word(word, draw_word(rng) & mask);
    return word;
  }

  // One ladder step on the first `words` whole lane words; returns the first byte after them.
  // q's bit picks "or" or "and" for the whole step: a branch on the configuration only.
  // `word` is restrict: the report is not the Rng's state, so the Rng's pointers and counters
  // may stay in registers across the report's byte-typed stores.
  template <class Rng>
  static uint8_t* ladder_full_words(Rng& rng, bool q_bit, uint8_t* __restrict word, uint32_t words) {
    uint8_t* const end = word + size_t{words} * sizeof(Word);
    if (q_bit) {
      for (; word != end; word += sizeof(Word)) store_word(word, load_word(word) | draw_word(rng));
    } else {
      for (; word != end; word += sizeof(Word)) store_word(word, load_word(word) & draw_word(rng));
    }
    return word;
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

  // Little-endian access to the ⌈lanes/8⌉ bytes of a partial word.
  static Word load_tail(const uint8_t* p, unsigned lanes) {
    Word w = 0;
    for (unsigned i = 0; i * 8 < lanes; ++i) w |= static_cast<Word>(Word{p[i]} << (8 * i));
    return w;
  }
  static void store_tail(uint8_t* p, unsigned lanes, Word w) {
    for (unsigned i = 0; i * 8 < lanes; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
  }

  uint32_t d_ = 0;
  wire::MechanismId id_ = wire::MechanismId::ue;
  Dyadic p_{};
  Dyadic q_{};
  Epsilon realized_{};
};

}  // namespace tinyldp

#endif
