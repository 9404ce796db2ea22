// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/epoch_series.hpp — a fleet's reports aggregated per epoch: the time series
// `aggregate` prints, one aggregate (aggregator.hpp) per value of the reports' epoch field.
//
// Why per epoch: a device that reports every epoch with a memoized mechanism sends the same memo
// each time its value stays, so its reports of several epochs are not independent; counting
// them as one aggregate would shrink the standard error below the truth (measured: 95 %
// intervals covered 88 % of the time). Each epoch's reports are one per device, independent
// across devices, and estimated as such; pooled() adds the epochs up only where the mechanism
// states how the shared memos covary (Aggregator::pool_epochs), and the estimate then accounts
// for them. The series also remembers the report files it counted (their digests,
// report_file.hpp), so a file given twice — directly or through saved states — is refused.
// Serializes ("TLDPSER1") and merges exactly, like an aggregate. Host only.
// Cost: one aggregate per epoch (8 bytes per item each).
#ifndef TINYLDP_COLLECTOR_EPOCH_SERIES_HPP
#define TINYLDP_COLLECTOR_EPOCH_SERIES_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"

namespace tinyldp::collector {

class EpochSeries {
 public:
  using Epoch = std::optional<std::uint32_t>;  // nullopt: reports without the epoch field

  EpochSeries(const Mechanism& mechanism, const LabelMappingId& labels = {});

  // Parses and counts one report into its epoch's aggregate (made on first use); a report that
  // does not parse is refused with its reason and changes nothing.
  ParseError ingest(std::span<const std::uint8_t> report);

  const Mechanism& mechanism() const { return mechanism_; }
  const LabelMappingId& labels() const { return labels_; }
  bool assume_labels(const LabelDigest& labels);
  const std::map<Epoch, Aggregator>& epochs() const { return epochs_; }
  std::uint64_t reports() const;
  // The epochs' reports pooled into one aggregate: for a memoized mechanism it pools epochs
  // (Aggregator::pool_epochs) and is nullopt where the mechanism cannot; else a plain sum. An
  // empty series pools to an empty aggregate.
  std::optional<Aggregator> pooled() const;

  // The report files counted (aggregator.hpp's Source); false (nothing changes) if it overlaps
  // one already counted.
  bool add_source(const Source& source) { return sources_.add(source); }
  const Sources& sources() const { return sources_; }

  // Adds another series epoch by epoch (refused, with nothing changed, if any epoch's merge is,
  // or if both counted one file).
  MergeResult merge(const EpochSeries& other);
  // Adds a saved aggregate to its epoch's (a state saved before epochs were recorded goes to the
  // reports-without-epoch slot); one that holds several epochs in one count cannot be split and
  // is refused (other_epochs).
  MergeResult merge(const Aggregator& state);

  // "TLDPSER1", the sources (Sources::serialize), the number of epochs (u32),
  // then each epoch's aggregate state as a u64 length and its bytes (aggregator.hpp), in epoch
  // order. deserialize also takes a single aggregate state (any version) as a series of it.
  std::vector<std::uint8_t> serialize() const;
  static std::optional<EpochSeries> deserialize(std::span<const std::uint8_t> bytes, std::string& error);

 private:
  Mechanism mechanism_;
  LabelMappingId labels_;
  std::map<Epoch, Aggregator> epochs_;
  Sources sources_;
};

}  // namespace tinyldp::collector

#endif
