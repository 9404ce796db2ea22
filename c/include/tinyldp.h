/* SPDX-License-Identifier: Apache-2.0 */
/* tinyldp.h — tinyldp from C: local differential privacy on the device, in C99.
 *
 * What it covers: configuring a mechanism from ε as an integer fixed-point value, privatizing a
 * value, framing the report in the wire format (docs/wire-format.md); the entropy contract
 * (tinyldp/entropy.h), the SP 800-90B health tests, the ChaCha20 DRBG; the storage contract
 * (tinyldp/storage.h) and its power-safe record. Mechanisms: binary RR (rr), k-ary RR (krr),
 * unary encoding (sue, oue), local hashing (blh, olh), 1-bit Hadamard response (hr), histogram
 * encoding (she, the), stochastic discretization (sd) and discrete Laplace (dlaplace) for
 * bounded integers; records of several attributes without memo (SPL, SMP, RS+FD over k-RR or
 * OUE). Reports over time: memoized two-stage randomized response (two_stage_rr: the
 * longitudinal UE chains L-SUE, L-OSUE, L-OUE, L-SOUE and RAPPOR), L-GRR (l_grr), LOLOHA and
 * BiLOLOHA (loloha), 1BitMean (one_bit_mean), dBitFlip (dbitflip) and memoized records (record_rr);
 * their memo key (the device secret, in a record) and the privacy ledger (the ε spent per epoch
 * and over the device's life, in a record) that charges a report durably before it may leave.
 *
 * How it is built: a compiled library (CMake target tinyldp::c, libtinyldp_c.a) implementing
 * these functions over the C++ core; the caller needs a C compiler only. No heap, no static
 * state, no floating point: every context is caller-owned memory of the size given below (the
 * BearSSL way), which may be a plain global (.bss, zero bytes of flash) or on the stack. A
 * context is made by its init or configure function before any other use and must not be
 * copied or moved afterwards (some hold a pointer into themselves).
 *
 * ε: an unsigned 64-bit fixed-point value, ε · 2^32 (the core's own representation, so C and
 * C++ configure the same probabilities). TINYLDP_EPSILON_Q32(num, den) writes num/den, rounded
 * down (never more privacy loss than asked for); valid budgets are [2^-16, 20].
 *
 * Status: every fallible call returns a tinyldp_status (TINYLDP_STATUS_OK = 0). A report call
 * that fails leaves no report: the caller's buffer is zeroed and nothing may be sent. A
 * mechanism context that is all zero, or whose configure failed, refuses every report
 * (TINYLDP_STATUS_NOT_CONFIGURED, the whole buffer zeroed).
 *
 * Entropy: mechanisms draw from any tinyldp_entropy_source — in production the DRBG
 * (tinyldp_chacha20_drbg_source), seeded from a health-tested TRNG. Seeding needs the source's
 * min-entropy estimate (see tinyldp_chacha20_drbg_seed): without it the DRBG refuses to seed.
 *
 * Cost: each mechanism's code and stack are the C++ core's (docs/footprint.md; the `c_firmware`
 * row is examples/c_firmware, this API end to end) plus a call. Run-time configuration needs
 * about 1.3 KiB of stack (384-bit integer arithmetic); configure once at boot. */
#ifndef TINYLDP_H
#define TINYLDP_H

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.h"
#include "tinyldp/storage.h"
#include "tinyldp/version.hpp" /* TINYLDP_VERSION_MAJOR, _MINOR, _PATCH, _STRING (macros only) */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status, ε -------------------------------------------------------------------------- */

typedef enum tinyldp_status {
  TINYLDP_STATUS_OK = 0,
  TINYLDP_STATUS_BAD_EPSILON = 1,           /* ε not in (0, 20] */
  TINYLDP_STATUS_BAD_PARAMETER = 2,         /* a domain size, range or level count out of range */
  TINYLDP_STATUS_PRECISION_TOO_LOW = 3,     /* the probabilities cannot be realised */
  TINYLDP_STATUS_VALUE_OUT_OF_DOMAIN = 4,   /* the private value is not in the domain */
  TINYLDP_STATUS_BUFFER_TOO_SMALL = 5,      /* the report buffer is shorter than needed */
  TINYLDP_STATUS_ENTROPY_NOT_READY = 6,     /* a non-blocking source had nothing yet */
  TINYLDP_STATUS_ENTROPY_FAILED = 7,        /* the source failed; final until re-initialised */
  TINYLDP_STATUS_ENTROPY_NOT_SUPPORTED = 8, /* the source cannot serve this request */
  TINYLDP_STATUS_KEY_NOT_PROVISIONED = 9,   /* a memoized report's memo key is not provisioned */
  TINYLDP_STATUS_NOT_CONFIGURED = 10,        /* a context never configured, or whose configure
                                               failed: its reports are refused (all zero) */
  TINYLDP_STATUS_EPSILON_TOO_SMALL = 11     /* ε (or one component's share) below 2^-16 */
} tinyldp_status;

/* A short English reason ("bad epsilon", …), never NULL. */
const char* tinyldp_status_string(tinyldp_status status);

/* ε = num/den as ε · 2^32, rounded down (num < 2^32, den > 0): TINYLDP_EPSILON_Q32(1, 2) is 0.5.
 * Outside that (num ≥ 2^32 would wrap, den = 0 has no value) it is 0, which every configure
 * refuses (TINYLDP_STATUS_BAD_EPSILON); with constant arguments it is a compile error (GCC,
 * Clang). The arguments are evaluated more than once. */
#define TINYLDP_EPSILON_Q32(num, den)                                                  \
  (TINYLDP_EPSILON_Q32_CONSTANT_AND_INVALID_(num, den)                                 \
       ? tinyldp_epsilon_q32_arguments_out_of_range()                                  \
       : TINYLDP_EPSILON_Q32_INVALID_(num, den)                                        \
             ? (uint64_t)0                                                             \
             : (uint64_t)(((uint64_t)(num) << 32) /                                    \
                          ((uint64_t)(den) + (uint64_t)((uint64_t)(den) == 0))))
#define TINYLDP_EPSILON_Q32_INVALID_(num, den) \
  ((uint64_t)(num) > (uint64_t)0xFFFFFFFFu || (uint64_t)(den) == 0)
#if defined(__GNUC__)
/* Never defined: a call that survives to code generation is the compile error. */
uint64_t tinyldp_epsilon_q32_arguments_out_of_range(void)
    __attribute__((error("TINYLDP_EPSILON_Q32(num, den) needs num < 2^32 and den > 0")));
#define TINYLDP_EPSILON_Q32_CONSTANT_AND_INVALID_(num, den) \
  (__builtin_constant_p(TINYLDP_EPSILON_Q32_INVALID_(num, den)) && TINYLDP_EPSILON_Q32_INVALID_(num, den))
#else
uint64_t tinyldp_epsilon_q32_arguments_out_of_range(void);
#define TINYLDP_EPSILON_Q32_CONSTANT_AND_INVALID_(num, den) 0
#endif
#define TINYLDP_EPSILON_MAX_Q32 ((uint64_t)20 << 32)
/* The smallest ε a configure accepts (2^-16 ≈ 1.5e-5); below it, TINYLDP_STATUS_EPSILON_TOO_SMALL. */
#define TINYLDP_EPSILON_MIN_Q32 ((uint64_t)1 << 16)

/* ---- precision: how ε becomes the probabilities the device samples ---------------------- */
/* Each probability is a dyadic num / 2^bits (what `bits` random bits sample exactly), bounded on
 * the safe side of ε, then moved toward the bound for ε − tolerance to the value with the fewest
 * bits. So the realized ε (tinyldp_description.realized_epsilon_q32) never exceeds what exact
 * probabilities would give — the request, for all but THE and RS+FD, whose channels give less
 * and more — and, where max_bits leaves room, falls at most the tolerance below it (per share
 * where a mechanism splits ε: SPL's attributes, dBitFlip's bits). A coarser tolerance gives up
 * that much ε of utility for fewer random bits per report (random_bits_per_report), so fewer
 * instructions: OUE over 256 values at ε = 1 draws 521 bits instead of 6145 at a tolerance of
 * 10⁻² (its q at 2 bits, p fitted to ε: unary_encoding.hpp). Every
 * configure that takes ε has a _precise twin taking a tinyldp_precision last, by value; with
 * TINYLDP_PRECISION_DEFAULT it configures exactly what the plain one does. max_bits 0 or above 64
 * is TINYLDP_STATUS_BAD_PARAMETER, too few bits for the probabilities
 * TINYLDP_STATUS_PRECISION_TOO_LOW; either way the context then refuses every report, as after
 * any failed configure. No twin where the core takes no precision: dlaplace and she (their
 * noise tables choose their own bits), RAPPOR's f, p, q (two_stage_rr_configure_rappor,
 * record_rr_configure_rappor: used as given) and record_rr_configure (no ε: its attributes'
 * contexts, configured already). */
typedef struct tinyldp_precision {
  uint8_t max_bits;       /* 1 … 64: the most bits of any one probability */
  uint64_t tolerance_q32; /* how far below ε the realized ε may fall, · 2^32 */
} tinyldp_precision;
/* The core's Precision{}: 64 bits and a tolerance of 2^-21 (≈ 4.8e-7), the plain configures'.
 * Initializers: `tinyldp_precision p = TINYLDP_PRECISION_DEFAULT;`; a coarser one, ε − 0.01 at
 * worst: `tinyldp_precision coarse = {64, TINYLDP_EPSILON_Q32(1, 100)};`. */
