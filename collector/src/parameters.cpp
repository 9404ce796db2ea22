// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/parameters.hpp"

#include <array>
#include <type_traits>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::collector {

namespace {

bool categorical(const ModelTraits& t, bool bloom) { return t.kind == MechanismKind::categorical && !bloom; }
bool numeric(const ModelTraits& t, bool) { return t.kind == MechanismKind::numeric; }
bool record(const ModelTraits& t, bool) { return t.kind == MechanismKind::record; }
bool over_bloom(const ModelTraits& t, bool bloom) { return t.takes_bloom && bloom; }

std::string sizes_text(const MechanismConfig& c) {
  std::string out;
  for (std::uint32_t k : c.attribute_sizes) {  // not `"," + to_string(k)`: GCC 12 -O3 -Wrestrict
    if (!out.empty()) out += ',';
    out += std::to_string(k);
  }
  return out;
}

// The row of an integer field of MechanismConfig: what parameters() lists, its text and how a
// front end sets it all read or write the member.
template <auto Field>
std::int64_t field_value(const MechanismConfig& c) {
  return static_cast<std::int64_t>(c.*Field);
}
template <auto Field>
std::string field_text(const MechanismConfig& c) {
  return std::to_string(c.*Field);
}
template <auto Field>
void set_field(MechanismConfig& c, std::int64_t v) {
  c.*Field = static_cast<std::remove_reference_t<decltype(c.*Field)>>(v);
}
template <auto Field>
constexpr ParameterRow integer_row(ParameterId id, const char* name, const char* option, const char* keyword,
                                   const char* label, const char* help, bool (*takes)(const ModelTraits&, bool),
                                   Refusal refusal = Refusal::none, const char* refusal_note = "") {
  return {id, name, option, keyword, label, help, takes, field_value<Field>, field_text<Field>, set_field<Field>,
          refusal, refusal_note};
}
// The row of one of RAPPOR's probabilities (a Dyadic; its option, keyword and label are its
// name): listed by its numerator, written as the exact fraction, read as text.
template <auto Field>
std::int64_t numerator_value(const MechanismConfig& c) {
  return static_cast<std::int64_t>((c.*Field).num);
}
template <auto Field>
std::string fraction_value_text(const MechanismConfig& c) {
  return fraction_text(c.*Field);
}
template <auto Field>
constexpr ParameterRow probability_row(ParameterId id, const char* name, const char* help) {
  return {id, nullptr, name, name, name, help, [](const ModelTraits& t, bool) { return t.by_f_p_q; },
          numerator_value<Field>, fraction_value_text<Field>, nullptr};
}

constexpr std::array<ParameterRow, parameter_count> table{{
    {ParameterId::epsilon, nullptr, "epsilon", "epsilon", "epsilon (q32)",
     "privacy budget per report, a decimal like 0.5 (memoized: ε∞, of all reports of one value; "
     "not given where --f, --p and --q are)",
     nullptr, [](const MechanismConfig& c) { return static_cast<std::int64_t>(c.epsilon.q32); },
     [](const MechanismConfig& c) { return std::to_string(c.epsilon.q32); },
     nullptr},
    integer_row<&MechanismConfig::domain>(ParameterId::domain, "domain", "domain", "domain", "domain", nullptr,
                                          categorical),
    {ParameterId::bloom_bits, "bloom_bits", "bloom-bits", "bloom_bits", nullptr,
     "{takers}: report a Bloom filter of K bits (values are strings) instead of a one-hot vector over "
     "--domain",
     over_bloom, field_value<&MechanismConfig::domain>, nullptr, set_field<&MechanismConfig::domain>},
    // The precision: not in parameters() (every mechanism that takes it has one); given, it is
    // refused where the model does not take it (configure.cpp).
    {ParameterId::precision_bits, nullptr, "precision-bits", "precision_bits", "precision bits",
     "at most B random bits per probability, 1 … 64 (default 64: the tolerance decides); fewer bits draw "
     "less randomness and may realize an epsilon further below the request (every mechanism but dlaplace, she, "
     "the records and rappor)",
     [](const ModelTraits& t, bool) { return t.takes_precision; },
     [](const MechanismConfig& c) { return static_cast<std::int64_t>(c.precision.max_bits); },
     [](const MechanismConfig& c) { return std::to_string(unsigned{c.precision.max_bits}); },
     [](MechanismConfig& c, std::int64_t v) { c.precision.max_bits = static_cast<std::uint8_t>(v); }},
    {ParameterId::precision_tolerance, nullptr, "epsilon-tolerance", "epsilon_tolerance", "precision tolerance (q32)",
     "how far below the request the realized epsilon may fall, a decimal like 1e-3 (default 2^-21 ≈ 4.8e-7); "
     "coarser draws fewer random bits per report: plan shows the trade (every mechanism but dlaplace, she, the "
     "records and rappor)",
     [](const ModelTraits& t, bool) { return t.takes_precision; },
     [](const MechanismConfig& c) { return static_cast<std::int64_t>(c.precision.tolerance_q32); },
     [](const MechanismConfig& c) { return std::to_string(c.precision.tolerance_q32); },
     nullptr},
    integer_row<&MechanismConfig::lo>(ParameterId::lo, "lo", "lo", "lo", "lo", "{takers}: smallest value (an integer)",
                                      numeric),
    integer_row<&MechanismConfig::hi>(ParameterId::hi, "hi", "hi", "hi", "hi", "{takers}: largest value (an integer)",
                                      numeric),
    integer_row<&MechanismConfig::levels>(
        ParameterId::levels, "levels", "levels", "levels", "levels", "{takers}: number of output levels (sd: L, 2 … 256, default 2; pm, hm: cells M, 4 … 4096, default 2048)",
        [](const ModelTraits& t, bool) { return t.takes_levels; }, Refusal::not_a_parameter),
    integer_row<&MechanismConfig::sensitivity>(
        ParameterId::sensitivity, "sensitivity", "sensitivity", "sensitivity", "sensitivity",
        "{takers}: protect inputs this far apart (default hi − lo: local DP)",
        [](const ModelTraits& t, bool) { return t.takes_sensitivity; }, Refusal::not_a_parameter,
        "; its privacy covers the whole range"),
    {ParameterId::noise_bits, nullptr, nullptr, nullptr, "noise bits", nullptr, nullptr,
     field_value<&MechanismConfig::noise_bits>, field_text<&MechanismConfig::noise_bits>, nullptr},
    {ParameterId::epsilon_one, nullptr, "epsilon-one", "epsilon_one", "epsilon-one (q32)",
     "memoized mechanisms ({takers}): ε₁ of one report (< --epsilon)",
     [](const ModelTraits& t, bool) { return t.takes_epsilon_one; },
     [](const MechanismConfig& c) { return static_cast<std::int64_t>(c.epsilon_one.q32); },
     [](const MechanismConfig& c) { return std::to_string(c.epsilon_one.q32); },
     nullptr},
    probability_row<&MechanismConfig::prr_f>(ParameterId::f, "f",
                                             "{takers}: permanent-RR flip probability f, a decimal in (0, 1)"),
    probability_row<&MechanismConfig::irr_p>(ParameterId::p, "p", "{takers}: instantaneous RR P(report 1 | memo bit 0)"),
    probability_row<&MechanismConfig::irr_q>(ParameterId::q, "q", "{takers}: instantaneous RR P(report 1 | memo bit 1)"),
    integer_row<&MechanismConfig::grid_step>(
        ParameterId::grid_step, "grid_step", "grid-step", "grid_step", "grid step",
        "{takers}: α-point rounding's grid step, dividing hi − lo (default hi − lo: the ends only): a memo "
        "per grid point, or the buckets",
        [](const ModelTraits& t, bool) { return t.takes_grid_step; }, Refusal::names_its_takers),
    integer_row<&MechanismConfig::sampled>(
        ParameterId::sampled_buckets, "sampled_buckets", "sampled-buckets", "sampled_buckets", "sampled buckets",
        "{takers}: d, the buckets each device samples once and reports a bit for (1 … 16, default 1)",
        [](const ModelTraits& t, bool) { return t.takes_sampled; }, Refusal::names_its_takers),
    integer_row<&MechanismConfig::branching>(
        ParameterId::branching, "branching", "branching", "branching", "branching",
        "{takers}: B, the tree's branching (2, 4, 8 or 16, default 4): each level splits a node in B",
        [](const ModelTraits& t, bool) { return t.takes_branching; }, Refusal::names_its_takers),
    integer_row<&MechanismConfig::bloom_hashes>(ParameterId::hashes, "hashes", "hashes", "hashes", "bloom hashes",
                                                "with --bloom-bits: h, the filter's hashes (1 … 16, default 2)",
                                                over_bloom),
    integer_row<&MechanismConfig::bloom_cohorts>(
        ParameterId::cohorts, "cohorts", "cohorts", "cohorts", "bloom cohorts",
        "with --bloom-bits: m, the cohorts (each with its own hashes; 1 … 65536, default 32)", over_bloom),
    {ParameterId::attributes, "attributes", "domains", "attribute_sizes", "attribute sizes",
     "record mechanisms ({takers}): the attributes' domain sizes, 9,16,7 or 2x16", record,
     [](const MechanismConfig& c) { return static_cast<std::int64_t>(c.attribute_sizes.size()); }, sizes_text,
     nullptr},
}};

constexpr bool rows_in_order() {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (static_cast<std::size_t>(table[i].id) != i) return false;
  return true;
}
static_assert(rows_in_order(), "the table of parameters is in ParameterId order, one row each");

}  // namespace

