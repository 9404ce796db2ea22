// SPDX-License-Identifier: Apache-2.0
// tinyldp/hierarchical_histogram.hpp — a hierarchical histogram (Cormode, Kulkarni, Srivastava,
// VLDB 2019) for a bounded integer v ∈ [lo, hi]: the mechanism for range queries, the CDF and
// quantiles (the collector makes the tree consistent, collector/hierarchy_estimate.hpp).
//
// The range's d = hi − lo + 1 values are the leaves of a B-ary tree (B a power of two, 2 … 16)
// of h = ⌈log_B d⌉ levels below the root; level ℓ (1 … h) has n_ℓ = ⌊(d − 1)/B^(h−ℓ)⌋ + 1
// nodes, and v's node there is (v − lo) >> (log2 B·(h − ℓ)) — a shift by a public amount, so
// the node costs the same time for every value. Each device reports one level, the same in
// every report: ℓ = 1 + a uniform draw below h from its memo key's device stream (memo.hpp;
// the key is needed for nothing else, and the report is fresh: every report is charged ε).
// The level's node goes through a frequency oracle at ε: OUE over the n_ℓ nodes when n_ℓ bits
// are no more than OLH's report (seed + hashed value), else OLH — the smaller report; both
// have the same p and q at every level (ε does not depend on the domain), so one of each is
// configured and given the level's domain per report (UnaryEncoding/LocalHashing::with_domain).
// The level is public (it is in the report and depends on the key only), so it may choose the
// oracle by a branch. Realized ε: the larger of the oracles' that some level uses.
//
// Payload: byte 0 the level ℓ; from byte 1 the level's report (OUE: n_ℓ bits; OLH: the seed
// then the hashed value, local_hashing.hpp), zero bits up to the payload's fixed size
// 8 + min(n_h, OLH's bits) bits. A value outside [lo, hi], a failed draw, an unconfigured
// mechanism or an unprovisioned key: an all-zero payload (level 0, which no report has).
// Cost: context 112 bytes (UE's and OLH's objects); report ≤ 1 + 6 bytes at ε ≤ 8 (OLH's
// bits: 32 + ⌈log2 g⌉); random bits per report those of the device's level's oracle (OUE:
// 1 + n_ℓ·q.bits; OLH: 32 + the k-RR's); the level from two memo-stream words at most on
// average (a rejection draw over the key: its time depends on the key, never on the value). On
// a microcontroller that draw — a block of the key's PRF — is most of a report (docs/target-costs.md):
// a firmware may keep level_of(key), which changes only with a re-key, and call privatize_at_level.
// Limits: 2 ≤ d ≤ 2^24. Run-time configure: OUE's and OLH's (≈ 1.3 KiB of stack; make():
// none). Measured: docs/footprint.md (code, stack per target), docs/target-costs.md.
#ifndef TINYLDP_HIERARCHICAL_HISTOGRAM_HPP
#define TINYLDP_HIERARCHICAL_HISTOGRAM_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/config_error.hpp"
#include "tinyldp/fail_closed.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/probability.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp {

class HierarchicalHistogram {
 public:
  static constexpr uint32_t max_domain = uint32_t{1} << 24;
  static constexpr uint32_t max_branching = 16;
  static constexpr uint32_t default_branching = 4;