#define TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32 ((uint64_t)1 << 11)
#define TINYLDP_PRECISION_DEFAULT {64, TINYLDP_PRECISION_DEFAULT_TOLERANCE_Q32}

/* ---- contexts: caller-owned, sized here --------------------------------------------------- */

/* Storage for one context, aligned for any member the implementation keeps. The sizes are
 * exact (up to the 8-byte alignment); the implementation checks at compile time that each C++
 * object fits and is aligned. */
#define TINYLDP_CONTEXT_STORAGE(size) \
  union {                             \
    uint64_t align_u64;               \
    void* align_pointer;              \
    void (*align_function)(void);     \
    unsigned char bytes[size];        \
  } opaque

#define TINYLDP_RR_CONTEXT_SIZE 24
#define TINYLDP_KRR_CONTEXT_SIZE 40
#define TINYLDP_UE_CONTEXT_SIZE 48
#define TINYLDP_LH_CONTEXT_SIZE 48
#define TINYLDP_HR_CONTEXT_SIZE 32
#define TINYLDP_SD_CONTEXT_SIZE 56
#define TINYLDP_DLAPLACE_CONTEXT_SIZE 56
#define TINYLDP_PM_CONTEXT_SIZE 80
#define TINYLDP_HM_CONTEXT_SIZE 160
#define TINYLDP_SW_CONTEXT_SIZE 80
#define TINYLDP_HH_CONTEXT_SIZE 112
#define TINYLDP_HAAR_HRR_CONTEXT_SIZE 40
#define TINYLDP_SHE_CONTEXT_SIZE 72
#define TINYLDP_THE_CONTEXT_SIZE 56
/* Keystream blocks the DRBG buffers: must be the value the library was built with (a compile
 * definition on the tinyldp targets when changed; 4 by default). */
#ifndef TINYLDP_CHACHA20_DRBG_BLOCKS
#define TINYLDP_CHACHA20_DRBG_BLOCKS 4
#endif
/* 328 bytes with 4 blocks on 32-bit targets, 336 on 64-bit hosts. */
#define TINYLDP_CHACHA20_DRBG_CONTEXT_SIZE \
  ((64 * TINYLDP_CHACHA20_DRBG_BLOCKS + 56 + 3 * sizeof(void*) + 7) / 8 * 8)
#define TINYLDP_HEALTH_CONTEXT_SIZE (56 + 2 * sizeof(void*))  /* 64 B on 32-bit targets */
#define TINYLDP_RECORD_CONTEXT_SIZE ((40 + 5 * sizeof(void*) + 7) / 8 * 8) /* 64 B on 32-bit */
#define TINYLDP_MEMO_KEY_CONTEXT_SIZE 40
#define TINYLDP_TWO_STAGE_RR_CONTEXT_SIZE 128
#define TINYLDP_L_GRR_CONTEXT_SIZE 104
#define TINYLDP_LOLOHA_CONTEXT_SIZE 112
#define TINYLDP_ONE_BIT_MEAN_CONTEXT_SIZE 120
#define TINYLDP_DBITFLIP_CONTEXT_SIZE 136
#define TINYLDP_LEDGER_CONTEXT_SIZE 120
/* 48 B on 32-bit targets, 56 on 64-bit hosts (key, device id, counters, the record's address). */
#define TINYLDP_REPORT_AUTH_CONTEXT_SIZE ((44 + sizeof(void*) + 7) / 8 * 8)
/* Records of several attributes hold every attribute's channel in the context: at most
 * TINYLDP_RECORD_MAX_ATTRIBUTES of them (the C API's fixed maximum, as the ledger's slots), each
 * attribute costing its channel's bytes whether used or not. */
#define TINYLDP_RECORD_MAX_ATTRIBUTES 8
#define TINYLDP_RECORD_RR_CONTEXT_SIZE (128 * TINYLDP_RECORD_MAX_ATTRIBUTES + 24) /* 1048 */
#define TINYLDP_SPL_GRR_CONTEXT_SIZE (40 * TINYLDP_RECORD_MAX_ATTRIBUTES + 16)    /* 336 */
#define TINYLDP_SPL_OUE_CONTEXT_SIZE (48 * TINYLDP_RECORD_MAX_ATTRIBUTES + 16)    /* 400 */
#define TINYLDP_SMP_GRR_CONTEXT_SIZE TINYLDP_SPL_GRR_CONTEXT_SIZE
#define TINYLDP_SMP_OUE_CONTEXT_SIZE TINYLDP_SPL_OUE_CONTEXT_SIZE
#define TINYLDP_RSFD_GRR_CONTEXT_SIZE (40 * TINYLDP_RECORD_MAX_ATTRIBUTES + 48)   /* 368 */
#define TINYLDP_RSFD_OUE_CONTEXT_SIZE (48 * TINYLDP_RECORD_MAX_ATTRIBUTES + 48)   /* 432 */

/* A context type: `name` holding size bytes (typedef struct name {…} name). */
#define TINYLDP_CONTEXT(name, size) \
  typedef struct name {             \
    TINYLDP_CONTEXT_STORAGE(size);  \
  } name

TINYLDP_CONTEXT(tinyldp_rr, TINYLDP_RR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_krr, TINYLDP_KRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_ue, TINYLDP_UE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_lh, TINYLDP_LH_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_hr, TINYLDP_HR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_sd, TINYLDP_SD_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_dlaplace, TINYLDP_DLAPLACE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_pm, TINYLDP_PM_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_hm, TINYLDP_HM_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_sw, TINYLDP_SW_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_hh, TINYLDP_HH_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_haar_hrr, TINYLDP_HAAR_HRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_she, TINYLDP_SHE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_the, TINYLDP_THE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_chacha20_drbg, TINYLDP_CHACHA20_DRBG_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_health, TINYLDP_HEALTH_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_record, TINYLDP_RECORD_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_memo_key, TINYLDP_MEMO_KEY_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_two_stage_rr, TINYLDP_TWO_STAGE_RR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_l_grr, TINYLDP_L_GRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_loloha, TINYLDP_LOLOHA_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_one_bit_mean, TINYLDP_ONE_BIT_MEAN_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_dbitflip, TINYLDP_DBITFLIP_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_record_rr, TINYLDP_RECORD_RR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_spl_grr, TINYLDP_SPL_GRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_spl_oue, TINYLDP_SPL_OUE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_smp_grr, TINYLDP_SMP_GRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_smp_oue, TINYLDP_SMP_OUE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_rsfd_grr, TINYLDP_RSFD_GRR_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_rsfd_oue, TINYLDP_RSFD_OUE_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_ledger, TINYLDP_LEDGER_CONTEXT_SIZE);
TINYLDP_CONTEXT(tinyldp_report_auth, TINYLDP_REPORT_AUTH_CONTEXT_SIZE);

/* ---- the wire format ---------------------------------------------------------------------- */

/* Mechanism ids on the wire (never reused). */
enum {
  TINYLDP_MECHANISM_RR = 1,
  TINYLDP_MECHANISM_KRR = 2,
  TINYLDP_MECHANISM_SUE = 3,
  TINYLDP_MECHANISM_OUE = 4,
  TINYLDP_MECHANISM_UE = 5, /* unary encoding with custom (p, q): on the wire, not configured by name */
  TINYLDP_MECHANISM_BLH = 6,
  TINYLDP_MECHANISM_OLH = 7,
  TINYLDP_MECHANISM_HR = 8,
  TINYLDP_MECHANISM_SD = 9,
  TINYLDP_MECHANISM_DLAPLACE = 10,
  TINYLDP_MECHANISM_SHE = 11,
  TINYLDP_MECHANISM_THE = 12,
  TINYLDP_MECHANISM_RAPPOR = 13, /* memoized two-stage RR given as RAPPOR's f, p, q */
  TINYLDP_MECHANISM_L_SUE = 14,     /* the longitudinal UE chains: SUE then SUE */
  TINYLDP_MECHANISM_L_OSUE = 15,    /* OUE then SUE */
  TINYLDP_MECHANISM_L_OUE = 16,     /* OUE then OUE */
  TINYLDP_MECHANISM_L_SOUE = 17,    /* SUE then OUE */
  TINYLDP_MECHANISM_L_GRR = 18,
  TINYLDP_MECHANISM_LOLOHA = 19,
  TINYLDP_MECHANISM_BILOLOHA = 20,
  TINYLDP_MECHANISM_ONE_BIT_MEAN = 21,  /* 1BitMean */
  TINYLDP_MECHANISM_RECORD_RR = 22,
  TINYLDP_MECHANISM_SPL_GRR = 23,
  TINYLDP_MECHANISM_SPL_OUE = 24,
  TINYLDP_MECHANISM_SMP_GRR = 25,
  TINYLDP_MECHANISM_SMP_OUE = 26,
  TINYLDP_MECHANISM_RSFD_GRR = 27,
  TINYLDP_MECHANISM_RSFD_OUE_Z = 28, /* fake data: the zero vector through OUE */
  TINYLDP_MECHANISM_RSFD_OUE_R = 29, /* fake data: a uniform one-hot vector through OUE */
  TINYLDP_MECHANISM_DBITFLIP = 30,
  TINYLDP_MECHANISM_PM = 31, /* the Piecewise Mechanism on a grid of cells */
  TINYLDP_MECHANISM_HM = 32, /* the Hybrid Mechanism: PM or Duchi's, drawn per report */
  TINYLDP_MECHANISM_SW = 33, /* Square Wave over bucketed input and output */
  TINYLDP_MECHANISM_HH = 34, /* a hierarchical histogram: one level of a B-ary tree per device */
  TINYLDP_MECHANISM_HAAR_HRR = 35 /* HaarHRR: one level of Haar coefficients per device, by Hadamard RR */
};

