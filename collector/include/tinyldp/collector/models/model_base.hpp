// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/model_base.hpp — the interface every collector model implements,
// written down: the CollectorModel concept (and MemoizedModel for the models whose reports need
// a device's memo key), the defaults a model may differ in (ModelDefaults, MemoizedDefaults), the
// row a model adds to the table of mechanisms, the small helpers several models share, and the
// members they share, written once (CoreModel, BitPayloadModel, GridModel), which a model takes
// by name.
//
// A model is the collector's half of a mechanism; the core header is the device's half. There
// is one model per core header, in models/<core header>.hpp and src/models/<core header>.cpp
// (the struct, its rows, its parameters and every member); models/all.hpp lists them once, and
// that list makes Mechanism's variant and the table. Each model static-asserts CollectorModel,
// so a missing or misspelt member is a compile error rather than a silent default. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_MODEL_BASE_HPP
#define TINYLDP_COLLECTOR_MODELS_MODEL_BASE_HPP

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/models/mechanism_config.hpp"
#include "tinyldp/collector/models/numeric_noise.hpp"
#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

// A row a model adds to the table of mechanisms (mechanism.hpp): its wire id and name, and a
// small valid configuration for the tests, the fuzz corpus and the docs' examples — nullptr for
// an id known on the wire but not configured by name (custom-probability ue).
struct ModelRow {
  MechanismId id;
  const char* name;       // the same in the CLI, Python, report files and the docs
  const char* core_type;  // the device's type in the model's core header (docs/mechanisms.md)
  MechanismConfig (*example)();
};

// A decoded payload field, for `inspect`: a name and an integer, a number or a list of items.
struct PayloadField {
  std::string name;
  std::variant<std::int64_t, double, std::vector<std::uint32_t>> value;
};

// What a model has unless it says otherwise. Every other member is the model's own (the
// concept below lists them).
struct ModelDefaults {
  using Value = std::uint32_t;  // what privatize takes: a category, or (numeric) an int32_t
  // The configuration parameters beyond ε and the domain or range the model takes (Mechanism's
  // configure refuses them for the others).
  static constexpr bool takes_levels = false;       // MechanismConfig::levels (sd)
  static constexpr bool takes_sensitivity = false;  // MechanismConfig::sensitivity (dlaplace)
  static constexpr bool takes_grid_step = false;    // MechanismConfig::grid_step (1bitmean, dbitflip)
  static constexpr bool takes_sampled = false;      // MechanismConfig::sampled (dbitflip)
  static constexpr bool takes_branching = false;    // MechanismConfig::branching (hh)
  // MechanismConfig::precision (probability.hpp's Precision: the ε tolerance and bit cap of the
  // probabilities): every model whose core configure takes one; not dlaplace and she (their
  // noise bits are their precision) or the models configured by f, p, q.
  static constexpr bool takes_precision = true;
  // MechanismConfig::bloom_hashes, bloom_cohorts (the memoized UE family): the model then
  // counts a Bloom report with its cohort (count_bloom).
  static constexpr bool takes_bloom = false;
  static constexpr bool bit_columns = false;  // support counted by the bit-sliced column counter
  static constexpr bool memoized = false;     // reports need the device's memo key (ε∞ per value)
  // A model that counts with add_support and sets this defines count(payload, support): check
  // and add_support in one decoding, for the ingest path.
  static constexpr bool counts_in_one_pass = false;
  // The items stand for integers (a category; dlaplace's values), not real levels (sd).
  static constexpr bool integer_items = true;
  // The items are estimated by deconvolving the noise (numeric_estimate.hpp), not through a
  // (p, q) channel.
  static constexpr bool deconvolved = false;
  // The reports estimate a mean only (pm): no distribution over the items, which are not values.
  static constexpr bool mean_only = false;
  double item_value(std::uint32_t item) const { return item; }
  // The most one report adds to an item's support count (SHE: 2T + 1; the others 1).
  std::uint64_t max_support_per_report() const { return 1; }
};

// What the memoized models share: a report needs the device's memo key.
struct MemoizedDefaults : ModelDefaults {
  static constexpr bool memoized = true;
};

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

// Stand-ins for the random bits and the memo key in the concept's checks: the members that take
// them are templates, so any type names the call.
namespace model_archetype {
struct Rng {};
struct Key {};
}  // namespace model_archetype

