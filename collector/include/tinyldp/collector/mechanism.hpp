// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/mechanism.hpp — a configured mechanism as the collector sees it.
//
// The collector rebuilds the *same* mechanism as the devices from (name, ε, domain,
// precision) — the core's configuration is deterministic — and so knows the exact realized
// probabilities, the wire description (payload size, parameter digest) and how a payload
// supports items. Which mechanisms exist, and what each one is, lives in one place: the models
// (models/<core header>.hpp, one per core header, each with its rows), listed once in
// models/all.hpp; that list makes the table below (one row per wire id) and the variant a
// Mechanism holds its model in and dispatches through. Host only.
//
// Numeric mechanisms (`sd`, `dlaplace`, `pm`, `hm`, `sw`, `1bitmean`) privatize an integer of [lo, hi];
// their "items" are the reported levels (sd: L levels), reported values (dlaplace: lo … hi,
// W + 1 of them), cells (pm: M; hm: M cells then Duchi's two levels) or the reported bit
// (1bitmean: 0 for lo, 1 for hi), and the support count of an item is the number of reports
// equal to it. The mean and (but for pm and hm) the distribution are estimated from those counts
// (estimates.hpp, numeric_estimate.hpp).
#ifndef TINYLDP_COLLECTOR_MECHANISM_HPP
#define TINYLDP_COLLECTOR_MECHANISM_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/models/all.hpp"
#include "tinyldp/collector/parameters.hpp"
#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

class Mechanism;

// What configure answers: ok, or the core's status with a sentence saying which parameter is
// at fault, its value and what is allowed (the CLI prints it as it is). Compares with Status.
struct ConfigureResult {
  Status status = Status::ok;
  std::string reason;  // empty when ok
  explicit operator bool() const { return status == Status::ok; }
  bool operator==(Status s) const { return status == s; }
};

// The table of mechanisms: every model's rows (models/all.hpp), in id order. A row without
// configure is known on the wire but not configured by name (custom-probability ue). Built on
// first use (its record rows' examples hold vectors).
struct MechanismRow {
  MechanismId id;
  const char* name;  // the same in the CLI, Python, report files and the docs
  const char* core_type;    // the device's type (docs/mechanisms.md: every name of a mechanism)
  const char* core_header;  // its header in lib/include/tinyldp/, and the model's in models/
  MechanismKind kind;
  ConfigureResult (*configure)(const MechanismConfig& config, Mechanism& out);
  // A small valid configuration, for the tests, the fuzz corpus and the docs' examples.
  MechanismConfig example;
  ModelTraits traits;  // the parameters it takes (parameters.hpp)
};
std::span<const MechanismRow> mechanism_table();
const MechanismRow* find_mechanism(MechanismId id);
// The rows that configure by name (what the CLI accepts).
const MechanismRow* find_mechanism(std::string_view name);
std::optional<MechanismId> mechanism_from_name(std::string_view name);
// name_of(id): models/mechanism_config.hpp.
// The names configurable by name, in id order, joined by ", " (of one kind, or all).
std::string mechanism_names(std::optional<MechanismKind> kind = std::nullopt);

// The first field in which a configuration read from a file differs from the one configure
// normalizes it to ("" if none): headers and saved states have one encoding per mechanism, and
// anything else (an rr with domain 12345, an sd with domain 0) is refused with this reason.
std::string config_difference(const MechanismConfig& given, const MechanismConfig& canonical);

class Mechanism {
 public:
  // Configures exactly as a device would (through the id's row): the core's status, and why.
  static ConfigureResult configure(const MechanismConfig& config, Mechanism& out);
  // A row's configure: the model's, then the normalized configuration and the description.
  template <class Model>
  static ConfigureResult configure_as(const MechanismConfig& config, Mechanism& out);
  // The mechanism a stored configuration (a report-file header, a saved state) describes, if
  // it configures, its parameter digest matches and it is canonical (config_difference); else
  // nullopt with the reason, prefixed by what was read ("report file header").
  static std::optional<Mechanism> from_stored(const MechanismConfig& config, std::uint64_t digest,
                                              const std::string& what, std::string& error);

