// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/state_file.hpp — a collector state kept in a file of its own (record counts,
// multi-attribute counts): FileState<State> gives State load (the whole file read and handed to
// State::deserialize, its error prefixed with the path) and save (State::serialize written).
// Host only; the file is read into memory whole. Light: the file I/O is in src/counts_file.cpp.
#ifndef TINYLDP_COLLECTOR_STATE_FILE_HPP
#define TINYLDP_COLLECTOR_STATE_FILE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tinyldp::collector {

// The whole file, or nullopt with "cannot open PATH" or "cannot read PATH".
std::optional<std::vector<std::uint8_t>> read_state_file(const std::string& path, std::string& error);
// Whether the bytes were all written (the file closed: a full disk is a failure).
bool write_state_file(const std::string& path, const std::vector<std::uint8_t>& bytes);

template <class State>
struct FileState {
  static std::optional<State> load(const std::string& path, std::string& error) {
    const std::optional<std::vector<std::uint8_t>> bytes = read_state_file(path, error);
    if (!bytes) return std::nullopt;
    auto state = State::deserialize(*bytes, error);
    if (!state) error = path + ": " + error;
    return state;
  }
  bool save(const std::string& path) const {
    return write_state_file(path, static_cast<const State&>(*this).serialize());
  }
};

}  // namespace tinyldp::collector

#endif