/* Optional header fields (tinyldp_wire_header.fields). */
enum {
  TINYLDP_WIRE_DEVICE_ID = 1, /* u32 */
  TINYLDP_WIRE_EPOCH = 2,     /* u32 */
  TINYLDP_WIRE_COHORT = 4,    /* u16 */
  TINYLDP_WIRE_MEMO_GENERATION = 8 /* u32: the memo key's re-key counter (memoized reports) */
};
#define TINYLDP_WIRE_FIXED_HEADER_BYTES 7
#define TINYLDP_WIRE_MAX_HEADER_BYTES 21 /* all four optional fields */
/* Payload bytes: (payload_bits + 7) / 8 of the mechanism's description. Unary encoding, THE and
 * the UE chains over d values: TINYLDP_UE_PAYLOAD_BYTES(d); dBitFlip at most 34; SHE and the
 * records of several attributes grow with their parameters; every other mechanism fits in 8. */
#define TINYLDP_UE_PAYLOAD_BYTES(d) (((size_t)(d) + 7) / 8)
#define TINYLDP_MAX_SCALAR_PAYLOAD_BYTES 8
#define TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES 34

typedef struct tinyldp_wire_header {
  uint8_t fields; /* which optional fields are sent (TINYLDP_WIRE_DEVICE_ID | …) */
  uint32_t device_id;
  uint32_t epoch;
  uint16_t cohort;
  uint32_t memo_generation;
} tinyldp_wire_header;

/* What a configured mechanism is: its wire identity and its privacy. */
typedef struct tinyldp_description {
  uint8_t mechanism_id;            /* TINYLDP_MECHANISM_… */
  uint32_t payload_bits;           /* bits of payload after the header */
  uint32_t digest;                 /* the wire header's parameter digest */
  uint64_t realized_epsilon_q32;   /* ε the probabilities really give (≤ the request), · 2^32 */
  uint64_t random_bits_per_report; /* the same for every value (0 for SPL, SMP and RS+FD: the
                                      core states none; SMP's and RS+FD's vary with the draws) */
} tinyldp_description;

/* Header + payload bytes of a report with these optional fields. */
size_t tinyldp_report_bytes(const tinyldp_description* mechanism, uint8_t fields);

/* Frames a payload (payload_bits bits, LSB first, as the privatize functions write it):
 * header then payload into out. header NULL: no optional fields. The payload may already sit at
 * its place in out (out + header bytes); no other overlap. On error nothing is left in out. */
tinyldp_status tinyldp_wire_encode(const tinyldp_description* mechanism,
                                   const tinyldp_wire_header* header, const uint8_t* payload,
                                   uint8_t* out, size_t out_size, size_t* written);

/* ---- mechanisms --------------------------------------------------------------------------- */
/* Each mechanism has:
 *   configure: from ε (· 2^32) and its parameters, into the caller's context (and, where it takes
 *              ε, configure_precise: the same with a tinyldp_precision, last; see above);
 *   describe:  fills a tinyldp_description;
 *   privatize: the value's report as its wire payload (payload_bits bits, LSB first) into
 *              payload[0..payload_size);
 *   report:    privatize + frame: the whole wire report into frame[0..frame_size), its length
 *              in *written (header NULL: no optional fields).
 * TINYLDP_MECHANISM_FUNCTIONS(prefix, value_type) declares the last three for the context type
 * `prefix` (prefix_describe, prefix_privatize, prefix_report); each mechanism below states its
 * configure and then uses it.
 * The value is a category in [0, domain) (rr: a bit, 0 or 1; sd, dlaplace, pm, hm and sw: an integer in
 * [lo, hi]; a record: an array of one value per attribute); anything else is
 * TINYLDP_STATUS_VALUE_OUT_OF_DOMAIN, with no report. Entropy: each call reads `source` in
 * 8-byte requests through a bit reader made for the call and keeps nothing afterwards (the bytes
 * it drew are zeroed) — the same reports as C++'s RandomBits<Source, 8> made fresh for each
 * report. An entropy failure is the status TINYLDP_STATUS_ENTROPY_*, with no report. */
#define TINYLDP_MECHANISM_FUNCTIONS(prefix, value_type)                                            \
  void prefix##_describe(const prefix* ctx, tinyldp_description* out);                             \
  tinyldp_status prefix##_privatize(const prefix* ctx, value_type value,                           \
                                    const tinyldp_entropy_source* source, uint8_t* payload,        \
                                    size_t payload_size);                                          \
  tinyldp_status prefix##_report(const prefix* ctx, value_type value,                              \
                                 const tinyldp_entropy_source* source,                             \
                                 const tinyldp_wire_header* header, uint8_t* frame,                \
                                 size_t frame_size, size_t* written)

/* Binary randomized response of a bit. */
tinyldp_status tinyldp_rr_configure(tinyldp_rr* ctx, uint64_t epsilon_q32);
tinyldp_status tinyldp_rr_configure_precise(tinyldp_rr* ctx, uint64_t epsilon_q32,
                                            tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_rr, uint32_t);

/* k-ary randomized response over [0, k), 2 ≤ k ≤ 2^30. */
tinyldp_status tinyldp_krr_configure(tinyldp_krr* ctx, uint64_t epsilon_q32, uint32_t k);
tinyldp_status tinyldp_krr_configure_precise(tinyldp_krr* ctx, uint64_t epsilon_q32, uint32_t k,
                                             tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_krr, uint32_t);

/* Unary encoding over [0, d): OUE (optimized) or SUE (symmetric, basic RAPPOR); the payload is
 * TINYLDP_UE_PAYLOAD_BYTES(d) bytes, bit i of the report in bit i % 8 of byte i / 8. */
