// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/record_counts.hpp — the collector's state for multi-attribute record
// reports (record_rr.hpp): the record's schema (attribute names, domain sizes, labels, RAPPOR's
// f, p, q) and the count of every distinct report bit pattern.
//
// Why counts of whole patterns: the joint estimators (joint.hpp) need the reports' bits of the
// chosen attributes together, not per-bit sums; identical patterns are kept once with their
// count, so memory is bounded by min(N, 2^(record bits)) patterns and the estimators' cost by
// the distinct patterns over the chosen attributes, not by N. Merging two states of the same
// schema adds counts: exact, associative, commutative.
//
// File (`tinyldp joint simulate` writes it, `tinyldp joint` reads it, `joint merge` merges):
// "TLDPJNT1", u32 LE length of a JSON header (the schema, its digest, ε₁ and ε∞), the header,
// u64 LE number of distinct patterns, u64 LE number of reports, then per pattern its
// ⌈bits/8⌉ report bytes and a u64 LE count, patterns in increasing byte order. Host only.
#ifndef TINYLDP_COLLECTOR_RECORD_COUNTS_HPP
#define TINYLDP_COLLECTOR_RECORD_COUNTS_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tinyldp/collector/framed_reports.hpp"
#include "tinyldp/collector/state_file.hpp"
#include "tinyldp/record_rr.hpp"

namespace tinyldp::collector {

// The most attributes a record may have on the collector.
inline constexpr std::uint32_t max_record_attributes = 64;
using CollectorRecordRr = RecordRr<max_record_attributes>;

struct RecordAttribute {
  std::string name;
  std::uint32_t size = 2;            // |Ω_j|, the one-hot bits
  std::vector<std::string> labels;   // value v's label (empty: the numbers 0 … size − 1)
  bool operator==(const RecordAttribute&) const = default;
};

// The attributes' domain sizes, each checked (at least 2 values; as many labels as values, if
// any): empty with the reason in `error` when one is not. Records and multi-attribute reports
// alike.
std::vector<std::uint32_t> checked_attribute_sizes(const std::vector<RecordAttribute>& attributes,
                                                   std::string& error);
// The index of the attribute called `name` (or given as its number); nullopt if none. Both
// schemas' find.
std::optional<std::uint32_t> find_attribute(const std::vector<RecordAttribute>& attributes,
                                            const std::string& name);

// What a record is and how it was privatized.
class RecordSchema {
 public:
  // Empty optional and a reason if the core refuses the configuration.
  static std::optional<RecordSchema> make(std::vector<RecordAttribute> attributes, Dyadic f, Dyadic p,
                                          Dyadic q, std::string& error);
  const std::vector<RecordAttribute>& attributes() const { return attributes_; }
  const CollectorRecordRr& mechanism() const { return mechanism_; }
  Dyadic f() const { return f_; }
  Dyadic p() const { return p_; }
  Dyadic q() const { return q_; }
  // Attribute j's composed per-bit channel: P(report bit 1 | value bit set) and (| unset).
  double q_star(std::uint32_t j) const { return q_star_[j]; }
  double p_star(std::uint32_t j) const { return p_star_[j]; }
  // The index of the attribute called `name` (or given as its number); nullopt if none.
  std::optional<std::uint32_t> find(const std::string& name) const;
  bool same_as(const RecordSchema& other) const;

 private:
  std::vector<RecordAttribute> attributes_;
  CollectorRecordRr mechanism_{};
  Dyadic f_{}, p_{}, q_{};
  std::vector<double> q_star_, p_star_;
};

// Kept in a file of its own: load and save (state_file.hpp).
class RecordCounts : public FileState<RecordCounts> {
 public:
  explicit RecordCounts(RecordSchema schema) : schema_(std::move(schema)) {}
  const RecordSchema& schema() const { return schema_; }
  // One report of schema().mechanism().report_bytes() bytes; false (nothing counted) if its
  // length is wrong or bits past the record are set.
  bool add(std::span<const std::uint8_t> report, std::uint64_t count = 1);
  // Device reports framed with the wire header (id record_rr, this schema's digest), back to
  // back: each checked (framed_reports.hpp) and counted; at the first bad one nothing more is
  // counted and its reason is returned (the reports before it stay counted).
  std::optional<FramedReportError> add_framed(std::span<const std::uint8_t> reports);
  // Adds other's counts; false (nothing changed) if its schema differs.
  bool merge(const RecordCounts& other);
  std::uint64_t reports() const { return total_; }
  // Report patterns in byte order (every pattern of one schema has the same length). The
  // comparison is a plain byte loop: std::less<std::vector> inlines a memcmp whose bound GCC 12
  // at -O3 cannot prove, and reports as -Wstringop-overread.
  struct PatternOrder {
    bool operator()(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) const {
      const std::size_t n = a.size() < b.size() ? a.size() : b.size();
      for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return a[i] < b[i];
      return a.size() < b.size();
    }
  };
  using Patterns = std::map<std::vector<std::uint8_t>, std::uint64_t, PatternOrder>;
  const Patterns& patterns() const { return patterns_; }

  std::vector<std::uint8_t> serialize() const;
  static std::optional<RecordCounts> deserialize(std::span<const std::uint8_t> bytes, std::string& error);

 private:
  RecordSchema schema_;
  Patterns patterns_;
  std::uint64_t total_ = 0;
};

}  // namespace tinyldp::collector

#endif
