// SPDX-License-Identifier: Apache-2.0
// tinyldp simulate: privatize a column of values into a report file, as a fleet of devices
// would — one report per value, through the collector's Mechanism (the core's privatize).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "epsilon_text.hpp"
#include "fleet_keys.hpp"
#include "tinyldp/gate/authenticated_report.hpp"
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::tools {
namespace {

using collector::Mechanism;

struct SimulateOptions {
  MechanismOptions mechanism;
  ValueSource input;
  std::string output;
  std::optional<std::uint64_t> seed;
  bool no_header = false, labels = false;
  std::optional<std::string> labels_from;
  std::optional<std::uint32_t> epoch, cohort;
  bool device_ids = false;
  std::uint32_t rounds = 1;
  double change_prob = 0;
  std::optional<std::string> fleet_key;
  std::optional<std::string> fleet_secret;  // authenticated reports (version 2)
  std::uint32_t counter_slot = 0;
};

// --fleet-secret: each report sealed as its device would seal it (gate/authenticated_report.hpp),
// under the key the factory derives for the device; the device's report counter is
// 16·epoch + --counter-slot, so a simulated device may send 16 reports per epoch.
class Sealer {
 public:
  explicit Sealer(const SimulateOptions& o) {
    if (!o.fleet_secret) return;
    if (!o.device_ids || !o.epoch)
      throw BadInput("--fleet-secret: authenticated reports carry the device id and the epoch: add --device-ids and --epoch");
    std::string error;
    secret_ = gate::FleetSecret::read(*o.fleet_secret, error);
    if (!secret_) throw BadInput(error);
    slot_ = o.counter_slot;
  }
  void seal(std::vector<std::uint8_t>& report, const wire::Header& h) const {
    if (!secret_) return;
    const std::uint64_t counter = std::uint64_t{h.epoch} * 16 + slot_;
    if (counter >= gate::exhausted_counter) throw BadInput("--epoch too large for the simulated report counter");
    report = gate::seal(report, static_cast<std::uint32_t>(counter), secret_->device_key(h.device_id));
  }

 private:
  std::optional<gate::FleetSecret> secret_;
  std::uint32_t slot_ = 0;
};

// The wire header fields every report carries (the device id changes per report).
wire::Header header_fields(const SimulateOptions& o) {
  wire::Header h;
  if (o.device_ids) h.fields |= wire::field_device_id;
  if (o.epoch) {
    h.fields |= wire::field_epoch;
    h.epoch = *o.epoch;
  }
  if (o.cohort) {
    h.fields |= wire::field_cohort;
    h.cohort = static_cast<std::uint16_t>(*o.cohort);
  }
  return h;
}

// Reads the input in one pass, privatizing each value as it comes (memory does not grow with
// the input). Memoized mechanisms: row i is device i, with its memo key.
template <class Source>
InputCounts privatize_all(const Mechanism& m, Source& source, LabelMap* labels, const SimulateOptions& o,
                          collector::ReportFileWriter& writer) {
  RandomBits<Source, 256> rng(source);
  wire::Header h = header_fields(o);
  std::vector<std::uint8_t> report;
  std::uint32_t device = 0;
  const Sealer sealer(o);
  std::optional<FleetKeys> keys;
  if (m.memoized()) keys.emplace(o.fleet_key, o.seed);
  return for_each_private_value(o.input, m, labels, [&](std::int64_t value) {
    report.clear();
    h.device_id = device++;
    const Status s = keys ? m.privatize(value, rng, keys->device(h.device_id), h, report)
                          : m.privatize(value, rng, h, report);
    if (s != Status::ok) throw BadInput("no report for value " + std::to_string(device) + ": " + to_string(s));
    sealer.seal(report, h);
    writer.write(report);
  });
}

// --rounds R: the fleet reports R times (the epoch field is the round, from --epoch on); before
// each later round a device's value changes with probability --change-prob to another
// device's value (the column's distribution stays). The values are kept in memory. Writes the
// truth of every round to OUTPUT.rounds.csv and returns the largest number of distinct values
// one device reported (its memos: the budget it spent is that many times ε∞).
struct RoundsSummary {
  InputCounts counts;
  std::uint64_t reports = 0;
  std::size_t most_memos = 0;
  double mean_memos = 0;
};
template <class Source>
RoundsSummary privatize_rounds(const Mechanism& m, Source& source, LabelMap* labels, const SimulateOptions& o,
                               collector::ReportFileWriter& writer, const std::string& rounds_path) {
  std::vector<std::int64_t> values;
  RoundsSummary out;
  out.counts = for_each_private_value(o.input, m, labels, [&](std::int64_t v) { values.push_back(v); });
  if (values.size() > std::size_t{UINT32_MAX}) throw BadInput(o.input.path + ": too many devices");
  RandomBits<Source, 256> rng(source);
  std::mt19937_64 changes(o.seed ? *o.seed ^ 0x6368616E6765ull : std::random_device{}());
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  const std::vector<std::int64_t> column = values;
  std::optional<FleetKeys> keys;
  if (m.memoized()) keys.emplace(o.fleet_key, o.seed);
  std::vector<std::set<std::int64_t>> memos(m.memoized() ? values.size() : 0);
  std::ofstream truth(rounds_path, std::ios::trunc);
  truth << "round,value,true_count\n";
  wire::Header h = header_fields(o);
  h.fields |= wire::field_epoch;
  SimulateOptions sealed = o;
  sealed.epoch = o.epoch.value_or(0);
  const Sealer sealer(sealed);
  std::vector<std::uint8_t> report;
  for (std::uint32_t round = 0; round < o.rounds; ++round) {
    h.epoch = o.epoch.value_or(0) + round;
    std::map<std::int64_t, std::uint64_t> counts;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (round > 0 && unit(changes) < o.change_prob) values[i] = column[pick(changes)];
      report.clear();
      h.device_id = static_cast<std::uint32_t>(i);
      const Status s = keys ? m.privatize(values[i], rng, keys->device(h.device_id), h, report)
                            : m.privatize(values[i], rng, h, report);
      if (s != Status::ok)
        throw BadInput("no report for device " + std::to_string(i) + " in round " + std::to_string(round) + ": " +
                       to_string(s));
      sealer.seal(report, h);
      writer.write(report);
      ++counts[values[i]];
      if (keys) memos[i].insert(values[i]);
      ++out.reports;
    }
    for (const auto& [value, count] : counts) truth << h.epoch << "," << value << "," << count << "\n";
  }
  if (!truth.flush()) throw BadInput("cannot write " + rounds_path + ": " + std::strerror(errno));
  // A device holds at most m.most_memos() memos (LOLOHA: g; 1BitMean: its grid points), however
  // many distinct values it reported.
  const std::size_t cap = m.memoized() ? *m.most_memos() : 0;
  double total = 0;
  for (const auto& d : memos) {
    const std::size_t held = std::min(d.size(), cap);
    out.most_memos = std::max(out.most_memos, held);
    total += static_cast<double>(held);
  }
  if (!memos.empty()) out.mean_memos = total / static_cast<double>(memos.size());
  return out;
}

// Files written under a temporary name and renamed at the end: a failed run leaves neither a
// partial report file nor a clobbered old one.
struct PendingFiles {
  std::vector<std::pair<std::string, std::string>> files;  // temporary, final
  std::string add(const std::string& path) {
    files.emplace_back(path + ".partial", path);
    return files.back().first;
  }
  void commit() {
    for (const auto& [from, to] : files)
      if (std::rename(from.c_str(), to.c_str()) != 0)
        throw BadInput("cannot rename " + from + " to " + to + ": " + std::strerror(errno));
    files.clear();
  }
  ~PendingFiles() {
    for (const auto& f : files) std::remove(f.first.c_str());
  }
};

int run(SimulateOptions o) {
  const Mechanism m = configure(o.mechanism, epsilon_option(o.mechanism));
  refuse_record(m, "simulate");
  o.input.has_header = !o.no_header;
  if ((o.labels || o.labels_from) && m.numeric())
    throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reads integers");
  if ((o.labels || o.labels_from) && m.bloom())
    throw BadInput("--labels numbers the values of a one-hot domain; " + describe(m) +
                   " is a Bloom filter, which reports the string itself (its hash): nothing to number. "
                   "Drop --labels; aggregate names the rows by the strings of --candidates FILE");
  std::optional<LabelMap> labels;
  if (o.labels_from)
    labels = LabelMap::read(*o.labels_from, m.domain(), "--labels-from");
  else if (o.labels)
    labels.emplace(m.domain());
  PendingFiles pending;
  // With labels numbered as they come, the digest is known only at the end: the header is
  // written with a placeholder and rewritten.
  collector::LabelMappingId digest;
  if (labels) digest = o.labels_from ? labels->digest() : collector::LabelDigest{1};
  collector::ReportFileWriter writer(pending.add(o.output), m, digest);
  if (!writer.ok()) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  LabelMap* map = labels ? &*labels : nullptr;
  InputCounts counts;
  RoundsSummary rounds;
  const std::string rounds_path = o.rounds > 1 ? pending.add(o.output + ".rounds.csv") : "";
  const auto privatize = [&](auto& source) {
    if (o.rounds > 1) {
      rounds = privatize_rounds(m, source, map, o, writer, rounds_path);
      counts = rounds.counts;
    } else {
      counts = privatize_all(m, source, map, o, writer);
    }
  };
  with_simulation_source(o.seed, privatize);
  if (counts.values == 0) throw BadInput(o.input.path + ": no values to privatize");
  if (labels) {
    writer.set_labels(labels->digest());
    labels->write(pending.add(o.output + ".labels"));
  }
  if (!writer.close()) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  pending.commit();
  if (counts.skipped > 0)
    std::cerr << "tinyldp: skipped " << counts.skipped << " row(s) with a missing value (--missing skip)\n";
  if (counts.clamped > 0)
    std::cerr << "tinyldp: clamped " << counts.clamped << " value(s) into [" << m.config().lo << ", "
              << m.config().hi << "] (--clamp)\n";
  // The local ε — the loss between any two values, what each report guarantees — and, where
  // the mechanism takes a sensitivity Δ < W, the ε between values at most Δ apart, so labelled.
  if (o.rounds > 1)
    std::cerr << "tinyldp: " << o.rounds << " rounds of " << counts.values << " devices (truth per round in "
              << o.output << ".rounds.csv)\n";
  if (m.memoized()) {
    const double inf = as_double(*m.epsilon_infinity());
    const double most = o.rounds > 1 ? static_cast<double>(rounds.most_memos) : 1.0;
    std::cerr << "tinyldp: memoized: each report epsilon " << as_double(m.local_epsilon())
              << ", all reports of one value epsilon " << inf << "; budget spent per device = memos x " << inf
              << " (a memo per " << m.memos_of() << ", at most " << *m.most_memos()
              << "; counted as distinct values, capped there): " << (o.rounds > 1 ? rounds.mean_memos : 1.0)
              << " on average, at most " << most << " (epsilon " << most * inf << ")\n";
  }
  std::cerr << "tinyldp: " << (o.rounds > 1 ? rounds.reports : counts.values) << " reports (" << o.mechanism.mechanism
            << ", local epsilon " << as_double(m.local_epsilon());
  if (m.local_epsilon().q32 != m.realized_epsilon().q32)
    std::cerr << "; epsilon " << as_double(m.realized_epsilon()) << " between values at most "
              << m.config().sensitivity << " apart";
  std::cerr << ") written to " << o.output;
  if (labels) std::cerr << ", labels to " << o.output << ".labels (" << collector::describe(labels->digest()) << ")";
  std::cerr << "\n";
  return 0;
}

}  // namespace

