// SPDX-License-Identifier: Apache-2.0
// tools/tinyldp/counts_files.hpp — the one path by which `aggregate`, `joint` and `multi` read
// counts and add files of them up: a schema from a counts file or a report file's header, device
// reports counted into it, and files merged with every refusal in one place (CountsMerge): a file
// given twice, a copy of one, counts of another configuration. What the three counts types
// differ in — how a duplicate is recognised, what a configuration is, the refusals' wording — is
// CountsKind<Counts>, one specialization each (collector::EpochSeries for aggregate, RecordCounts
// for joint, MultiAttributeCounts for multi). Costs: one serialization of each merged counts file
// (to recognise a copy); the report files are read once, as record_reports.hpp does.
#ifndef TINYLDP_TOOLS_COUNTS_FILES_HPP
#define TINYLDP_TOOLS_COUNTS_FILES_HPP

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"  // BadInput
#include "record_reports.hpp"

#include "tinyldp/collector/epoch_series.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"
#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::tools {

template <class Counts>
struct CountsKind;

// What the refusals of a counts file's ingest and merge name: the command, the --schema file it
// needs, and what two files must share to merge.
struct CountsFileTexts {
  const char* ingest_command;
  const char* schema_file;
  const char* configuration;
};

// A file of counts names itself by its bytes: counts files keep no record of the reports they
// hold, so two files with the same counts (not empty) are taken to be one file given twice, and
// refused before they merge.
template <class CountsSchema>
struct CountsFileKind {
  using Schema = CountsSchema;
  using Fingerprint = std::vector<std::uint8_t>;
  static constexpr bool refuses_copies = true;
  template <class Counts>
  static std::vector<Fingerprint> fingerprints(const Counts& c) {
    if (c.reports() == 0) return {};  // empty counts may repeat: they add nothing
    return {c.serialize()};
  }
  static bool same(const Fingerprint& a, const Fingerprint& b) { return a == b; }
  static std::string duplicate(const std::string& from, const std::string& earlier) {
    return from + " holds the same counts as " + earlier +
           (from == earlier ? " (the same file given twice)" : " (a copy)") + ": merged, its reports would count twice";
  }
  template <class Counts>
  static bool merge(Counts& total, const Counts& c) {
    return total.merge(c);
  }
};

// Each kind of counts file: its schema, the schema a report file's mechanism makes (attributes
// numbered; BadInput naming `path` for another kind of reports), the reports a schema expects (their
// wire description, and how a refusal names them), and how one payload is counted.

// joint: record counts (wire id 22, collector/record_counts.hpp).
template <>
struct CountsKind<collector::RecordCounts> : CountsFileKind<collector::RecordSchema> {
  static constexpr CountsFileTexts texts{"joint ingest", "a record-counts file of the same record",
                                         "record schema (attributes, labels or f, p, q)"};
  static Schema schema_of(const collector::Mechanism& m, const std::string& path);
  static std::pair<wire::Description, std::string> expected(const Schema& s);
  static collector::ParseError add(collector::RecordCounts& c, std::span<const std::uint8_t> payload) {
    return c.add(payload) ? collector::ParseError::none : collector::ParseError::nonzero_padding;
  }
};

// multi: SPL, SMP and RS+FD counts (collector/multi_attribute_counts.hpp).
template <>
struct CountsKind<collector::MultiAttributeCounts> : CountsFileKind<collector::MultiAttributeSchema> {
  static auto add(collector::MultiAttributeCounts& c, std::span<const std::uint8_t> p) { return c.add_payload(p); }
  static Schema schema_of(const collector::Mechanism& m, const std::string& path);
  static std::pair<wire::Description, std::string> expected(const Schema& s);
  static constexpr CountsFileTexts texts{"multi ingest", "a counts file of the same protocol and attributes",
                                         "schema (protocol, epsilon, attributes or labels)"};
};

// aggregate: a time series of one mechanism's aggregates, from report files and saved states.
// Each knows the report files it counted (their records' digests), so a duplicate is found by
// the collector's merge; `counted` only names the earlier file.
template <>
struct CountsKind<collector::EpochSeries> {
  using Fingerprint = collector::Source;
  static constexpr bool refuses_copies = false;  // the series' merge finds them
  static std::vector<Fingerprint> fingerprints(const collector::EpochSeries& c) { return c.sources().list(); }
  static bool same(const Fingerprint& a, const Fingerprint& b) { return a.overlaps(b); }
  // Throws BadInput for another mechanism, other parameters or labels, or reports counted before
  // (`earlier` names the file that counted them, or nullptr).
  static void merge(collector::EpochSeries& total, const collector::EpochSeries& c, const std::string& from,
                    const std::string& first, const std::string* earlier);
};

