// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/health_tests.hpp — NIST SP 800-90B continuous health tests (repetition count
// and adaptive proportion, §4.4) wrapped around a raw noise source such as a hardware TRNG.
//
// HealthTested<Raw> is itself an entropy source. Every sample the raw source delivers passes
// both tests before any byte reaches the caller; the first fill also runs the start-up test
// (1024 samples, discarded). When a test trips, the request's bytes are zeroed and the source
// answers `failed` from then on — fail closed — until reinit(). Samples are bytes
// (sample_bits = 8, e.g. nRF51/STM32 output) or single bits (sample_bits = 1, LSB first).
// Cutoffs come from the claimed min-entropy H per sample and α = 2^-k (health_cutoffs.hpp).
// The estimate it reports is the claim (H per byte-sample, 8H per byte of bit-samples), never more
// than the raw source's own: a raw source that states no estimate gives none (the DRBG then
// refuses to seed from it, as from the raw source) — the health tests check a claim, they do
// not make one.
// Cost: RAM sizeof(HealthMonitor) = 32 bytes + a reference to the raw source; time a few
// instructions per sample (8 per byte with bit samples); the start-up test reads 1024 samples.
#ifndef TINYLDP_PORT_HEALTH_TESTS_HPP
#define TINYLDP_PORT_HEALTH_TESTS_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"
#include "tinyldp/port/entropy/health_cutoffs.hpp"

namespace tinyldp::port {

struct HealthConfig {
  uint16_t h_q8 = 256;       // claimed min-entropy per sample, 1/256 bit (256 = 1 bit)
  uint8_t alpha_log2 = 20;   // false-alarm rate α = 2^-alpha_log2 per sample (20..40 typical)
  uint8_t sample_bits = 8;   // 1 (binary samples) or 8 (byte samples)
  uint16_t apt_window = 512;  // SP 800-90B: 1024 for binary samples, 512 otherwise
};

// A configuration with its cutoffs, computed where make() runs: at compile time for a constexpr
// plan (constexpr auto plan = HealthPlan::make({...})), so a firmware with a fixed
// configuration links no cutoff computation (the APT's binomial tail: most of the
// health_tests row of docs/footprint.md, which computes at run time, against the oue_firmware
// row, which does not). A zero cutoff marks a configuration out of range.
struct HealthPlan {
  HealthConfig config{};
  uint32_t rct_cutoff = 0;
  uint32_t apt_cutoff = 0;

  static constexpr HealthPlan make(const HealthConfig& c) {
    return {c, tinyldp::port::rct_cutoff(c.h_q8, c.alpha_log2),
            tinyldp::port::apt_cutoff(c.apt_window, c.h_q8, c.alpha_log2).cutoff};
  }
};

enum class HealthFailure : uint8_t { none, repetition_count, adaptive_proportion, bad_config };

// The claim as min-entropy per output byte (1/256 bit): H per byte-sample, 8H per byte of
// bit-samples.
constexpr uint16_t claimed_estimate_q8(const HealthConfig& c) {
  return static_cast<uint16_t>(c.sample_bits == 1 ? 8u * c.h_q8 : uint32_t{c.h_q8});
}

// The two tests over a stream of samples; no source of its own (usable on any sample stream).
class HealthMonitor {
 public:
  static constexpr uint32_t startup_samples = 1024;

  explicit HealthMonitor(const HealthConfig& config);  // computes the cutoffs here
  explicit HealthMonitor(const HealthPlan& plan);

  // Tests every sample in data[0..length); false (and failure() set) once a test trips.
  bool feed(const uint8_t* data, size_t length);
  HealthFailure failure() const { return failure_; }
  // 1-based index of the sample that tripped a test (0 while none did).
  uint64_t tripped_at_sample() const { return failure_ == HealthFailure::none ? 0 : samples_; }
  uint64_t samples() const { return samples_; }
  uint32_t rct_cutoff() const { return rct_cutoff_; }
  uint32_t apt_cutoff() const { return apt_cutoff_; }
  uint8_t sample_bits() const { return sample_bits_; }
  // Forgets all history and any failure (the cutoffs stay).
  void reset();

