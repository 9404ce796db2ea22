// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/test/entropy_conformance.hpp — the conformance suite every entropy backend runs:
// tinyldp's own on the host and on each QEMU target where the backend exists, and an
// out-of-tree port from its own test program (link tinyldp::port_conformance; docs/porting.md).
// It returns the number of violations (writing each through options.output), so a test can both
// require 0 for a real backend and require > 0 for a deliberately broken one.
//
// Checks: a zero-length request answers ok and writes nothing; no byte before or after the
// requested range is written (sentinels), for lengths 1..100 at odd offsets; the buffer is
// really filled (every byte changes in at least one of six requests over alternating 0x00
// and 0xFF prefills, no request of 8 bytes or more leaves over half its bytes at the prefill,
// and two requests differ); NONBLOCKING and FROM_ISR requests return one of the results the
// contract allows, leave nothing but zeros or the prefill behind when not ok, and — if the
// backend says so — eventually succeed; an injected failure is reported (not ok, nothing
// usable written) and stays reported.
#ifndef TINYLDP_PORT_TEST_ENTROPY_CONFORMANCE_HPP
#define TINYLDP_PORT_TEST_ENTROPY_CONFORMANCE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/port/test/conformance.hpp"
#include "tinyldp/entropy.hpp"

namespace tinyldp::conformance {

struct EntropyConformanceOptions {
  // A NONBLOCKING request may answer not_ready; retried up to this many times, it must then
  // succeed (0: not_ready forever is acceptable).
  uint32_t nonblocking_retries = 0;
  bool isr_supported = true;    // FROM_ISR answers ok/not_ready (else not_supported is fine)
  uint32_t isr_retries = 0;     // like nonblocking_retries, for FROM_ISR
  // Makes the next requests fail (e.g. a stuck noise source, a peripheral error); null: skip.
  void (*inject_failure)(void* context) = nullptr;
  void* inject_context = nullptr;
  bool failure_is_sticky = true;
  const char* name = "source";
  // Where violations are written (null: only counted); print_violations off silences it too
  // (the suite's own tests on broken sources).
  Output output = nullptr;
  bool print_violations = true;
};

namespace conformance_detail {
using conformance::sentinel;
using Guarded = conformance::GuardedBuffer<100>;

inline void report(uint32_t& violations, const Channel* name, const char* what, size_t n) {
  conformance::report(violations, "conformance", name, what, "length ", n);
}

// A request of 8 bytes or more is not filled if over half its bytes kept the prefill. Random
// bytes do that with probability below 1e-10 (8 bytes: C(8,5)/2^40), so a healthy host source
// never trips it; a source stuck at the prefill or filling half the buffer always does.
inline bool really_filled(const Guarded& g, uint8_t prefill) {
  return g.n < 8 || g.count(prefill) <= g.n / 2;
}

inline bool only_prefill_or_zero(const Guarded& g, uint8_t prefill) {
  for (size_t i = 0; i < g.n; ++i) {
    const uint8_t b = g.out()[i];
    if (b != prefill && b != 0) return false;
  }
  return true;
}

template <EntropySource S>
void check_flag(S& source, uint32_t flags, bool may_be_unsupported, uint32_t retries,
                uint32_t& violations, const Channel* name, const char* label) {
  Guarded g;
  g.prepare(16, 0x00);
  EntropyResult r = source.fill(g.out(), g.n, flags);
  for (uint32_t i = 0; i < retries && r == EntropyResult::not_ready; ++i) {
    r = source.fill(g.out(), g.n, flags);
  }
  if (!g.guards_intact()) report(violations, name, label, g.n);
  if (r == EntropyResult::ok) {
    if (!really_filled(g, 0x00)) report(violations, name, "flagged request not filled", g.n);
  } else if (r == EntropyResult::not_ready) {
    if (retries > 0) report(violations, name, "flagged request never became ready", g.n);
    if (!only_prefill_or_zero(g, 0x00)) report(violations, name, "not_ready left data", g.n);
  } else if (r == EntropyResult::not_supported) {
    if (!may_be_unsupported) report(violations, name, "flag unexpectedly not supported", g.n);
  } else {
    report(violations, name, "healthy source failed a flagged request", g.n);
  }
}
}  // namespace conformance_detail

template <EntropySource S>
uint32_t entropy_conformance(S& source, const EntropyConformanceOptions& options = {}) {
  using namespace conformance_detail;
  uint32_t v = 0;
  const Channel channel{options.output, options.name};
  const Channel* name = options.print_violations ? &channel : nullptr;
  constexpr uint32_t blocking = TINYLDP_ENTROPY_BLOCKING;

  // Zero-length requests.
  {
    Guarded g;
    g.prepare(0, 0);
    if (source.fill(g.out(), 0, blocking) != EntropyResult::ok)
      report(v, name, "zero-length request not ok", 0);
    if (!g.guards_intact()) report(v, name, "zero-length request wrote", 0);
    if (source.fill(nullptr, 0, blocking) != EntropyResult::ok)
      report(v, name, "zero-length request with null buffer not ok", 0);
  }
  // Sentinels and really-filled, over many lengths and both prefills. A byte position that
  // kept the prefill in all six requests was never written (an off-by-one short read); a
  // random byte does that with probability 2^-48, so over these 17 lengths (466 positions) a
  // healthy source trips it with probability below 2e-12 — the check is deterministic in
  // practice even on a real noise source.
  const size_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100};
  constexpr int requests_per_length = 6;
  for (size_t n : lengths) {
    bool written[100] = {};
    for (int request = 0; request < requests_per_length; ++request) {
      const uint8_t prefill = request % 2 == 0 ? uint8_t{0x00} : uint8_t{0xFF};
      Guarded g;
      g.prepare(n, prefill);
      const EntropyResult r = source.fill(g.out(), n, blocking);
      if (r != EntropyResult::ok) report(v, name, "healthy source failed", n);
      if (!g.guards_intact()) report(v, name, "wrote outside the buffer", n);
      if (r != EntropyResult::ok) continue;
      if (!really_filled(g, prefill)) report(v, name, "buffer not really filled", n);
      for (size_t i = 0; i < n; ++i) written[i] = written[i] || g.out()[i] != prefill;
    }
    size_t never = 0;
    for (size_t i = 0; i < n; ++i) never += written[i] ? size_t{0} : size_t{1};
    if (never != 0) report(v, name, "bytes never written over six requests", n);
  }
  // Two requests must differ.
  {
    Guarded a, b;
    a.prepare(32, 0);
    b.prepare(32, 0);
    if (source.fill(a.out(), 32, blocking) != EntropyResult::ok ||
        source.fill(b.out(), 32, blocking) != EntropyResult::ok)
      report(v, name, "a 32-byte request failed", 32);
    bool same = true;
    for (size_t i = 0; i < 32; ++i) same = same && a.out()[i] == b.out()[i];
    if (same) report(v, name, "two requests returned the same bytes", 32);
  }
  check_flag(source, TINYLDP_ENTROPY_NONBLOCKING, false, options.nonblocking_retries, v, name,
             "non-blocking request wrote outside the buffer");
  check_flag(source, TINYLDP_ENTROPY_FROM_ISR, !options.isr_supported, options.isr_retries, v,
             name, "ISR request wrote outside the buffer");
  check_flag(source, TINYLDP_ENTROPY_FROM_ISR | TINYLDP_ENTROPY_NONBLOCKING,
             !options.isr_supported, options.isr_retries, v, name,
             "ISR non-blocking request wrote outside the buffer");
  // Failures are reported, leave nothing usable, and stay.
  if (options.inject_failure != nullptr) {
    options.inject_failure(options.inject_context);
    for (int attempt = 0; attempt < (options.failure_is_sticky ? 3 : 1); ++attempt) {
      Guarded g;
      g.prepare(64, 0xFF);
      const EntropyResult r = source.fill(g.out(), 64, blocking);
      if (r == EntropyResult::ok) report(v, name, "injected failure not reported", 64);
      if (!g.guards_intact()) report(v, name, "failed request wrote outside the buffer", 64);
      if (r != EntropyResult::ok && !only_prefill_or_zero(g, 0xFF))
        report(v, name, "failed request left data in the buffer", 64);
    }
  }
  return v;
}

}  // namespace tinyldp::conformance

#endif
