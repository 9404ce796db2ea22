// SPDX-License-Identifier: Apache-2.0
// tinyldp/fail_closed.hpp — the rule "nothing partial escapes", in one place.
//
// Every mechanism's privatize draws its noise first and then hands the drawn report to
// release(): the Rng forgets the bits it handed out (nothing of the noise stays in its buffer);
// after a failed draw the report is all zero and the status is the Rng's;
// otherwise the report is masked to zero unless the value was in the domain, and the status
// is ok or value_out_of_domain. The Rng's failure may decide a branch (it says nothing about
// the value); in_domain (0 or 1) only ever enters masks and arithmetic.
// Report types with several fields define store_masked(report, drawn, mask) next to their
// struct.
//
// Every mechanism offers one report shape, privatize(value, [key,] rng, report, report_size):
// the report written into the caller's buffer as its wire payload (description().payload_bytes()
// bytes), the status as above, the buffer refused and zeroed when it is too small, and all of it
// zero after a failed draw, for an unconfigured mechanism or a value outside the domain. The
// mechanisms whose report is a value or a struct (a Report type, with pack) also keep that typed
// privatize and take the buffer one from a base below (PackedPrivatize, PackedMemoPrivatize),
// which builds it on the typed one with privatize_packed.
#ifndef TINYLDP_FAIL_CLOSED_HPP
#define TINYLDP_FAIL_CLOSED_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/constant_time.hpp"
#include "tinyldp/memo.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/wipe.hpp"

