// SPDX-License-Identifier: Apache-2.0
// Little-endian fields appended to a growing byte vector (aggregate states, report-file
// headers): the core's put_le into the vector's new tail. Collector-internal.
#ifndef TINYLDP_COLLECTOR_SRC_BYTE_VECTOR_HPP
#define TINYLDP_COLLECTOR_SRC_BYTE_VECTOR_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tinyldp/endian.hpp"

namespace tinyldp::collector {

template <class T>
void append_le(std::vector<std::uint8_t>& out, T v, std::size_t bytes = sizeof(T)) {
  out.resize(out.size() + bytes);
  put_le(out.data() + out.size() - bytes, v, bytes);
}

}  // namespace tinyldp::collector

#endif
