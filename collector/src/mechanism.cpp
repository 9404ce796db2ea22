// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/mechanism.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace tinyldp::collector {

// --- The table: every model's rows, in id order ------------------------------------------

// Made on first use, so that no static initializer elsewhere can see it unmade.
std::span<const MechanismRow> mechanism_table() {
  static const std::vector<MechanismRow> rows = [] {
    std::vector<MechanismRow> out;
    AllModels::for_each_row([&]<class Model>(const ModelRow& row) {
      out.push_back({row.id, row.name, row.core_type, Model::core_header, Model::kind,
                     row.example != nullptr ? &Mechanism::configure_as<Model> : nullptr,
                     row.example != nullptr ? row.example() : MechanismConfig{}, ModelTraits{}});
      out.back().traits = ModelTraits::of<Model>(row.example != nullptr ? &out.back().example : nullptr);
    });
    std::sort(out.begin(), out.end(), [](const MechanismRow& a, const MechanismRow& b) { return a.id < b.id; });
    return out;
  }();
  return rows;
}

const MechanismRow* find_mechanism(MechanismId id) {
  for (const auto& row : mechanism_table())
    if (row.id == id) return &row;
  return nullptr;
}

const MechanismRow* find_mechanism(std::string_view name) {
  for (const auto& row : mechanism_table())
    if (row.configure != nullptr && name == row.name) return &row;
  return nullptr;
}

std::optional<MechanismId> mechanism_from_name(std::string_view name) {
  const MechanismRow* row = find_mechanism(name);
  return row ? std::optional(row->id) : std::nullopt;
}

const char* name_of(MechanismId id) {
  const MechanismRow* row = find_mechanism(id);
  return row ? row->name : "unknown";
}