  // B = branching (a power of two, 2 … 16); `attribute` (< 2^24) keys the device's level, so two
  // hierarchies on one device draw their levels independently. seed_bits below 32 only for the
  // exhaustive tests (OLH's seed).
  static constexpr Status configure(Epsilon eps, int32_t lo, int32_t hi, uint32_t branching,
                                    HierarchicalHistogram& out, Precision precision = {}, uint32_t attribute = 0,
                                    unsigned seed_bits = 32) {
    if (const Status s = detail::check_epsilon(eps, precision); s != Status::ok) return s;
    const int64_t d = int64_t{hi} - int64_t{lo} + 1;
    if (d < 2 || d > int64_t{max_domain} || attribute > max_memo_attribute) return Status::bad_parameter;
    if (branching < 2 || branching > max_branching || (branching & (branching - 1)) != 0)
      return Status::bad_parameter;
    HierarchicalHistogram h;
    if (const Status s = UnaryEncoding::configure_oue(eps, 2, h.oue_, precision); s != Status::ok) return s;
    if (const Status s = LocalHashing::configure_olh(eps, 2, h.olh_, precision, seed_bits); s != Status::ok)
      return s;
    h.lo_ = lo;
    h.d_ = static_cast<uint32_t>(d);
    h.shift_ = static_cast<uint8_t>(__builtin_ctz(branching));
    const unsigned leaf_bits = wire::bits_for_values(h.d_);
    h.levels_ = static_cast<uint8_t>((leaf_bits + h.shift_ - 1) / h.shift_);
    h.attribute_ = attribute;
    out = h;
    return Status::ok;
  }
  static consteval HierarchicalHistogram make(Epsilon eps, int32_t lo, int32_t hi,
                                              uint32_t branching = default_branching, Precision precision = {},
                                              uint32_t attribute = 0) {
    return detail::configured<HierarchicalHistogram>(
        [&](auto& r) { return configure(eps, lo, hi, branching, r, precision, attribute); });
  }

  constexpr bool configured() const { return d_ != 0; }
  constexpr int32_t low() const { return lo_; }
  constexpr int32_t high() const { return static_cast<int32_t>(int64_t{lo_} + d_ - 1); }
  constexpr uint32_t domain() const { return d_; }
  constexpr uint32_t branching() const { return uint32_t{1} << shift_; }
  constexpr uint32_t levels() const { return levels_; }  // h: levels 1 … h (the root is not reported)
  constexpr uint32_t attribute() const { return attribute_; }
  constexpr uint32_t memo_attribute_word() const { return memo_attribute(wire::MechanismId::hh, attribute_); }
  // Leaves under one node of `level`: B^(h − ℓ).
  constexpr unsigned leaf_shift(uint32_t level) const { return shift_ * (levels_ - level); }
  constexpr uint32_t nodes(uint32_t level) const { return ((d_ - 1u) >> leaf_shift(level)) + 1u; }
  // Whether `level` reports through OLH (its OUE report would be longer than OLH's).
  constexpr bool hashed(uint32_t level) const { return nodes(level) > olh_.payload_bits(); }
  constexpr const UnaryEncoding& unary() const { return oue_; }  // OUE's p and q (domain 2)
  constexpr const LocalHashing& hashing() const { return olh_; }  // OLH's g and k-RR (domain 2)
  // The oracle of `level` (1 … h), over its nodes.
  constexpr UnaryEncoding unary_at(uint32_t level) const { return oue_.with_domain(nodes(level)); }
  constexpr LocalHashing hashing_at(uint32_t level) const { return olh_.with_domain(nodes(level)); }
  constexpr uint32_t oracle_bits(uint32_t level) const {
    return hashed(level) ? olh_.payload_bits() : nodes(level);
  }

  // The larger ε of the oracles some level uses (nodes grow with the level: level 1 hashes only
  // with OLH's seed cut below 15 bits, then every level does).
  constexpr Epsilon realized_epsilon() const {
    const Epsilon u = oue_.realized_epsilon(), o = olh_.realized_epsilon();
    if (!hashed(levels_)) return u;
    if (hashed(1)) return o;
    return o.q32 > u.q32 ? o : u;
  }
  // The random bits a report of `level` draws (the same for every value).
  constexpr uint64_t random_bits_at(uint32_t level) const {
    return hashed(level) ? uint64_t{olh_.random_bits_per_report()} : unary_at(level).random_bits_per_report();
  }
  // The most random bits a report of any level draws (a device's own level draws that level's).
  constexpr uint64_t random_bits_per_report() const {
    uint64_t most = 0;
    for (uint32_t level = 1; level <= levels_; ++level) most = random_bits_at(level) > most ? random_bits_at(level) : most;
    return most;
  }