  const MechanismConfig& config() const { return config_; }
  const wire::Description& description() const { return description_; }
  Channel channel() const { return channel_; }
  std::uint32_t domain() const { return domain_; }  // number of items estimated
  bool numeric() const { return config_.numeric(); }
  // A record of several attributes (MechanismKind::record): configured by attribute_sizes,
  // privatized by privatize_record, estimated by `tinyldp multi` / `joint`, not by one channel.
  bool record() const;
  Epsilon realized_epsilon() const;
  // The loss between any two inputs (the local-DP guarantee): realized_epsilon() except for
  // dlaplace with Δ < W.
  Epsilon local_epsilon() const;
  // Random bits one report consumes (the same for every value).
  std::uint64_t random_bits_per_report() const;
  // The realized probabilities, exactly: (p, q) as Dyadics — for rr/krr p is derived.
  std::string probabilities_as_fractions() const;
  // Reports are counted by the bit-sliced column counter (unary encodings).
  bool uses_bit_columns() const;
  // The most one report adds to one item's support count: 1, except SHE's 2T + 1.
  std::uint64_t max_support_per_report() const;
  // Whether `support` is a count `reports` reports can add up to (≤ reports × the most one adds).
  bool support_possible(std::uint64_t support, std::uint64_t reports) const {
    std::uint64_t bound = 0;
    return __builtin_mul_overflow(reports, max_support_per_report(), &bound) || support <= bound;
  }