// The schema of counts file `schema` (its names and labels) when given, or else the one the
// header of report file `reports` describes (attributes numbered 0, 1, …); BadInput when there
// is neither (framed reports say no attributes) or the header describes another kind of counts.
template <class Counts>
typename CountsKind<Counts>::Schema ingest_schema(const std::string& reports, const std::string& schema) {
  using Kind = CountsKind<Counts>;
  if (!schema.empty()) {
    std::string error;
    const auto like = Counts::load(schema, error);
    if (!like) throw BadInput(error);
    return like->schema();
  }
  const auto m = record_file_mechanism(reports);
  if (!m)
    throw BadInput(std::string(Kind::texts.ingest_command) + ": " + reports +
                   " holds framed reports, which do not say their attributes: give --schema (" +
                   Kind::texts.schema_file + ")");
  return Kind::schema_of(*m, reports);
}

// `joint ingest` and `multi ingest`: the device reports of `reports` (a report file or framed
// reports) counted under ingest_schema and written to `output`; nothing written on a refusal.
template <class Counts>
Counts ingest_counts(const std::string& reports, const std::string& schema, const std::string& output) {
  using Kind = CountsKind<Counts>;
  Counts counts(ingest_schema<Counts>(reports, schema));
  const auto [description, description_text] = Kind::expected(counts.schema());
  read_record_reports(reports, description, description_text,
                      [&](std::span<const std::uint8_t> payload) { return Kind::add(counts, payload); });
  if (!counts.save(output)) throw BadInput("cannot write " + output + ": " + std::strerror(errno));
  return counts;
}

// Counts of one configuration added up file by file, refusing what would count a report twice
// or mix configurations. Throws BadInput; the counts added so far stay as they were.
template <class Counts>
class CountsMerge {
 public:
  using Kind = CountsKind<Counts>;

  // Adds `c`, read from `from`; its report files are named `counted_as` in a later refusal
  // (aggregate: a saved state's are "a file that STATE counted").
  void add(Counts c, const std::string& from, const std::string& counted_as) {
    auto prints = Kind::fingerprints(c);
    if constexpr (Kind::refuses_copies) {
      for (const auto& print : prints)
        for (const auto& [earlier_print, earlier] : counted_)
          if (Kind::same(print, earlier_print)) throw BadInput(Kind::duplicate(from, earlier));
    }
    for (auto& print : prints) counted_.emplace_back(std::move(print), counted_as);
    if (!total_) {
      total_ = std::move(c);
      first_ = from;
      return;
    }
    if constexpr (Kind::refuses_copies) {  // a counts file: merged, or another configuration
      if (!Kind::merge(*total_, c)) throw BadInput(from + ": another " + Kind::texts.configuration + " than " + first_);
    } else {
      Kind::merge(*total_, c, from, first_, earliest_overlap(c));
    }
  }
  void add(Counts c, const std::string& from) { add(std::move(c), from, from); }

  // Every file of `inputs` (Counts::load) merged in order; BadInput when there are none.
  void add_files(const std::vector<std::string>& inputs) {
    for (const auto& path : inputs) {
      std::string error;
      auto c = Counts::load(path, error);
      if (!c) throw BadInput(error);
      add(std::move(*c), path);
    }
  }

  bool empty() const { return !total_; }
  Counts& total() { return *total_; }

 private:
  // The first file counted before whose reports `c` counts again, if any.
  const std::string* earliest_overlap(const Counts& c) const {
    for (const auto& [print, name] : counted_)
      for (const auto& mine : Kind::fingerprints(c))
        if (Kind::same(mine, print)) return &name;
    return nullptr;
  }

  std::optional<Counts> total_;
  std::string first_;                                                      // the file that fixed the configuration
  std::vector<std::pair<typename Kind::Fingerprint, std::string>> counted_;  // what each file counted, named
};

// `joint merge` and `multi merge`: counts files of one configuration merged in order and written
// to `output`. Throws BadInput (nothing written).
template <class Counts>
Counts merge_counts_files(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty() || output.empty()) throw BadInput("merge: input files and --output are required");
  CountsMerge<Counts> all;
  all.add_files(inputs);
  if (!all.total().save(output)) throw BadInput("cannot write " + output + ": " + std::strerror(errno));
  return std::move(all.total());
}

}  // namespace tinyldp::tools

#endif
