/* SPDX-License-Identifier: Apache-2.0 */
/* tinyldp/entropy.h — the entropy contract in C: how a driver hands random bytes to tinyldp.
 *
 * A source is a fill function and its context. It fills a caller buffer and says whether it
 * could; it may fail, and a failure is never replaced by a weaker source. C firmware fills a
 * `tinyldp_entropy_source` for its TRNG driver; C++ code may also use any type with a matching
 * `fill` member (tinyldp/entropy.hpp, which includes this header).
 *
 * The min-entropy estimate. Whoever seeds a DRBG from a source must say how much min-entropy
 * each output byte carries, in 1/256 bit per byte (TINYLDP_ENTROPY_ESTIMATE_FULL = 2048 = 8 bits:
 * a conditioned TRNG, or a seeded DRBG). The estimate is not part of this struct: it is passed
 * beside it (tinyldp_chacha20_drbg_seed in tinyldp.h, CEntropySource in C++). Unknown (0) is
 * refused by the DRBG's seeding (not_supported), never guessed. Where the number comes from: the
 * chip vendor's entropy claim for a conditioned TRNG, or an SP 800-90B assessment of the raw
 * noise source (then wrap it in the health tests with the same claim; docs/porting.md).
 *
 * C99, no C++ in sight; included by C and C++ alike. Cost: nothing of its own. */
#ifndef TINYLDP_ENTROPY_H
#define TINYLDP_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tinyldp_entropy_result {
  TINYLDP_ENTROPY_OK = 0,
  TINYLDP_ENTROPY_NOT_READY = 1,     /* non-blocking request, nothing available yet */
  TINYLDP_ENTROPY_FAILED = 2,        /* the source is broken; final until re-initialised */
  TINYLDP_ENTROPY_NOT_SUPPORTED = 3  /* this request (e.g. these flags) cannot be served */
} tinyldp_entropy_result;

/* Request flags. */
enum {
  TINYLDP_ENTROPY_BLOCKING = 0,
  TINYLDP_ENTROPY_NONBLOCKING = 1, /* return NOT_READY instead of waiting */
  TINYLDP_ENTROPY_FROM_ISR = 2     /* called from an interrupt handler: never wait on anything
                                      that needs an interrupt or an OS call */
};

/* Min-entropy estimates, per output byte in 1/256 bit. */
enum {
  TINYLDP_ENTROPY_ESTIMATE_UNKNOWN = 0,
  TINYLDP_ENTROPY_ESTIMATE_FULL = 2048 /* 8 bits per byte: full entropy (or a seeded DRBG) */
};

/* Fills out[0..length) with uniformly random bytes, or reports why it could not. On any result
 * but OK the buffer must hold no random bytes that may be used (zero what was written). */
typedef tinyldp_entropy_result (*tinyldp_entropy_fill_fn)(void* context, uint8_t* out,
                                                          size_t length, uint32_t flags);

typedef struct tinyldp_entropy_source {
  tinyldp_entropy_fill_fn fill; /* NULL: every request fails */
  void* context;
} tinyldp_entropy_source;

#ifdef __cplusplus
}
#endif

#endif
