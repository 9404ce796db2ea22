// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/change_exposure.hpp — how exposed a change of value is under a memoized
// protocol: the probability that a device's memo changes when its value changes to another
// one, from the exact probabilities the devices use. A collector that sees enough reports of
// both values learns the memos (the fresh noise averages out), so this is the rate at which it
// can tell that the value changed as the rounds grow (tests/privacy/test_change_detection
// measures the approach for a concrete test; the limit it prints is this figure):
//  - one-hot UE chains and RAPPOR (k bits): two bits move between the rows (p1, q1) and
//    (q1, p1), the other k − 2 are two independent draws of q1 each:
//    1 − (p1q1 + (1 − p1)(1 − q1))² · (q1² + (1 − q1)²)^(k − 2);
//  - L-GRR over [k]: 1 − (2p1q1 + (k − 2)q1²) (two independent k-RR memos agree);
//  - LOLOHA over [g]: the hashed values collide w.p. 1/g (the same memo, nothing shows), else
//    as L-GRR over [g]: 1 − (1/g + (1 − 1/g)(2p1q1 + (g − 2)q1²)).
// Numeric protocols depend on where the value moves (nullopt here). Host only.
#ifndef TINYLDP_COLLECTOR_CHANGE_EXPOSURE_HPP
#define TINYLDP_COLLECTOR_CHANGE_EXPOSURE_HPP

#include <optional>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

std::optional<double> change_exposure(const Mechanism& m);

}  // namespace tinyldp::collector

#endif
