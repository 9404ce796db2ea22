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
#include <map>
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
  enum class Error : std::uint8_t {
    none,
    other_parameters,
    other_labels,
    count_overflow,
    inconsistent,
    other_epochs,   // memoized reports of different epochs, neither side pooling them
    same_source,    // both sides counted one report file (its digest)
    bloom_cohorts,  // a Bloom state whose cohort cells are not self-consistent
    cells,          // counts no reports add up to (Mechanism::counts_consistent: hh, haar-hrr)
  };
  Error error = Error::none;
  explicit operator bool() const { return error == Error::none; }
  const char* reason() const;
};

// A report file counted into an aggregate: its records' digest (report_file.hpp) and, when only
// one epoch of it was counted (aggregate --epoch), that epoch.
struct Source {
  std::uint64_t digest = 0;
  std::optional<std::uint32_t> epoch;  // nullopt: the whole file
  // Two countings share reports: one file, counted whole by either or for one same epoch.
  bool overlaps(const Source& o) const { return digest == o.digest && (!epoch || !o.epoch || *epoch == *o.epoch); }
  bool operator==(const Source&) const = default;
};

// The files an aggregate counted, none overlapping another. Serialized as a count (u32) and,
// per source, its digest (u64), whether it names an epoch (u8) and the epoch (u32).
class Sources {
 public:
  // False (nothing changes) if `s` overlaps one already here.
  bool add(const Source& s);
  // The first of other's that overlaps one of these, if any.
  std::optional<Source> overlap(const Sources& other) const;
  void append(const Sources& other) { list_.insert(list_.end(), other.list_.begin(), other.list_.end()); }
  const std::vector<Source>& list() const { return list_; }
  bool empty() const { return list_.empty(); }
  void clear() { list_.clear(); }
  void serialize(std::vector<std::uint8_t>& out) const;
  // Reads them from the front of `bytes` (advanced past them); false if they are malformed.
  static bool read(std::span<const std::uint8_t>& bytes, Sources& out);

 private:
  std::vector<Source> list_;
};

class Aggregator {
 public:
  // `labels`: the label mapping of the items, when they have one (report_file.hpp records it).
  explicit Aggregator(const Mechanism& mechanism, const LabelMappingId& labels = {});

  // Parses, checks and counts one report; on any error the state is unchanged. A memoized
  // mechanism's aggregate holds one epoch (its first report's; a report without the epoch
  // field is its own "epoch") unless it pools them (pool_epochs): a report of another is
  // ParseError::other_epoch.
  ParseError ingest(std::span<const std::uint8_t> report);

  // Reports counted per epoch field (std::nullopt: reports without one). A state saved before
  // epochs were recorded (TLDPAGG3 and older) knows none: epochs_known() is false.
  const std::map<std::optional<std::uint32_t>, std::uint64_t>& epochs() const { return epochs_; }
  bool epochs_known() const { return epochs_known_; }
  // Pooling epochs of a memoized mechanism: allowed only where the mechanism states how two
  // reports of one device covary (Mechanism::memo_covariance), so the estimate's standard error
  // can account for the shared memos (estimates.hpp); false otherwise (nothing changes).
  bool pool_epochs();
  bool pools_epochs() const { return pooled_; }

  // The report files this aggregate counted, by their digest (report_file.hpp): a merge refuses
  // a shard that counted one of them too. add_source is false (nothing changes) if it overlaps.
  bool add_source(const Source& source) { return sources_.add(source); }
  const Sources& sources() const { return sources_; }
  void clear_sources() { sources_.clear(); }

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

  // "TLDPAGG4", the report-file header of the reports it counts (the one configuration
  // record, report_file.hpp; header version 3 when it records a label mapping), the report
  // count, the support counts, then the epochs, whether it pools them, and the sources (LE;
  // docs/wire-format.md). deserialize also reads versions 1–3, whose epochs and sources are
  // unknown and whose label mapping (1, 2) is unknown.
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
  std::map<std::optional<std::uint32_t>, std::uint64_t> epochs_;
  bool epochs_known_ = true;
  bool pooled_ = false;
  Sources sources_;
};

}  // namespace tinyldp::collector

#endif
