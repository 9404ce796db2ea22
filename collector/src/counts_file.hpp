// SPDX-License-Identifier: Apache-2.0
// What the two counts files (record_counts.cpp: TLDPJNT1; multi_attribute_counts.cpp: TLDPMUL1)
// share: the frame — 8-byte magic, u32 LE length, a JSON header, then the body (written by
// byte_vector.hpp's SizedWriter) — and the header's list of attributes. `what` names the file
// in the errors ("record-counts"). Defined in counts_file.cpp. Collector-internal.
#ifndef TINYLDP_COLLECTOR_SRC_COUNTS_FILE_HPP
#define TINYLDP_COLLECTOR_SRC_COUNTS_FILE_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::collector {

struct CountsFileHeader {
  nlohmann::json json;  // discarded if it is not JSON (the caller says what it expected)
  std::size_t body_at;  // where the body starts
};
// The magic checked and the header parsed, with at least least_body bytes after it; else
// nullopt and why.
std::optional<CountsFileHeader> read_counts_header(std::span<const std::uint8_t> bytes, const char (&magic)[8],
                                                   const std::string& what, std::size_t least_body,
                                                   std::string& error);

// [{"name", "size", "labels"}, …]
nlohmann::json attributes_json(const std::vector<RecordAttribute>& attributes);
// The list read back; a size above most_size (when given) is refused with the rest.
std::optional<std::vector<RecordAttribute>> attributes_from_json(const nlohmann::json& list, const std::string& what,
                                                                 std::optional<std::uint32_t> most_size,
                                                                 std::string& error);

}  // namespace tinyldp::collector

#endif
