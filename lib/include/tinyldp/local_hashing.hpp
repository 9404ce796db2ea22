// SPDX-License-Identifier: Apache-2.0
// tinyldp/local_hashing.hpp — local hashing: BLH (g = 2) and OLH (g = round(e^ε) + 1).
//
// Each report draws a fresh seed s (seed_bits uniform bits, 32 by default), hashes the value
// to h = H(s, v) ∈ [0, g) and sends {s, k-RR(h) over [0, g)}. The k-RR step is KaryRr's exact
// construction, so for every seed the likelihood ratio is bounded by KaryRr's realized ε —
// which is this mechanism's realized ε (the seed is independent of the value).
//
// The hash, exactly (the collector evaluates it over every item of every report):
//   x = (v · 0x9E3779B1 mod 2^32) XOR s
//   x ^= x >> 16; x *= 0x85EBCA6B; x ^= x >> 13; x *= 0xC2B2AE35; x ^= x >> 16   (mod 2^32)
//   H(s, v) = ⌊x · g / 2^32⌋
// (an odd-constant multiply, then the well-known MurmurHash3 32-bit finalizer "fmix32", then a
// multiply-high into [0, g)). For a fixed seed, v ↦ x is a bijection on 32 bits. Its
// uniformity affects only utility (the estimator assumes Pr[H(s,i) = H(s,v)] = 1/g for i ≠ v),
// never privacy. Vectorizing it at the collector: v·0x9E3779B1 is seed-free (precompute once
// per item); per report it is one XOR, two multiplies, three shift-XORs and a 32×32→64
// multiply-high per item — all lane-wise on 32-bit integers.
// g: OLH takes round(e^ε) + 1 from exp_lower_bound (so 4 at ε = 1, 8 at ε = 2), capped at
// max_range = 2^24; configure() accepts any g in [2, 2^24].
// Cost: context 48 bytes; report seed_bits + ⌈log2 g⌉ bits (a {seed, value} pair here);
// random bits per report = seed_bits + the k-RR's bits; privatize is branch-free in the value
// (one 32×32→64 multiply, a libgcc call on Cortex-M0) and division-free in the random draw too
// (the k-RR's index by a fixed-trip restoring division, see krr.hpp).
// Run-time configure needs ≈ 1.3 KiB of stack (make_olh/make_blh: none). Measured:
// docs/footprint.md (code, stack per target) and docs/target-costs.md (instructions per report).
// Estimator (collector): support C(i) = #{reports with H(s, i) = y}; ĉ(i) = (C(i) − n/g)/(p − 1/g).
#ifndef TINYLDP_LOCAL_HASHING_HPP
#define TINYLDP_LOCAL_HASHING_HPP

#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/constant_time.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

struct LocalHashingReport {
  uint32_t seed = 0;
  uint32_t value = 0;  // in [0, g)

  // On the wire (OLH, BLH and LOLOHA alike): the seed in seed_bits bits (LSB first), then the
  // value in ⌈log2 g⌉ bits.
  static constexpr uint32_t payload_bits(unsigned seed_bits, uint32_t g) {
    return seed_bits + wire::bits_for_values(g);
  }
  constexpr void pack(unsigned seed_bits, uint32_t g, uint8_t* payload) const {
    wire::pack_bits(uint64_t{seed} | (uint64_t{value} << seed_bits), payload_bits(seed_bits, g), payload);
  }
  static constexpr LocalHashingReport unpack(const uint8_t* payload, unsigned seed_bits, uint32_t g) {
    const uint64_t bits = wire::unpack_bits(payload, payload_bits(seed_bits, g));
    return {static_cast<uint32_t>(bits & ((uint64_t{1} << seed_bits) - 1)), static_cast<uint32_t>(bits >> seed_bits)};
  }
};
constexpr void store_masked(LocalHashingReport& report, LocalHashingReport drawn,
                            uint32_t mask) {
  report.seed = drawn.seed & mask;
  report.value = drawn.value & mask;
}

