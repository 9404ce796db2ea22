// SPDX-License-Identifier: Apache-2.0
#include "counts_files.hpp"

#include <algorithm>

#include "epsilon_text.hpp"

namespace tinyldp::tools {

namespace {
// Attributes of these sizes named 0, 1, … (a report file's header names none).
std::vector<collector::RecordAttribute> numbered_attributes(const std::vector<std::uint32_t>& sizes) {
  std::vector<collector::RecordAttribute> out;
  for (std::uint32_t k : sizes) out.push_back({std::to_string(out.size()), k, {}});
  return out;
}

// The schema `make(error)` makes, or BadInput naming `path` and why not.
template <class Make>
auto made(const std::string& path, Make make) {
  std::string error;
  auto s = make(error);
  if (!s) throw BadInput(path + ": " + error);
  return std::move(*s);
}

std::string sizes_text(const std::vector<collector::RecordAttribute>& attributes) {
  std::string out;
  for (const auto& a : attributes) out += (out.empty() ? "" : ",") + std::to_string(a.size);
  return out;
}
}  // namespace

collector::RecordSchema CountsKind<collector::RecordCounts>::schema_of(const collector::Mechanism& m,
                                                                      const std::string& path) {
  const collector::MechanismConfig& c = m.config();
  if (c.id != wire::MechanismId::record_rr)
    throw BadInput(path + " holds reports of " + describe(m) + ", not of record (wire id 22)");
  return made(path, [&](std::string& error) {
    return Schema::make(numbered_attributes(c.attribute_sizes), c.prr_f, c.irr_p, c.irr_q, error);
  });
}

std::pair<wire::Description, std::string> CountsKind<collector::RecordCounts>::expected(const Schema& s) {
  return {s.mechanism().description(), "record, f " + std::to_string(s.f().num) + "/2^" +
                                           std::to_string(s.f().bits) + ", domains " + sizes_text(s.attributes())};
}

collector::MultiAttributeSchema CountsKind<collector::MultiAttributeCounts>::schema_of(const collector::Mechanism& m,
                                                                                      const std::string& path) {
  const collector::MechanismConfig& c = m.config();
  if (collector::multi_attribute_name(c.id) == nullptr)
    throw BadInput(path + " holds reports of " + describe(m) + ", not of a multi-attribute protocol (" +
                   collector::multi_attribute_names() + ")");
  return made(path, [&](std::string& error) {
    return Schema::make(c.id, c.epsilon, numbered_attributes(c.attribute_sizes), error);
  });
}

std::pair<wire::Description, std::string> CountsKind<collector::MultiAttributeCounts>::expected(const Schema& s) {
  return {s.description(), std::string(s.name()) + ", epsilon " + to_decimal(s.requested_epsilon(), 4) +
                               ", domains " + sizes_text(s.attributes())};
}

void CountsKind<collector::EpochSeries>::merge(collector::EpochSeries& total, const collector::EpochSeries& c,
                                              const std::string& from, const std::string& first,
                                              const std::string* earlier) {
  const auto merged = total.merge(c);
  if (merged) return;
  using Error = collector::MergeResult::Error;
  if (merged.error == Error::other_parameters)
    throw BadInput(from + " holds reports of another mechanism or other parameters (" + describe(c.mechanism()) +
                   ") than " + first + " (" + describe(total.mechanism()) + ")");
  if (merged.error == Error::same_source)
    throw BadInput(from + " counts the same reports as " + (earlier ? *earlier : "a report file already counted") +
                   " (the same records' digest): given twice, every report in it would count twice");
  if (merged.error == Error::other_labels)
    throw BadInput(from + " numbers its items by another label mapping (" + collector::describe(c.labels()) +
                   ") than " + first + " (" + collector::describe(total.labels()) +
                   "): the same index would add up different labels. " +
                   (c.labels() && total.labels()
                        ? "Simulate every shard with --labels-from one labels file"
                        : "If the unrecorded one is the same mapping, say so with --labels FILE"));
  throw BadInput("cannot add " + from + " to " + first + ": " + merged.reason());
}

}  // namespace tinyldp::tools