std::span<const ParameterRow> parameter_table() { return table; }

const ParameterRow& parameter(ParameterId id) { return table[static_cast<std::size_t>(id)]; }

std::string takers(ParameterId id, const char* last) {
  const ParameterRow& row = parameter(id);
  std::vector<const char*> names;
  for (const MechanismRow& m : mechanism_table()) {
    if (m.configure == nullptr) continue;
    if (row.takes == nullptr || row.takes(m.traits, false) || row.takes(m.traits, true)) names.push_back(m.name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (last != nullptr && i + 1 == names.size()) ? last : ", ";
    out += names[i];
  }
  return out;
}

std::string help_text(ParameterId id) {
  std::string out = parameter(id).help != nullptr ? parameter(id).help : "";
  constexpr std::string_view placeholder = "{takers}";
  if (const auto at = out.find(placeholder); at != std::string::npos)
    out.replace(at, placeholder.size(), takers(id));
  return out;
}

std::string untaken_parameter(const MechanismConfig& c, const ModelTraits& traits, const std::string& name) {
  for (const ParameterRow& row : table) {
    if (row.refusal == Refusal::none || row.value(c) == 0 || row.takes(traits, c.bloom())) continue;
    if (row.refusal == Refusal::names_its_takers)
      return std::string(row.option) + " is a parameter of " + takers(row.id, " and ") + ", not " + name +
             row.refusal_note;
    return std::string(row.option) + " is not a parameter of " + name + row.refusal_note;
  }
  return {};
}

}  // namespace tinyldp::collector
