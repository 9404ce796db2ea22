// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/bloom_decode.hpp — the distribution over candidate strings behind memoized
// Bloom-filter reports (two_stage_rr.hpp's Bloom encoding: k bits, h hashes, m cohorts), by
// RAPPOR's candidate regression.
//
// A Bloom report's bits say little alone: which bits a value sets depends on its cohort, and
// many values share bits. Given the per-cohort bit counts X[c][i] and report counts N[c]
// (Aggregator: the cells of TwoStageModel), each cohort's bit rates are debiased with the
// composed channel — t[c][i] = (X/N − p*)/(q* − p*), the share of the cohort's devices whose
// filter has bit i — and regressed on the design matrix A[(c, i)][j] = 1 when candidate j sets
// bit i in cohort c (TwoStageRr::bloom_position, the devices' own hash): the frequencies f ≥ 0
// minimize Σ w_c (t − A f)² (non-negative least squares, w_c = N_c over the cohort's binomial
// variance), with standard errors from the least-squares fit on the candidates it keeps (the
// sandwich form, each cell's own binomial variance). A candidate is *detected* when f_j > z·SE_j
// with z the one-sided normal quantile at significance α/J (Bonferroni over the J candidates).
// What the candidates do not explain is reported as unexplained mass, 1 − Σ f.
// A candidate string is the device's value through bloom_value (FNV-1a, 32 bits): the device
// hashes the same string the same way.
// Cost: J² doubles for the normal equations (J candidates), m·k·h·J hash evaluations.
#ifndef TINYLDP_COLLECTOR_BLOOM_DECODE_HPP
#define TINYLDP_COLLECTOR_BLOOM_DECODE_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

// The 32-bit value a device reports for a string (FNV-1a): what simulate privatizes and the
// decoder hashes candidates by.
std::uint32_t bloom_value(std::string_view text);

struct BloomCandidate {
  std::string label;
  double frequency = 0;       // non-negative least squares
  double standard_error = 0;  // of the least-squares fit on the kept candidates
  bool detected = false;      // frequency > threshold_z · standard_error
};

struct BloomDecode {
  std::vector<BloomCandidate> candidates;  // in the order given
  double unexplained = 0;                  // 1 − Σ frequency (what the candidates leave)
  double threshold_z = 0;                  // the detection threshold in standard errors
  double significance = 0;                 // α before the Bonferroni division
  std::uint64_t reports = 0;
  std::uint32_t cohorts_reporting = 0;  // cohorts with at least one report
  std::uint32_t sweeps = 0;             // coordinate-descent sweeps of the NNLS
};

// The decode of `support` (an Aggregator's, of a Bloom mechanism) over `candidates` (distinct
// strings whose bloom_value differ); nullopt with the reason when it cannot be done.
std::optional<BloomDecode> decode_bloom(const Mechanism& mechanism, std::span<const std::uint64_t> support,
                                        std::span<const std::string> candidates, double significance,
                                        std::string& error);

}  // namespace tinyldp::collector

#endif
