// SPDX-License-Identifier: Apache-2.0
// The checks every mechanism's test makes, written once and parameterized by the mechanism:
//
//   check_fail_closed        an out-of-domain value and a failing entropy source each give
//                            their status and an all-zero report (lib/include/tinyldp/fail_closed.hpp);
//   check_same_bits          every input draws the same number of random bits;
//   golden_digest            fixed-seed reports, folded into an FNV digest that must be the
//                            same on the host and on every target.
//
// A mechanism is anything with privatize(value, Rng&, Report&) and random_bits_per_report();
// unary encoding, which writes into a caller's buffer, takes that shape through
// BufferReports. How a report is folded into a golden digest (fold) is part of every golden
// value: changing it changes them all.
#ifndef TINYLDP_TESTS_SUPPORT_MECHANISM_CHECKS_HPP
#define TINYLDP_TESTS_SUPPORT_MECHANISM_CHECKS_HPP

#include <stddef.h>
#include <stdint.h>

#include "check.hpp"
#include "digest.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {

using Rng = RandomBits<port::InsecureTestSource>;

// The value and report types of M's typed privatize(value, Rng&, Report&) (every mechanism
// also has the buffer overload: the member pointer's type picks the typed one).
template <class M, class V>
concept TypedPrivatizeOf = requires {
  static_cast<Status (M::*)(V, Rng&, typename M::Report&) const>(&M::template privatize<Rng>);
};
template <class M, bool Signed = TypedPrivatizeOf<M, int32_t>>
struct PrivatizeValue {
  using type = uint32_t;
};
template <class M>
struct PrivatizeValue<M, true> {
  using type = int32_t;
};
template <class M>
using ValueOf = typename PrivatizeValue<M>::type;
template <class M>
using ReportOf = typename M::Report;

// Unary encoding with a Bytes-byte buffer as its report.
template <size_t Bytes>
class BufferReports {
 public:
  struct Report {
    uint8_t bytes[Bytes];
    friend void fold(Digest& d, const Report& r) { d.add(r.bytes, Bytes); }
  };
  constexpr explicit BufferReports(const UnaryEncoding& ue) : ue_(ue) {}
  template <class R>
  Status privatize(uint32_t value, R& rng, Report& report) const {
    return ue_.privatize(value, rng, report.bytes, Bytes);
  }
  constexpr uint64_t random_bits_per_report() const { return ue_.random_bits_per_report(); }

 private:
  UnaryEncoding ue_;
};

// Folding a report into a digest, and whether it is all zero, per report type (a buffer's
// fold is its Report's).
inline void fold(Digest& d, uint8_t r) { d.add(&r, 1); }
inline void fold(Digest& d, uint32_t r) { d.add_u32(r); }
inline void fold(Digest& d, int32_t r) { d.add_u32(static_cast<uint32_t>(r)); }
inline void fold(Digest& d, const LocalHashingReport& r) {
  d.add_u32(r.seed);
  d.add_u32(r.value);
}
inline void fold(Digest& d, const HadamardReport& r) {
  d.add_u32(r.row);
  d.add(&r.bit, 1);
}

inline bool is_zero(uint32_t r) { return r == 0; }
inline bool is_zero(int32_t r) { return r == 0; }
inline bool is_zero(const LocalHashingReport& r) { return (r.seed | r.value) == 0; }
inline bool is_zero(const HadamardReport& r) { return r.row == 0 && r.bit == 0; }
template <class Report>
bool is_zero(const Report& r) {  // byte reports and buffers
  const auto* bytes = reinterpret_cast<const uint8_t*>(&r);
  uint32_t any = 0;
  for (size_t i = 0; i < sizeof r; ++i) any |= bytes[i];
  return any == 0;
}

// Fills a report with a non-zero pattern, so that a check for zero means something.
template <class Report>
void poison(Report& r) {
  auto* bytes = reinterpret_cast<uint8_t*>(&r);
  for (size_t i = 0; i < sizeof r; ++i) bytes[i] = 0xA5;
}

// Accepts every report (the default for the checks' per-report condition).
struct AnyReport {
  template <class Report>
  constexpr bool operator()(const Report&) const {
    return true;
  }
};

// From InsecureTestSource(3): privatize(out_of_domain) gives value_out_of_domain and a zero
// report; then, with the source failing on its next call with `failure`, privatize(in_domain)
// gives to_status(failure) and a zero report.
template <class M>
void check_fail_closed(const M& m, ValueOf<M> in_domain, ValueOf<M> out_of_domain,
                       EntropyResult failure = EntropyResult::failed) {
  port::InsecureTestSource src(3);
  Rng rng(src);
  ReportOf<M> report;
  poison(report);
  CHECK_EQ(m.privatize(out_of_domain, rng, report), Status::value_out_of_domain);
  CHECK(is_zero(report));
  src.fail_on_call(1, failure);
  Rng failing(src);
  poison(report);
  CHECK_EQ(m.privatize(in_domain, failing, report), to_status(failure));
  CHECK(is_zero(report));
}

// For each value, `count` reports from a fresh InsecureTestSource(seed) are ok (and valid)
// and draw count × random_bits_per_report() bits.
template <class M, size_t N, class Valid = AnyReport>
void check_same_bits(const M& m, const ValueOf<M> (&values)[N], uint64_t seed, uint32_t count,
                     Valid valid = {}) {
  for (ValueOf<M> v : values) {
    port::InsecureTestSource src(seed);
    Rng rng(src);
    for (uint32_t i = 0; i < count; ++i) {
      ReportOf<M> report{};
      CHECK_EQ(m.privatize(v, rng, report), Status::ok);
      CHECK(valid(report));
    }
    CHECK_EQ(rng.bits_drawn(), uint64_t{count} * m.random_bits_per_report());
  }
}

// The digest of the reports of value_at(0), …, value_at(n − 1) drawn from rng (each ok and
// valid); the overload without rng draws from InsecureTestSource(2024).
template <class M, class ValueAt, class Valid = AnyReport>
uint64_t golden_digest(const M& m, Rng& rng, uint32_t n, ValueAt value_at, Valid valid = {}) {
  Digest digest;
  for (uint32_t i = 0; i < n; ++i) {
    ReportOf<M> report{};
    CHECK_EQ(m.privatize(value_at(i), rng, report), Status::ok);
    CHECK(valid(report));
    fold(digest, report);
  }
  return digest.state;
}
template <class M, class ValueAt, class Valid = AnyReport>
uint64_t golden_digest(const M& m, uint32_t n, ValueAt value_at, Valid valid = {}) {
  port::InsecureTestSource src(2024);
  Rng rng(src);
  return golden_digest(m, rng, n, value_at, valid);
}

}  // namespace tinyldp::test

#endif
