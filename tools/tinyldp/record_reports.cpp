// SPDX-License-Identifier: Apache-2.0
#include "record_reports.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cli_common.hpp"
#include "tinyldp/collector/framed_reports.hpp"
#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::tools {

namespace {
bool is_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
  std::uint8_t magic[8] = {};
  in.read(reinterpret_cast<char*>(magic), 8);
  return in.gcount() == 8 && collector::report_file_header_size(magic) != 0;
}
}  // namespace

std::optional<collector::Mechanism> record_file_mechanism(const std::string& path) {
  if (!is_report_file(path)) return std::nullopt;
  collector::ReportFileReader reader(path);
  if (!reader.ok()) throw BadInput(reader.error());
  return reader.mechanism();
}

std::uint64_t read_record_reports(const std::string& path, const wire::Description& expected,
                                  const std::string& expected_text,
                                  const std::function<collector::ParseError(std::span<const std::uint8_t>)>& count) {
  if (!is_report_file(path)) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
    std::uint64_t good = 0;
    const auto bad = collector::for_each_framed_report(bytes, expected, [&](std::span<const std::uint8_t> payload) {
      const collector::ParseError e = count(payload);
      good += e == collector::ParseError::none;
      return e;
    });
    if (bad)
      throw BadInput(path + ": " + bad->reason + " (" + std::to_string(good) +
                     " reports before it were good; nothing written)");
    return good;
  }
  collector::ReportFileReader reader(path);
  if (!reader.ok()) throw BadInput(reader.error());
  const wire::Description& d = reader.mechanism().description();
  if (d.id != expected.id || d.digest != expected.digest || d.payload_bits != expected.payload_bits)
    throw BadInput(path + " holds reports of " + describe(reader.mechanism()) + ", not of the schema's " +
                   expected_text);
  std::vector<std::uint8_t> report;
  std::uint64_t index = 0;
  while (reader.next(report)) {
    collector::ParseResult r = collector::parse_report(report, expected);
    if (r.ok()) r.error = count(r.report.payload);
    if (!r.ok())
      throw BadInput(path + ": record " + std::to_string(index + 1) + ": " + collector::to_string(r.error) + " (" +
                     std::to_string(index) + " reports before it were good; nothing written)");
    ++index;
  }
  if (!reader.ok()) throw BadInput(path + ": " + reader.error());
  return index;
}

FramedReportWriter::FramedReportWriter(const std::string& path, const wire::Description& description)
    : description_(description), frame_(description.report_bytes(0)) {
  if (!path.empty()) out_.open(path, std::ios::binary);
}

bool FramedReportWriter::write(const std::uint8_t* payload) {
  if (!out_.is_open() || !out_) return true;  // no --framed, or a file already failed (ok() says so)
  std::size_t written = 0;
  if (wire::encode(description_, {}, payload, frame_.data(), frame_.size(), written) != Status::ok) return false;
  out_.write(reinterpret_cast<const char*>(frame_.data()), static_cast<std::streamsize>(written));
  return true;
}

}  // namespace tinyldp::tools
