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
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
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
// the input).
template <class Source>
InputCounts privatize_all(const Mechanism& m, Source& source, LabelMap* labels, const SimulateOptions& o,
                          collector::ReportFileWriter& writer) {
  RandomBits<Source, 256> rng(source);
  wire::Header h = header_fields(o);
  std::vector<std::uint8_t> report;
  std::uint32_t device = 0;
  return for_each_private_value(o.input, m, labels, [&](std::int64_t value) {
    report.clear();
    h.device_id = device++;
    if (const Status s = m.privatize(value, rng, h, report); s != Status::ok)
      throw BadInput("no report for value " + std::to_string(device) + ": " + to_string(s));
    writer.write(report);
  });
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
  const Mechanism m = configure(o.mechanism, parse_epsilon(o.mechanism.epsilon));
  o.input.has_header = !o.no_header;
  if ((o.labels || o.labels_from) && m.numeric())
    throw BadInput("--labels is for categorical mechanisms; " + describe(m) + " reads integers");
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
  if (o.seed) {
    std::cerr << "tinyldp: WARNING: --seed uses the deterministic test source; these reports are "
                 "NOT private (anyone with the seed can remove the noise). Simulation only.\n";
    port::InsecureTestSource source(*o.seed);
    counts = privatize_all(m, source, map, o, writer);
  } else {
    port::HostOsSource source;
    counts = privatize_all(m, source, map, o, writer);
  }
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
  std::cerr << "tinyldp: " << counts.values << " reports (" << o.mechanism.mechanism
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
  return {s, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