Subcommand add_simulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* s = app.add_subcommand("simulate", "privatize a column of values into a report file");
  add_mechanism_options(*s, o->mechanism, "number of categories; values are 0 … D−1 (categorical mechanisms)");
  s->add_option("--input,-i", o->input.path, "CSV file, or one integer per line")->required();
  s->add_option("--column,-c", o->input.column, "CSV column: header name or 0-based index");
  s->add_flag("--no-header", o->no_header, "the CSV has no header row");
  auto* labels = s->add_flag("--labels", o->labels,
              "values are labels, numbered in order of first appearance (mapping saved to OUTPUT.labels, "
              "its digest in OUTPUT)");
  s->add_option("--labels-from", o->labels_from,
                "values are labels numbered as in this labels file (e.g. another shard's OUTPUT.labels); "
                "a value not in it is an error")
      ->excludes(labels);
  add_field_options(*s, o->input, "");
  s->add_option("--output,-o", o->output, "report file to write")->required();
  s->add_option("--seed", o->seed, "use the DETERMINISTIC test source with this seed (not private)");
  s->add_flag("--device-ids", o->device_ids, "send the row number as the device id field");
  s->add_option("--epoch", o->epoch, "send this epoch field");
  s->add_option("--cohort", o->cohort, "send this cohort field")->check(CLI::Range(0, 65535));
  s->add_option("--rounds", o->rounds,
                "report R times (epoch field = round, from --epoch); truth per round in OUTPUT.rounds.csv")
      ->check(CLI::Range(1u, 100000u));
  s->add_option("--change-prob", o->change_prob,
                "before each later round, a device's value changes with this probability (to another row's value)")
      ->check(CLI::Range(0.0, 1.0));
  s->add_option("--fleet-key", o->fleet_key,
                "memoized mechanisms: the fleet's 32-byte master key file (created if missing); devices keep "
                "their memos across runs that use it");
  s->add_option("--fleet-secret", o->fleet_secret,
                "authenticate every report (format version 2) under its device's key derived from this 32-byte "
                "fleet secret (needs --device-ids and --epoch): input for tinyldp gate");
  s->add_option("--counter-slot", o->counter_slot,
                "with --fleet-secret: the simulated report counter is 16*epoch + this (0-15)")
      ->check(CLI::Range(0u, 15u));
  return {s, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
