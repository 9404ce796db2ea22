// SPDX-License-Identifier: Apache-2.0
// What the `tinyldp` subcommands share: errors and exit codes, the options that name a
// mechanism and the one place they become a configured Mechanism (the collector's table says
// what each accepts and why it refuses), and the options that say how input fields are read. Each subcommand lives in its own file and registers itself with
// a Subcommand; main.cpp only parses and dispatches.
#ifndef TINYLDP_TOOLS_CLI_COMMON_HPP
#define TINYLDP_TOOLS_CLI_COMMON_HPP

#include <CLI/CLI.hpp>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "input.hpp"
#include "progress.hpp"
#include "tinyldp/collector/mechanism.hpp"

namespace tinyldp::tools {

// Exit codes: 0 success; 1 bad usage (options); 2 bad input (unreadable or invalid file, value
// outside the domain, a configuration the collector refuses); 3 reports were rejected.
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_rejected = 3;

// A problem with the user's input: printed as "tinyldp: error: …", exit 2.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Json = nlohmann::ordered_json;  // keys in the order written

double as_double(Epsilon e);

// A registered subcommand: its CLI11 app and what runs when it is chosen (the exit code).
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};
Subcommand add_simulate(CLI::App& app);
Subcommand add_aggregate(CLI::App& app);
Subcommand add_plan(CLI::App& app);
Subcommand add_inspect(CLI::App& app);
Subcommand add_wrap(CLI::App& app);
Subcommand add_joint(CLI::App& app);
Subcommand add_multi(CLI::App& app);
Subcommand add_gate(CLI::App& app);
Subcommand add_publish(CLI::App& app);
Subcommand add_keys(CLI::App& app);

// A device id or a range FIRST-LAST of them (inclusive, below 2^32), from `option`'s text.
std::pair<std::uint32_t, std::uint32_t> device_range(const std::string& option, const std::string& text);

// --mechanism, --epsilon and the parameters: --domain (categorical), --lo, --hi, --levels,
// --sensitivity, --grid-step (numeric). Options not given stay 0 in the configuration, so the collector
// applies its defaults and its checks.
// Memoized mechanisms: --epsilon is ε∞ and --epsilon-one ε₁ (the UE chains, l-grr, loloha,
// biloloha, 1bitmean); rappor takes --f, --p and --q instead of --epsilon.
struct MechanismOptions {
  std::string mechanism, epsilon;
  std::optional<std::uint32_t> domain;
  std::optional<std::int32_t> lo, hi;
  std::optional<std::uint32_t> levels, sensitivity, grid_step, sampled_buckets, branching;
  std::optional<std::uint32_t> bloom_bits, hashes, cohorts;  // rappor and the UE chains over a Bloom filter
  std::optional<std::string> epsilon_one, f, p, q;
  std::optional<std::string> domains;  // the record mechanisms' attribute sizes: 9,16,7 or 2x16
  // The precision (--epsilon-tolerance as decimal text, --precision-bits): the collector reads them.
  std::optional<std::string> epsilon_tolerance;
  std::optional<std::uint32_t> precision_bits;
};
// --epsilon as given (exact: no rounding was needed), or Epsilon{} when it is not given (rappor).
Epsilon epsilon_option(const MechanismOptions& o, bool* exact = nullptr);
// A probability in [0, 1] from a decimal ("0.25", "1", "0"), rounded down to 2^-32.
Dyadic parse_probability(const std::string& option, const std::string& text);
void add_mechanism_options(CLI::App& app, MechanismOptions& o, const std::string& domain_help);
// The configured mechanism; throws BadInput with the collector's reason when it refuses.
// `default_domain` stands in for a missing --domain of a categorical mechanism (plan's 2).
collector::Mechanism configure(const MechanismOptions& o, Epsilon epsilon,
                               std::optional<std::uint32_t> default_domain = std::nullopt);
// Throws BadInput when m is a record mechanism: `command` takes one attribute per report, and
// the message says which command counts records instead (multi, joint).
void refuse_record(const collector::Mechanism& m, const std::string& command);

// --delta: the δ of a shuffled batch's central (ε, δ) (default 10⁻⁶; refused outside (0, 1)).
inline constexpr double default_shuffle_delta = 1e-6;
void add_delta_option(CLI::App& app, double& delta);
// The central ε of a batch of n reports at local ε₀, shuffled (collector/shuffle_amplification.hpp):
// ε₀, n, δ, the numerical bound's bracket and the closed form (null where they do not apply),
// and whom each guards against. `memoized`: ε₀ is ε₁, the batch one epoch's.
Json shuffled_batch_json(double epsilon0, std::uint64_t n, double delta, bool memoized);
// The same as text, a few lines, each starting with `prefix`.
void print_shuffled_batch(std::ostream& out, const Json& j, const std::string& prefix);

// What a file's reports are, for messages: "krr, epsilon 1, domain 8",
// "sd, epsilon 1, range [0, 100], levels 5", "spl-grr, epsilon 1, domains 9,16,7".
std::string describe(const collector::Mechanism& m);
// The value a numeric item stands for, as printed (10 significant digits).
std::string value_text(double v);

// --missing, --missing-as, --delimiter and --clamp, how the fields of an input column are read (`what`: "" for
// simulate's input, "--truth " for aggregate's).
void add_field_options(CLI::App& app, ValueSource& source, const std::string& what);

// How `joint` and `multi` read a CSV of records (record_table.hpp): simulate's input (its
// --columns too), or the estimate's --truth CSVs (read as simulate did).
void add_record_csv_options(CLI::App& app, std::string& columns, bool& no_header, std::string& delimiter,
                            std::string& bins);
void add_truth_csv_options(CLI::App& app, bool& no_header, std::string& delimiter, std::string& bins);
// The ingest and merge subcommands of `joint` and `multi`: `file` is what their counts file is
// called ("counts file"), `same` what a --schema file shares with the reports ("record").
struct IngestAndMerge {
  CLI::App* ingest;
  CLI::App* merge;
};
// What a command with subcommands runs: the run of the one chosen, else the command's own
// (`otherwise`), each given the command's options.
template <class Options, std::size_t N>
std::function<int()> run_chosen(std::shared_ptr<Options> o, std::array<CLI::App*, N> subcommands,
                                std::array<int (*)(const Options&), N> runs, int (*otherwise)(const Options&)) {
  return [=] {
    for (std::size_t i = 0; i < N; ++i)
      if (*subcommands[i]) return runs[i](*o);
    return otherwise(*o);
  };
}
IngestAndMerge add_ingest_and_merge(CLI::App& app, const std::string& ingest_help, const std::string& file,
                                    const std::string& same, std::string& reports, std::string& schema,
                                    std::string& output, std::vector<std::string>& inputs);

}  // namespace tinyldp::tools

#endif