tinyldp_status tinyldp_ue_configure_oue(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_ue_configure_sue(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_ue_configure_oue_precise(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision);
tinyldp_status tinyldp_ue_configure_sue_precise(tinyldp_ue* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_ue, uint32_t);

/* Local hashing over [0, d): OLH (g = round(e^ε) + 1) or BLH (g = 2); a 32-bit seed per report. */
tinyldp_status tinyldp_lh_configure_olh(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_lh_configure_blh(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_lh_configure_olh_precise(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision);
tinyldp_status tinyldp_lh_configure_blh_precise(tinyldp_lh* ctx, uint64_t epsilon_q32, uint32_t d,
                                                tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_lh, uint32_t);

/* 1-bit Hadamard response over [0, d). */
tinyldp_status tinyldp_hr_configure(tinyldp_hr* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_hr_configure_precise(tinyldp_hr* ctx, uint64_t epsilon_q32, uint32_t d,
                                            tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_hr, uint32_t);

/* Stochastic discretization of an integer in [lo, hi] to `levels` levels (2..256), then k-RR;
 * the collector estimates the mean and the distribution. */
tinyldp_status tinyldp_sd_configure(tinyldp_sd* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t levels);
tinyldp_status tinyldp_sd_configure_precise(tinyldp_sd* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t levels, tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_sd, int32_t);

/* Discrete Laplace for an integer in [lo, hi] (hi − lo ≤ 65535) with sensitivity Δ (1..hi − lo).
 * `table`: caller-owned storage of TINYLDP_DLAPLACE_TABLE_ENTRIES(lo, hi) weights, kept as long
 * as the context is used; configuration takes about 50 · (hi − lo) wide multiplications. */
#define TINYLDP_DLAPLACE_TABLE_ENTRIES(lo, hi) ((size_t)((int64_t)(hi) - (int64_t)(lo) + 1))
tinyldp_status tinyldp_dlaplace_configure(tinyldp_dlaplace* ctx, uint64_t epsilon_q32, int32_t lo,
                                          int32_t hi, uint32_t sensitivity, uint64_t* table,
                                          size_t table_entries);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_dlaplace, int32_t);

/* The Piecewise Mechanism for an integer in [lo, hi] on a grid of `cells` output cells
 * (4..4096; 2048 keeps the variance within 0.5 % of the continuous mechanism's): the collector
 * estimates the mean, the smallest worst-case error from ε ≈ 1.3 on. (hi − lo)·(the band's
 * starts) < 2^39: hi − lo < 2^28 up to 2048 cells, 2^27 up to 4096. */
tinyldp_status tinyldp_pm_configure(tinyldp_pm* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t cells);
tinyldp_status tinyldp_pm_configure_precise(tinyldp_pm* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t cells, tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_pm, int32_t);

/* The Hybrid Mechanism for an integer in [lo, hi]: the Piecewise Mechanism on `cells` cells
 * with probability α = 1 − e^{−ε/2}, Duchi's otherwise (α = 0 at ε ≤ 0.609); the collector
 * estimates the mean, the smallest worst-case error at every ε. Report: a cell or, after the M
 * cells, Duchi's bit. Limits: pm's. */
tinyldp_status tinyldp_hm_configure(tinyldp_hm* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t cells);
tinyldp_status tinyldp_hm_configure_precise(tinyldp_hm* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t cells, tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_hm, int32_t);

/* Square Wave for an integer in [lo, hi] rounded to one of `buckets` D (4..4096; lo … hi
 * evenly): a window of the paper's half-width B around the bucket among N = D + 2B cells
 * (N ≤ 4096); the collector estimates the distribution (EMS) and the mean. hi − lo < 2^39 / D. */
tinyldp_status tinyldp_sw_configure(tinyldp_sw* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t buckets);
tinyldp_status tinyldp_sw_configure_precise(tinyldp_sw* ctx, uint64_t epsilon_q32, int32_t lo,
                                            int32_t hi, uint32_t buckets, tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_sw, int32_t);

/* A mechanism whose report depends on the device's memo key but spends ε every time (no memo):
 * TINYLDP_KEYED_FUNCTIONS(prefix, value_type) declares prefix_describe, prefix_privatize and
 * prefix_report, the last two taking the key as the memoized mechanisms do
 * (TINYLDP_MEMOIZED_FUNCTIONS, below: the same refusals of a NULL or unprovisioned key, the
 * key's generation written in the header's TINYLDP_WIRE_MEMO_GENERATION). */
#define TINYLDP_KEYED_FUNCTIONS(prefix, value_type)                                                \
  void prefix##_describe(const prefix* ctx, tinyldp_description* out);                             \
  tinyldp_status prefix##_privatize(const prefix* ctx, value_type value,                           \
                                    const tinyldp_memo_key* key,                                   \
                                    const tinyldp_entropy_source* source, uint8_t* payload,        \
                                    size_t payload_size);                                          \
  tinyldp_status prefix##_report(const prefix* ctx, value_type value, const tinyldp_memo_key* key, \
                                 const tinyldp_entropy_source* source,                             \
                                 const tinyldp_wire_header* header, uint8_t* frame,                \
                                 size_t frame_size, size_t* written)

/* A hierarchical histogram of an integer in [lo, hi] (2 ≤ hi − lo + 1 ≤ 2^24): the values are the
 * leaves of a tree of `branching` B (a power of two, 2 … 16) branches per node, and each device
 * reports one level of it — the same in every report, drawn once from its memo key for
 * `attribute` (≤ 2^24 − 1; another attribute, another level) — through OUE over the level's nodes
 * or OLH, whichever report is shorter; the collector answers range queries, the CDF and
 * quantiles. Every report is fresh and costs the realized ε (charge tinyldp_ledger_charge with
 * it: the key gives the level, not a memo). Payload: the level (a byte), then its report. */
tinyldp_status tinyldp_hh_configure(tinyldp_hh* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                    uint32_t branching, uint32_t attribute);
tinyldp_status tinyldp_hh_configure_precise(tinyldp_hh* ctx, uint64_t epsilon_q32, int32_t lo, int32_t hi,
                                            uint32_t branching, uint32_t attribute,
                                            tinyldp_precision precision);
TINYLDP_KEYED_FUNCTIONS(tinyldp_hh, int32_t);

/* HaarHRR over an integer in [lo, hi] (2 ≤ hi − lo + 1 ≤ 2^24): the Haar wavelet transform of the
 * value in a binary tree of 2^h ≥ hi − lo + 1 leaves, each device reporting one of its h levels —
 * the same in every report, drawn once from its memo key for `attribute` (≤ 2^24 − 1) — as one
 * randomly chosen Hadamard row of that level's coefficients, through binary randomized response;
 * the collector answers range queries, the CDF and quantiles. Every report is fresh and costs
 * the realized ε (tinyldp_ledger_charge; the key gives the level, not a memo). Payload: the level
 * (a byte), then the row in h − 1 bits and the bit. */
tinyldp_status tinyldp_haar_hrr_configure(tinyldp_haar_hrr* ctx, uint64_t epsilon_q32, int32_t lo,
                                          int32_t hi, uint32_t attribute);
tinyldp_status tinyldp_haar_hrr_configure_precise(tinyldp_haar_hrr* ctx, uint64_t epsilon_q32,
                                                  int32_t lo, int32_t hi, uint32_t attribute,
                                                  tinyldp_precision precision);
TINYLDP_KEYED_FUNCTIONS(tinyldp_haar_hrr, int32_t);

/* Summation with histogram encoding (SHE) over [0, d), 2 ≤ d ≤ 2^24: every component of the
 * one-hot vector with discrete Laplace noise at ε/2, clamped to [−T, T + 1]. `truncation` T ≤
 * 32767, or TINYLDP_SHE_DEFAULT_TRUNCATION(ε) (the smallest T whose noise beyond ±T has mass below
 * 2^-10). `table`: caller-owned storage of TINYLDP_SHE_TABLE_ENTRIES(T) weights, kept as long as
 * the context is used. Payload: d components of ⌈log2(2T + 2)⌉ bits (describe's payload_bits).
 * Configuration is the discrete Laplace's (about 1.3 KiB of stack) plus an O(T) pass. */
#define TINYLDP_SHE_TABLE_ENTRIES(truncation) ((size_t)2 * (size_t)(truncation) + 2)
/* ⌈20 · ln 2 / ε⌉ in [1, 32767] (32767 for ε = 0): the core's default. A constant for a constant
 * ε · 2^32 ((uint64_t)1 << 32 for ε = 1), so a global table can be sized by it. */
#define TINYLDP_SHE_DEFAULT_TRUNCATION(epsilon_q32)                                  \
  ((uint32_t)(TINYLDP_SHE_TRUNCATION_UNCLAMPED_(epsilon_q32) > 32767u                 \
                  ? 32767u                                                            \
                  : TINYLDP_SHE_TRUNCATION_UNCLAMPED_(epsilon_q32)))
#define TINYLDP_SHE_TRUNCATION_UNCLAMPED_(e)                  \
  (((uint64_t)20 * 2977044472u + (uint64_t)(e) - 1) /       \
   ((uint64_t)(e) + (uint64_t)((uint64_t)(e) == 0)))
tinyldp_status tinyldp_she_configure(tinyldp_she* ctx, uint64_t epsilon_q32, uint32_t d,
                                     uint32_t truncation, uint64_t* table, size_t table_entries);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_she, uint32_t);

/* Thresholding with histogram encoding (THE) over [0, d): unary encoding whose p and q are the
 * Laplace mechanism's thresholded at θ (chosen among 33/64 … 63/64 for the least variance); the
 * payload is TINYLDP_UE_PAYLOAD_BYTES(d) bytes, as UE's. */
tinyldp_status tinyldp_the_configure(tinyldp_the* ctx, uint64_t epsilon_q32, uint32_t d);
tinyldp_status tinyldp_the_configure_precise(tinyldp_the* ctx, uint64_t epsilon_q32, uint32_t d,
                                             tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_the, uint32_t);

/* ---- records of several attributes, without memo (SPL, SMP, RS+FD) ------------------------- */
/* A record of d attributes (2 ≤ d ≤ TINYLDP_RECORD_MAX_ATTRIBUTES; SPL: 1 ≤ d), attribute j's
 * value in [0, domains[j]) (domains[j] ≥ 2), each attribute through k-RR (grr) or OUE (oue):
 *   SPL   every attribute with ε/d;
 *   SMP   one attribute drawn per report, with the whole ε; its index is the payload's first byte;
 *   RS+FD one attribute drawn and kept secret, with ε' = ln(d·(e^ε − 1) + 1); every other
 *         attribute is fake data (grr: a uniform value; oue: TINYLDP_RSFD_FAKE_ZERO, the zero
 *         vector through OUE, or TINYLDP_RSFD_FAKE_RANDOM, a uniform one-hot vector).
 * The value is an array of d values; a report spends its ε again every time (no memo).
 * realized_epsilon_q32 is the local-DP loss of one report between any two records.
 * Configuration holds copies of the context on the stack: about 3 KiB with the ε arithmetic
 * (Cortex-M0, -fstack-usage); do it once, at boot. */
enum { TINYLDP_RSFD_FAKE_ZERO = 0, TINYLDP_RSFD_FAKE_RANDOM = 1 };
/* A protocol's configure(ctx, ε · 2^32, domains, d), its _precise twin and its three functions:
 * prefix_configure, prefix_configure_precise, prefix_describe, prefix_privatize, prefix_report. */
#define TINYLDP_RECORD_FUNCTIONS(prefix)                                                           \
  tinyldp_status prefix##_configure(prefix* ctx, uint64_t epsilon_q32, const uint32_t* domains,    \
                                    uint32_t d);                                                   \
  tinyldp_status prefix##_configure_precise(prefix* ctx, uint64_t epsilon_q32,                     \
                                            const uint32_t* domains, uint32_t d,                   \
                                            tinyldp_precision precision);                          \
  TINYLDP_MECHANISM_FUNCTIONS(prefix, const uint32_t*)
TINYLDP_RECORD_FUNCTIONS(tinyldp_spl_grr);
TINYLDP_RECORD_FUNCTIONS(tinyldp_spl_oue);
TINYLDP_RECORD_FUNCTIONS(tinyldp_smp_grr);
TINYLDP_RECORD_FUNCTIONS(tinyldp_smp_oue);
TINYLDP_RECORD_FUNCTIONS(tinyldp_rsfd_grr);
/* RS+FD over OUE also takes its fake data: TINYLDP_RSFD_FAKE_ZERO or _RANDOM. */
tinyldp_status tinyldp_rsfd_oue_configure(tinyldp_rsfd_oue* ctx, uint64_t epsilon_q32,
                                          const uint32_t* domains, uint32_t d, uint8_t fake);
tinyldp_status tinyldp_rsfd_oue_configure_precise(tinyldp_rsfd_oue* ctx, uint64_t epsilon_q32,
                                                  const uint32_t* domains, uint32_t d, uint8_t fake,
                                                  tinyldp_precision precision);
TINYLDP_MECHANISM_FUNCTIONS(tinyldp_rsfd_oue, const uint32_t*);