std::string mechanism_names(std::optional<MechanismKind> kind) {
  std::string out;
  for (const auto& row : mechanism_table())
    if (row.configure != nullptr && (!kind || row.kind == *kind))
      out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

std::string config_difference(const MechanismConfig& given, const MechanismConfig& canonical) {
  if (given.id != canonical.id)
    return "mechanism id " + std::to_string(static_cast<unsigned>(given.id)) + " where " +
           std::to_string(static_cast<unsigned>(canonical.id)) + " is canonical";
  for (const ParameterRow& row : parameter_table()) {
    if (row.label == nullptr) continue;  // the same field as another row
    const std::string a = row.text(given), b = row.text(canonical);
    if (a == b) continue;
    if (row.id == ParameterId::attributes) return "attribute sizes differ from the canonical ones";
    return std::string(row.label) + " " + a + " where " + b + " is canonical";
  }
  return {};
}

bool MechanismConfig::numeric() const {
  const MechanismRow* row = find_mechanism(id);
  return row != nullptr && row->kind == MechanismKind::numeric;
}

// --- Mechanism: dispatch to the model -----------------------------------------------------

ConfigureResult Mechanism::configure(const MechanismConfig& config, Mechanism& out) {
  const MechanismRow* row = find_mechanism(config.id);
  if (row == nullptr || row->configure == nullptr)
    return {Status::bad_parameter, "mechanism id " + std::to_string(static_cast<unsigned>(config.id)) +
                                       " is not one the collector configures (" + mechanism_names() + ")"};
  return row->configure(config, out);
}

std::optional<Mechanism> Mechanism::from_stored(const MechanismConfig& config,
                                                std::uint64_t digest, const std::string& what,
                                                std::string& error) {
  Mechanism m;
  if (const ConfigureResult r = configure(config, m); !r) {
    error = what + " describes an invalid mechanism: " + r.reason;
    return std::nullopt;
  }
  if (m.description().digest != digest) {
    error = what + ": the parameter digest does not match its configuration";
    return std::nullopt;
  }
  if (const std::string d = config_difference(config, m.config()); !d.empty()) {
    error = what + " is not canonical: " + d;
    return std::nullopt;
  }
  return m;
}

Status Mechanism::finish(Status s, const std::vector<std::uint8_t>& payload,
                         const wire::Header& header, std::vector<std::uint8_t>& out) const {
  if (s != Status::ok) return s;
  const std::size_t start = out.size();
  out.resize(start + description_.report_bytes(header.fields));
  std::size_t written = 0;
  s = wire::encode(description_, header, payload.data(), out.data() + start, out.size() - start,
                   written);
  if (s != Status::ok) out.resize(start);
  return s;
}

double Mechanism::item_value(std::uint32_t item) const {
  return std::visit([&](const auto& m) { return m.item_value(item); }, model_);
}

std::uint32_t Mechanism::atoms() const {
  return std::visit(
      [&](const auto& m) -> std::uint32_t {
        if constexpr (requires { m.atoms(); })  // sw: its buckets, not its cells
          return m.atoms();
        else
          return domain_;
      },
      model_);
}

double Mechanism::atom_value(std::uint32_t atom) const {
  return std::visit(
      [&](const auto& m) -> double {
        if constexpr (requires { m.atom_value(atom); })
          return m.atom_value(atom);
        else
          return m.item_value(atom);
      },
      model_);
}

Epsilon Mechanism::local_epsilon() const {
  return std::visit([](const auto& m) { return m.local_epsilon(); }, model_);
}

std::vector<Mechanism::Parameter> Mechanism::parameters() const {
  const ModelTraits& traits = find_mechanism(config_.id)->traits;
  std::vector<Parameter> out;
  for (const ParameterRow& row : parameter_table())
    if (row.name != nullptr && row.takes(traits, config_.bloom())) out.push_back({row.name, row.value(config_)});
  return out;
}

namespace {
// A static trait of the model (ModelDefaults'): trait is called as trait.operator()<Model>().
template <class Trait>
bool model_trait(const ModelVariant& model, Trait trait) {
  return std::visit([&]<class Model>(const Model&) { return trait.template operator()<Model>(); }, model);
}
}  // namespace

bool Mechanism::takes_levels() const { return model_trait(model_, []<class M> { return M::takes_levels; }); }
bool Mechanism::takes_sensitivity() const { return model_trait(model_, []<class M> { return M::takes_sensitivity; }); }
bool Mechanism::takes_grid_step() const { return model_trait(model_, []<class M> { return M::takes_grid_step; }); }
bool Mechanism::takes_sampled() const { return model_trait(model_, []<class M> { return M::takes_sampled; }); }
bool Mechanism::takes_branching() const { return model_trait(model_, []<class M> { return M::takes_branching; }); }
bool Mechanism::integer_items() const { return model_trait(model_, []<class M> { return M::integer_items; }); }
bool Mechanism::deconvolved() const { return model_trait(model_, []<class M> { return M::deconvolved; }); }
bool Mechanism::mean_only() const { return model_trait(model_, []<class M> { return M::mean_only; }); }

std::vector<std::pair<std::uint32_t, double>> Mechanism::item_weights(std::int64_t value) const {
  return std::visit(
      [&](const auto& m) -> std::vector<std::pair<std::uint32_t, double>> {
        if constexpr (std::decay_t<decltype(m)>::kind == MechanismKind::numeric)
          return m.item_weights(value);
        else  // the item is the category
          return {{static_cast<std::uint32_t>(value), 1.0}};
      },
      model_);
}
bool Mechanism::record() const {
  return model_trait(model_, []<class M> { return M::kind == MechanismKind::record; });
}
bool Mechanism::memoized() const { return model_trait(model_, []<class M> { return M::memoized; }); }

std::optional<Epsilon> Mechanism::epsilon_infinity() const {
  return std::visit(
      [](const auto& m) -> std::optional<Epsilon> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.core.epsilon_infinity();
        else
          return std::nullopt;
      },
      model_);
}