// How a payload supports items, one of two ways. A model whose reports support one item each
// (rr, krr, sd, dlaplace, l-grr, 1bitmean) defines item(payload) — that item, or nullopt for a
// payload out of range — and Mechanism derives checking and counting from it, decoding once.
template <class M>
concept SingleItemModel = requires(const M& m, std::span<const std::uint8_t> payload) {
  { m.item(payload) } -> std::same_as<std::optional<std::uint32_t>>;
};
// The others define check (why a payload of the right length is refused, ParseError::none if it
// is not) and add_support, and count if they say counts_in_one_pass.
template <class M>
concept SupportCountingModel =
    requires(const M& m, std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) {
      { m.check(payload) } -> std::same_as<ParseError>;
      { m.add_support(payload, support) } -> std::same_as<void>;
    } &&
    (!M::counts_in_one_pass ||
     requires(const M& m, std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) {
       { m.count(payload, support) } -> std::same_as<ParseError>;
     });

// What a memoized model adds: the budget of a device's memos and what its reports reveal.
template <class M>
concept MemoizedModel = M::memoized && requires(const M& m) {
  { m.core.epsilon_infinity() } -> std::same_as<Epsilon>;
  // What a memo is kept per ("value", "hashed value", "grid point", …).
  { M::memos_of } -> std::convertible_to<const char*>;
  // The most memos one device can hold, so that its lifetime budget is at most that many times
  // ε∞ (k for L-GRR, g for LOLOHA, J + 1 for 1BitMean).
  { m.most_memos() } -> std::same_as<std::uint32_t>;
  // How two reports of one device holding one value covary (nullopt: no such model here, and
  // epochs are aggregated apart).
  { m.memo_covariance() } -> std::same_as<std::optional<MemoCovariance>>;
  // P(the memo changes | the value changes to another one) (change_exposure.hpp; nullopt where
  // it depends on where the value moves).
  { m.change_exposure() } -> std::same_as<std::optional<double>>;
};

// The collector's half of a mechanism. `core` is the core's configured object (or, for the
// records, the schema's view of it).
template <class M>
concept CollectorModel =
    std::derived_from<M, ModelDefaults> && std::default_initializable<M> && std::copyable<M> &&
    requires(const M& m, const MechanismConfig& c, std::span<const std::uint8_t> payload) {
      { M::kind } -> std::convertible_to<MechanismKind>;
      { M::rows.size() } -> std::convertible_to<std::size_t>;
      { M::rows[0] } -> std::convertible_to<ModelRow>;
      // The core header the model is the collector's half of (lib/include/tinyldp/<it>; the
      // model is models/<it>), named in docs/mechanisms.md.
      { M::core_header } -> std::convertible_to<const char*>;
      // Why a configuration is refused before the core sees it ("" if it is not): the
      // parameters by their MechanismConfig names, the value given and what is allowed.
      { M::check_parameters(c) } -> std::same_as<std::string>;
      { m.core.description() } -> std::same_as<wire::Description>;
      { m.core.realized_epsilon() } -> std::same_as<Epsilon>;
      { m.core.random_bits_per_report() } -> std::convertible_to<std::uint64_t>;
      { m.items() } -> std::same_as<std::uint32_t>;  // the number of items estimated
      { m.channel() } -> std::same_as<Channel>;      // what the estimates debias ({} if none)
      { m.fractions() } -> std::same_as<std::string>;  // the realized probabilities, exactly
      // The loss between any two inputs: the realized ε, ε₁ of a memoized report, dlaplace's
      // over the whole range.
      { m.local_epsilon() } -> std::same_as<Epsilon>;
      { m.fields(payload) } -> std::same_as<std::vector<PayloadField>>;  // for `inspect`
      { m.item_value(std::uint32_t{}) } -> std::same_as<double>;
      { m.max_support_per_report() } -> std::same_as<std::uint64_t>;
    } &&
    // configure: the core configured as a device would, and the normalized configuration (the
    // record schemas also say why they refuse).
    (M::kind == MechanismKind::record
         ? requires(const MechanismConfig& c, M& out, MechanismConfig& normalized, std::string& reason) {
             { M::configure(c, out, normalized, reason) } -> std::same_as<Status>;
           }
         : requires(const MechanismConfig& c, M& out, MechanismConfig& normalized) {
             { M::configure(c, out, normalized) } -> std::same_as<Status>;
           }) &&
    (SingleItemModel<M> != SupportCountingModel<M>) &&
    (M::memoized == MemoizedModel<M>) &&
    // privatize into a payload: a value, a value with the memo key, a record (d values), a
    // record with the memo key.
    requires(const M& m, typename M::Value v, const std::uint32_t* values, model_archetype::Rng& rng,
             const model_archetype::Key& key, std::uint8_t* payload) {
      requires M::kind == MechanismKind::record || M::memoized || requires {
        { m.privatize(v, rng, payload) } -> std::same_as<Status>;
      };
      requires M::kind == MechanismKind::record || !M::memoized || requires {
        { m.privatize_memoized(v, key, rng, payload) } -> std::same_as<Status>;
      };
      requires M::kind != MechanismKind::record || M::memoized || requires {
        { m.privatize_record(values, rng, payload) } -> std::same_as<Status>;
      };
      requires M::kind != MechanismKind::record || !M::memoized || requires {
        { m.privatize_record_memoized(values, key, rng, payload) } -> std::same_as<Status>;
      };
    } &&
    // A numeric model's noise for the estimators, and the items a noiseless value occupies
    // with weights summing to 1 (what --truth compares with).
    (M::kind != MechanismKind::numeric ||
     requires(const M& m, std::int64_t value) {
       { m.noise_model() } -> std::same_as<NumericModel>;
       { m.item_weights(value) } -> std::same_as<std::vector<std::pair<std::uint32_t, double>>>;
     }) &&
    (!M::takes_bloom ||
     requires(const M& m, std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
              std::span<std::uint64_t> support) {
       { m.count_bloom(cohort, payload, support) } -> std::same_as<ParseError>;
     });

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