/* ---- the ChaCha20 DRBG -------------------------------------------------------------------- */
/* 256 bits of seed entropy from any source become a fast stream of random bytes; fast key
 * erasure (a later compromise of the state reveals nothing already handed out); after the
 * reseed interval it reseeds from the reseed source if one is set and fails closed otherwise. */

/* Makes an unseeded generator (every request fails until seeded). A zeroed context (a global)
 * is already in this state, but call it anyway: it is what makes the object. */
void tinyldp_chacha20_drbg_init(tinyldp_chacha20_drbg* drbg);

/* (Re)seeds from `source` with ≥ 256 bits by ITS MIN-ENTROPY ESTIMATE, which you must state:
 *   min_entropy_q8 = min-entropy per output byte in 1/256 bit. TINYLDP_ENTROPY_ESTIMATE_FULL
 *   (2048, 8 bits per byte: a conditioned TRNG, e.g. one with a hardware conditioner, or
 *   another seeded DRBG); for a health-tested raw source, tinyldp_health_min_entropy_q8(); for
 *   a raw noise source, your SP 800-90B estimate. The DRBG reads ceil(65536 / estimate) bytes
 *   (32 at full entropy). TINYLDP_ENTROPY_ESTIMATE_UNKNOWN (0), or anything below 64 (1/4 bit
 *   per byte), is refused: TINYLDP_ENTROPY_NOT_SUPPORTED, the generator unchanged.
 * The old state is mixed in; the optional personalization (e.g. a device id) after the seed.
 * On any failure the key is left as it was. */
tinyldp_entropy_result tinyldp_chacha20_drbg_seed(tinyldp_chacha20_drbg* drbg,
                                                  const tinyldp_entropy_source* source,
                                                  uint16_t min_entropy_q8, uint32_t flags,
                                                  const uint8_t* personalization,
                                                  size_t personalization_length);
/* Mixes caller-held material (a persisted seed from flash) in and marks the generator seeded;
 * the caller vouches for its entropy. */
void tinyldp_chacha20_drbg_seed_from_bytes(tinyldp_chacha20_drbg* drbg, const uint8_t* material,
                                           size_t length);
/* The source a due reseed reads (with its estimate, as for seeding); it must outlive the
 * generator. Without one, the firmware reseeds from its main loop when
 * tinyldp_chacha20_drbg_blocks_until_reseed() runs low (no reseed then nests in a report). */
void tinyldp_chacha20_drbg_set_reseed_source(tinyldp_chacha20_drbg* drbg,
                                             const tinyldp_entropy_source* source,
                                             uint16_t min_entropy_q8);
void tinyldp_chacha20_drbg_set_reseed_interval_blocks(tinyldp_chacha20_drbg* drbg, uint64_t blocks);
uint64_t tinyldp_chacha20_drbg_blocks_until_reseed(const tinyldp_chacha20_drbg* drbg);
int tinyldp_chacha20_drbg_seeded(const tinyldp_chacha20_drbg* drbg); /* 1 or 0 */
tinyldp_entropy_result tinyldp_chacha20_drbg_fill(tinyldp_chacha20_drbg* drbg, uint8_t* out,
                                                  size_t length, uint32_t flags);
/* The generator as an entropy source for the mechanisms (its estimate: full, once seeded). */
tinyldp_entropy_source tinyldp_chacha20_drbg_source(tinyldp_chacha20_drbg* drbg);
/* Forgets the key and buffered output: unseeded again. */
void tinyldp_chacha20_drbg_wipe(tinyldp_chacha20_drbg* drbg);

/* ---- SP 800-90B health tests around a raw noise source ------------------------------------- */
/* Every sample of the raw source passes the repetition-count and adaptive-proportion tests
 * before any byte leaves; the first request runs the start-up test (1024 samples, discarded).
 * A trip zeroes the request and fails every later one (fail closed) until reinit. */

typedef struct tinyldp_health_config {
  uint16_t h_q8;       /* claimed min-entropy per sample, 1/256 bit (256 = 1 bit) */
  uint8_t alpha_log2;  /* false-alarm rate α = 2^-alpha_log2 per sample (20..40 typical) */
  uint8_t sample_bits; /* 8 (byte samples) or 1 (bit samples, LSB first) */
  uint16_t apt_window; /* 512 for byte samples, 1024 for bit samples (SP 800-90B) */
} tinyldp_health_config;
/* H = 1 bit per byte sample (a cautious claim), α = 2^-20. */
#define TINYLDP_HEALTH_CONFIG_DEFAULT {256, 20, 8, 512}

/* A configuration with its cutoffs. */
typedef struct tinyldp_health_plan {
  tinyldp_health_config config;
  uint32_t rct_cutoff;
  uint32_t apt_cutoff;
} tinyldp_health_plan;
/* TINYLDP_HEALTH_CONFIG_DEFAULT's plan, computed beforehand (no cutoff computation linked). */
#define TINYLDP_HEALTH_PLAN_DEFAULT {TINYLDP_HEALTH_CONFIG_DEFAULT, 21, 311}
/* Computes the cutoffs at run time (the APT's binomial tail: about 1.5 KiB of code). */
tinyldp_status tinyldp_health_plan_make(const tinyldp_health_config* config,
                                        tinyldp_health_plan* out);

/* Wraps `raw` (kept by value) with the plan's tests; TINYLDP_STATUS_BAD_PARAMETER for a plan
 * out of range (a zero cutoff, sample_bits other than 1 or 8). The plan's claim is the raw
 * source's estimate (a C source states none of its own). A context never initialised (all
 * zero) fails every fill (buffer zeroed), has no estimate and reports TINYLDP_HEALTH_BAD_CONFIG. */
tinyldp_status tinyldp_health_init(tinyldp_health* health, const tinyldp_entropy_source* raw,
                                   const tinyldp_health_plan* plan);
tinyldp_entropy_result tinyldp_health_fill(tinyldp_health* health, uint8_t* out, size_t length,
                                           uint32_t flags);
/* The tested source, and its estimate for seeding: the plan's claim, per output byte (H for
 * byte samples, 8H for bit samples). */
tinyldp_entropy_source tinyldp_health_source(tinyldp_health* health);
uint16_t tinyldp_health_min_entropy_q8(const tinyldp_health* health);
enum {
  TINYLDP_HEALTH_OK = 0,
  TINYLDP_HEALTH_REPETITION_COUNT = 1,    /* a value repeated too often in a row */
  TINYLDP_HEALTH_ADAPTIVE_PROPORTION = 2, /* a value too frequent within a window */
  TINYLDP_HEALTH_BAD_CONFIG = 3
};
int tinyldp_health_failure(const tinyldp_health* health);
/* Forgets all history and any failure; the next request runs the start-up test again. */
void tinyldp_health_reinit(tinyldp_health* health);

/* ---- a power-safe record on a storage device ----------------------------------------------- */
/* One value in two slots of whole erase sectors of its own: a write goes to the slot not holding
 * the newest copy (erase, payload, header last, read-back verify), so after a power cut a read
 * returns the old value or the new one, never a mix. `device` is kept by value. A record never
 * initialised (all-zero bytes) is an unusable layout: capacity 0, read and write
 * TINYLDP_STORAGE_BAD_GEOMETRY, nothing touched. */
tinyldp_storage_result tinyldp_record_init(tinyldp_record* record,
                                           const tinyldp_storage_device* device,
                                           uint32_t first_sector, uint32_t sectors_per_slot);
uint32_t tinyldp_record_capacity(const tinyldp_record* record); /* 0: unusable layout */
tinyldp_storage_result tinyldp_record_read(tinyldp_record* record, uint8_t* out,
                                           size_t out_capacity, size_t* length);
tinyldp_storage_result tinyldp_record_write(tinyldp_record* record, const uint8_t* data,
                                            size_t length);
uint32_t tinyldp_record_sequence(const tinyldp_record* record); /* 0: none yet */

/* ---- reports over time: the memo key --------------------------------------------------------- */
/* The device secret behind memoized reports: a 256-bit key and its generation (the re-key
 * counter), kept in a tinyldp_record (36 bytes: the record needs a capacity of at least that).
 * A memo is never stored: it is recomputed at every report from ChaCha20 under the key, with
 * (attribute, value, generation) as nonce — the same after a reboot or a power cut, different
 * for every value, unpredictable without the key. Keep the record in storage your threat model
 * treats as secret: whoever reads the key can undo the permanent randomized response.
 * Boot loads the key and never creates one: a record with no readable key (never provisioned,
 * erased, corrupt) is TINYLDP_MEMO_KEY_NOT_PROVISIONED and every memoized report refuses the
 * unprovisioned key (TINYLDP_STATUS_KEY_NOT_PROVISIONED) until the explicit provisioning step,
 * tinyldp_memo_key_provision: at the factory with generation 0; after a loss with a generation
 * above every one the device reported under (the larger of tinyldp_ledger_generation + 1 and
 * the fleet registry's), so the collector sees the re-key. Every write goes to both of the
 * record's slots: damage to one slot never brings back an older key.
 * Cost: the context (40 bytes); a report's memo stream (88 bytes, with its block buffer) is on
 * the stack during the report. */
