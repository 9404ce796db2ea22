// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/multi_attribute_counts.hpp — the collector's state for the multi-attribute
// protocols without memo (multi_attribute.hpp: SPL, SMP, RS+FD over GRR or OUE) and their
// one-way marginals.
//
// The schema rebuilds the devices' core object from (protocol, ε, the attributes' domains) and
// so knows the wire description and every slot's exact probabilities. The counts are, per
// attribute j, the support of each value v (GRR: the slot holds v; OUE: bit v is set) and n_j,
// the reports that carry attribute j (SMP: those that sampled it; the others: all). Each
// protocol reduces, per attribute, to a (p, q) channel of frequency_estimate.hpp —
//   SPL, SMP          the slot's own (p, q) (SMP over its n_j reports);
//   RS+FD[GRR]        p/d + (d−1)/(dk),                 q/d + (d−1)/(dk);
//   RS+FD[OUE-z]      p/d + (d−1)q/d,                   q;
//   RS+FD[OUE-r]      p/d + (d−1)(p + (k−1)q)/(dk),     q/d + (d−1)(p + (k−1)q)/(dk)
// (the probability that a report supports v given the device holds v, or another value) — so
// the estimate (C − n q)/(p − q) is the paper's unbiased estimator and its variance the usual
// n·q(1 − q)/(p − q)² for a value nobody holds. Counts merge by adding (same schema only).
//
// File ("TLDPMUL1"): u32 LE length of a JSON header (protocol, ε, attributes with names, sizes
// and labels, digest, the realized ε figures), the header, u64 LE reports, then per attribute
// u64 LE n_j and its k_j u64 LE supports. Host only.
#ifndef TINYLDP_COLLECTOR_MULTI_ATTRIBUTE_COUNTS_HPP
#define TINYLDP_COLLECTOR_MULTI_ATTRIBUTE_COUNTS_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tinyldp/collector/framed_reports.hpp"
#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/multi_attribute.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

struct ItemEstimate;  // estimates.hpp (which includes this header through mechanism.hpp)

using wire::MechanismId;

// The protocols by name: the rows of the collector's table (mechanism.hpp) of kind record
// without memo — "spl-grr", "spl-oue", "smp-grr", "smp-oue", "rsfd-grr", "rsfd-oue-z",
// "rsfd-oue-r" (wire ids 23 … 29).
std::optional<MechanismId> multi_attribute_protocol(std::string_view name);
const char* multi_attribute_name(MechanismId id);  // nullptr for another id
std::string multi_attribute_names();               // the names, joined by ", "

class MultiAttributeSchema {
 public:
  static constexpr std::uint32_t max_attributes = max_record_attributes;
  // eps: ε per report for SPL and SMP, the paper's ε for RS+FD (ε' derived from it).
  static std::optional<MultiAttributeSchema> make(MechanismId protocol, Epsilon eps,
                                                  std::vector<RecordAttribute> attributes, std::string& error);

  MechanismId protocol() const { return protocol_; }
  const char* name() const { return multi_attribute_name(protocol_); }
  Epsilon requested_epsilon() const { return requested_; }
  const std::vector<RecordAttribute>& attributes() const { return attributes_; }
  std::uint32_t attribute_count() const { return static_cast<std::uint32_t>(attributes_.size()); }
  const wire::Description& description() const { return description_; }
  std::size_t payload_bytes() const { return description_.payload_bytes(); }
  // The loss of one report between any two records (exact, from the integers).
  Epsilon epsilon_per_report() const { return per_report_; }
  // RS+FD: between records that differ in one attribute (the paper's notion); its ε'.
  std::optional<Epsilon> epsilon_one_attribute() const { return one_attribute_; }
  std::optional<Epsilon> amplified_epsilon() const { return amplified_; }
  // The ε each attribute's oracle is configured with, and what it realizes.
  Epsilon slot_epsilon(std::uint32_t j) const;
  // Attribute j's channel as the estimator sees it (see above).
  Channel channel(std::uint32_t j) const { return channels_[j]; }
  // Every attribute's values as one run of items: attribute j's value v is item
  // item_offset(j) + v; items() = Σ k_j.
  std::uint32_t item_offset(std::uint32_t j) const { return item_offsets_[j]; }
  std::uint32_t items() const { return item_offsets_.back(); }
  // The attribute called `name` (or given as its number).
  std::optional<std::uint32_t> find(const std::string& name) const;
  bool same_as(const MultiAttributeSchema& other) const;