namespace tinyldp {

// ok if in_domain == 1, value_out_of_domain if in_domain == 0: arithmetic, no branch.
constexpr Status domain_status(uint32_t in_domain) {
  return static_cast<Status>(static_cast<uint32_t>(Status::value_out_of_domain) *
                             (1u - in_domain));
}

// report ← drawn where mask is all ones, zero where it is zero; field by field (a report type
// with several fields has its own overload next to its struct).
constexpr void store_masked(uint8_t& report, uint8_t drawn, uint32_t mask) {
  report = static_cast<uint8_t>(drawn & mask);
}
constexpr void store_masked(uint32_t& report, uint32_t drawn, uint32_t mask) {
  report = drawn & mask;
}
constexpr void store_masked(int32_t& report, int32_t drawn, uint32_t mask) {
  report = static_cast<int32_t>(static_cast<uint32_t>(drawn) & mask);
}

// Zeroes a report buffer of n bytes.
constexpr void clear_report(uint8_t* report, size_t n) {
  for (size_t i = 0; i < n; ++i) report[i] = 0;
}

// The random bits a report used are not left in the Rng's buffer (RandomBits::forget_drawn;
// an Rng without one, like a benchmark's table of words, keeps nothing to forget), nor in the
// ScrubBytes of stack below (scrub_stack, wipe.hpp: each mechanism's measured size).
template <size_t ScrubBytes = default_stack_scrub, class Rng>
__attribute__((always_inline)) inline void forget_drawn(Rng& rng) {
  if constexpr (requires { rng.forget_drawn(); }) {
    rng.forget_drawn();
    scrub_stack<ScrubBytes>();
  }
}
// A report buffer that cannot hold the report's n bytes: zeroed, as far as it goes, and
// refused (true: privatize returns buffer_too_small).
constexpr bool refuse_small_buffer(uint8_t* report, size_t report_size, size_t n) {
  if (report != nullptr && report_size >= n) return false;
  if (report != nullptr) clear_report(report, report_size);
  return true;
}
// A mechanism that was never configured — default-constructed, all-zero bytes, or left so by a
// configure that failed — makes no report: it is all zero (the whole buffer the caller gave) and
// the status is not_configured. Whether a mechanism is configured is public: branching on it says
// nothing about the value.
template <class Report>
constexpr Status refuse_unconfigured(Report& report) {
  report = Report{};
  return Status::not_configured;
}
constexpr Status refuse_unconfigured(uint8_t* report, size_t report_size) {
  if (report != nullptr) clear_report(report, report_size);
  return Status::not_configured;
}

// Publishes a drawn report (see above) and returns the privatize call's status. Always
// inlined: as a call of its own it would tip GCC's -Os inliner into keeping some mechanisms'
// privatize out of line (more flash and stack in docs/footprint.md).
template <size_t ScrubBytes, class Rng, class Report>
__attribute__((always_inline)) inline Status release(Rng& rng, uint32_t in_domain,
                                                     const Report& drawn, Report& report) {
  forget_drawn<ScrubBytes>(rng);
  if (!rng.ok()) {
    report = Report{};
    return rng.status();
  }
  store_masked(report, drawn, ct::mask(in_domain));
  return domain_status(in_domain);
}

// The same for a report written in place (already masked by in_domain as it was written):
// its n bytes are zeroed after a failed draw.
template <size_t ScrubBytes, class Rng>
__attribute__((always_inline)) inline Status release_in_place(Rng& rng, uint32_t in_domain,
                                                              uint8_t* report, size_t n) {
  forget_drawn<ScrubBytes>(rng);
  if (!rng.ok()) {
    clear_report(report, n);
    return rng.status();
  }
  return domain_status(in_domain);
}

namespace detail {

// A numeric value of [lo, lo + width] and whether it lies there, without a branch on it: out of
// range, lo stands in, so the rounding overflows nothing, and release() discards its report.
struct InRange {
  int32_t value;
  uint32_t in_domain;
};
constexpr InRange in_range_or_low(int32_t value, int32_t lo, uint32_t width) {
  const uint64_t offset = static_cast<uint64_t>(int64_t{value} - int64_t{lo});
  const uint32_t in = static_cast<uint32_t>(ct::less64(offset, uint64_t{width} + 1));
  return {static_cast<int32_t>((static_cast<uint32_t>(value) & ct::mask(in)) |
                               (static_cast<uint32_t>(lo) & ct::mask(in ^ 1u))),
          in};
}

// The buffer shape of a mechanism with a Report type: `privatize_typed(report)` makes the typed
// report, which is packed into the payload's n bytes (zeroed first: some packs OR bits in) and
// kept only if the status is ok — a mask, not a branch, since value_out_of_domain must decide
// no branch (a zero Report need not pack to zero bytes: discrete Laplace packs y − lo).
template <class Mechanism, class PrivatizeTyped>
__attribute__((always_inline)) inline Status privatize_packed(const Mechanism& mechanism,
                                                              uint8_t* report, size_t report_size,
                                                              PrivatizeTyped privatize_typed) {
  if (!mechanism.configured()) return refuse_unconfigured(report, report_size);
  const size_t n = (size_t{mechanism.payload_bits()} + 7) / 8;  // (no digest computed)
  if (refuse_small_buffer(report, report_size, n)) return Status::buffer_too_small;
  typename Mechanism::Report typed{};
  const Status status = privatize_typed(typed);
  clear_report(report, n);
  mechanism.pack(typed, report);
  const uint32_t keep = ct::mask(ct::is_zero(static_cast<uint32_t>(status)));
  for (size_t i = 0; i < n; ++i) report[i] = static_cast<uint8_t>(report[i] & keep);
  return status;
}

// The buffer shape of a mechanism with a typed privatize(value, rng, Report&), written once: the
// mechanism derives from PackedPrivatize<itself, its value type> and says
// `using PackedPrivatize::privatize;` (its typed privatize hides the base's otherwise).
template <class Mechanism, class Value>
class PackedPrivatize {
 public:
  template <class Rng>
  Status privatize(Value value, Rng& rng, uint8_t* report, size_t report_size) const {
    const Mechanism& m = static_cast<const Mechanism&>(*this);
    return privatize_packed(m, report, report_size, [&](typename Mechanism::Report& r) __attribute__((always_inline)) {
      return m.privatize(value, rng, r);
    });
  }
};

// The same for a memoized mechanism, whose typed privatize(value, key, rng, Report&) takes the
// device's memo key (`using PackedMemoPrivatize::privatize;`).
template <class Mechanism>
class PackedMemoPrivatize {
 public:
  template <MemoKey Key, class Rng>
  Status privatize(uint32_t value, const Key& key, Rng& rng, uint8_t* report, size_t report_size) const {
    const Mechanism& m = static_cast<const Mechanism&>(*this);
    return privatize_packed(m, report, report_size, [&](typename Mechanism::Report& r) __attribute__((always_inline)) {
      return m.privatize(value, key, rng, r);
    });
  }
};

}  // namespace detail

}  // namespace tinyldp

#endif
