// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/mechanism_models.hpp — what the collector knows of each mechanism, one
// model per core type: how a configuration becomes the core object the devices use, the
// channel its estimates debias, how a payload is checked and supports items, how a value is
// privatized into a payload (the core's own pack), and how its payload reads for `inspect`.
//
// A model is the collector's half of a mechanism; the core header is the device's half. The
// table in mechanism.cpp names each wire id's model; Mechanism (mechanism.hpp) holds one
// model and dispatches to it with std::visit — there is no other list of mechanisms. Host only.
#ifndef TINYLDP_COLLECTOR_MECHANISM_MODELS_HPP
#define TINYLDP_COLLECTOR_MECHANISM_MODELS_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/bit_flip_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

using wire::MechanismId;

// The largest domain the collector accepts (32 MiB of support counts): configurations come
// from untrusted files too, and nothing is allocated in proportion to an unchecked number.
inline constexpr std::uint32_t max_collector_domain = std::uint32_t{1} << 22;
// The widest dlaplace range (hi − lo) the collector estimates: its distribution estimate
// inverts the dense (W + 1)² noise matrix: O(W³) time.
inline constexpr std::uint32_t max_collector_dlaplace_width = 1024;

struct MechanismConfig {
  MechanismId id = MechanismId::oue;
  Epsilon epsilon{};
  std::uint32_t domain = 2;  // categorical; rr: always 2; sd, dlaplace: set by configure
  Precision precision{};     // of the randomized response (not used by dlaplace)
  // Numeric mechanisms only (0 for the others):
  std::int32_t lo = 0, hi = 0;  // the value range
  std::uint32_t levels = 0;     // sd: L (2 … 256)
  std::uint32_t sensitivity = 0;  // dlaplace: Δ (1 … W; 0 = W, the local-DP setting)
  // sd: rounding bits B (1 … 24), dlaplace: B (2 … 62), 1bitmean: the memo's rounding bits R
  // (1 … 32); 0 = default
  std::uint8_t noise_bits = 0;
  // Memoized mechanisms only (zero for the others): `epsilon` is then ε∞, the loss of unlimited
  // reports of one value, and epsilon_one ε₁, the loss of one report (the UE chains, l-grr,
  // loloha, biloloha, 1bitmean).
  Epsilon epsilon_one{};
  // 1bitmean, dbitflip: the α-point rounding's grid step s, dividing hi − lo (0 = hi − lo: one
  // cell).
  std::uint32_t grid_step = 0;
  // dbitflip: d, the buckets each device samples (1 … 16, at most the k = (hi − lo)/s + 1
  // buckets; 0 = 1).
  std::uint32_t sampled = 0;
  // two_stage (RAPPOR's parameters): PRR flip probability f, IRR P(1 | memo bit 0) = p and
  // P(1 | memo bit 1) = q, as the Dyadics the devices use.
  Dyadic prr_f{}, irr_p{}, irr_q{};
  // The memoized UE family (rappor, l-sue, …) over a Bloom filter: `domain` is then the
  // filter's k bits, h = bloom_hashes (1 … 16) and m = bloom_cohorts (1 … 65536); both 0 for a
  // one-hot encoding.
  std::uint32_t bloom_hashes = 0, bloom_cohorts = 0;
  // Records of several attributes (record, spl-*, smp-*, rsfd-*): the attributes' domain sizes
  // k_j, in order (`domain` is then d, their number); empty for the others.
  std::vector<std::uint32_t> attribute_sizes{};

  bool bloom() const { return bloom_hashes != 0; }
  bool numeric() const;  // sd, dlaplace: by the table's kind
};

// A decoded payload field, for `inspect`: a name and an integer, a number or a list of items.
struct PayloadField {
  std::string name;
  std::variant<std::int64_t, double, std::vector<std::uint32_t>> value;
};

