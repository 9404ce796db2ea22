// SPDX-License-Identifier: Apache-2.0
// Little-endian fields appended to a growing byte vector (aggregate states, report-file
// headers): the core's put_le into the vector's new tail. Collector-internal.
#ifndef TINYLDP_COLLECTOR_SRC_BYTE_VECTOR_HPP
#define TINYLDP_COLLECTOR_SRC_BYTE_VECTOR_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tinyldp/endian.hpp"

namespace tinyldp::collector {

template <class T>
void append_le(std::vector<std::uint8_t>& out, T v, std::size_t bytes = sizeof(T)) {
  out.resize(out.size() + bytes);
  put_le(out.data() + out.size() - bytes, v, bytes);
}

// A state file written into a buffer sized once, through a cursor (the counts files: 8-byte
// magic, u32 LE length of a JSON header, the header, then fixed-width fields). Appending to a
// growing vector there makes GCC 12 at -O3 report a memmove past the end (-Warray-bounds) that
// cannot happen. `body` is the size of what follows the header; writing past it, or finishing
// short of it, is a bug in the caller: std::logic_error.
class SizedWriter {
 public:
  SizedWriter(const char (&magic)[8], const std::string& header, std::size_t body)
      : out_(12 + header.size() + body) {
    bytes(magic, 8);
    le(static_cast<std::uint32_t>(header.size()));
    bytes(header.data(), header.size());
  }
  void bytes(const void* data, std::size_t n) {
    std::memcpy(room(n), data, n);
    at_ += n;
  }
  template <class T>
  void le(T v) {
    put_le(room(sizeof(T)), v);
    at_ += sizeof(T);
  }
  std::vector<std::uint8_t> finish() {
    if (at_ != out_.size()) throw std::logic_error("SizedWriter: fewer bytes written than sized");
    return std::move(out_);
  }

 private:
  std::uint8_t* room(std::size_t n) {
    if (n > out_.size() - at_) throw std::logic_error("SizedWriter: more bytes written than sized");
    return out_.data() + at_;
  }
  std::vector<std::uint8_t> out_;
  std::size_t at_ = 0;
};

}  // namespace tinyldp::collector

#endif