typedef enum tinyldp_memo_key_result {
  TINYLDP_MEMO_KEY_OK = 0,
  TINYLDP_MEMO_KEY_NOT_PROVISIONED = 1,     /* no readable key: never provisioned, erased, corrupt */
  TINYLDP_MEMO_KEY_STORAGE_FAILED = 2,      /* the record could not be read or written */
  TINYLDP_MEMO_KEY_GENERATOR_FAILED = 3,    /* the DRBG is not seeded or failed */
  TINYLDP_MEMO_KEY_ALREADY_PROVISIONED = 4, /* provision: the record holds a readable key */
  TINYLDP_MEMO_KEY_GENERATION_EXHAUSTED = 5 /* rekey: the generation is at 2^32 − 1 */
} tinyldp_memo_key_result;

/* Makes an unprovisioned key (no report may use it). */
void tinyldp_memo_key_init(tinyldp_memo_key* key);
/* At boot: makes the key from `record`; anything but TINYLDP_MEMO_KEY_OK leaves it
 * unprovisioned (never a new key). */
tinyldp_memo_key_result tinyldp_memo_key_load(tinyldp_memo_key* key, tinyldp_record* record);
/* The explicit provisioning step: a new key from the DRBG with `generation`, durable (both
 * slots) before it is used — only when the record holds no readable key; a readable one is
 * left alone (TINYLDP_MEMO_KEY_ALREADY_PROVISIONED, `key` unprovisioned: load it). */
tinyldp_memo_key_result tinyldp_memo_key_provision(tinyldp_memo_key* key, tinyldp_record* record,
                                                   tinyldp_chacha20_drbg* drbg,
                                                   uint32_t generation);
/* A new key with the next generation, durable before it is used: every value gets a fresh
 * memo and costs ε∞ again. On failure `key` is wiped (load it again: the old key or the new). */
tinyldp_memo_key_result tinyldp_memo_key_rekey(tinyldp_memo_key* key, tinyldp_record* record,
                                               tinyldp_chacha20_drbg* drbg);
int tinyldp_memo_key_provisioned(const tinyldp_memo_key* key); /* 1 or 0 */
uint32_t tinyldp_memo_key_generation(const tinyldp_memo_key* key);
/* This device's cohort among `cohorts` (≥ 1; Bloom encodings), fixed for the generation. */
uint32_t tinyldp_memo_key_cohort(const tinyldp_memo_key* key, uint32_t cohorts);
/* A keyed 64-bit tag of (mechanism, attribute, value): what the ledger remembers instead of the
 * value. `mechanism` is the reporting mechanism's wire id (TINYLDP_MECHANISM_…): two mechanisms
 * in one ledger slot hold different memos of a value, so their tags differ. */
uint64_t tinyldp_memo_key_value_tag(const tinyldp_memo_key* key, uint8_t mechanism,
                                    uint32_t attribute, uint32_t value);
/* Forgets the key: unprovisioned. */
void tinyldp_memo_key_wipe(tinyldp_memo_key* key);
const char* tinyldp_memo_key_result_string(tinyldp_memo_key_result result);

/* ---- reports over time: memoized two-stage randomized response ------------------------------- */
/* Each value's bits first pass a permanent randomized response (PRR: p1 if the bit is set, q1
 * if not) drawn from the memo key — the same every time the value is reported — then a fresh
 * instantaneous one (IRR: p2 if the memo bit is 1, q2 if 0) from the entropy source. Unlimited
 * reports of one value reveal at most ε∞; one report alone costs ε₁ (< ε∞); a device that
 * reports m distinct values over a key's life spends at most m · ε∞ (the ledger counts it).
 * Encodings: one-hot over [0, k) (2 ≤ k ≤ 65536), or a Bloom filter of k bits with h ≤ 16
 * hashes and m ≤ 65536 cohorts (the value: any uint32_t). `attribute` names which attribute of a
 * record this is: it enters the memo's PRF input, so two attributes never share a memo.
 * Payload: TINYLDP_UE_PAYLOAD_BYTES(k) bytes, bit i of the report in bit i % 8 of byte i / 8.
 * Random bits per report: k · B2 fresh (tinyldp_description.random_bits_per_report), k · B1
 * from the memo stream (B = the stage's denominator bits). Configuration runs the core's exact
 * arithmetic (a bisection for the chains' second stage): do it once, at boot. */
enum { TINYLDP_MEMO_ONE_HOT = 0, TINYLDP_MEMO_BLOOM = 1 };
typedef struct tinyldp_memo_encoding {
  uint8_t kind;       /* TINYLDP_MEMO_ONE_HOT or TINYLDP_MEMO_BLOOM */
  uint32_t bits;      /* k: one-hot, the domain size; Bloom, the filter's bits */
  uint32_t hashes;    /* h: 1 for one-hot */
  uint32_t cohorts;   /* m: 1 for one-hot */
  uint32_t attribute; /* which attribute of a record (part of the memo's PRF input) */
} tinyldp_memo_encoding;
#define TINYLDP_MEMO_ONE_HOT_ENCODING(k, attribute) {TINYLDP_MEMO_ONE_HOT, (k), 1, 1, (attribute)}
#define TINYLDP_MEMO_BLOOM_ENCODING(k, hashes, cohorts, attribute) \
  {TINYLDP_MEMO_BLOOM, (k), (hashes), (cohorts), (attribute)}

/* A probability num / 2^bits (bits ≤ 64), as the device samples it. */
typedef struct tinyldp_dyadic {
  uint64_t num;
  uint8_t bits;
} tinyldp_dyadic;

/* What the memo adds to the description: both losses, the memo's draws, the channel. */
typedef struct tinyldp_memo_description {
  uint64_t epsilon_one_q32;      /* one report (the composed channel), · 2^32 */
  uint64_t epsilon_infinity_q32; /* unlimited reports of one value (the memo), · 2^32 */
  uint64_t memo_bits_per_report; /* drawn from the memo stream, the same every report */
  tinyldp_dyadic p1, q1, p2, q2; /* the memo's (PRR) and the fresh stage's (IRR) probabilities */
} tinyldp_memo_description;

/* Every memoized mechanism has describe (as every mechanism), describe_memo, and privatize and
 * report that take the memo key: TINYLDP_MEMOIZED_FUNCTIONS(prefix, value_type) declares
 * prefix_describe, prefix_describe_memo, prefix_privatize and prefix_report. A report's memo is
 * keyed by `key` (provisioned: an unprovisioned key is TINYLDP_STATUS_KEY_NOT_PROVISIONED, a NULL
 * one TINYLDP_STATUS_BAD_PARAMETER, with no report), the fresh stage drawn from `source` as for
 * every mechanism. In report, the header fields the key fixes are the key's:
 * TINYLDP_WIRE_MEMO_GENERATION carries tinyldp_memo_key_generation(key) and, for a Bloom
 * encoding, TINYLDP_WIRE_COHORT the key's cohort — whatever the caller's header holds there. */
#define TINYLDP_MEMOIZED_FUNCTIONS(prefix, value_type)                                             \
  void prefix##_describe_memo(const prefix* ctx, tinyldp_memo_description* out);                   \
  TINYLDP_KEYED_FUNCTIONS(prefix, value_type)

/* The stages of the longitudinal UE chains. */
enum { TINYLDP_UE_STAGE_SUE = 0, TINYLDP_UE_STAGE_OUE = 1 };

/* A chain: stage 1 (memoized) is `first` at ε∞; stage 2 is `second` with its probabilities
 * chosen so that one report costs at most ε₁ (< ε∞), with the fewest bits. The wire id names the
 * chain (L-SUE, L-OSUE = OUE then SUE, L-OUE, L-SOUE). */
tinyldp_status tinyldp_two_stage_rr_configure_chain(tinyldp_two_stage_rr* ctx, uint8_t first,
                                                    uint8_t second,
                                                    uint64_t epsilon_infinity_q32,
                                                    uint64_t epsilon_one_q32,
                                                    const tinyldp_memo_encoding* encoding);
tinyldp_status tinyldp_two_stage_rr_configure_chain_precise(tinyldp_two_stage_rr* ctx, uint8_t first,
                                                            uint8_t second,
                                                            uint64_t epsilon_infinity_q32,
                                                            uint64_t epsilon_one_q32,
                                                            const tinyldp_memo_encoding* encoding,
                                                            tinyldp_precision precision);
/* RAPPOR: PRR flip probability f (0 < f < 1), IRR P(1 | memo 0) = p, P(1 | memo 1) = q (p < q);
 * the wire id TINYLDP_MECHANISM_RAPPOR. */
tinyldp_status tinyldp_two_stage_rr_configure_rappor(tinyldp_two_stage_rr* ctx, tinyldp_dyadic f,
                                                     tinyldp_dyadic p, tinyldp_dyadic q,
                                                     const tinyldp_memo_encoding* encoding);
/* describe, describe_memo, privatize and report (TINYLDP_MEMOIZED_FUNCTIONS, above); the
 * description's realized_epsilon_q32 is ε₁ (one report). Charge the ledger first
 * (tinyldp_ledger_charge_memo): only then may the report leave. */
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_two_stage_rr, uint32_t);

/* ---- reports over time: the longitudinal k-RR family and records ----------------------------- */
/* The same four functions as the two-stage RR, each chain of two k-RR stages (memoized at ε∞,
 * fresh at ε₁ < ε∞); describe_memo's p1, q1 are the memo stage's P(memo = x) and P(memo = z ≠ x),
 * p2, q2 the fresh stage's. `attribute` (≤ 2^24 − 1) names the mechanism's memos in the key: one
 * per mechanism instance on a device. Configuration runs the core's exact arithmetic (a
 * bisection for the fresh stage): do it once, at boot. */

/* L-GRR: memoized k-RR over [0, k), 2 ≤ k ≤ 2^30; a device that reports m distinct values
 * spends at most min(m, k) · ε∞. */