// How a payload supports items: a model whose reports support one item each (rr, krr, sd,
// dlaplace) defines item(payload) — that item, or nullopt for a payload out of range — and
// Mechanism derives checking and counting from it, decoding once. The others define
// add_support (and check where a payload can be out of range; count to decode once on the
// ingest path). What every model has unless it says otherwise:
struct ModelDefaults {
  using Value = std::uint32_t;  // what privatize takes: a category, or (numeric) an int32_t
  static constexpr bool takes_levels = false;       // MechanismConfig::levels
  static constexpr bool takes_sensitivity = false;  // MechanismConfig::sensitivity
  static constexpr bool takes_grid_step = false;    // MechanismConfig::grid_step
  static constexpr bool takes_sampled = false;      // MechanismConfig::sampled (dbitflip)
  static constexpr bool bit_columns = false;  // support counted by the bit-sliced column counter
  static constexpr bool memoized = false;     // reports need the device's memo key (ε∞ per value)
  static constexpr bool record = false;       // a report is a record of several attributes
  // Memoized models also define most_memos(): the most memos one device can hold, so that its
  // lifetime budget is at most that many times ε∞ (k for L-GRR, g for LOLOHA, J + 1 for
  // 1BitMean), and memos_of, what a memo is kept per.
  // The items stand for integers (a category; dlaplace's values), not real levels (sd).
  static constexpr bool integer_items = true;
  // The items are estimated by deconvolving the noise (numeric_estimate.hpp), not through a
  // (p, q) channel.
  static constexpr bool deconvolved = false;
  // Why a configuration is refused before the core sees it ("" if it is not): the parameters
  // by their MechanismConfig names, the value given and what is allowed.
  static std::string check_parameters(const MechanismConfig&) { return {}; }
  ParseError check(std::span<const std::uint8_t>) const { return ParseError::none; }
  double item_value(std::uint32_t item) const { return item; }
  // The most one report adds to an item's support count (SHE: 2T + 1; the others 1).
  std::uint64_t max_support_per_report() const { return 1; }
};
struct NumericModel;  // numeric_estimate.hpp: the numeric models' noise, for their estimators

// The core's privatize into its own report type, then the core's pack into the payload.
template <class Core, class Value, class Rng>
Status privatize_packed(const Core& core, Value value, Rng& rng, std::uint8_t* payload) {
  typename Core::Report report{};
  const Status s = core.privatize(value, rng, report);
  core.pack(report, payload);
  return s;
}

// The same for a memoized core: its privatize takes the device's memo key.
template <class Core, class Value, class Key, class Rng>
Status privatize_memoized_packed(const Core& core, Value value, const Key& key, Rng& rng,
                                 std::uint8_t* payload) {
  typename Core::Report report{};
  const Status s = core.privatize(value, key, rng, report);
  core.pack(report, payload);
  return s;
}

// A numeric value as the memoized numeric cores take it: its offset from lo; below lo, a value
// the core refuses (above its m), so the report fails closed.
inline std::uint32_t offset_from(std::int32_t lo, std::int32_t value) {
  const std::int64_t x = std::int64_t{value} - lo;
  return x < 0 ? ~std::uint32_t{0} : static_cast<std::uint32_t>(x);
}

