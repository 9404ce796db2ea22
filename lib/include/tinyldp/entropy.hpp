// tinyldp/entropy.hpp — the entropy contract: the only way randomness enters the core.
//
// A source fills a caller buffer and says whether it could. It may fail; a failure is never
// replaced by a weaker source, and a mechanism that meets one emits no report. Two forms:
//  - C++: any type with `EntropyResult fill(uint8_t* out, size_t n, uint32_t flags)`,
//    dispatched statically (no virtual call, inlinable);
//  - C:   `struct tinyldp_entropy_source { fill function pointer, context }`, wrapped by
//    `CEntropySource` so C firmware can plug in its own driver.
// Flags ask for non-blocking behaviour or for use from an interrupt handler; a source that
// cannot honour a flag answers `not_supported` rather than blocking or misbehaving.
// Cost: nothing of its own; the backends in port/ state theirs.
#ifndef TINYLDP_ENTROPY_HPP
#define TINYLDP_ENTROPY_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/status.hpp"

extern "C" {
typedef enum tinyldp_entropy_result {
  TINYLDP_ENTROPY_OK = 0,
  TINYLDP_ENTROPY_NOT_READY = 1,      /* non-blocking request, nothing available yet */
  TINYLDP_ENTROPY_FAILED = 2,         /* the source is broken; final until re-initialised */
  TINYLDP_ENTROPY_NOT_SUPPORTED = 3,  /* this request (e.g. these flags) cannot be served */
} tinyldp_entropy_result;

enum {
  TINYLDP_ENTROPY_BLOCKING = 0,
  TINYLDP_ENTROPY_NONBLOCKING = 1u << 0, /* return NOT_READY instead of waiting */
  TINYLDP_ENTROPY_FROM_ISR = 1u << 1,    /* called from an interrupt handler */
};

/* Fills out[0..length) with uniformly random bytes, or reports why it could not. */
typedef tinyldp_entropy_result (*tinyldp_entropy_fill_fn)(void* context, uint8_t* out,
                                                          size_t length, uint32_t flags);

typedef struct tinyldp_entropy_source {
  tinyldp_entropy_fill_fn fill;
  void* context;
} tinyldp_entropy_source;
}

namespace tinyldp {

enum class EntropyResult : uint8_t {
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
};

}  // namespace tinyldp

#endif
