// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/parameters.hpp — the configuration parameters, declared once: one row per
// MechanismConfig field (its name in Mechanism::parameters() and Python, its CLI option, its
// help text, how it is read from a configuration and which mechanisms take it). Which
// mechanisms take a parameter is never typed here: it follows from the models' declarations
// (their kind, `memoized` and `takes_*` traits, and their rows' example configurations), over
// the one list of models (models/all.hpp). The table drives Mechanism::parameters(), the
// refusals of a parameter a mechanism does not take, config_difference and the CLI's help
// texts; a new MechanismConfig field is a row here (and the report-file header stores it:
// report_file.cpp checks the row count at compile time). Host only; the table is static data.
#ifndef TINYLDP_COLLECTOR_PARAMETERS_HPP
#define TINYLDP_COLLECTOR_PARAMETERS_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tinyldp/collector/models/mechanism_config.hpp"

namespace tinyldp::collector {

// What a row of the table of mechanisms declares about the parameters it takes: its model's
// kind and traits, and what its example configuration sets (RAPPOR and the record's RR are
// configured by f, p, q; the memoized chains by ε₁).
struct ModelTraits {
  MechanismKind kind = MechanismKind::categorical;
  bool memoized = false;
  bool takes_levels = false, takes_sensitivity = false, takes_grid_step = false, takes_sampled = false;
  bool takes_branching = false;
  bool takes_bloom = false;
  bool takes_precision = false;
  bool takes_epsilon_one = false;  // its example sets ε₁
  bool by_f_p_q = false;           // its example sets RAPPOR's f (and no ε)

  template <class Model>
  static ModelTraits of(const MechanismConfig* example) {
    ModelTraits t;
    t.kind = Model::kind;
    t.memoized = Model::memoized;
    t.takes_levels = Model::takes_levels;
    t.takes_sensitivity = Model::takes_sensitivity;
    t.takes_grid_step = Model::takes_grid_step;
    t.takes_sampled = Model::takes_sampled;
    t.takes_branching = Model::takes_branching;
    t.takes_bloom = Model::takes_bloom;
    t.takes_epsilon_one = example != nullptr && example->epsilon_one.q32 != 0;
    t.by_f_p_q = example != nullptr && example->prr_f != Dyadic{};
    t.takes_precision = Model::takes_precision && !t.by_f_p_q;
    return t;
  }
};

// Every MechanismConfig field but the id, in the order config_difference compares them
// (bloom_bits is `domain` again, the name it has over a Bloom filter).
enum class ParameterId : std::uint8_t {
  epsilon,
  domain,
  bloom_bits,
  precision_bits,
  precision_tolerance,
  lo,
  hi,
  levels,
  sensitivity,
  noise_bits,
  epsilon_one,
  f,
  p,
  q,
  grid_step,
  sampled_buckets,
  branching,
  hashes,
  cohorts,
  attributes,
};
inline constexpr std::size_t parameter_count = static_cast<std::size_t>(ParameterId::attributes) + 1;

// How Mechanism::configure refuses a parameter given (non-zero) to a mechanism that does not
// take it, when no earlier, broader check has (the numeric, memoized, Bloom and record ones).
enum class Refusal : std::uint8_t {
  none,              // refused by a broader check, or taken by all
  not_a_parameter,   // "levels is not a parameter of dlaplace"
  names_its_takers,  // "grid-step is a parameter of 1bitmean and dbitflip, not krr"
};

struct ParameterRow {
  ParameterId id;
  const char* name;     // in Mechanism::parameters() and Python's Mechanism.parameters; nullptr: not one
  const char* option;   // the CLI's option without "--" (nullptr: none)
  const char* keyword;  // Python's keyword (nullptr: none)
  const char* label;    // in config_difference's reason (nullptr: compared as another row)
  // The CLI's help; "{takers}" stands for the mechanisms that take it (takers()).
  const char* help;
  // Whether a mechanism of these traits takes it (for `bloom`: over a Bloom filter or one-hot);
  // nullptr for the parameters every mechanism reads (ε, the precision).
  bool (*takes)(const ModelTraits& traits, bool bloom);
  std::int64_t (*value)(const MechanismConfig& c);  // what parameters() lists; 0: not given
  std::string (*text)(const MechanismConfig& c);     // the value as config_difference writes it
  // Sets an integer parameter given by a front end (configure.hpp); nullptr for the others (ε,
  // f, p, q, the ε tolerance and the attribute sizes are read as text or lists).
  void (*set)(MechanismConfig& c, std::int64_t value);
  Refusal refusal = Refusal::none;
  const char* refusal_note = "";  // after the refusal
};

std::span<const ParameterRow> parameter_table();
const ParameterRow& parameter(ParameterId id);

// The mechanisms (configurable by name, in id order) that take a parameter, joined by ", ";
// with `last` the last two are joined by it instead ("1bitmean and dbitflip").
std::string takers(ParameterId id, const char* last = nullptr);
// A row's help text with "{takers}" filled in.
std::string help_text(ParameterId id);
// Why a configuration is refused for a mechanism of these traits named `name`, by the rows
// with a Refusal: a parameter given that it does not take ("" if none).
std::string untaken_parameter(const MechanismConfig& c, const ModelTraits& traits, const std::string& name);

}  // namespace tinyldp::collector

#endif