// The categorical mechanisms' domain: at least 2 categories (a numeric parameter is refused by
// Mechanism::configure_as for every categorical model).
std::string check_categories(const MechanismConfig& c);
// The numeric mechanisms' range (hi above lo), and the domain they set themselves: `items` of
// them, `what` they are (a stored configuration carries it, a new one leaves it 0).
std::string check_value_range(const MechanismConfig& c, std::int64_t items, const char* what);
// RAPPOR's f in (0, 1) and p < q in [0, 1], and no epsilon (rappor, record).
std::string check_rappor_probabilities(const MechanismConfig& c);
// The memoized chains' budgets: epsilon-one (ε₁ of one report) given and below epsilon (ε∞ of
// the memo); RAPPOR's f, p, q refused.
std::string check_memo_epsilons(const MechanismConfig& c);
// Two reports of one device that holds the same value share its memo, so their supports of an
// item are correlated: with M the memo, Cov = Var(E[support | M]) = (a1 − a0)² π(1 − π), where
// π = P(the memo supports the item) is memo_held for a device holding the item and memo_other
// otherwise (LOLOHA: memo_held also when the value hashes onto the item, with probability
// `collision`), and a1, a0 = P(the report supports it | the memo does, does not). Pooling the
// epochs of a memoized mechanism needs it (estimates.cpp); a model without one (Bloom filters,
// the numeric and record ones) is aggregated per epoch only.
struct MemoCovariance {
  double memo_held = 0, memo_other = 0;
  double report_given_memo = 0, report_given_no_memo = 0;
  double collision = 0;
  // Σ over devices of Cov, per device, for an item of frequency f (the expected share of devices
  // whose memo supports the item with probability memo_held).
  double per_device(double f) const {
    const double held = f + (1 - f) * collision;
    const double a = report_given_memo - report_given_no_memo;
    return a * a * (held * memo_held * (1 - memo_held) + (1 - held) * memo_other * (1 - memo_other));
  }
};

// A GRR chain's composed channel (longitudinal_grr.hpp), from its exact integers: p = p* (the
// report is the value), q = q* (it is another given value).
Channel composed_channel(const GrrChain& chain);
// A GRR chain's memo covariance (MemoCovariance): the memo k-RR keeps the value or moves it to a
// given other one, the fresh k-RR keeps the memo or reports a given other value.
MemoCovariance chain_covariance(const GrrChain& chain, double collision);
// local_hash_key(i) for every item i < d (local hashing's support counting).
std::vector<std::uint32_t> local_hash_keys(std::uint32_t d);
// support[i] += [H(r.seed, i) = r.value] over [g] for every item i, by the keys of
// local_hash_keys: the support count of OLH, BLH and LOLOHA.
void count_local_hash_support(const std::vector<std::uint32_t>& keys, std::uint32_t g,
                              const LocalHashingReport& r, std::span<std::uint64_t> support);

