// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/state_file.hpp — a collector state kept in a file of its own: the whole file
// read and handed to State::deserialize (its error prefixed with the path), or State::serialize
// written. For the states that are one file each (record counts, multi-attribute counts). Host
// only; the file is read into memory whole.
#ifndef TINYLDP_COLLECTOR_STATE_FILE_HPP
#define TINYLDP_COLLECTOR_STATE_FILE_HPP

#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace tinyldp::collector {

template <class State>
std::optional<State> load_state(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto state = State::deserialize(bytes, error);
  if (!state) error = path + ": " + error;
  return state;
}

template <class State>
bool save_state(const State& state, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const auto bytes = state.serialize();
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace tinyldp::collector

#endif
