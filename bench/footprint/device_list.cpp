// SPDX-License-Identifier: Apache-2.0
// The device list (tests/support/device_mechanisms.hpp), precompiled once for all the footprint
// programs of its entries (mechanism.cpp, one per entry): its constexpr configurations take the
// compiler most of a minute in every file that includes it, the records' above all. This object
// is linked into no program; compiling it checks that CMakeLists.txt read every entry.
#include "device_mechanisms.hpp"

static_assert(tinyldp::device::Mechanisms::size == TINYLDP_FOOTPRINT_ENTRIES,
              "bench/footprint/CMakeLists.txt read another number of entries than the device list has");
