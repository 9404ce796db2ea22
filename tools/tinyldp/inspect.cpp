// SPDX-License-Identifier: Apache-2.0
// tinyldp inspect: decode report files, one report per line — its header fields and the
// payload's fields by name, or the reason it is rejected; then, on stderr, how many reports came
// with each memo key generation (a generation that moves is a re-key). With --summary, one line
// per file instead: its records, the epochs they hold (reports per epoch field), the memo key
// generations and whether its trailer vouches that it is whole.
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli_common.hpp"
#include "tinyldp/collector/memo_generations.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::tools {
namespace {

using collector::ParseError;

// One file's --summary: records, rejected reports, reports per epoch, the trailer.
void print_summary(const std::string& path, const collector::ReportFileReader& reader, std::uint64_t rejected,
                   const std::map<std::optional<std::uint32_t>, std::uint64_t>& epochs,
                   const collector::MemoGenerationCounts& generations, bool json) {
  Json j;
  j["file"] = path;
  j["mechanism"] = collector::name_of(reader.mechanism().description().id);
  j["records"] = reader.records_read();
  j["rejected"] = rejected;
  j["epochs"] = Json::array();
  for (const auto& [epoch, count] : epochs)
    j["epochs"].push_back({{"epoch", epoch ? Json(*epoch) : Json(nullptr)}, {"reports", count}});
  j["memo_generations"] = Json::array();
  for (const auto& [generation, count] : generations.counts())
    j["memo_generations"].push_back({{"generation", generation}, {"reports", count}});
  j["trailer"] = reader.has_trailer() ? "verified" : "absent (written before report files had trailers)";
  if (json) {
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << path << ": " << j["mechanism"].get<std::string>() << ", " << reader.records_read() << " record(s), "
            << rejected << " rejected; epochs:";
  if (epochs.empty()) std::cout << " none";
  for (const auto& [epoch, count] : epochs)
    std::cout << " " << (epoch ? std::to_string(*epoch) : std::string("(no epoch field)")) << " (" << count << ")";
  if (!generations.counts().empty()) std::cout << "; memo key " << generations.summary();
  std::cout << "; trailer " << j["trailer"].get<std::string>() << "\n";
}

int run(const std::vector<std::string>& inputs, bool json, bool summary) {
  int status = 0;
  for (const auto& path : inputs) {
    collector::ReportFileReader reader(path);
    if (!reader.ok()) throw BadInput(reader.error());
    const collector::Mechanism& m = reader.mechanism();
    const auto& d = m.description();
    std::vector<std::uint8_t> report;
    std::uint64_t index = 0, rejected = 0;
    std::map<std::optional<std::uint32_t>, std::uint64_t> epochs;
    collector::MemoGenerationCounts generations;
    while (reader.next(report)) {
      ++index;
      collector::ParseResult r = collector::parse_report(report, d);
      if (r.ok()) {
        const ParseError e = m.check_payload(r.report.payload);
        if (e != ParseError::none) r.error = e;
      }
      if (!r.ok()) {
        ++rejected;
        status = exit_rejected;
      } else {
        const auto& h = r.report.header;
        ++epochs[(h.fields & wire::field_epoch) ? std::optional(h.epoch) : std::nullopt];
        generations.add(h);
      }
      if (summary) continue;
      Json j;
      j["record"] = index;
      if (!r.ok()) {
        j["rejected"] = to_string(r.error);
        status = exit_rejected;
      } else {
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
    if (summary)
      print_summary(path, reader, rejected, epochs, generations, json);
    else if (!generations.counts().empty())
      std::cerr << path << ": memo key generations: " << generations.summary() << "\n";
  }
  return status;
}

}  // namespace

Subcommand add_inspect(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    bool json = false, summary = false;
  };
  auto o = std::make_shared<Options>();
  auto* i = app.add_subcommand("inspect", "decode report files, one report per line");
  i->add_option("reports", o->inputs, "report files")->required();
  i->add_flag("--json", o->json, "one JSON object per line");
  i->add_flag("--summary", o->summary,
              "one line per file: its records, the epochs they hold (reports per epoch) and its trailer");
  return {i, [o] { return run(o->inputs, o->json, o->summary); }};
}

}  // namespace tinyldp::tools
