// SPDX-License-Identifier: Apache-2.0
// The baseline: board startup, main() and the platform stubs, no tinyldp code. Every other
// program's size minus this one's is what the library adds.
#include "footprint.hpp"

extern "C" int footprint_run() { return 0; }