  // Whether the support counts of `reports` reports hold together beyond support_possible (a
  // corrupt or forged state is refused, not estimated): a Bloom state's cohorts and hh's levels —
  // each cell at most its group's reports, the groups' reports summing to the total
  // (grouped_counts_consistent) — and haar-hrr's cells, one per report, summing to the total.
  // True for the others.
  bool counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports) const;

  // Privatizes `value` into a complete wire report appended to `out` (nothing appended on
  // failure): a category index for the categorical mechanisms, a number of [lo, hi] for the
  // numeric ones — one path for both; the core refuses a value outside its domain
  // (value_out_of_domain), and a value no device could hold (beyond the model's value type)
  // is bad_parameter.
  template <class Rng>
  Status privatize(std::int64_t value, Rng& rng, const wire::Header& header,
                   std::vector<std::uint8_t>& out) const;
  // The same for a device with a memo key (a MemoKey, memo.hpp): memoized mechanisms draw their
  // memo from it and the report's header gains the key's generation (and, for Bloom
  // encodings, the cohort); the others ignore the key. A memoized mechanism refuses a report
  // without a key (bad_parameter).
  template <class Rng, class Key>
  Status privatize(std::int64_t value, Rng& rng, const Key& key, wire::Header header,
                   std::vector<std::uint8_t>& out) const;
  // A record's report: values[j] for attribute j (d of them), appended to out as a complete
  // wire report (nothing on failure; a wrong count of values is bad_parameter). The memoized
  // `record` needs the device's memo key (the second form); the others ignore it. Not a
  // record mechanism: bad_parameter.
  template <class Rng>
  Status privatize_record(std::span<const std::uint32_t> values, Rng& rng, const wire::Header& header,
                          std::vector<std::uint8_t>& out) const;
  template <class Rng, class Key>
  Status privatize_record(std::span<const std::uint32_t> values, Rng& rng, const Key& key, wire::Header header,
                          std::vector<std::uint8_t>& out) const;
  // Whether reports need a memo key (and spend ε∞ per value over a device's life).
  bool memoized() const;
  // A Bloom-filter encoding (MechanismConfig::bloom): items are per-cohort cells, decoded by
  // bloom_decode.hpp against candidates, not through channel().
  bool bloom() const { return config_.bloom(); }
  // Counts a Bloom report of `cohort` (the header's; refused if absent or ≥ m); not a Bloom
  // encoding: wrong_mechanism.
  ParseError count_bloom(std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
                         std::span<std::uint64_t> support) const;
  // ε∞ of a memoized mechanism (the loss of unlimited reports of one value); else nullopt.
  std::optional<Epsilon> epsilon_infinity() const;
  // The most memos one device of a memoized mechanism can hold, whatever its values do (the
  // one-hot chains and L-GRR: the domain; LOLOHA: g; 1BitMean: the grid's J + 1 points), so
  // its lifetime budget is at most that many times ε∞; else nullopt.
  std::optional<std::uint32_t> most_memos() const;
  // How two reports of one device holding one value covary through their shared memo
  // (models/model_base.hpp): what pooling epochs needs; nullopt where tinyldp has no such model
  // (not memoized, Bloom filters, 1BitMean, dBitFlip, records) and epochs are aggregated apart.
  std::optional<MemoCovariance> memo_covariance() const;
  // What a memoized mechanism keeps a memo per: "value", "hashed value" (LOLOHA), "grid point"
  // (1BitMean); "" for the others.
  const char* memos_of() const;

  // The configuration fields the mechanism is configured by, in order, with their values:
  // {domain} for the categorical mechanisms, {lo, hi, levels | sensitivity | grid_step} for the
  // numeric, {attributes} (d; the sizes are config().attribute_sizes) for the records.
  struct Parameter {
    const char* name;
    std::int64_t value;
  };
  std::vector<Parameter> parameters() const;
  bool takes_levels() const;       // configured by MechanismConfig::levels
  bool takes_sensitivity() const;  // realized_epsilon() is for inputs ≤ sensitivity apart
  bool takes_grid_step() const;    // configured by MechanismConfig::grid_step (1bitmean, dbitflip)
  bool takes_sampled() const;      // configured by MechanismConfig::sampled (dbitflip)
  bool takes_branching() const;    // configured by MechanismConfig::branching (hh)
  bool integer_items() const;      // every item stands for an integer
  bool deconvolved() const;        // items estimated by deconvolution, not through channel()
  bool mean_only() const;          // the reports give a mean, no distribution (pm, hm)
  bool one_item_per_report() const;  // a report supports exactly one item (its output)

  // The value item i stands for: sd lo + i·W/(L − 1), dlaplace lo + i (categorical: i); pm, hm
  // and sw: the cell's score (one report's unbiased estimate of the value).
  double item_value(std::uint32_t item) const;
  // The rows of a distribution: what the values round to (sw: its D buckets, lo … hi evenly,
  // which it reports as N = D + 2B cells), else the items; and the value each stands for.
  std::uint32_t atoms() const;
  double atom_value(std::uint32_t atom) const;
  // The rows (atoms()) a noiseless value occupies, with weights summing to 1 (what --truth
  // compares with): the item standing for the value, or for sd and sw the two levels or buckets
  // it rounds to.
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  // Calls f(model) with the mechanism's model (a CollectorModel, models/model_base.hpp), for
  // code that needs a member of the interface Mechanism does not forward (noise_model,
  // change_exposure).
  template <class F>
  decltype(auto) visit_model(F&& f) const {
    return std::visit(std::forward<F>(f), model_);
  }

  // Checks a payload's content beyond its length (e.g. a k-RR value < k).
  ParseError check_payload(std::span<const std::uint8_t> payload) const;
  // Adds 1 to support[i] for every item i the payload supports.
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const;
  // check_payload, then add_support if it passed (the payload decoded once): the ingest path.
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const;
  // The payload's fields by name, for `inspect`.
  std::vector<PayloadField> payload_fields(std::span<const std::uint8_t> payload) const;

 private:
  // The key of the forms without one: a memoized model refuses the report.
  struct NoKey {};
  // Encodes a privatized payload (when s is ok) into a complete report appended to out.
  Status finish(Status s, const std::vector<std::uint8_t>& payload, const wire::Header& header,
                std::vector<std::uint8_t>& out) const;

  MechanismConfig config_{};
  ModelVariant model_{};
  wire::Description description_{};
  Channel channel_{};
  std::uint32_t domain_ = 0;
};

