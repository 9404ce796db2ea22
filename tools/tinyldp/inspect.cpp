// SPDX-License-Identifier: Apache-2.0
// tinyldp inspect: decode report files, one report per line — its header fields and the
// payload's fields by name, or the reason it is rejected; then, on stderr, how many reports came
// with each memo key generation (a generation that moves is a re-key).
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "tinyldp/collector/memo_generations.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::tools {
namespace {

using collector::ParseError;

int run(const std::vector<std::string>& inputs, bool json) {
  int status = 0;
  for (const auto& path : inputs) {
    collector::ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    const collector::Mechanism& m = reader.mechanism();
    const auto& d = m.description();
    std::vector<std::uint8_t> report;
    std::uint64_t index = 0;
    collector::MemoGenerationCounts generations;
    while (reader.next(report)) {
      ++index;
      collector::ParseResult r = collector::parse_report(report, d);
      if (r.ok()) {
        const ParseError e = m.check_payload(r.report.payload);
        if (e != ParseError::none) r.error = e;
      }
      Json j;
      j["record"] = index;
      if (!r.ok()) {
        j["rejected"] = to_string(r.error);
        status = exit_rejected;
      } else {
        generations.add(r.report.header);
        j["mechanism"] = collector::name_of(d.id);
        for (const auto& field : collector::header_fields(r.report.header)) j[field.name] = field.value;
        for (const auto& field : m.payload_fields(r.report.payload))
          std::visit([&](const auto& v) { j[field.name] = v; }, field.value);
      }
      if (json) {
        std::cout << j.dump() << "\n";
      } else {
        std::cout << path << " #" << index;
        for (auto it = j.begin(); it != j.end(); ++it)
          if (it.key() != "record") std::cout << " " << it.key() << "=" << it.value().dump();
        std::cout << "\n";
      }
    }
    if (!reader.ok()) throw BadInput(path + ": " + reader.error());
    if (!generations.counts().empty())
      std::cerr << path << ": memo key generations: " << generations.summary() << "\n";
  }
  return status;
}

}  // namespace

Subcommand add_inspect(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* i = app.add_subcommand("inspect", "decode report files, one report per line");
  i->add_option("reports", o->inputs, "report files")->required();
  i->add_flag("--json", o->json, "one JSON object per line");
  return {i, [o] { return run(o->inputs, o->json); }};
}

}  // namespace tinyldp::tools
