// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/label_digest.hpp"

namespace tinyldp::collector {

std::string to_hex(const LabelDigest& digest) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

std::string describe(const LabelMappingId& labels) {
  if (!labels) return "no recorded label mapping";
  return "labels sha256 " + to_hex(*labels).substr(0, 16) + "…";
}

}  // namespace tinyldp::collector