tinyldp_status tinyldp_l_grr_configure(tinyldp_l_grr* ctx, uint64_t epsilon_infinity_q32,
                                      uint64_t epsilon_one_q32, uint32_t k, uint32_t attribute);
tinyldp_status tinyldp_l_grr_configure_precise(tinyldp_l_grr* ctx, uint64_t epsilon_infinity_q32,
                                              uint64_t epsilon_one_q32, uint32_t k,
                                              uint32_t attribute, tinyldp_precision precision);
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_l_grr, uint32_t);

/* LOLOHA over [0, d), 2 ≤ d: the value hashed to [0, g) with a seed fixed per device (drawn from
 * the key), the hashed value memoized: at most g memos, so a history spends at most g · ε∞.
 * configure: g given (2 ≤ g ≤ 2^24, wire id loloha); configure_optimal: the paper's g for
 * (ε∞, ε₁) (loloha); configure_binary: g = 2 (BiLOLOHA, wire id biloloha). */
tinyldp_status tinyldp_loloha_configure(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                        uint64_t epsilon_one_q32, uint32_t d, uint32_t g,
                                        uint32_t attribute);
tinyldp_status tinyldp_loloha_configure_optimal(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                                uint64_t epsilon_one_q32, uint32_t d,
                                                uint32_t attribute);
tinyldp_status tinyldp_loloha_configure_binary(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                               uint64_t epsilon_one_q32, uint32_t d,
                                               uint32_t attribute);
tinyldp_status tinyldp_loloha_configure_precise(tinyldp_loloha* ctx, uint64_t epsilon_infinity_q32,
                                                uint64_t epsilon_one_q32, uint32_t d, uint32_t g,
                                                uint32_t attribute, tinyldp_precision precision);
tinyldp_status tinyldp_loloha_configure_optimal_precise(tinyldp_loloha* ctx,
                                                        uint64_t epsilon_infinity_q32,
                                                        uint64_t epsilon_one_q32, uint32_t d,
                                                        uint32_t attribute,
                                                        tinyldp_precision precision);
tinyldp_status tinyldp_loloha_configure_binary_precise(tinyldp_loloha* ctx,
                                                       uint64_t epsilon_infinity_q32,
                                                       uint64_t epsilon_one_q32, uint32_t d,
                                                       uint32_t attribute,
                                                       tinyldp_precision precision);
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_loloha, uint32_t);

/* 1BitMean: the mean of a counter in [0, max_value] (1 ≤ max_value ≤ 2^30), α-point rounded to
 * the grid of `step` (dividing max_value) with `rounding_bits` (1 … 32; 32 is the core's
 * default) bits of precision, the rounded value's bit memoized, one bit per report. */
tinyldp_status tinyldp_one_bit_mean_configure(tinyldp_one_bit_mean* ctx, uint64_t epsilon_infinity_q32,
                                          uint64_t epsilon_one_q32, uint32_t max_value,
                                          uint32_t step, uint32_t rounding_bits,
                                          uint32_t attribute);
tinyldp_status tinyldp_one_bit_mean_configure_precise(tinyldp_one_bit_mean* ctx,
                                                     uint64_t epsilon_infinity_q32,
                                                     uint64_t epsilon_one_q32, uint32_t max_value,
                                                     uint32_t step, uint32_t rounding_bits,
                                                     uint32_t attribute,
                                                     tinyldp_precision precision);
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_one_bit_mean, uint32_t);

/* dBitFlip: the histogram of a counter in [0, max_value] over k = max_value / step + 1 buckets
 * (2 ≤ k ≤ 65536); each device samples `sampled` (1 … 16, ≤ k) buckets once and reports one
 * memoized bit per sampled bucket. Payload at most TINYLDP_DBITFLIP_MAX_PAYLOAD_BYTES. */
tinyldp_status tinyldp_dbitflip_configure(tinyldp_dbitflip* ctx, uint64_t epsilon_infinity_q32,
                                          uint64_t epsilon_one_q32, uint32_t max_value,
                                          uint32_t step, uint32_t sampled, uint32_t attribute);
tinyldp_status tinyldp_dbitflip_configure_precise(tinyldp_dbitflip* ctx, uint64_t epsilon_infinity_q32,
                                                  uint64_t epsilon_one_q32, uint32_t max_value,
                                                  uint32_t step, uint32_t sampled, uint32_t attribute,
                                                  tinyldp_precision precision);
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_dbitflip, uint32_t);

/* A record of d attributes (1 ≤ d ≤ TINYLDP_RECORD_MAX_ATTRIBUTES) in one memoized report:
 * attribute j a one-hot two-stage RR over its domain, the d reports concatenated bit by bit
 * (attribute 0's first). ε₁ and ε∞ are the sums of the attributes'; describe_memo's
 * probabilities are attribute 0's. The value is an array of d values.
 * configure_rappor: RAPPOR's f, p, q for every attribute, domains[j] ≥ 2 values.
 * configure: from d configured two-stage contexts, attributes[j] one-hot with attribute j
 *   (TINYLDP_MEMO_ONE_HOT_ENCODING(k, j)); copied, so they may be reused afterwards.
 * Configuration holds copies of the record on the stack: about 5 KiB with the arithmetic
 * (Cortex-M0, -fstack-usage); do it once, at boot. */
tinyldp_status tinyldp_record_rr_configure_rappor(tinyldp_record_rr* ctx, tinyldp_dyadic f,
                                                  tinyldp_dyadic p, tinyldp_dyadic q,
                                                  const uint32_t* domains, uint32_t d);
tinyldp_status tinyldp_record_rr_configure(tinyldp_record_rr* ctx,
                                           const tinyldp_two_stage_rr* attributes, uint32_t d);
TINYLDP_MEMOIZED_FUNCTIONS(tinyldp_record_rr, const uint32_t*);

/* ---- reports over time: the privacy ledger ---------------------------------------------------- */
/* The device's privacy budget in a tinyldp_record: ε spent in the current epoch (capped) and over
 * its life, by basic composition. A one-shot report costs its ε (tinyldp_ledger_charge); a
 * memoized report costs ε∞ the first time its value is reported and nothing while the value
 * stays the same (per attribute slot; a value that changes and comes back is charged again; a
 * new key generation forgets every value; an older generation is refused). A charge is durable
 * before it answers OK, and only then may the report be made and sent; anything else means:
 * send nothing. tinyldp_ledger_charge_memo checks the report first (key provisioned, mechanism
 * configured, value in its domain): a report that would be refused costs nothing. Epochs only
 * move forward (a reset clock cannot refill the budget), any distance in one write. Opening
 * never creates a ledger: a record without a readable one is TINYLDP_LEDGER_NOT_PROVISIONED
 * until the explicit tinyldp_ledger_provision. Every write goes to both of the record's slots:
 * damage to one slot at rest reads the last acknowledged totals, never an older charge. After a
 * power cut the record holds the totals before or after the interrupted charge.
 * The C API's ledger has TINYLDP_LEDGER_ATTRIBUTES attribute slots (memoized values tracked at
 * once); its record needs a capacity of TINYLDP_LEDGER_RECORD_BYTES. Cost: the context (120
 * bytes) plus its record; a charge that changes the totals writes both slots (two erases). */
#define TINYLDP_LEDGER_ATTRIBUTES 8
#define TINYLDP_LEDGER_RECORD_BYTES (28 + 8 * TINYLDP_LEDGER_ATTRIBUTES) /* 92 */
typedef enum tinyldp_ledger_result {
  TINYLDP_LEDGER_OK = 0,
  TINYLDP_LEDGER_BUDGET_EXHAUSTED = 1, /* the charge would exceed the epoch's cap: nothing spent */
  TINYLDP_LEDGER_STORAGE_FAILED = 2,   /* not readable or not made durable: open again */
  TINYLDP_LEDGER_NOT_OPEN = 3,         /* tinyldp_ledger_open has not succeeded */
  TINYLDP_LEDGER_BAD_ATTRIBUTE = 4,    /* attribute slot ≥ TINYLDP_LEDGER_ATTRIBUTES */
  TINYLDP_LEDGER_NOT_PROVISIONED = 5,  /* no readable ledger (blank, erased, corrupt): provision */
  TINYLDP_LEDGER_ALREADY_PROVISIONED = 6, /* provision refused: the record holds a ledger */
  TINYLDP_LEDGER_BAD_REPORT = 7,       /* the mechanism would refuse the report: nothing charged */
  TINYLDP_LEDGER_KEY_NOT_PROVISIONED = 8, /* the memo key is not provisioned: nothing charged */
  TINYLDP_LEDGER_STALE_GENERATION = 9, /* a memo generation older than the ledger's */
  TINYLDP_LEDGER_BAD_EPOCH = 10        /* no epoch after 2^32 − 1 */
} tinyldp_ledger_result;

/* A closed ledger over `record` (kept by address: it must stay where it is and outlive the
 * ledger) that lets an epoch spend at most cap_q32 (ε · 2^32). A NULL record gives a ledger that
 * refuses to open (TINYLDP_LEDGER_STORAGE_FAILED). */
void tinyldp_ledger_init(tinyldp_ledger* ledger, tinyldp_record* record, uint64_t cap_q32);
/* Loads the totals; never creates them: no readable ledger is TINYLDP_LEDGER_NOT_PROVISIONED,
 * a record that cannot be read or is not a ledger TINYLDP_LEDGER_STORAGE_FAILED (so is a ledger
 * never initialised, all-zero bytes: it has no record; every charge on it is NOT_OPEN). */