std::optional<std::uint32_t> Mechanism::most_memos() const {
  return std::visit(
      [](const auto& m) -> std::optional<std::uint32_t> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.most_memos();
        else
          return std::nullopt;
      },
      model_);
}

std::optional<MemoCovariance> Mechanism::memo_covariance() const {
  return std::visit(
      [](const auto& m) -> std::optional<MemoCovariance> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.memo_covariance();
        else
          return std::nullopt;
      },
      model_);
}

const char* Mechanism::memos_of() const {
  return std::visit(
      [](const auto& m) -> const char* {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return std::decay_t<decltype(m)>::memos_of;
        else
          return "";
      },
      model_);
}

Epsilon Mechanism::realized_epsilon() const {
  return std::visit([](const auto& m) { return m.core.realized_epsilon(); }, model_);
}

std::uint64_t Mechanism::random_bits_per_report() const {
  return std::visit([](const auto& m) { return std::uint64_t{m.core.random_bits_per_report()}; },
                    model_);
}

std::string Mechanism::probabilities_as_fractions() const {
  return std::visit([](const auto& m) { return m.fractions(); }, model_);
}

std::uint64_t Mechanism::max_support_per_report() const {
  return std::visit([](const auto& m) { return m.max_support_per_report(); }, model_);
}

bool Mechanism::counts_consistent(std::span<const std::uint64_t> support, std::uint64_t reports) const {
  if (bloom())  // each cohort's bit counts, then its reports
    return grouped_counts_consistent(support, reports, config_.bloom_cohorts,
                                     [&](std::uint32_t) { return config_.domain; });
  return std::visit(
      [&](const auto& m) {
        if constexpr (requires { m.counts_consistent(support, reports); })
          return m.counts_consistent(support, reports);
        else
          return true;
      },
      model_);
}

ParseError Mechanism::count_bloom(std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
                                  std::span<std::uint64_t> support) const {
  return std::visit(
      [&](const auto& m) {
        if constexpr (std::decay_t<decltype(m)>::takes_bloom)
          return m.count_bloom(cohort, payload, support);
        else
          return ParseError::wrong_mechanism;
      },
      model_);
}

bool Mechanism::uses_bit_columns() const {
  return !config_.bloom() && model_trait(model_, []<class M> { return M::bit_columns; });
}

bool Mechanism::one_item_per_report() const {
  return model_trait(model_, []<class M> { return SingleItemModel<M>; });
}

ParseError Mechanism::check_payload(std::span<const std::uint8_t> payload) const {
  return std::visit(
      [&](const auto& m) {
        if constexpr (SingleItemModel<std::decay_t<decltype(m)>>)
          return m.item(payload) ? ParseError::none : ParseError::value_out_of_range;
        else
          return m.check(payload);
      },
      model_);
}

void Mechanism::add_support(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  std::visit(
      [&](const auto& m) {
        if constexpr (SingleItemModel<std::decay_t<decltype(m)>>) {
          if (const auto i = m.item(payload)) support[*i] += 1;
        } else {
          m.add_support(payload, support);
        }
      },
      model_);
}

ParseError Mechanism::count(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  return std::visit(
      [&](const auto& m) {
        using Model = std::decay_t<decltype(m)>;
        if constexpr (SingleItemModel<Model>) {
          const auto i = m.item(payload);
          if (!i) return ParseError::value_out_of_range;
          support[*i] += 1;
          return ParseError::none;
        } else if constexpr (Model::counts_in_one_pass) {
          return m.count(payload, support);
        } else {
          const ParseError e = m.check(payload);
          if (e == ParseError::none) m.add_support(payload, support);
          return e;
        }
      },
      model_);
}

std::vector<PayloadField> Mechanism::payload_fields(std::span<const std::uint8_t> payload) const {
  return std::visit([&](const auto& m) { return m.fields(payload); }, model_);
}

}  // namespace tinyldp::collector
