// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/change_exposure.hpp — how exposed a change of value is under a memoized
// protocol: the probability that a device's memo changes when its value changes to another
// one, from the exact probabilities the devices use. A collector that sees enough reports of
// both values learns the memos (the fresh noise averages out), so this is the rate at which it
// can tell that the value changed as the rounds grow (tests/privacy/test_change_detection
// measures the approach for a concrete test; the limit it prints is this figure). Each memoized
// model computes its own (change_exposure(): the UE chains and RAPPOR in models/two_stage_rr.hpp,
// L-GRR in models/longitudinal_grr.hpp, LOLOHA in models/loloha.hpp); the numeric protocols'
// depends on where the value moves, and the records have none (nullopt), nor have the
// mechanisms without memo. Host only.
#ifndef TINYLDP_COLLECTOR_CHANGE_EXPOSURE_HPP
#define TINYLDP_COLLECTOR_CHANGE_EXPOSURE_HPP

#include <optional>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

std::optional<double> change_exposure(const Mechanism& m);

}  // namespace tinyldp::collector

#endif