tinyldp_ledger_result tinyldp_ledger_open(tinyldp_ledger* ledger);
/* The explicit provisioning step, only where open answers TINYLDP_LEDGER_NOT_PROVISIONED: at the
 * factory (0, 0, 0, 0); after a loss, the epoch and memo generation the fleet registry last saw
 * from the device, spent_q32 = the cap (the epoch counts as spent) and the lifetime it knows.
 * Durable before it answers OK; the ledger is then open. */
tinyldp_ledger_result tinyldp_ledger_provision(tinyldp_ledger* ledger, uint32_t epoch,
                                               uint32_t generation, uint64_t spent_q32,
                                               uint64_t lifetime_q32);
/* Spends `cost_q32` in the current epoch (a one-shot report's realized ε), durably. */
tinyldp_ledger_result tinyldp_ledger_charge(tinyldp_ledger* ledger, uint64_t cost_q32);
/* A memoized report of the value with keyed tag `tag` (tinyldp_memo_key_value_tag) in slot
 * `attribute`, under key `generation`: free if it is the value last charged there under this
 * generation, else ε∞. */
tinyldp_ledger_result tinyldp_ledger_charge_memoized(tinyldp_ledger* ledger, uint32_t attribute,
                                                     uint64_t tag, uint32_t generation,
                                                     uint64_t epsilon_infinity_q32);
/* The same for a report of `value` by `mechanism` under `key`, in slot `attribute`: the tag of
 * (the encoding's attribute, value), the key's generation, the mechanism's ε∞ — after checking
 * the report would be made: an unprovisioned key is TINYLDP_LEDGER_KEY_NOT_PROVISIONED, an
 * unconfigured mechanism or a value outside its domain TINYLDP_LEDGER_BAD_REPORT; nothing
 * charged. */
tinyldp_ledger_result tinyldp_ledger_charge_memo(tinyldp_ledger* ledger, uint32_t attribute,
                                                 const tinyldp_two_stage_rr* mechanism,
                                                 const tinyldp_memo_key* key, uint32_t value);
/* The same for an L-GRR report. The other memoized mechanisms memoize something the key derives
 * from the value (LOLOHA a hashed value, 1BitMean and dBitFlip a rounded one): charge them with
 * tinyldp_ledger_charge_memoized — the tag of the value (tinyldp_memo_key_value_tag with the
 * mechanism's wire id), the key's generation and describe_memo's ε∞ — which charges at least
 * what their memos cost (a memo changes only when the value does); a record each attribute in
 * its own slot, with the record's ε∞ (at least that attribute's). */
tinyldp_ledger_result tinyldp_ledger_charge_memo_l_grr(tinyldp_ledger* ledger, uint32_t attribute,
                                                      const tinyldp_l_grr* mechanism,
                                                      const tinyldp_memo_key* key, uint32_t value);
/* Starts the next epoch (its spending starts at zero), durably. */
tinyldp_ledger_result tinyldp_ledger_roll_epoch(tinyldp_ledger* ledger);
/* Moves forward to `epoch` in one write, however far; an epoch not later than the current one
 * changes nothing (OK). */
tinyldp_ledger_result tinyldp_ledger_advance_epoch(tinyldp_ledger* ledger, uint32_t epoch);
/* The memo key generation of the ledger's last memoized charge (or the provisioned one). */
uint32_t tinyldp_ledger_generation(const tinyldp_ledger* ledger);
int tinyldp_ledger_is_open(const tinyldp_ledger* ledger); /* 1 or 0 */
uint32_t tinyldp_ledger_epoch(const tinyldp_ledger* ledger);
uint64_t tinyldp_ledger_cap_q32(const tinyldp_ledger* ledger);
uint64_t tinyldp_ledger_spent_q32(const tinyldp_ledger* ledger);     /* in this epoch */
uint64_t tinyldp_ledger_remaining_q32(const tinyldp_ledger* ledger); /* cap − spent */
uint64_t tinyldp_ledger_lifetime_q32(const tinyldp_ledger* ledger);  /* over the device's life */
uint32_t tinyldp_ledger_charges(const tinyldp_ledger* ledger);       /* charges that cost ε */
const char* tinyldp_ledger_result_string(tinyldp_ledger_result result);

/* ---- authenticated reports (wire format version 2) ------------------------------------------ */
/* A version-1 report sealed for the gate (docs/wire-format.md, "Authenticated reports"): byte 0
 * becomes 2, then come the device's report counter (u32 little-endian) and a 16-byte
 * ChaCha20-Poly1305 tag (RFC 8439, empty plaintext, AAD every byte before the tag, nonce "TLDP" ‖
 * counter as u64) under the device's own key. The report must carry TINYLDP_WIRE_DEVICE_ID (the
 * provisioned id) and TINYLDP_WIRE_EPOCH. The key, the device id and the counter live in a
 * tinyldp_record of TINYLDP_REPORT_AUTH_RECORD_BYTES: counters are reserved 16 at a time, the
 * next window's start written to both slots before any counter of the window is used, so that no
 * counter is ever used twice, power cuts included (a reboot skips the rest of a window). Keep the
 * record in storage your threat model treats as secret: whoever reads the key can forge the
 * device's reports. Constant time in the key and the report's bytes on every target.
 * Cost: the context (TINYLDP_REPORT_AUTH_CONTEXT_SIZE); a seal is one ChaCha20 block and
 * ⌈(length + 4) / 16⌉ + 1 Poly1305 blocks, and a record write (two erases) every 16 reports. */
#define TINYLDP_WIRE_AUTHENTICATED_VERSION 2
#define TINYLDP_WIRE_AUTHENTICATED_TRAILER_BYTES 20 /* the counter (4) and the tag (16) */
#define TINYLDP_REPORT_AUTH_KEY_BYTES 32
#define TINYLDP_REPORT_AUTH_RECORD_BYTES 40 /* device id, key, the next window's start */
typedef enum tinyldp_report_auth_result {
  TINYLDP_REPORT_AUTH_OK = 0,
  TINYLDP_REPORT_AUTH_NOT_PROVISIONED = 1,     /* no readable record, or the context not loaded */
  TINYLDP_REPORT_AUTH_STORAGE_FAILED = 2,      /* not readable, or the counter window not durable */
  TINYLDP_REPORT_AUTH_ALREADY_PROVISIONED = 3, /* provision: the record holds one (nothing written) */
  TINYLDP_REPORT_AUTH_ZERO_KEY = 4,            /* an all-zero key, given or stored */
  TINYLDP_REPORT_AUTH_WRONG_DEVICE = 5,        /* the report names another device id */
  TINYLDP_REPORT_AUTH_NOT_A_REPORT = 6,        /* not a version-1 report (too short, NULL, version) */
  TINYLDP_REPORT_AUTH_MISSING_IDENTITY = 7,    /* no device id or no epoch field */
  TINYLDP_REPORT_AUTH_BUFFER_TOO_SMALL = 8,    /* capacity < length + 20 */
  TINYLDP_REPORT_AUTH_COUNTER_EXHAUSTED = 9    /* the next counter would be 0xFFFFFFFF */
} tinyldp_report_auth_result;

/* Makes a context that is not provisioned (every seal: NOT_PROVISIONED); all-zero bytes are the
 * same. */
void tinyldp_report_auth_init(tinyldp_report_auth* auth);
/* At boot: the device id, key and counter from `record` (kept by address: it must stay where it
 * is and outlive the context). Never creates anything. */
tinyldp_report_auth_result tinyldp_report_auth_load(tinyldp_report_auth* auth, tinyldp_record* record);
/* The factory's step: `key` (TINYLDP_REPORT_AUTH_KEY_BYTES, the fleet secret's derivation for
 * `device_id`: tinyldp_report_auth_derive_key), the first counter (0 at the factory), durable in
 * both slots; only on a record that holds none (else ALREADY_PROVISIONED, nothing written). On OK
 * the context is loaded. */
tinyldp_report_auth_result tinyldp_report_auth_provision(tinyldp_report_auth* auth, tinyldp_record* record,
                                                         uint32_t device_id, const uint8_t* key,
                                                         uint32_t first_counter);
/* Seals report[0..length) into out[0..capacity) (out may be report itself, or must not overlap
 * it); *written = length + TINYLDP_WIRE_AUTHENTICATED_TRAILER_BYTES on OK. On anything else
 * nothing is written to out, *written = 0 (written may be NULL). */
tinyldp_report_auth_result tinyldp_report_auth_seal(tinyldp_report_auth* auth, const uint8_t* report,
                                                    size_t length, uint8_t* out, size_t capacity,
                                                    size_t* written);
int tinyldp_report_auth_provisioned(const tinyldp_report_auth* auth); /* 1 or 0 */
uint32_t tinyldp_report_auth_device_id(const tinyldp_report_auth* auth);
uint32_t tinyldp_report_auth_next_counter(const tinyldp_report_auth* auth);
/* Forgets the key: not provisioned. */
void tinyldp_report_auth_wipe(tinyldp_report_auth* auth);
/* For the factory's tools, never on a device: the key of `device_id` under the 32-byte fleet
 * secret (ChaCha20 block 0 under the secret, nonce "TLDK" ‖ device id ‖ 0; its first 32 bytes). */
void tinyldp_report_auth_derive_key(const uint8_t* fleet_secret, uint32_t device_id, uint8_t* key);
const char* tinyldp_report_auth_result_string(tinyldp_report_auth_result result);

#ifdef __cplusplus
}
#endif

#endif
