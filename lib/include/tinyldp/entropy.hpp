// SPDX-License-Identifier: Apache-2.0
// tinyldp/entropy.hpp — the entropy contract: the only way randomness enters the core.
//
// A source fills a caller buffer and says whether it could. It may fail; a failure is never
// replaced by a weaker source, and a mechanism that meets one emits no report. Two forms:
//  - C++: any type with `EntropyResult fill(uint8_t* out, size_t n, uint32_t flags)`,
//    dispatched statically (no virtual call, inlinable);
//  - C:   `struct tinyldp_entropy_source { fill function pointer, context }` (tinyldp/entropy.h,
//    the C header this one includes), wrapped by `CEntropySource` so C firmware can plug in
//    its own driver.
// Flags ask for non-blocking behaviour or for use from an interrupt handler; a source that
// cannot honour a flag answers `not_supported` rather than blocking or misbehaving.
// An entropy estimate (min-entropy per output byte, in 1/256 bit; 2048 = full entropy) is
// optional: a C++ source declares it with `uint16_t min_entropy_q8() const`, a C source passes
// it to CEntropySource. Absent means unknown (0), and a consumer that needs entropy (the DRBG's
// seeding) refuses such a source rather than guessing. On any result but ok the buffer holds
// no random bytes that may be used (backends zero what they wrote).
// Cost: nothing of its own; the backends in port/ state theirs.
#ifndef TINYLDP_ENTROPY_HPP
#define TINYLDP_ENTROPY_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.h"  // the C contract: result codes, flags, estimates, the struct
#include "tinyldp/status.hpp"

namespace tinyldp {

enum class [[nodiscard]] EntropyResult : uint8_t {
  ok = TINYLDP_ENTROPY_OK,
  not_ready = TINYLDP_ENTROPY_NOT_READY,
  failed = TINYLDP_ENTROPY_FAILED,
  not_supported = TINYLDP_ENTROPY_NOT_SUPPORTED,
};

template <class T, class U>
inline constexpr bool is_same_type = false;
template <class T>
inline constexpr bool is_same_type<T, T> = true;

// A C++ entropy source: checked at compile time wherever the core takes one.
template <class S>
concept EntropySource = requires(S& source, uint8_t* out, size_t length, uint32_t flags) {
  requires is_same_type<decltype(source.fill(out, length, flags)), EntropyResult>;
};

// A source that states how much min-entropy each output byte carries.
template <class S>
concept EntropyEstimating = EntropySource<S> && requires(const S& source) {
  requires is_same_type<decltype(source.min_entropy_q8()), uint16_t>;
};

// An estimating source and nothing more (declared, never defined): what a generic port — a
// wrapper over any source — is checked with where it is declared.
struct EntropySourceArchetype {
  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags);
  uint16_t min_entropy_q8() const;
};

// The source's min-entropy per output byte in 1/256 bit, or TINYLDP_ENTROPY_ESTIMATE_UNKNOWN.
template <EntropySource S>
constexpr uint16_t entropy_estimate(const S& source) {
  if constexpr (EntropyEstimating<S>) {
    return source.min_entropy_q8();
  } else {
    return TINYLDP_ENTROPY_ESTIMATE_UNKNOWN;
  }
}

// The C form of any C++ source (a trampoline plus a pointer to the source, which must outlive
// the returned struct). Lets a non-template consumer (the DRBG's reseed hook) hold any source.
template <EntropySource S>
tinyldp_entropy_source to_c_source(S& source) {
  return {[](void* context, uint8_t* out, size_t length, uint32_t flags) {
            return static_cast<tinyldp_entropy_result>(
                static_cast<S*>(context)->fill(out, length, flags));
          },
          &source};
}

constexpr Status to_status(EntropyResult r) {
  switch (r) {
    case EntropyResult::ok: return Status::ok;
    case EntropyResult::not_ready: return Status::entropy_not_ready;
    case EntropyResult::not_supported: return Status::entropy_not_supported;
    case EntropyResult::failed: break;
  }
  return Status::entropy_failed;
}

// Adapts a C source. A null function pointer, or an answer outside the enum, is a failure.
class CEntropySource {
 public:
  explicit constexpr CEntropySource(tinyldp_entropy_source source) : source_(source) {}
  // With the C driver's own min-entropy estimate (per byte, 1/256 bit).
  constexpr CEntropySource(tinyldp_entropy_source source, uint16_t min_entropy_q8)
      : source_(source), estimate_(min_entropy_q8) {}

  uint16_t min_entropy_q8() const { return estimate_; }

  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    if (source_.fill == nullptr) return EntropyResult::failed;
    const tinyldp_entropy_result r = source_.fill(source_.context, out, length, flags);
    switch (r) {
      case TINYLDP_ENTROPY_OK: return EntropyResult::ok;
      case TINYLDP_ENTROPY_NOT_READY: return EntropyResult::not_ready;
      case TINYLDP_ENTROPY_NOT_SUPPORTED: return EntropyResult::not_supported;
      case TINYLDP_ENTROPY_FAILED: break;
    }
    return EntropyResult::failed;
  }

 private:
  tinyldp_entropy_source source_;
  uint16_t estimate_ = TINYLDP_ENTROPY_ESTIMATE_UNKNOWN;
};

}  // namespace tinyldp

#endif