// The hash's two halves, shared with the collector's support counting (which must agree bit
// for bit): the value's key, and MurmurHash3's 32-bit finalizer over key XOR seed.
constexpr uint32_t local_hash_key(uint32_t value) { return value * 0x9E3779B1u; }
constexpr uint32_t local_hash_mix(uint32_t key_xor_seed) {
  uint32_t x = key_xor_seed;
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

constexpr uint32_t local_hash(uint32_t seed, uint32_t value, uint32_t g) {
  const uint32_t x = local_hash_mix(local_hash_key(value) ^ seed);
  return ct::mul_high(x, g);  // ⌊x·g / 2^32⌋, without a long multiply (constant_time.hpp)
}

class LocalHashing : public detail::PackedPrivatize<LocalHashing, uint32_t> {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 30;
  static constexpr uint32_t max_range = uint32_t{1} << 24;

  // OLH: g = round(e^ε) + 1 (from the rigorous lower bound on e^ε; g only affects utility).
  static constexpr Status configure_olh(Epsilon eps, uint32_t d, LocalHashing& out,
                                        Precision precision = {}, unsigned seed_bits = 32) {
    if (const Status s = detail::check_epsilon(eps); s != Status::ok) return s;
    const detail::Wide L = exp_lower_bound(eps);
    const detail::Wide half = detail::Wide::power_of_two(detail::exp_fraction_bits - 1);
    const detail::Wide rounded = (L + half).shr(detail::exp_fraction_bits);
    uint64_t g = rounded.fits_u64() ? rounded.low64() + 1 : max_range;
    if (g > max_range) g = max_range;
    return configure(eps, d, static_cast<uint32_t>(g), out, precision, seed_bits);
  }
  // BLH: g = 2.
  static constexpr Status configure_blh(Epsilon eps, uint32_t d, LocalHashing& out,
                                        Precision precision = {}, unsigned seed_bits = 32) {
    const Status s = configure(eps, d, 2, out, precision, seed_bits);
    if (s == Status::ok) out.id_ = wire::MechanismId::blh;
    return s;
  }
  // Any hash range g ≥ 2 (on the wire as olh, whatever g: OLH at small ε has g = 2 too).
  // seed_bits (1..32) below 32 only for exhaustive tests.
  static constexpr Status configure(Epsilon eps, uint32_t d, uint32_t g, LocalHashing& out,
                                    Precision precision = {}, unsigned seed_bits = 32) {
    if (d < 2 || d > max_domain || g < 2 || g > max_range || seed_bits < 1 || seed_bits > 32)
      return Status::bad_parameter;
    KaryRr grr;
    const Status s = KaryRr::configure(eps, g, grr, precision);
    if (s != Status::ok) return s;
    out.d_ = d;
    out.seed_bits_ = static_cast<uint8_t>(seed_bits);
    out.grr_ = grr;
    out.id_ = wire::MechanismId::olh;
    return Status::ok;
  }

  static consteval LocalHashing make_olh(Epsilon eps, uint32_t d, Precision precision = {}) {
    return detail::configured<LocalHashing>(
        [&](auto& r) { return configure_olh(eps, d, r, precision); });
  }
  static consteval LocalHashing make_blh(Epsilon eps, uint32_t d, Precision precision = {}) {
    return detail::configured<LocalHashing>(
        [&](auto& r) { return configure_blh(eps, d, r, precision); });
  }

  // Set by a configure that succeeded (d ≥ 2); privatize refuses otherwise.
  constexpr bool configured() const { return d_ != 0; }
  constexpr uint32_t domain() const { return d_; }
  constexpr uint32_t range() const { return grr_.domain(); }
  // The same g and k-RR over another domain (2 ≤ d ≤ max_domain): ε does not depend on d
  // (hierarchical_histogram.hpp's levels).
  constexpr LocalHashing with_domain(uint32_t d) const {
    LocalHashing out = *this;
    out.d_ = d >= 2 && d <= max_domain ? d : 0;
    return out;
  }
  constexpr unsigned seed_bits() const { return seed_bits_; }
  constexpr const KaryRr& randomizer() const { return grr_; }
  constexpr Epsilon realized_epsilon() const { return grr_.realized_epsilon(); }
  constexpr unsigned random_bits_per_report() const {
    return seed_bits_ + grr_.random_bits_per_report();
  }

  // On the wire (wire.hpp): id blh or olh as configured, the seed (seed_bits, LSB first) then
  // the hashed value (⌈log2 g⌉ bits); the digest covers d, g, the seed bits and the k-RR's q.
  using Report = LocalHashingReport;
  // The payload's size (description() without its digest: what a report needs at run time).
  constexpr uint32_t payload_bits() const { return Report::payload_bits(seed_bits_, range()); }
  constexpr wire::Description description() const {
    return {id_, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(id_))
                .u32(d_)
                .u32(range())
                .byte(static_cast<uint8_t>(seed_bits_))
                .dyadic(grr_.other_probability())
                .value()};
  }
  constexpr void pack(const Report& r, uint8_t* payload) const { r.pack(seed_bits_, range(), payload); }
  constexpr Report unpack(const uint8_t* payload) const { return Report::unpack(payload, seed_bits_, range()); }

  // The one report shape (fail_closed.hpp): the wire payload in the caller's buffer, built on
  // the typed privatize below.
  using PackedPrivatize::privatize;

  template <class Rng>
  Status privatize(uint32_t value, Rng& rng, LocalHashingReport& report) const {
    if (!configured()) return refuse_unconfigured(report);
    const uint32_t in_domain = ct::less(value, d_);
    const uint32_t seed = static_cast<uint32_t>(rng.draw(seed_bits_));
    const uint32_t y = grr_.randomize(local_hash(seed, value, grr_.domain()), rng);
    return release<stack_scrub_bytes(88)>(rng, in_domain, LocalHashingReport{seed, y}, report);
  }

 private:
  uint32_t d_ = 0;
  uint8_t seed_bits_ = 32;
  wire::MechanismId id_ = wire::MechanismId::olh;
  KaryRr grr_{};
};

}  // namespace tinyldp

#endif
