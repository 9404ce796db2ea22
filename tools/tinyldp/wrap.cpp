// SPDX-License-Identifier: Apache-2.0
// tinyldp wrap: turns a raw capture of device frames (a UART stream: serial_frame.hpp) into a
// report file for the mechanism the devices were configured with. Frames are found by their
// sync bytes, length and CRC (collector/serial_capture.hpp); each report is then parsed
// strictly for that mechanism, and only those that pass are written. Authenticated reports
// (version 2) are kept as they are, tag and all, for `tinyldp gate`.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "cli_common.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/collector/serial_capture.hpp"
#include "tinyldp/gate/authenticated_report.hpp"

namespace tinyldp::tools {
namespace {

struct WrapOptions {
  MechanismOptions mechanism;
  std::string capture, output;
  bool allow_rejected = false;
};

int run(const WrapOptions& o) {
  const collector::Mechanism m = configure(o.mechanism, epsilon_option(o.mechanism));
  std::ifstream in(o.capture, std::ios::binary);
  if (!in) throw BadInput("cannot open " + o.capture + ": " + std::strerror(errno));
  collector::ReportFileWriter writer(o.output + ".partial", m);
  if (!writer.ok()) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  std::map<std::string, std::uint64_t> refused;
  std::uint64_t written = 0;
  const wire::Description d = m.description();
  collector::SerialCapture capture(d.report_bytes(wire::known_fields) + gate::trailer_bytes,
                                   [&](std::span<const std::uint8_t> report, std::uint64_t) {
                                     if (report[0] == gate::authenticated_version) {
                                       // Its shape is checked here; its tag needs the fleet's secret:
                                       // the gate checks it.
                                       const gate::AuthenticatedReport a = gate::split_authenticated(report, d);
                                       const collector::ParseError e =
                                           a.ok() ? m.check_payload(a.parsed.payload) : a.parse_error;
                                       if (a.ok() && e == collector::ParseError::none) {
                                         writer.write(report);
                                         ++written;
                                       } else {
                                         ++refused[a.error == gate::AuthError::malformed || a.ok() ? to_string(e)
                                                                                                 : gate::to_string(a.error)];
                                       }
                                       return;
                                     }
                                     const collector::ParseResult p = collector::parse_report(report, d);
                                     if (p.ok() && m.check_payload(p.report.payload) == collector::ParseError::none) {
                                       writer.write(report);
                                       ++written;
                                     } else {
                                       ++refused[to_string(p.ok() ? m.check_payload(p.report.payload) : p.error)];
                                     }
                                   });
  std::vector<std::uint8_t> chunk(1 << 20);
  while (in) {
    in.read(reinterpret_cast<char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
    capture.feed(std::span<const std::uint8_t>(chunk.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) throw BadInput("cannot read " + o.capture + ": " + std::strerror(errno));
  capture.finish();
  if (!writer.close()) throw BadInput("cannot write " + o.output + ": " + std::strerror(errno));
  if (std::rename((o.output + ".partial").c_str(), o.output.c_str()) != 0)
    throw BadInput("cannot rename " + o.output + ".partial to " + o.output + ": " + std::strerror(errno));
  const collector::CaptureCounts& c = capture.counts();
  std::cerr << "tinyldp: " << c.frames << " frame(s) found in " << o.capture << ", " << written
            << " report(s) written to " << o.output << " (" << describe(m) << ")";
  if (c.bad_frames > 0 || c.skipped_bytes > 0)
    std::cerr << "; " << c.bad_frames << " broken frame(s) (length or CRC), " << c.skipped_bytes
              << " byte(s) outside good frames";
  std::cerr << "\n";
  std::uint64_t rejected = 0;
  for (const auto& [reason, count] : refused) {
    std::cerr << "tinyldp: refused " << count << " report(s): " << reason << "\n";
    rejected += count;
  }
  if (written == 0) throw BadInput(o.capture + ": no report of " + describe(m) + " in the capture");
  return (rejected > 0 || c.bad_frames > 0) && !o.allow_rejected ? exit_rejected : 0;
}

}  // namespace

Subcommand add_wrap(CLI::App& app) {
  auto o = std::make_shared<WrapOptions>();
  auto* w = app.add_subcommand("wrap", "turn a raw capture of device frames (UART) into a report file");
  add_mechanism_options(*w, o->mechanism, "number of categories the devices use");
  w->add_option("capture", o->capture, "raw capture: serial frames (a5 5a, length, report, CRC-32)")->required();
  w->add_option("--output,-o", o->output, "report file to write")->required();
  w->add_flag("--allow-rejected", o->allow_rejected, "exit 0 even if frames were broken or reports refused");
  return {w, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