// Bit i of a payload of bits (the unary encodings, the two-stage RR's report).
inline std::uint32_t payload_bit(std::span<const std::uint8_t> payload, std::uint32_t i) {
  return (payload[i / 8] >> (i % 8)) & 1u;
}
// The bits set among the first n, for `inspect`.
std::vector<std::uint32_t> bits_set(std::span<const std::uint8_t> payload, std::uint32_t n);
// A payload of n bits supports the items whose bits are set (UE, THE, the two-stage RR, record).
inline void add_bit_support(std::span<const std::uint8_t> payload, std::uint32_t n,
                            std::span<std::uint64_t> support) {
  for (std::uint32_t i = 0; i < n; ++i) support[i] += payload_bit(payload, i);
}

// Counts laid out as `groups` groups, each `cells_of(g)` cells then the group's report count
// (hh's levels, a Bloom state's cohorts): whether every cell is at most its group's count and the
// counts sum to `reports` (a corrupt or forged state is refused, not estimated).
template <class CellsOf>
bool grouped_counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports, std::uint32_t groups,
                               CellsOf cells_of) {
  std::size_t at = 0;
  std::uint64_t total = 0;
  for (std::uint32_t g = 0; g < groups; ++g) {
    const std::size_t cells = cells_of(g);
    if (at + cells + 1 > support.size()) return false;
    const std::uint64_t n = support[at + cells];
    for (std::size_t i = at; i < at + cells; ++i)
      if (support[i] > n) return false;
    if (__builtin_add_overflow(total, n, &total)) return false;
    at += cells + 1;
  }
  return at == support.size() && total == reports;
}

// A probability as the exact fraction the devices use: "num/2^bits".
std::string fraction_text(std::uint64_t num, unsigned bits);
inline std::string fraction_text(Dyadic x) { return fraction_text(x.num, x.bits); }

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

// What the models over one core object share, each member written once. kind, Value (a numeric
// model privatizes an int32_t) and core are the model's; the members below them are protected, and
// a model takes those that are also its own by naming them (`using CoreModel::items,
// CoreModel::privatize;`) or defines its own. So a member a model neither names nor defines fails
// CollectorModel, and a misspelt name does not compile: nothing required is a silent default.
template <MechanismKind Kind, class Core, class Defaults = ModelDefaults>
struct CoreModel : Defaults {
  static constexpr MechanismKind kind = Kind;
  using Value = std::conditional_t<Kind == MechanismKind::numeric, std::int32_t, std::uint32_t>;
  Core core;