 private:
  bool sample(uint8_t s);

  uint64_t samples_ = 0;
  uint32_t rct_cutoff_;
  uint32_t apt_cutoff_;
  uint32_t rct_run_ = 0;
  uint32_t apt_count_ = 0;
  uint16_t apt_window_;
  uint16_t apt_seen_ = 0;
  uint8_t sample_bits_;
  uint8_t rct_last_ = 0;
  uint8_t apt_first_ = 0;
  HealthFailure failure_ = HealthFailure::none;
};

template <EntropySource Raw>
class HealthTested {
 public:
  HealthTested(Raw& raw, const HealthConfig& config)
      : HealthTested(raw, HealthMonitor(config), config) {}
  // With the cutoffs computed beforehand (a constexpr HealthPlan: no computation linked).
  HealthTested(Raw& raw, const HealthPlan& plan) : HealthTested(raw, HealthMonitor(plan), plan.config) {}

  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    if (monitor_.failure() != HealthFailure::none) return EntropyResult::failed;
    if (!started_) {
      const EntropyResult r = startup(flags);
      if (r != EntropyResult::ok) return r;
    }
    if (length == 0) return EntropyResult::ok;
    const EntropyResult r = raw_.fill(out, length, flags);
    if (r == EntropyResult::ok && monitor_.feed(out, length)) return EntropyResult::ok;
    for (size_t i = 0; i < length; ++i) out[i] = 0;
    return r == EntropyResult::ok ? EntropyResult::failed : r;
  }

  uint16_t min_entropy_q8() const { return lower_estimate(entropy_estimate(raw_), claim_); }
  const HealthMonitor& monitor() const { return monitor_; }
  const Raw& raw_source() const { return raw_; }
  // Re-initialisation after a trip (or to re-run the start-up test): all history forgotten.
  void reinit() {
    monitor_.reset();
    started_ = false;
    startup_done_ = 0;
  }

 private:
  HealthTested(Raw& raw, const HealthMonitor& monitor, const HealthConfig& config)
      : raw_(raw),
        monitor_(monitor),
        claim_(claimed_estimate_q8(config)) {}

  // The lower of the raw source's estimate and the claim; unknown stays unknown.
  static constexpr uint16_t lower_estimate(uint16_t raw, uint16_t claim) {
    if (raw == TINYLDP_ENTROPY_ESTIMATE_UNKNOWN) return TINYLDP_ENTROPY_ESTIMATE_UNKNOWN;
    return raw < claim ? raw : claim;
  }

  EntropyResult startup(uint32_t flags) {
    const uint32_t bytes = HealthMonitor::startup_samples * monitor_.sample_bits() / 8;
    uint8_t chunk[32];
    while (startup_done_ < bytes) {
      const uint32_t left = bytes - startup_done_;
      const size_t n = left < sizeof chunk ? left : sizeof chunk;
      const EntropyResult r = raw_.fill(chunk, n, flags);
      if (r != EntropyResult::ok) return r;  // not_ready: progress is kept for the next call
      const bool passed = monitor_.feed(chunk, n);
      for (uint8_t& b : chunk) b = 0;
      if (!passed) return EntropyResult::failed;
      startup_done_ += static_cast<uint32_t>(n);
    }
    started_ = true;
    return EntropyResult::ok;
  }

  Raw& raw_;
  HealthMonitor monitor_;
  uint32_t startup_done_ = 0;
  uint16_t claim_;
  bool started_ = false;
};

// Every port is checked against its contract where it is declared (a wrapper: over the
// contract's archetype).
static_assert(EntropySource<HealthTested<EntropySourceArchetype>> &&
              EntropyEstimating<HealthTested<EntropySourceArchetype>>);

}  // namespace tinyldp::port

#endif
