// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/framed_reports.hpp"

namespace tinyldp::collector {

std::optional<FramedReportError> for_each_framed_report(
    std::span<const std::uint8_t> bytes, const wire::Description& expected,
    const std::function<ParseError(std::span<const std::uint8_t> payload)>& on_payload) {
  std::uint64_t index = 0;
  std::size_t at = 0;
  const auto fail = [&](ParseError e) {
    return FramedReportError{index, at, e,
                             "report " + std::to_string(index) + " at byte " + std::to_string(at) + ": " + to_string(e)};
  };
  while (at < bytes.size()) {
    const auto rest = bytes.subspan(at);
    // Its length from its own fields byte (unknown bits are parse_report's to refuse).
    std::size_t size = wire::fixed_header_bytes;
    if (rest.size() >= wire::fixed_header_bytes)
      size = expected.report_bytes(static_cast<std::uint8_t>(rest[6] & wire::known_fields));
    const ParseResult r = parse_report(rest.first(std::min(size, rest.size())), expected);
    if (!r.ok()) return fail(r.error);
    if (const ParseError e = on_payload(r.report.payload); e != ParseError::none) return fail(e);
    at += size;
    ++index;
  }
  return std::nullopt;
}

}  // namespace tinyldp::collector