 protected:
  // The categorical ones: the domain's categories are the items.
  static std::string check_parameters(const MechanismConfig& c) { return check_categories(c); }
  std::uint32_t items() const { return core.domain(); }
  Channel channel() const { return channel_of(core); }
  // The loss between any two inputs: the realized ε, or ε₁ of a memoized report.
  Epsilon local_epsilon() const {
    if constexpr (Defaults::memoized)
      return core.epsilon_one();
    else
      return core.realized_epsilon();
  }
  // A payload that is the value (krr, l-grr): refused at or above the domain.
  std::optional<std::uint32_t> item(std::span<const std::uint8_t> payload) const {
    const std::uint32_t v = core.unpack(payload.data());
    return v < core.domain() ? std::optional(v) : std::nullopt;
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"value", std::int64_t{core.unpack(payload.data())}}};
  }
  // Through the core: its report packed into the payload, or, for the cores whose report is
  // the payload's bytes (no Report type: UE, SHE, THE, the two-stage RR), written in place.
  template <class Rng>
  Status privatize(Value value, Rng& rng, std::uint8_t* payload) const {
    if constexpr (requires { typename Core::Report; })
      return privatize_packed(core, value, rng, payload);
    else
      return core.privatize(value, rng, payload, core.report_bytes());
  }
  template <class Rng, class Key>
  Status privatize_memoized(Value value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    if constexpr (requires { typename Core::Report; })
      return privatize_memoized_packed(core, value, key, rng, payload);
    else
      return core.privatize(value, key, rng, payload, core.report_bytes());
  }
};

// A payload of one bit per item (UE, THE, the one-hot chains): every payload of its length is a
// report, and it supports the items whose bits are set.
template <MechanismKind Kind, class Core, class Defaults = ModelDefaults>
struct BitPayloadModel : CoreModel<Kind, Core, Defaults> {
 protected:
  ParseError check(std::span<const std::uint8_t>) const { return ParseError::none; }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    add_bit_support(payload, bits(), support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const {
    return {{"bits_set", bits_set(payload, bits())}};
  }

 private:
  // The chains' cores count their report's bits (bits()); UE's and THE's, their domain.
  std::uint32_t bits() const {
    if constexpr (requires(const Core& c) { c.bits(); })
      return this->core.bits();
    else
      return this->core.domain();
  }
};

// The memoized numeric models over a grid of [lo, hi] (1BitMean, dBitFlip): the core takes a
// value as its offset from lo; no model of their memos' covariance or change exposure (both
// depend on where the value lies).
template <class Core>
struct GridModel : CoreModel<MechanismKind::numeric, Core, MemoizedDefaults> {
  std::int32_t lo = 0;

 protected:
  std::optional<MemoCovariance> memo_covariance() const { return std::nullopt; }
  std::optional<double> change_exposure() const { return std::nullopt; }
  template <class Rng, class Key>
  Status privatize_memoized(std::int32_t value, const Key& key, Rng& rng, std::uint8_t* payload) const {
    return privatize_memoized_packed(this->core, offset_from(lo, value), key, rng, payload);
  }
};

// An example configuration: the id, ε and domain (the numeric and memoized ones set more).
constexpr MechanismConfig example_config(MechanismId id, Epsilon eps, std::uint32_t domain) {
  MechanismConfig c;
  c.id = id;
  c.epsilon = eps;
  c.domain = domain;
  return c;
}
// A numeric mechanism's: ε = 1 over [lo, hi].
constexpr MechanismConfig example_range(MechanismId id, std::int32_t lo, std::int32_t hi) {
  MechanismConfig c = example_config(id, Epsilon::from_ratio(1, 1), 0);
  c.lo = lo;
  c.hi = hi;
  return c;
}
// A memoized chain's: ε∞ = 2, ε₁ = 1.
constexpr MechanismConfig example_chain(MechanismId id, std::uint32_t domain) {
  MechanismConfig c = example_config(id, Epsilon::from_ratio(2, 1), domain);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  return c;
}
// 1bitmean's and dbitflip's (which adds sampled buckets): a chain over [0, 100], grid step 25.
constexpr MechanismConfig example_grid(MechanismId id) {
  MechanismConfig c = example_chain(id, 0);
  c.hi = 100;
  c.grid_step = 25;
  return c;
}

}  // namespace tinyldp::collector

#endif
