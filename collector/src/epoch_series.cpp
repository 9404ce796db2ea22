// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/epoch_series.hpp"

#include <algorithm>
#include <cstring>

#include "byte_vector.hpp"

namespace tinyldp::collector {

namespace {
constexpr char series_magic[8] = {'T', 'L', 'D', 'P', 'S', 'E', 'R', '1'};
}  // namespace

EpochSeries::EpochSeries(const Mechanism& mechanism, const LabelMappingId& labels)
    : mechanism_(mechanism), labels_(labels) {}

ParseError EpochSeries::ingest(std::span<const std::uint8_t> report) {
  const ParseResult parsed = parse_report(report, mechanism_.description());
  if (!parsed.ok()) return parsed.error;
  const auto& h = parsed.report.header;
  const Epoch epoch = (h.fields & wire::field_epoch) ? Epoch(h.epoch) : std::nullopt;
  auto at = epochs_.find(epoch);
  if (at == epochs_.end()) at = epochs_.emplace(epoch, Aggregator(mechanism_, labels_)).first;
  return at->second.ingest(report);
}

bool EpochSeries::assume_labels(const LabelDigest& labels) {
  if (labels_) return false;
  labels_ = labels;
  for (auto& [epoch, a] : epochs_) a.assume_labels(labels);
  return true;
}

std::uint64_t EpochSeries::reports() const {
  std::uint64_t n = 0;
  for (const auto& [epoch, a] : epochs_) n += a.reports();
  return n;
}

std::optional<Aggregator> EpochSeries::pooled() const {
  Aggregator total(mechanism_, labels_);
  if (epochs_.size() > 1 && !total.pool_epochs()) return std::nullopt;
  for (const auto& [epoch, a] : epochs_) {
    Aggregator part = a;
    if (epochs_.size() > 1) part.pool_epochs();
    if (!total.merge(part)) return std::nullopt;  // the parts are this series' own: cannot happen
  }
  for (const Source& source : sources_.list()) total.add_source(source);
  return total;
}

MergeResult EpochSeries::merge(const EpochSeries& other) {
  using Error = MergeResult::Error;
  if (sources_.overlap(other.sources_)) return {Error::same_source};
  // Every epoch's merge is tried on a copy first: a refusal leaves this series as it was.
  std::map<Epoch, Aggregator> merged = epochs_;
  for (const auto& [epoch, theirs] : other.epochs_) {
    auto at = merged.find(epoch);
    if (at == merged.end()) {
      Aggregator fresh(mechanism_, labels_);
      if (const MergeResult r = fresh.merge(theirs); !r) return r;
      merged.emplace(epoch, std::move(fresh));
    } else if (const MergeResult r = at->second.merge(theirs); !r) {
      return r;
    }
  }
  epochs_ = std::move(merged);
  sources_.append(other.sources_);
  return {};
}

MergeResult EpochSeries::merge(const Aggregator& state) {
  EpochSeries other(state.mechanism(), state.labels());
  if (state.epochs().size() > 1) return {MergeResult::Error::other_epochs};
  const Epoch epoch = state.epochs().empty() ? std::nullopt : state.epochs().begin()->first;
  Aggregator copy = state;
  other.sources_ = state.sources();
  copy.clear_sources();  // the series holds them
  if (state.reports() > 0) other.epochs_.emplace(epoch, std::move(copy));
  return merge(other);
}

std::vector<std::uint8_t> EpochSeries::serialize() const {
  if (epochs_.empty()) {  // no epoch to carry the configuration: an empty aggregate does
    Aggregator empty(mechanism_, labels_);
    for (const Source& source : sources_.list()) empty.add_source(source);
    return empty.serialize();
  }
  std::vector<std::uint8_t> out(series_magic, series_magic + 8);
  sources_.serialize(out);
  append_le<std::uint32_t>(out, static_cast<std::uint32_t>(epochs_.size()));
  for (const auto& [epoch, a] : epochs_) {
    const auto state = a.serialize();
    append_le<std::uint64_t>(out, state.size());
    out.insert(out.end(), state.begin(), state.end());
  }
  return out;
}

std::optional<EpochSeries> EpochSeries::deserialize(std::span<const std::uint8_t> bytes, std::string& error) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), series_magic, 8) != 0) {
    auto state = Aggregator::deserialize(bytes, error);
    if (!state) return std::nullopt;
    EpochSeries series(state->mechanism(), state->labels());
    if (!series.merge(*state)) {
      error = "aggregate state holds memoized reports of several epochs in one count; a time series needs them apart";
      return std::nullopt;
    }
    return series;
  }
  std::span<const std::uint8_t> rest = bytes.subspan(8);
  const auto take = [&](std::size_t n) -> std::span<const std::uint8_t> {
    if (rest.size() < n) return {};
    const auto out = rest.first(n);
    rest = rest.subspan(n);
    return out;
  };
  const auto fail = [&](const std::string& why) {
    error = "time series state: " + why;
    return std::nullopt;
  };
  Sources sources;
  if (!Sources::read(rest, sources)) return fail("malformed or overlapping sources");
  auto n = take(4);
  if (n.empty()) return fail("too short");
  const std::uint32_t n_epochs = get_le<std::uint32_t>(n.data());
  std::optional<EpochSeries> series;
  for (std::uint32_t i = 0; i < n_epochs; ++i) {
    const auto length = take(8);
    if (length.empty()) return fail("cut short");
    const std::uint64_t size = get_le<std::uint64_t>(length.data());
    if (size > rest.size()) return fail("an epoch's state runs past the end");
    auto state = Aggregator::deserialize(take(static_cast<std::size_t>(size)), error);
    if (!state) return fail(error);
    if (!state->sources().empty() || !state->epochs_known() || state->epochs().size() != 1)
      return fail("an epoch's state is not one epoch's");
    if (!series) series.emplace(state->mechanism(), state->labels());
    const Epoch epoch = state->epochs().begin()->first;
    if (series->epochs_.contains(epoch)) return fail("an epoch listed twice");
    if (!series->epochs_.empty() && !(std::prev(series->epochs_.end())->first < epoch))
      return fail("epochs not in order");
    Aggregator probe(series->mechanism_, series->labels_);
    if (const MergeResult r = probe.merge(*state); !r) return fail(std::string("an epoch's state: ") + r.reason());
    series->epochs_.emplace(epoch, std::move(*state));
  }
  if (!rest.empty()) return fail("bytes after the last epoch");
  if (!series) return fail("no epochs (an empty series has no configuration)");
  series->sources_ = std::move(sources);
  return series;
}

}  // namespace tinyldp::collector
