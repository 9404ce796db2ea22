// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/aggregator.hpp — streaming, mergeable aggregation of one mechanism's
// reports into support counts.
//
// ingest() parses untrusted bytes strictly (report_parser.hpp) and changes the state only
// for a fully valid report. The state — the mechanism's configuration and its label mapping
// (label_digest.hpp), the number of reports and the support count of every item — serializes to bytes and merges exactly, so
// shards can be aggregated anywhere and combined later in any order. Host only.
// Cost: 8 bytes per item; ingest is O(payload) (UE counts 64 bits per step, not bit by bit).
#ifndef TINYLDP_COLLECTOR_AGGREGATOR_HPP
#define TINYLDP_COLLECTOR_AGGREGATOR_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/bit_column_counter.hpp"
#include "tinyldp/collector/label_digest.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/report_parser.hpp"

namespace tinyldp::collector {

// The outcome of a merge: true when the other shard's counts were added; otherwise why not
// (nothing changed).
struct MergeResult {
  enum class Error : std::uint8_t { none, other_parameters, other_labels, count_overflow, inconsistent };
  Error error = Error::none;
  explicit operator bool() const { return error == Error::none; }
  const char* reason() const;
};

class Aggregator {
 public:
  // `labels`: the label mapping of the items, when they have one (report_file.hpp records it).
  explicit Aggregator(const Mechanism& mechanism, const LabelMappingId& labels = {});

  // Parses, checks and counts one report; on any error the state is unchanged.
  ParseError ingest(std::span<const std::uint8_t> report);

  const Mechanism& mechanism() const { return mechanism_; }
  const LabelMappingId& labels() const { return labels_; }
  // Gives a state that records no label mapping (its items are indices, or it was saved before
  // mappings were recorded) the one its owner vouches for; a recorded mapping never changes
  // (returns false).
  bool assume_labels(const LabelDigest& labels);
  std::uint64_t reports() const { return reports_; }
  const std::vector<std::uint64_t>& support() const;

  // Adds another shard's counts, with checked arithmetic: refused (and no change) if it
  // aggregates other parameters or another label mapping (a mapping recorded on one side only
  // is another mapping: item i must be the same label on both sides), if a count would
  // overflow 64 bits, or if the shard is not self-consistent (a support count above its
  // report count).
  MergeResult merge(const Aggregator& other);

  // "TLDPAGG3", the report-file header of the reports it counts (the one configuration
  // record, report_file.hpp; header version 3 when it records a label mapping), the report
  // count, the support counts (LE). deserialize also reads the states of versions 1 and 2
  // (docs/wire-format.md), whose label mapping is unknown (none recorded).
  std::vector<std::uint8_t> serialize() const;
  static std::optional<Aggregator> deserialize(std::span<const std::uint8_t> bytes,
                                               std::string& error);

 private:
  Mechanism mechanism_;
  LabelMappingId labels_;
  std::uint64_t reports_ = 0;
  // Support counts; for unary encodings some are still pending in the column counter, which
  // support() (and everything that reads the counts) flushes first.
  mutable std::vector<std::uint64_t> support_;
  mutable std::optional<BitColumnCounter> columns_;
};

}  // namespace tinyldp::collector

#endif
