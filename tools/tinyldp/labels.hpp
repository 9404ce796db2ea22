// SPDX-License-Identifier: Apache-2.0
// Label mappings for `tinyldp simulate --labels/--labels-from` and `aggregate --labels`: which
// category index stands for which label. A mapping is numbered in order of first appearance
// or read from a labels file (one label per line, line i is index i − 1); its SHA-256
// (collector/label_digest.hpp) is recorded in report files and states, so a labels file is
// checked against the reports it is applied to. Cost: the labels and a hash table of them.
#ifndef TINYLDP_TOOLS_LABELS_HPP
#define TINYLDP_TOOLS_LABELS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tinyldp/collector/label_digest.hpp"

namespace tinyldp::tools {

class LabelMap {
 public:
  // An empty mapping that numbers new labels in order of first appearance, up to `domain`.
  explicit LabelMap(std::uint32_t domain);
  // The mapping of a labels file, fixed: a label not in it is an error. `option` names where
  // the file came from in messages ("--labels-from"). Throws if the file cannot be read, has
  // a label twice, or more labels than `domain`.
  static LabelMap read(const std::string& path, std::uint32_t domain, const std::string& option);

  // The index of `label` if it has one.
  std::optional<std::uint32_t> find(std::string_view label) const {
    const auto it = index_.find(label);
    return it == index_.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  // The index of `label`; a new label gets the next index unless the mapping is fixed.
  // Throws, naming `where` (file:row), for a label a fixed mapping lacks, one label too many,
  // or a label with a line break (a labels file holds one label per line).
  std::uint32_t index(std::string_view label, const std::string& where);

  const std::vector<std::string>& labels() const { return labels_; }
  // SHA-256 of the labels, each followed by "\n": the sha256sum of the file write() makes.
  collector::LabelDigest digest() const;
  // Writes the labels file; throws with the reason if it cannot.
  void write(const std::string& path) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::uint32_t add(std::string_view label, const std::string& where);

  std::uint32_t domain_;
  bool fixed_ = false;
  std::string origin_;  // "FILE (--labels-from)" for a fixed mapping
  std::vector<std::string> labels_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

}  // namespace tinyldp::tools

#endif