template <class Model>
ConfigureResult Mechanism::configure_as(const MechanismConfig& config, Mechanism& out) {
  const auto refuse = [](std::string reason) {
    return ConfigureResult{Status::bad_parameter, std::move(reason)};
  };
  const std::string name = name_of(config.id);
  if (config.domain > max_collector_domain)
    return refuse("domain " + std::to_string(config.domain) + " is above the collector's limit " +
                  std::to_string(max_collector_domain));
  if (!config.numeric() &&
      (config.lo != 0 || config.hi != 0 || config.levels != 0 || config.sensitivity != 0 ||
       config.noise_bits != 0))
    return refuse("lo, hi, levels and sensitivity are for the numeric mechanisms (" +
                  mechanism_names(MechanismKind::numeric) + "), not " + name);
  if (!Model::memoized && (config.epsilon_one.q32 != 0 || config.prr_f != Dyadic{} ||
                           config.irr_p != Dyadic{} || config.irr_q != Dyadic{}))
    return refuse("epsilon-one, f, p and q are for the memoized mechanisms, not " + name);
  if (!Model::takes_bloom && (config.bloom_hashes != 0 || config.bloom_cohorts != 0))
    // (its wording predates the table: takers(ParameterId::bloom_bits) are rappor and the chains)
    return refuse("a Bloom filter (hashes, cohorts) is for rappor and the UE chains, not " + name);
  // levels, sensitivity, grid-step, sampled-buckets: parameters.hpp's rows with a Refusal.
  if (std::string reason = untaken_parameter(config, find_mechanism(config.id)->traits, name); !reason.empty())
    return refuse(std::move(reason));
  if (Model::kind != MechanismKind::record && !config.attribute_sizes.empty())
    return refuse("attribute sizes are for the record mechanisms (" + mechanism_names(MechanismKind::record) +
                  "), not " + name);
  if (std::string reason = Model::check_parameters(config); !reason.empty())
    return refuse(std::move(reason));
  Mechanism m;
  m.config_ = config;
  Model model;
  std::string why;  // the record schemas say why they refuse
  Status s = Status::ok;
  if constexpr (Model::kind == MechanismKind::record)
    s = Model::configure(config, model, m.config_, why);
  else
    s = Model::configure(config, model, m.config_);
  if (s != Status::ok)
    return {s, why.empty() ? "cannot configure " + name + " with these parameters: " + to_string(s) : why};
  m.description_ = model.core.description();
  m.channel_ = model.channel();
  m.domain_ = model.items();
  m.model_ = std::move(model);
  out = std::move(m);
  return {};
}

template <class Rng>
Status Mechanism::privatize(std::int64_t value, Rng& rng, const wire::Header& header,
                            std::vector<std::uint8_t>& out) const {
  return privatize(value, rng, NoKey{}, header, out);
}

template <class Rng, class Key>
Status Mechanism::privatize(std::int64_t value, Rng& rng, const Key& key, wire::Header header,
                            std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t> payload(description_.payload_bytes(), 0);
  const Status s = std::visit(
      [&](const auto& model) {
        using Model = std::decay_t<decltype(model)>;
        using Value = typename Model::Value;
        if (!std::in_range<Value>(value)) return Status::bad_parameter;
        if constexpr (Model::kind == MechanismKind::record) {
          return Status::bad_parameter;  // a record is d values
        } else if constexpr (Model::memoized && std::is_same_v<Key, NoKey>) {
          return Status::bad_parameter;  // a memo needs the device's key
        } else if constexpr (Model::memoized) {
          header.fields |= wire::field_memo_generation;
          header.memo_generation = key.generation();
          if (config_.bloom()) {  // the report's bits mean something only with its cohort
            header.fields |= wire::field_cohort;
            header.cohort = static_cast<std::uint16_t>(key.cohort(config_.bloom_cohorts));
          }
          return model.privatize_memoized(static_cast<Value>(value), key, rng, payload.data());
        } else {
          return model.privatize(static_cast<Value>(value), rng, payload.data());
        }
      },
      model_);
  return finish(s, payload, header, out);
}

template <class Rng>
Status Mechanism::privatize_record(std::span<const std::uint32_t> values, Rng& rng, const wire::Header& header,
                                   std::vector<std::uint8_t>& out) const {
  return privatize_record(values, rng, NoKey{}, header, out);
}

template <class Rng, class Key>
Status Mechanism::privatize_record(std::span<const std::uint32_t> values, Rng& rng, const Key& key,
                                   wire::Header header, std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t> payload(description_.payload_bytes(), 0);
  const Status s = std::visit(
      [&](const auto& model) {
        using Model = std::decay_t<decltype(model)>;
        if (values.size() != config_.attribute_sizes.size()) return Status::bad_parameter;
        if constexpr (Model::kind != MechanismKind::record) {
          return Status::bad_parameter;
        } else if constexpr (Model::memoized && std::is_same_v<Key, NoKey>) {
          return Status::bad_parameter;  // a memo needs the device's key
        } else if constexpr (Model::memoized) {
          header.fields |= wire::field_memo_generation;
          header.memo_generation = key.generation();
          return model.privatize_record_memoized(values.data(), key, rng, payload.data());
        } else {
          return model.privatize_record(values.data(), rng, payload.data());
        }
      },
      model_);
  return finish(s, payload, header, out);
}

}  // namespace tinyldp::collector

#endif
