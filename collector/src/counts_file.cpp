// SPDX-License-Identifier: Apache-2.0
// The counts files' shared parts: the file I/O (state_file.hpp) and the frame (counts_file.hpp).
#include "counts_file.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

#include "tinyldp/collector/state_file.hpp"
#include "tinyldp/endian.hpp"

namespace tinyldp::collector {

std::optional<std::vector<std::uint8_t>> read_state_file(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {  // a read error is not a short file
    error = "cannot read " + path;
    return std::nullopt;
  }
  return bytes;
}

bool write_state_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();  // the last buffered bytes are written here: a full disk shows only now
  return !out.fail();
}

std::optional<CountsFileHeader> read_counts_header(std::span<const std::uint8_t> bytes, const char (&magic)[8],
                                                   const std::string& what, std::size_t least_body,
                                                   std::string& error) {
  if (bytes.size() < 12 || std::memcmp(bytes.data(), magic, 8) != 0) {
    error = "not a " + what + " file (no " + std::string(magic, 8) + " header)";
    return std::nullopt;
  }
  const std::uint32_t len = get_le<std::uint32_t>(bytes.data() + 8);
  if (bytes.size() < 12 + std::uint64_t{len} + least_body) {
    error = what + " file truncated in its header";
    return std::nullopt;
  }
  return CountsFileHeader{nlohmann::json::parse(bytes.begin() + 12, bytes.begin() + 12 + len, nullptr, false),
                          12 + std::size_t{len}};
}

nlohmann::json attributes_json(const std::vector<RecordAttribute>& attributes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : attributes) out.push_back({{"name", a.name}, {"size", a.size}, {"labels", a.labels}});
  return out;
}

std::optional<std::vector<RecordAttribute>> attributes_from_json(const nlohmann::json& list, const std::string& what,
                                                                 std::optional<std::uint32_t> most_size,
                                                                 std::string& error) {
  std::vector<RecordAttribute> attributes;
  for (const auto& a : list) {
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("size") ||
        !a["size"].is_number_unsigned() || (most_size && a["size"].get<std::uint64_t>() > *most_size) ||
        !a.contains("labels") || !a["labels"].is_array()) {
      error = what + " header: an attribute lacks its name, size";
      if (most_size) error += " (at most " + std::to_string(*most_size) + ")";
      error += " or labels";
      return std::nullopt;
    }
    RecordAttribute r;
    r.name = a["name"].get<std::string>();
    const auto size = a["size"].get<std::uint64_t>();
    r.size = size > 0xFFFFFFFFu ? 0u : static_cast<std::uint32_t>(size);  // 0: refused by the schema
    for (const auto& l : a["labels"]) {
      if (!l.is_string()) {
        error = what + " header: a label is not a string";
        return std::nullopt;
      }
      r.labels.push_back(l.get<std::string>());
    }
    attributes.push_back(std::move(r));
  }
  return attributes;
}

}  // namespace tinyldp::collector
