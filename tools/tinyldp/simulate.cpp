// SPDX-License-Identifier: Apache-2.0
// tinyldp simulate: privatize a column of values into a report file, as a fleet of devices
// would — one report per value, through the collector's Mechanism (the core's privatize).
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
  std::string input, output;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> column;
  bool no_header = false, labels = false;
  std::optional<std::uint32_t> epoch, cohort;
  bool device_ids = false;
};

template <class Source>
void privatize_all(const Mechanism& m, Source& source, const std::vector<std::int64_t>& values,
                   const SimulateOptions& o, collector::ReportFileWriter& writer) {
  RandomBits<Source, 256> rng(source);
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
  std::vector<std::uint8_t> report;
  for (std::size_t i = 0; i < values.size(); ++i) {
    report.clear();
    h.device_id = static_cast<std::uint32_t>(i);
    if (const Status s = m.privatize(values[i], rng, h, report); s != Status::ok)
      throw BadInput(std::string("no report for row ") + std::to_string(i + 1) + ": " + to_string(s));
    writer.write(report);
    progress("privatized", i + 1, values.size());
  }
}

int run(const SimulateOptions& o) {
  const Mechanism m = configure(o.mechanism, parse_epsilon(o.mechanism.epsilon));
  const PrivateValues column = read_private_values({o.input, o.column, !o.no_header, o.labels}, m);
  if (column.values.empty()) throw BadInput(o.input + ": no values to privatize");
  if (o.labels) write_label_file(o.output + ".labels", column.labels);
  collector::ReportFileWriter writer(o.output, m);
  if (!writer.ok()) throw BadInput("cannot write " + o.output);
  if (o.seed) {
    std::cerr << "tinyldp: WARNING: --seed uses the deterministic test source; these reports are "
                 "NOT private (anyone with the seed can remove the noise). Simulation only.\n";
    port::InsecureTestSource source(*o.seed);
    privatize_all(m, source, column.values, o, writer);
  } else {
    port::HostOsSource source;
    privatize_all(m, source, column.values, o, writer);
  }
  // The local ε — the loss between any two values, what each report guarantees — and, where
  // the mechanism takes a sensitivity Δ < W, the ε between values at most Δ apart, so labelled.
  std::cerr << "tinyldp: " << column.values.size() << " reports (" << o.mechanism.mechanism
            << ", local epsilon " << as_double(m.local_epsilon());
  if (m.local_epsilon().q32 != m.realized_epsilon().q32)
    std::cerr << "; epsilon " << as_double(m.realized_epsilon()) << " between values at most "
              << m.config().sensitivity << " apart";
  std::cerr << ") written to " << o.output << "\n";
  return 0;
}

}  // namespace

Subcommand add_simulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* s = app.add_subcommand("simulate", "privatize a column of values into a report file");
  add_mechanism_options(*s, o->mechanism, "number of categories; values are 0 … D−1 (categorical mechanisms)");
  s->add_option("--input,-i", o->input, "CSV file, or one integer per line")->required();
  s->add_option("--column,-c", o->column, "CSV column: header name or 0-based index");
  s->add_flag("--no-header", o->no_header, "the CSV has no header row");
  s->add_flag("--labels", o->labels,
              "values are labels, numbered in order of first appearance (mapping saved to OUTPUT.labels)");
  s->add_option("--output,-o", o->output, "report file to write")->required();
  s->add_option("--seed", o->seed, "use the DETERMINISTIC test source with this seed (not private)");
  s->add_flag("--device-ids", o->device_ids, "send the row number as the device id field");
  s->add_option("--epoch", o->epoch, "send this epoch field");
  s->add_option("--cohort", o->cohort, "send this cohort field")->check(CLI::Range(0, 65535));
  return {s, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