// Binary randomized response: a 1-bit payload; each report supports the bit it carries.
struct RrModel : ModelDefaults {
  BinaryRr core;
  static Status configure(const MechanismConfig& c, RrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  std::uint32_t items() const { return 2; }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    return BinaryRr::unpack(payload.data());
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{BinaryRr::unpack(payload.data())}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// k-ary randomized response: the value; a payload value ≥ k is refused.
struct KrrModel : ModelDefaults {
  KaryRr core;
  static Status configure(const MechanismConfig& c, KrrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = core.unpack(payload.data());
    return v < core.domain() ? std::optional(v) : std::nullopt;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.unpack(payload.data())}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// Unary encodings (sue, oue; custom ue is not configured from a name): the payload is the
// report; counted by the bit-sliced column counter.
struct UeModel : ModelDefaults {
  static constexpr bool bit_columns = true;
  UnaryEncoding core;
  static Status configure(const MechanismConfig& c, UeModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core); }
  std::string fractions() const;
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    for (std::uint32_t i = 0; i < core.domain(); ++i) support[i] += (payload[i / 8] >> (i % 8)) & 1u;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return core.privatize(value, rng, payload, core.report_bytes());
  }
};

// Local hashing (blh, olh): a report supports every item that hashes, under its seed, to its
// value — one range test per item (count_hash_matches).
struct LhModel : ModelDefaults {
  LocalHashing core;
  std::vector<std::uint32_t> hash_keys;  // local_hash_key(i) for every item i
  static Status configure(const MechanismConfig& c, LhModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const {
    return {channel_of(core.randomizer()).p, 1.0 / static_cast<double>(core.range())};
  }
  std::string fractions() const;
  ParseError check(std::span<const std::uint8_t> payload) const {
    return core.unpack(payload.data()).value >= core.range() ? ParseError::value_out_of_range
                                                             : ParseError::none;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    count_report(core.unpack(payload.data()), support);
  }
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const LocalHashingReport r = core.unpack(payload.data());
    if (r.value >= core.range()) return ParseError::value_out_of_range;
    count_report(r, support);
    return ParseError::none;
  }
  void count_report(const LocalHashingReport& r, std::span<std::uint64_t> support) const {
    count_local_hash_support(hash_keys, core.range(), r, support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const LocalHashingReport r = core.unpack(payload.data());
    return {{"seed", std::int64_t{r.seed}}, {"value", std::int64_t{r.value}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// Hadamard response: a report (row j, bit b) supports every item i with H(j, i) = b.
struct HrModel : ModelDefaults {
  HadamardResponse core;
  static Status configure(const MechanismConfig& c, HrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return {channel_of(core.randomizer()).p, 0.5}; }
  std::string fractions() const;
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const HadamardReport r = core.unpack(payload.data());
    for (std::uint32_t i = 0; i < core.domain(); ++i) support[i] += hadamard_bit(r.row, i) == r.bit;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const HadamardReport r = core.unpack(payload.data());
    return {{"row", std::int64_t{r.row}}, {"bit", std::int64_t{r.bit}}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// Stochastic discretization (numeric): the items are the L levels; a level ≥ L is refused.
struct SdModel : ModelDefaults {
  using Value = std::int32_t;
  static constexpr bool takes_levels = true;
  static constexpr bool integer_items = false;
  StochasticDiscretization core;
  static Status configure(const MechanismConfig& c, SdModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;  // k-RR over the levels
  // The levels a value rounds to, with their probabilities (the expected truth per level).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  std::uint32_t items() const { return core.levels(); }
  Channel channel() const { return channel_of(core.randomizer()); }
  std::string fractions() const;
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t level = core.unpack(payload.data());
    return level < core.levels() ? std::optional(level) : std::nullopt;
  }
  double item_value(std::uint32_t item) const {
    return core.low() + static_cast<double>(item) *
                            static_cast<double>(std::int64_t{core.high()} - core.low()) /
                            static_cast<double>(core.levels() - 1);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const std::uint32_t level = core.unpack(payload.data());
    return {{"level", std::int64_t{level}}, {"value", item_value(level)}};
  }
  template <class Rng>
  Status privatize(std::int32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// Discrete Laplace (numeric): the items are the values lo … hi; no (p, q) channel (its
// estimates deconvolve the noise, numeric_estimate.hpp).
struct DlaplaceModel : ModelDefaults {
  using Value = std::int32_t;
  static constexpr bool takes_sensitivity = true;
  static constexpr bool deconvolved = true;
  DiscreteLaplace core;
  // The noise weights core points at; shared, so that copies keep pointing at live storage.
  std::shared_ptr<const std::vector<std::uint64_t>> weights;
  static Status configure(const MechanismConfig& c, DlaplaceModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;  // the exact (W + 1)² noise matrix and its inverse
  // The ε between any two inputs of the range (realized_epsilon is for inputs ≤ Δ apart).
  Epsilon local_epsilon() const { return core.local_epsilon(); }
  std::uint32_t items() const {
    return static_cast<std::uint32_t>(std::int64_t{core.high()} - core.low()) + 1;
  }
  Channel channel() const { return {}; }
  std::string fractions() const;
  // The payload is y − lo (core.pack); compared as that offset, so no sum can overflow.
  std::uint32_t offset(std::span<const std::uint8_t> payload) const {
    return static_cast<std::uint32_t>(core.unpack(payload.data())) - static_cast<std::uint32_t>(core.low());
  }
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = offset(payload);
    return v < items() ? std::optional(v) : std::nullopt;
  }
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{core.low()} + item);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.low()} + offset(payload)}};
  }
  template <class Rng>
  Status privatize(std::int32_t value, Rng& rng, std::uint8_t* payload) const {
    return privatize_packed(core, value, rng, payload);
  }
};

// Summation with histogram encoding: the payload holds the d noisy components y_i + T
// (0 … 2T + 1), and a report supports item i by its component, so item i's support count is
// S_i = Σ (y_i + T); the channel holds E[y + T | x] and Var[y | x] from the exact weights, and
// the usual estimator (S_i − n·q)/(p − q) is SHE's sum estimator.
struct SheModel : ModelDefaults {
  SummationHistogram core;
  // The noise weights core points at; shared, so that copies keep pointing at live storage.
  std::shared_ptr<const std::vector<std::uint64_t>> weights;
  static Status configure(const MechanismConfig& c, SheModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const;
  std::string fractions() const;
  std::uint64_t max_support_per_report() const { return 2 * std::uint64_t{core.truncation()} + 1; }
  ParseError check(std::span<const std::uint8_t> payload) const {
    for (std::uint32_t i = 0; i < core.domain(); ++i)
      if (core.shifted_component(payload.data(), i) > 2 * core.truncation() + 1)
        return ParseError::value_out_of_range;
    return ParseError::none;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    for (std::uint32_t i = 0; i < core.domain(); ++i) support[i] += core.shifted_component(payload.data(), i);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    std::vector<std::uint32_t> shifted;
    for (std::uint32_t i = 0; i < core.domain(); ++i) shifted.push_back(core.shifted_component(payload.data(), i));
    return {{"T", std::int64_t{core.truncation()}}, {"components_plus_T", std::move(shifted)}};
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return core.privatize(value, rng, payload, core.report_bytes());
  }
};

// What the memoized models share: a report needs the device's memo key (Mechanism::privatize
// with a key calls privatize_memoized); without one there is none.
struct MemoizedDefaults : ModelDefaults {
  static constexpr bool memoized = true;
  static constexpr const char* memos_of = "value";
  std::optional<MemoCovariance> memo_covariance() const { return std::nullopt; }
  template <class Rng, class Value>
  Status privatize(Value, Rng&, std::uint8_t*) const {
    return Status::bad_parameter;  // without the device's memo key the memo cannot be made
  }
};

// Memoized two-stage randomized response (two_stage_rr.hpp): RAPPOR's (f, p, q) or a
// longitudinal UE chain (ε∞, ε₁). Per bit, the composed channel is P(1 | set) = q*,
// P(1 | unset) = p*. A report needs the device's memo key (Mechanism::privatize with a key).
// One-hot: one round's reports are counted like UE's, by the bit-sliced column counter. Bloom
// filter (k bits, h hashes, m cohorts): a report's bits mean something only with its cohort
// (the header's), so the items are cells — per cohort c, the k bit counts then the cohort's
// report count, at c·(k + 1) — counted by Aggregator::ingest (add_bloom_support) and decoded
// against candidate strings by bloom_decode.hpp.
struct TwoStageModel : MemoizedDefaults {
  static constexpr bool bit_columns = true;  // one-hot only (Mechanism::uses_bit_columns)
  TwoStageRr core;
  static Status configure(const MechanismConfig& c, TwoStageModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  bool bloom() const { return core.encoding().kind == MemoEncoding::bloom; }
  std::uint32_t items() const {
    return bloom() ? core.encoding().cohorts * (core.bits() + 1) : core.bits();
  }
  // A Bloom report of `cohort` (< m, checked by the caller): its bits and one report.
  void add_bloom_support(std::uint32_t cohort, std::span<const std::uint8_t> payload,
                         std::span<std::uint64_t> support) const {
    const std::size_t at = std::size_t{cohort} * (core.bits() + 1);
    add_support(payload, support.subspan(at, core.bits()));
    ++support[at + core.bits()];
  }
  Channel channel() const;
  std::string fractions() const;
  std::optional<MemoCovariance> memo_covariance() const;  // one-hot only
  Epsilon local_epsilon() const { return core.epsilon_one(); }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    for (std::uint32_t i = 0; i < core.bits(); ++i) support[i] += (payload[i / 8] >> (i % 8)) & 1u;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  // One-hot: one memo per value; Bloom: any 32-bit value has its own memo.
  std::uint32_t most_memos() const { return bloom() ? UINT32_MAX : core.bits(); }
  template <class Rng, class Key>
  Status privatize_memoized(std::uint32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return core.privatize(value, key, rng, payload, core.report_bytes());
  }
};

// L-GRR (longitudinal_grr.hpp): the reported value; a value ≥ k is refused. Per round, the
// composed channel: P(y = v | v) = p*, P(y = v | another value) = q*.
struct LgrrModel : MemoizedDefaults {
  LongitudinalGrr core;
  static Status configure(const MechanismConfig& c, LgrrModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return composed_channel(core.chain()); }
  std::string fractions() const;
  std::optional<MemoCovariance> memo_covariance() const { return chain_covariance(core.chain(), 0); }
  Epsilon local_epsilon() const { return core.epsilon_one(); }
  std::uint32_t most_memos() const { return core.domain(); }
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = core.unpack(payload.data());
    return v < core.domain() ? std::optional(v) : std::nullopt;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.unpack(payload.data())}}};
  }
  template <class Rng, class Key>
  Status privatize_memoized(std::uint32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return privatize_memoized_packed(core, value, key, rng, payload);
  }
};

// LOLOHA and BiLOLOHA (loloha.hpp): {seed, y} like OLH's, counted like OLH's — a report supports
// every item that hashes, under its seed, to y — with the chain's p* for the held item and 1/g
// for any other (it collides with probability 1/g under a random seed).
struct LolohaModel : MemoizedDefaults {
  static constexpr const char* memos_of = "hashed value";
  Loloha core;
  std::vector<std::uint32_t> hash_keys;  // local_hash_key(i) for every item i
  static Status configure(const MechanismConfig& c, LolohaModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return {composed_channel(core.chain()).p, 1.0 / static_cast<double>(core.range())}; }
  std::string fractions() const;
  std::optional<MemoCovariance> memo_covariance() const {
    return chain_covariance(core.chain(), 1.0 / static_cast<double>(core.range()));
  }
  Epsilon local_epsilon() const { return core.epsilon_one(); }
  std::uint32_t most_memos() const { return core.range(); }  // one memo per hashed value
  ParseError check(std::span<const std::uint8_t> payload) const {
    return core.unpack(payload.data()).value >= core.range() ? ParseError::value_out_of_range
                                                             : ParseError::none;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    count_local_hash_support(hash_keys, core.range(), core.unpack(payload.data()), support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    const LocalHashingReport r = core.unpack(payload.data());
    return {{"seed", std::int64_t{r.seed}}, {"value", std::int64_t{r.value}}};
  }
  template <class Rng, class Key>
  Status privatize_memoized(std::uint32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return privatize_memoized_packed(core, value, key, rng, payload);
  }
};

// 1BitMean (bit_flip_mean.hpp, numeric): values lo … hi are the core's 0 … m (m = hi − lo); the
// items are the report's bit, 0 standing for lo and 1 for hi — a binary channel (p*, q*) like
// sd's with two levels: E[y | x] = q* + ((x − lo)/m)(p* − q*), so the score lo + m(y − q*)/(p* − q*)
// is the per-report unbiased estimate (numeric_estimate.hpp).
struct OneBitMeanModel : MemoizedDefaults {
  using Value = std::int32_t;
  static constexpr bool takes_grid_step = true;
  static constexpr const char* memos_of = "grid point";
  OneBitMean core;
  std::int32_t lo = 0;
  static Status configure(const MechanismConfig& c, OneBitMeanModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;  // the binary channel over {lo, hi}
  // The two ends with the weights that average to the value (the expected truth per item).
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  std::uint32_t items() const { return 2; }
  Channel channel() const { return composed_channel(core.chain()); }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.epsilon_one(); }
  std::uint32_t most_memos() const { return core.cells() + 1; }  // one memo per grid point
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    return OneBitMean::unpack(payload.data());
  }
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{lo} + std::int64_t{item} * core.grid().max_value);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng, class Key>
  Status privatize_memoized(std::int32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return privatize_memoized_packed(core, offset_from(lo, value), key, rng, payload);
  }
};

// dBitFlip (dbitflip.hpp, numeric): values lo … hi are the core's 0 … m; the items are the k
// buckets (grid points lo, lo + s, …, hi). A report supports each sampled bucket whose bit is
// 1: the channel P(support v | v) = (d/k)·p*, P(support v | other) = (d/k)·q*. Reports support
// up to d items, so the mean and the bins take the covariance of a report's supports
// (numeric_estimate.hpp).
struct DBitFlipModel : MemoizedDefaults {
  using Value = std::int32_t;
  static constexpr bool takes_grid_step = true;
  static constexpr bool takes_sampled = true;
  static constexpr const char* memos_of = "sampled bucket (or none)";
  DBitFlip core;
  std::int32_t lo = 0;
  static Status configure(const MechanismConfig& c, DBitFlipModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  NumericModel noise_model() const;
  std::uint32_t items() const { return core.buckets(); }
  Channel channel() const;
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.epsilon_one(); }
  std::uint32_t most_memos() const { return core.sampled() + 1; }  // one memo per slot
  double item_value(std::uint32_t item) const {
    return static_cast<double>(std::int64_t{lo} + std::int64_t{item} * core.layout().step);
  }
  // α-point rounding: the two grid points around the value, weighted to average to it.
  std::vector<std::pair<std::uint32_t, double>> item_weights(std::int64_t value) const;
  ParseError check(std::span<const std::uint8_t> payload) const {
    return core.well_formed(core.unpack(payload.data())) ? ParseError::none : ParseError::value_out_of_range;
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    const DBitFlipReport r = core.unpack(payload.data());
    for (std::uint32_t t = 0; t < core.sampled(); ++t) support[r.bucket[t]] += (r.bits >> t) & 1u;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng, class Key>
  Status privatize_memoized(std::int32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return privatize_memoized_packed(core, offset_from(lo, value), key, rng, payload);
  }
};

// Records of d attributes in one report: `record` (record_rr.hpp, memoized; RAPPOR's f, p, q)
// and the protocols without memo (multi_attribute.hpp: spl-*, smp-*, rsfd-*; ε), configured by
// MechanismConfig::attribute_sizes. The core object is the collector's schema's
// (record_counts.hpp, multi_attribute_counts.hpp), configured there as the devices configure it
// and shared (it holds up to 64 attributes). The items are every attribute's values in order
// (attribute j's value v is item k_0 + … + k_{j−1} + v) and a report supports the values its
// slots hold, so an Aggregator counts per-attribute supports; the estimates are per attribute
// (`tinyldp multi`) or joint (`tinyldp joint`) from the schemas' own counts, not through one
// channel. A record privatizes d values (Mechanism::privatize_record), never one.
// What Mechanism's dispatch reads of every model's `core`, from the schema.
struct RecordSchemaCore {
  std::shared_ptr<const RecordSchema> schema;
  const CollectorRecordRr& rr() const { return schema->mechanism(); }
  wire::Description description() const { return rr().description(); }
  Epsilon realized_epsilon() const { return rr().epsilon_one(); }
  Epsilon epsilon_infinity() const { return rr().epsilon_infinity(); }
  std::uint64_t random_bits_per_report() const { return rr().random_bits_per_report(); }
};
struct MultiAttributeCore {
  std::shared_ptr<const MultiAttributeSchema> schema;
  wire::Description description() const { return schema->description(); }
  Epsilon realized_epsilon() const { return schema->epsilon_per_report(); }
  // SMP and RS+FD draw the sampled index by rejection: no fixed count (0).
  std::uint64_t random_bits_per_report() const { return 0; }
};
// The checks both make before configuring: d = attribute_sizes.size() of 1 … 64 (domain, if
// given, is d), each size at least 2.
std::string check_record_shape(const MechanismConfig& c, std::uint32_t least_attributes);
// The attributes, unnamed, of a configuration's sizes.
std::vector<RecordAttribute> unnamed_attributes(const std::vector<std::uint32_t>& sizes);
// Fields every record's inspect line starts with: attribute_sizes.
std::vector<PayloadField> record_fields(const std::vector<RecordAttribute>& attributes);

// record (id 22): one memoized one-hot two-stage RR per attribute, concatenated. Per bit, the
// composed channel of attribute 0 (every attribute has the same f, p, q).
struct RecordModel : MemoizedDefaults {
  static constexpr bool record = true;
  static constexpr const char* memos_of = "attribute value";
  RecordSchemaCore core;
  static std::string check_parameters(const MechanismConfig& c);
  static Status configure(const MechanismConfig& c, RecordModel& out, MechanismConfig& normalized,
                          std::string& reason);
  std::uint32_t items() const { return core.rr().record_bits(); }
  Channel channel() const { return {core.schema->q_star(0), core.schema->p_star(0)}; }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.rr().epsilon_one(); }
  std::uint32_t most_memos() const { return items(); }  // one per attribute value
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    for (std::uint32_t i = 0; i < items(); ++i) support[i] += (payload[i / 8] >> (i % 8)) & 1u;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng, class Key>
  Status privatize_record_memoized(const std::uint32_t* values, const Key& key, Rng& rng,
                                   std::uint8_t* payload) const {
    return core.rr().privatize(values, key, rng, payload, core.rr().report_bytes());
  }
};

// spl-grr … rsfd-oue-r (ids 23 … 29): a report supports, per attribute it carries, the value its
// GRR slot holds or the bits its OUE slot sets (MultiAttributeSchema::count).
struct MultiAttributeModel : ModelDefaults {
  static constexpr bool record = true;
  MultiAttributeCore core;
  static std::string check_parameters(const MechanismConfig& c);
  static Status configure(const MechanismConfig& c, MultiAttributeModel& out, MechanismConfig& normalized,
                          std::string& reason);
  std::uint32_t items() const { return core.schema->items(); }
  Channel channel() const { return {}; }  // one per attribute: MultiAttributeSchema::channel(j)
  std::string fractions() const;
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    return core.schema->count(payload, support, {});
  }
  ParseError check(std::span<const std::uint8_t> payload) const {
    std::vector<std::uint64_t> scratch(items(), 0);
    return count(payload, scratch);
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    static_cast<void>(count(payload, support));
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng>
  Status privatize(std::uint32_t, Rng&, std::uint8_t*) const {
    return Status::bad_parameter;  // a record is d values (Mechanism::privatize_record)
  }
  template <class Rng>
  Status privatize_record(const std::uint32_t* values, Rng& rng, std::uint8_t* payload) const {
    return core.schema->privatize(values, rng, payload);
  }
};

// Thresholding with histogram encoding: a unary encoding with THE's (p, q) under its own id;
// counted like UE, by the bit-sliced column counter.
struct TheModel : ModelDefaults {
  static constexpr bool bit_columns = true;
  ThresholdHistogram core;
  static Status configure(const MechanismConfig& c, TheModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core.unary()); }
  std::string fractions() const;
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    as_ue().add_support(payload, support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return as_ue().fields(payload);
  }
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, std::uint8_t* payload) const {
    return core.privatize(value, rng, payload, core.report_bytes());
  }

 private:
  UeModel as_ue() const {
    UeModel ue;
    ue.core = core.unary();
    return ue;
  }
};

}  // namespace tinyldp::collector

#endif
