// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/label_digest.hpp — the identity of a label mapping (item index → label).
//
// Devices report category indices; which index stands for which label is part of the
// configuration, as much as ε is. A report file and an aggregate state record the SHA-256 of
// their mapping (docs/wire-format.md, "Label mappings"): the mapping written one label per line,
// each followed by "\n" — for a labels file tinyldp wrote, the `sha256sum` of the file. The
// collector only stores and compares digests (whoever holds the labels computes them: the CLI);
// shards with different mappings never merge. Cost: 32 bytes per file or state. Host only.
#ifndef TINYLDP_COLLECTOR_LABEL_DIGEST_HPP
#define TINYLDP_COLLECTOR_LABEL_DIGEST_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tinyldp::collector {

using LabelDigest = std::array<std::uint8_t, 32>;

// What a file or state records: a digest, or nothing (the items are category indices, or the
// file predates label digests and its mapping, if any, is unknown).
using LabelMappingId = std::optional<LabelDigest>;

// Lower-case hex, as sha256sum prints it.
std::string to_hex(const LabelDigest& digest);
// "labels sha256 1a2b3c4d…" (the first 16 hex digits) or "no recorded label mapping".
std::string describe(const LabelMappingId& labels);

}  // namespace tinyldp::collector

#endif