  // On the wire (wire.hpp): id hh; the payload above, 8 + min(n_h, OLH's bits) bits; the digest
  // covers lo, hi, B, the attribute, OUE's q, OLH's g, seed bits and k-RR's q.
  constexpr uint32_t payload_bits() const {
    const uint32_t top = nodes(levels_), olh = olh_.payload_bits();
    return 8u + (top < olh ? top : olh);
  }
  constexpr size_t report_bytes() const { return (size_t{payload_bits()} + 7) / 8; }
  constexpr wire::Description description() const {
    return {wire::MechanismId::hh, payload_bits(),
            wire::Digest()
                .byte(static_cast<uint8_t>(wire::MechanismId::hh))
                .u32(static_cast<uint32_t>(low()))
                .u32(static_cast<uint32_t>(high()))
                .byte(static_cast<uint8_t>(branching()))
                .u32(attribute_)
                .dyadic(oue_.q())
                .u32(olh_.range())
                .byte(static_cast<uint8_t>(olh_.seed_bits()))
                .dyadic(olh_.randomizer().other_probability())
                .value()};
  }

  // The device's level, 1 … h: uniform, from its memo key's device stream for this attribute.
  template <MemoKey Key>
  uint32_t level_of(const Key& key) const {
    return detail::device_level(key, memo_attribute_word(), levels_);
  }

  // A report of `value` ∈ [lo, hi] at the device's level (level_of(key)), fresh noise from rng.
  template <MemoKey Key, class Rng>
  Status privatize(int32_t value, const Key& key, Rng& rng, uint8_t* report, size_t report_size) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    if (refuse_small_buffer(report, report_size, report_bytes())) return Status::buffer_too_small;
    if (refuse_unprovisioned(key, report, report_size)) return Status::key_not_provisioned;
    return privatize_at_level(value, level_of(key), rng, report, report_size);
  }

  // The same at a level given (1 … h; else bad_parameter, the report zeroed): for the tests and
  // for a caller that assigns levels some other way (each level must be independent of the value).
  template <class Rng>
  Status privatize_at_level(int32_t value, uint32_t level, Rng& rng, uint8_t* report, size_t report_size) const {
    if (!configured()) return refuse_unconfigured(report, report_size);
    const size_t n = report_bytes();
    if (refuse_small_buffer(report, report_size, n)) return Status::buffer_too_small;
    clear_report(report, n);
    if (level < 1 || level > levels_) return Status::bad_parameter;
    const detail::InRange in = detail::in_range_or_low(value, lo_, d_ - 1u);
    const uint32_t node = static_cast<uint32_t>(int64_t{in.value} - lo_) >> leaf_shift(level);
    Status s;
    if (hashed(level)) {
      const LocalHashing olh = hashing_at(level);
      LocalHashingReport drawn{};
      s = olh.privatize(node, rng, drawn);
      olh.pack(drawn, report + 1);
    } else {
      s = unary_at(level).privatize(node, rng, report + 1, n - 1);
    }
    // The node is in its level's domain, so anything but ok is the Rng's failure (public).
    if (s != Status::ok) {
      clear_report(report, n);
      return s;
    }
    report[0] = static_cast<uint8_t>(level);
    const uint32_t keep = ct::mask(in.in_domain);
    for (size_t i = 0; i < n; ++i) report[i] = static_cast<uint8_t>(report[i] & keep);
    return domain_status(in.in_domain);
  }

 private:
  UnaryEncoding oue_{};
  LocalHashing olh_{};
  int32_t lo_ = 0;
  uint32_t d_ = 0;
  uint32_t attribute_ = 0;
  uint8_t shift_ = 0;
  uint8_t levels_ = 0;
};

}  // namespace tinyldp

#endif
