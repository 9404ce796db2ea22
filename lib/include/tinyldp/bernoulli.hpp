// tinyldp/bernoulli.hpp — Bernoulli samples that hit a Dyadic probability exactly.
//
// bernoulli(p): draws p.bits uniform bits u and returns u < p.num — exact, branch-free, and
// always p.bits random bits (p.bits ≤ 64).
// bernoulli_lanes(p, lanes): bit-sliced; each of the low `lanes` bits (≤ the word width) of
// the result is an independent Bernoulli(p). It runs the AND/OR ladder over p's bits from the
// least significant up: r ← bit ? (r | u) : (r & u) with a fresh uniform word u per step,
// which is the comparison U < p evaluated on all lanes at once. Cost: p.bits steps of one
// draw(lanes) and one logic op — p.bits random bits per lane, no branches on random data.
#ifndef TINYLDP_BERNOULLI_HPP
#define TINYLDP_BERNOULLI_HPP

#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/probability.hpp"

namespace tinyldp {

template <class Rng>
uint32_t bernoulli(Dyadic p, Rng& rng) {
  if (p.bits == 0) return p.num != 0 ? 1u : 0u;  // exactly 0 or 1: no randomness needed
  return static_cast<uint32_t>(ct::less64(rng.draw(p.bits), p.num));
}

template <class Word, class Rng>
Word bernoulli_lanes(Dyadic p, unsigned lanes, Rng& rng) {
  Word r = 0;
  for (unsigned i = 0; i < p.bits; ++i) {
    const Word u = static_cast<Word>(rng.draw(lanes));
    const Word bit_mask = static_cast<Word>(Word{0} - static_cast<Word>((p.num >> i) & 1u));
    r = static_cast<Word>((r & u) | (bit_mask & (r | u)));
  }
  if (p.bits == 0 && p.num != 0)  // p = 1
    r = static_cast<Word>(lanes >= sizeof(Word) * 8 ? ~Word{0} : (Word{1} << lanes) - 1);
  return r;
}

}  // namespace tinyldp

#endif