  // A device's report of values[0 … d − 1] into payload (payload_bytes()), by the core.
  template <class Rng>
  Status privatize(const std::uint32_t* values, Rng& rng, std::uint8_t* payload) const {
    return std::visit([&](const auto& core) { return core.privatize(values, rng, payload, payload_bytes()); }, core_);
  }
  // Adds one payload's support to `support` (items(): the values it supports, by item) and to
  // `carried` (d: the attributes it carries; may be empty); a reason, and nothing added, if it
  // is not a payload this schema's devices could send (a value ≥ k, an index ≥ d, padding set).
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support,
                   std::span<std::uint64_t> carried) const;

 private:
  MechanismId protocol_{};
  Epsilon requested_{}, per_report_{};
  std::optional<Epsilon> one_attribute_, amplified_;
  std::vector<RecordAttribute> attributes_;
  std::variant<SplitRecord<GrrSlot, max_attributes>, SplitRecord<OueSlot, max_attributes>,
               SampledAttribute<GrrSlot, max_attributes>, SampledAttribute<OueSlot, max_attributes>,
               FakeDataRecord<GrrSlot, max_attributes>, FakeDataRecord<OueSlot, max_attributes>>
      core_;
  wire::Description description_{};
  std::vector<Channel> channels_;
  std::vector<std::uint32_t> offsets_;  // each slot's first bit (SMP: 8, the slot after the index)
  std::vector<std::uint32_t> item_offsets_ = {0};  // d + 1: attribute j's first item, then Σ k_j
};

struct MarginalEstimate {
  std::vector<double> frequency;  // unbiased, may be negative
  std::vector<double> stddev;     // of each frequency, for a value nobody holds
  std::uint64_t reports = 0;      // n_j
};

// Kept in a file of its own: load and save (state_file.hpp).
class MultiAttributeCounts : public FileState<MultiAttributeCounts> {
 public:
  explicit MultiAttributeCounts(MultiAttributeSchema schema);
  const MultiAttributeSchema& schema() const { return schema_; }
  std::uint64_t reports() const { return total_; }
  std::uint64_t carried(std::uint32_t j) const { return carried_[j]; }
  std::span<const std::uint64_t> support(std::uint32_t j) const {
    return std::span(support_).subspan(schema_.item_offset(j), schema_.attributes()[j].size);
  }

  // One payload; a reason (nothing counted) if it is malformed.
  ParseError add_payload(std::span<const std::uint8_t> payload);
  // Device reports framed with the wire header, back to back (framed_reports.hpp); at the first
  // bad one nothing more is counted and its reason is returned.
  std::optional<FramedReportError> add_framed(std::span<const std::uint8_t> reports);
  // Adds other's counts; false (nothing changed) if its schema differs.
  bool merge(const MultiAttributeCounts& other);
  MarginalEstimate estimate(std::uint32_t j) const;
  // Attribute j's marginal as aggregate's items (estimates.hpp): the unbiased estimate, its
  // standard error at the estimate (the variance of a value held by max(0, min(ĉ, n_j))
  // reporters; when the n_j reports that carry j are a sample of the N records — SMP — plus the
  // sample's f(1 − f)/n_j · (1 − n_j/N)), count = estimate × n_j and the normal interval at
  // `confidence` (0 < confidence < 1, else std::invalid_argument). No post-processing:
  // estimate = unbiased_estimate. No report carrying j (n_j = 0): count 0 and every other field
  // NaN, never a confident 0. (estimate() gives the unbiased estimates with the standard
  // deviation of a value nobody holds, for planning.)
  std::vector<ItemEstimate> estimate_items(std::uint32_t j, double confidence) const;

  std::vector<std::uint8_t> serialize() const;
  static std::optional<MultiAttributeCounts> deserialize(std::span<const std::uint8_t> bytes, std::string& error);

 private:
  MultiAttributeSchema schema_;
  std::vector<std::uint64_t> support_;  // schema_.items(), attribute by attribute
  std::vector<std::uint64_t> carried_;
  std::uint64_t total_ = 0;
};

}  // namespace tinyldp::collector

#endif
