// SPDX-License-Identifier: Apache-2.0
// SP 800-90B §4.4.1 (repetition count) and §4.4.2 (adaptive proportion) over a sample stream.
#include "tinyldp/port/entropy/health_tests.hpp"

namespace tinyldp::port {

namespace {
bool valid(const HealthConfig& c) {
  return (c.sample_bits == 1 || c.sample_bits == 8) && (c.sample_bits == 8 || c.h_q8 <= 256) &&
         c.apt_window >= 2;
}
}  // namespace

HealthMonitor::HealthMonitor(const HealthConfig& config) : HealthMonitor(HealthPlan::make(config)) {}

HealthMonitor::HealthMonitor(const HealthPlan& plan)
    : rct_cutoff_(plan.rct_cutoff),
      apt_cutoff_(plan.apt_cutoff),
      apt_window_(plan.config.apt_window),
      sample_bits_(plan.config.sample_bits) {
  // A cutoff the window can never reach would make the APT a no-op: refuse that too.
  if (!valid(plan.config) || rct_cutoff_ == 0 || apt_cutoff_ == 0 || apt_cutoff_ > apt_window_)
    failure_ = HealthFailure::bad_config;
}

void HealthMonitor::reset() {
  if (failure_ == HealthFailure::bad_config) return;
  samples_ = 0;
  rct_run_ = 0;
  apt_count_ = 0;
  apt_seen_ = 0;
  failure_ = HealthFailure::none;
}

bool HealthMonitor::sample(uint8_t s) {
  ++samples_;
  // Repetition count: a run of rct_cutoff identical samples trips.
  if (rct_run_ != 0 && s == rct_last_) {
    if (++rct_run_ >= rct_cutoff_) {
      failure_ = HealthFailure::repetition_count;
      return false;
    }
  } else {
    rct_last_ = s;
    rct_run_ = 1;
  }
  // Adaptive proportion: the window's first sample may not recur apt_cutoff times in it.
  if (apt_seen_ == 0) {
    apt_first_ = s;
    apt_count_ = 1;
  } else if (s == apt_first_) {
    if (++apt_count_ >= apt_cutoff_) {
      failure_ = HealthFailure::adaptive_proportion;
      return false;
    }
  }
  if (++apt_seen_ == apt_window_) apt_seen_ = 0;
  return true;
}

bool HealthMonitor::feed(const uint8_t* data, size_t length) {
  if (failure_ != HealthFailure::none) return false;
  for (size_t i = 0; i < length; ++i) {
    if (sample_bits_ == 8) {
      if (!sample(data[i])) return false;
    } else {
      for (unsigned b = 0; b < 8; ++b)
        if (!sample(static_cast<uint8_t>((data[i] >> b) & 1u))) return false;
    }
  }
  return true;
}

}  // namespace tinyldp::port
