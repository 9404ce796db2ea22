// SPDX-License-Identifier: Apache-2.0
// tinyldp._native — the collector for Python (pybind11): configured mechanisms, reports in
// numpy-viewable buffers, report files (whole, as bytes, or by byte range), aggregation with
// exact merge and serialization, estimates with intervals and post-processing as numpy arrays,
// the numeric mean, and seeded privatization for simulations. python/tinyldp/ is the Python
// layer over it (label mappings, DataFrames, Dask). Long loops release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report_records.hpp"
#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/bayesian_update.hpp"
#include "tinyldp/collector/configure.hpp"
#include "tinyldp/collector/epsilon_text.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/joint.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/collector/record_counts.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/collector/shuffle_amplification.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace py = pybind11;

namespace tinyldp::python {
namespace {

using collector::Aggregator;
using collector::LabelDigest;
using collector::LabelMappingId;
using collector::Mechanism;
using collector::MechanismConfig;
using collector::ParseError;

// --- conversions -----------------------------------------------------------------------------

// A decimal as the user gave it (ε, ε₁, RAPPOR's f, p, q): a str is read exactly as the CLI
// reads its option; an int or a float as the shortest decimal that writes it (repr), so
// epsilon=0.1 and "0.1" agree. `what` names the keyword in a TypeError.
std::string decimal_text(const py::handle& value, const char* what, const char* expected) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::bool_>(value))
    throw py::type_error(std::string(what) + " must be " + expected + ", not a bool");
  if (py::hasattr(value, "__index__")) return py::str(py::int_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  if (py::hasattr(value, "__float__")) {
    // decimal.Decimal's str is its exact text; a float's repr is its shortest decimal.
    const py::module_ decimal = py::module_::import("decimal");
    return py::isinstance(value, decimal.attr("Decimal"))
               ? py::str(value).cast<std::string>()
               : py::repr(py::float_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  }
  throw py::type_error(std::string(what) + " must be " + expected);
}

Epsilon epsilon_from(const py::handle& value, const char* what) {
  return collector::parse_epsilon(decimal_text(value, what, "a decimal string or a number"));  // std::invalid_argument → ValueError
}

double as_double(Epsilon e) { return collector::to_double(e); }

py::bytes as_bytes(std::span<const std::uint8_t> b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

LabelMappingId digest_from(const std::optional<py::bytes>& b) {
  if (!b) return std::nullopt;
  const std::string s = *b;
  if (s.size() != 32) throw py::value_error("a label digest is 32 bytes (a SHA-256), not " + std::to_string(s.size()));
  LabelDigest d{};
  std::memcpy(d.data(), s.data(), 32);
  if (d == LabelDigest{}) throw py::value_error("an all-zero label digest stands for no mapping; pass None");
  return d;
}

py::object digest_to_python(const LabelMappingId& d) {
  if (!d) return py::none();
  return as_bytes(*d);
}

// A numpy array that views memory owned by `owner` (kept alive by the array).
template <class T>
py::array_t<T> view(const std::vector<T>& v, py::handle owner) {
  return py::array_t<T>({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(T))}, v.data(), owner);
}
template <class T>
py::array_t<T> copy(const std::vector<T>& v) {
  py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
}

// Reports from what Python holds: Reports, one bytes-like report, a 2-D uint8 array (a report
// per row), or a sequence of bytes-like reports.
std::shared_ptr<const Reports> reports_from(const py::handle& obj) {
  if (py::isinstance<Reports>(obj)) return obj.cast<std::shared_ptr<Reports>>();
  auto out = std::make_shared<Reports>();
  if (py::isinstance<py::bytes>(obj) || py::isinstance<py::bytearray>(obj) || py::isinstance<py::memoryview>(obj)) {
    const std::string s = py::isinstance<py::bytes>(obj) ? obj.cast<std::string>()
                                                         : py::bytes(py::reinterpret_borrow<py::object>(obj)).cast<std::string>();
    out->push_back({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    return out;
  }
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(obj);
    if (!a || a.ndim() != 2)
      throw py::value_error("an array of reports is 2-D uint8, one report per row (got " +
                            std::to_string(a ? a.ndim() : 0) + " dimensions)");
    const auto rows = static_cast<std::size_t>(a.shape(0)), width = static_cast<std::size_t>(a.shape(1));
    out->data.assign(a.data(), a.data() + rows * width);
    out->offsets.resize(rows + 1);
    for (std::size_t i = 0; i <= rows; ++i) out->offsets[i] = i * width;
    return out;
  }
  for (const py::handle item : py::iter(obj)) {
    const std::string s = py::bytes(py::reinterpret_borrow<py::object>(item));
    out->push_back({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
  }
  return out;
}

// --- mechanisms ------------------------------------------------------------------------------

const char* kind_name(collector::MechanismKind kind) {
  return kind == collector::MechanismKind::record ? "record" : kind == collector::MechanismKind::numeric ? "numeric"
                                                                                                         : "categorical";
}
const char* kind_name(const Mechanism& m) {
  return kind_name(m.record() ? collector::MechanismKind::record
                   : m.numeric() ? collector::MechanismKind::numeric
                                 : collector::MechanismKind::categorical);
}

// The keywords become the collector's ParameterValues; configure_mechanism (configure.hpp)
// checks them exactly as it checks the CLI's options, naming the keyword.
Mechanism configure(const std::string& name, const py::object& epsilon, std::optional<std::uint32_t> domain,
                    std::optional<std::int32_t> lo, std::optional<std::int32_t> hi,
                    std::optional<std::uint32_t> levels, std::optional<std::uint32_t> sensitivity,
                    std::optional<std::uint32_t> grid_step, std::optional<std::uint32_t> sampled_buckets,
                    std::optional<std::uint32_t> branching, const py::object& epsilon_one, const py::object& f, const py::object& p, const py::object& q,
                    std::optional<std::vector<std::uint32_t>> attribute_sizes, std::optional<std::uint32_t> bloom_bits,
                    std::optional<std::uint32_t> hashes, std::optional<std::uint32_t> cohorts,
                    const py::object& epsilon_tolerance, std::optional<std::uint32_t> precision_bits) {
  using collector::ParameterId;
  collector::ParameterValues given;
  given.mechanism = name;
  if (!epsilon.is_none()) given.epsilon = epsilon_from(epsilon, "epsilon");
  const char* decimal = "a decimal string or a number";
  const char* probability = "a probability: a decimal string or a number in [0, 1]";
  if (!epsilon_one.is_none()) given.epsilon_one = decimal_text(epsilon_one, "epsilon_one", decimal);
  if (!f.is_none()) given.f = decimal_text(f, "f", probability);
  if (!p.is_none()) given.p = decimal_text(p, "p", probability);
  if (!q.is_none()) given.q = decimal_text(q, "q", probability);
  if (!epsilon_tolerance.is_none()) given.epsilon_tolerance = decimal_text(epsilon_tolerance, "epsilon_tolerance", decimal);
  given.attribute_sizes = std::move(attribute_sizes);
  const auto integer = [&](ParameterId id, const auto& keyword) {
    if (keyword) given[id] = *keyword;
  };
  integer(ParameterId::domain, domain);
  integer(ParameterId::lo, lo);
  integer(ParameterId::hi, hi);
  integer(ParameterId::levels, levels);
  integer(ParameterId::sensitivity, sensitivity);
  integer(ParameterId::grid_step, grid_step);
  integer(ParameterId::sampled_buckets, sampled_buckets);
  integer(ParameterId::branching, branching);
  integer(ParameterId::bloom_bits, bloom_bits);
  integer(ParameterId::hashes, hashes);
  integer(ParameterId::cohorts, cohorts);
  integer(ParameterId::precision_bits, precision_bits);
  auto configured = collector::configure_mechanism(given, collector::FrontEnd::python);
  if (auto* reason = std::get_if<std::string>(&configured)) throw py::value_error(*reason);
  return std::move(std::get<Mechanism>(configured));
}

py::dict parameters_of(const Mechanism& m) {
  py::dict d;
  for (const auto& p : m.parameters()) d[p.name] = p.value;
  return d;
}

// A Mechanism pickles as its report-file header: the collector's one serialized configuration.
py::bytes mechanism_state(const Mechanism& m) { return as_bytes(collector::report_file_header(m)); }

Mechanism mechanism_from_state(const py::bytes& b) {
  const std::string s = b;
  std::string error;
  auto m = collector::parse_report_file_header({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, error);
  if (!m) throw py::value_error("not a pickled tinyldp Mechanism: " + error);
  return *m;
}

// Whether v is a value the mechanism privatizes (a category index, or an integer of [lo, hi]).
bool in_domain(const Mechanism& m, std::int64_t v) {
  if (m.numeric()) return v >= m.config().lo && v <= m.config().hi;
  return v >= 0 && v < static_cast<std::int64_t>(m.domain());
}

std::string domain_text(const Mechanism& m) {
  if (m.numeric()) return "[" + std::to_string(m.config().lo) + ", " + std::to_string(m.config().hi) + "]";
  return "0 … " + std::to_string(m.domain() - 1);
}

// One report per value, as `tinyldp simulate` makes them: a RandomBits over the source, the
// values in order, the device id (when asked) the row number.
template <class Source>
Reports privatize_all(const Mechanism& m, Source& source, std::span<const std::int64_t> values, wire::Header h) {
  RandomBits<Source, 256> rng(source);
  Reports out;
  out.data.reserve(values.size() * m.description().report_bytes(h.fields));
  out.offsets.reserve(values.size() + 1);
  std::vector<std::uint8_t> report;
  for (std::size_t i = 0; i < values.size(); ++i) {
    report.clear();
    h.device_id = static_cast<std::uint32_t>(i);
    if (const Status s = m.privatize(values[i], rng, h, report); s != Status::ok)
      throw std::runtime_error("no report for value " + std::to_string(values[i]) + " (row " + std::to_string(i) +
                               "): " + to_string(s));
    out.push_back(report);
  }
  return out;
}

// The optional header fields privatize writes (the device id: the row number).
wire::Header report_header(bool device_ids, std::optional<std::uint32_t> epoch, std::optional<std::uint16_t> cohort) {
  wire::Header h;
  if (device_ids) h.fields |= wire::field_device_id;
  if (epoch) {
    h.fields |= wire::field_epoch;
    h.epoch = *epoch;
  }
  if (cohort) {
    h.fields |= wire::field_cohort;
    h.cohort = *cohort;
  }
  return h;
}

// make(source) without the GIL, over the deterministic test source of `seed` or the OS's entropy.
template <class Make>
Reports from_source(std::optional<std::uint64_t> seed, const Make& make) {
  py::gil_scoped_release release;
  if (seed) {
    port::InsecureTestSource source(*seed);
    return make(source);
  }
  port::HostOsSource source;
  return make(source);
}

// A record mechanism's reports: one per row of d values.
template <class Source>
Reports privatize_records(const Mechanism& m, Source& source, const std::vector<std::uint32_t>& values, std::size_t d,
                          wire::Header h) {
  RandomBits<Source, 256> rng(source);
  Reports out;
  std::vector<std::uint8_t> report;
  for (std::size_t i = 0; i * d < values.size(); ++i) {
    report.clear();
    h.device_id = static_cast<std::uint32_t>(i);
    if (const Status s = m.privatize_record(std::span(values).subspan(i * d, d), rng, h, report); s != Status::ok)
      throw std::runtime_error("no report for row " + std::to_string(i) + ": " + to_string(s));
    out.push_back(report);
  }
  return out;
}

Reports privatize(const Mechanism& m, const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& values,
                  std::optional<std::uint64_t> seed, bool device_ids, std::optional<std::uint32_t> epoch,
                  std::optional<std::uint16_t> cohort) {
  if (m.record() && !m.memoized()) {  // a record per row
    const auto& sizes = m.config().attribute_sizes;
    if (values.ndim() != 2 || static_cast<std::size_t>(values.shape(1)) != sizes.size())
      throw py::value_error(std::string(collector::name_of(m.config().id)) + " privatizes records: values must be 2-D, " +
                            std::to_string(sizes.size()) + " columns (one per attribute)");
    std::vector<std::uint32_t> v(static_cast<std::size_t>(values.size()));
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::int64_t x = values.data()[i];
      if (x < 0 || x >= sizes[i % sizes.size()])
        throw py::value_error("value " + std::to_string(x) + " at row " + std::to_string(i / sizes.size()) +
                              ", attribute " + std::to_string(i % sizes.size()) + " is outside 0 … " +
                              std::to_string(sizes[i % sizes.size()] - 1));
      v[i] = static_cast<std::uint32_t>(x);
    }
    const wire::Header h = report_header(device_ids, epoch, cohort);
    return from_source(seed, [&](auto& source) { return privatize_records(m, source, v, sizes.size(), h); });
  }
  if (m.memoized())
    throw py::value_error(std::string(collector::name_of(m.config().id)) +
                          " is memoized: its reports need each device's memo key, which simulate does not "
                          "model yet; simulate a non-memoized mechanism");
  if (values.ndim() != 1) throw py::value_error("values must be 1-D");
  const std::span<const std::int64_t> v(values.data(), static_cast<std::size_t>(values.size()));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!in_domain(m, v[i]))
      throw py::value_error("value " + std::to_string(v[i]) + " at index " + std::to_string(i) +
                            " is outside the domain " + domain_text(m));
  const wire::Header h = report_header(device_ids, epoch, cohort);
  return from_source(seed, [&](auto& source) { return privatize_all(m, source, v, h); });
}

// Why each report would be rejected (0: accepted), as the aggregator and `inspect` decide.
ParseError check_report(const Mechanism& m, std::span<const std::uint8_t> report,
                        collector::ParseResult* parsed = nullptr) {
  collector::ParseResult r = collector::parse_report(report, m.description());
  if (r.ok()) r.error = m.check_payload(r.report.payload);
  if (parsed != nullptr) *parsed = r;
  return r.error;
}

py::dict inspect(const Mechanism& m, const py::bytes& report) {
  const std::string s = report;
  collector::ParseResult r;
  py::dict d;
  if (const ParseError e = check_report(m, {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, &r);
      e != ParseError::none) {
    d["rejected"] = collector::to_string(e);
    return d;
  }
  d["mechanism"] = collector::name_of(m.config().id);
  for (const auto& field : collector::header_fields(r.report.header)) d[field.name] = field.value;
  for (const auto& field : m.payload_fields(r.report.payload))
    std::visit([&](const auto& v) { d[field.name.c_str()] = v; }, field.value);
  return d;
}

py::array_t<double> true_frequencies(const Mechanism& m,
                                     const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& values) {
  if (m.record())
    throw py::value_error(std::string(collector::name_of(m.config().id)) +
                          " is a record of several attributes: its truth is per attribute (tinyldp multi, joint)");
  std::vector<double> f(m.atoms(), 0.0);  // the rows: sw's buckets, else the items
  const std::int64_t* v = values.data();
  const auto n = static_cast<std::size_t>(values.size());
  if (n == 0) throw py::value_error("no values");
  for (std::size_t i = 0; i < n; ++i) {
    if (!in_domain(m, v[i]))
      throw py::value_error("value " + std::to_string(v[i]) + " at index " + std::to_string(i) +
                            " is outside the domain " + domain_text(m));
    for (const auto& [item, weight] : m.item_weights(v[i])) f[item] += weight;
  }
  for (double& x : f) x /= static_cast<double>(n);
  return copy(f);
}

// --- aggregation -----------------------------------------------------------------------------

// An Aggregator with the numeric model its estimators need, made once (dlaplace: O(W³)).
struct PyAggregator {
  Aggregator aggregator;
  std::shared_ptr<const collector::NumericModel> model;

  const collector::NumericModel& numeric_model() {
    if (!aggregator.mechanism().numeric())
      throw py::value_error(std::string(collector::name_of(aggregator.mechanism().config().id)) +
                            " is categorical: it has no mean");
    if (!model) model = std::make_shared<collector::NumericModel>(collector::numeric_model(aggregator.mechanism()));
    return *model;
  }
};

// Raises tinyldp.RejectedReport (a ValueError) with the reason and the report's index.
[[noreturn]] void raise_rejected(const std::string& reason, std::size_t index, std::size_t of) {
  const py::object type = py::module_::import("tinyldp._native").attr("RejectedReport");
  const py::object error = type("report " + std::to_string(index) + " of " + std::to_string(of) +
                                " is rejected: " + reason +
                                " (nothing was counted; rejected=\"collect\" counts the valid reports and "
                                "returns the rejected ones' count by reason)");
  error.attr("reason") = reason;
  error.attr("index") = index;
  error.attr("rejected") = py::dict(py::arg(reason.c_str()) = 1);
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

// Aggregator.ingest and EpochSeries.ingest alike (Counts: Aggregator or EpochSeries).
// rejected "raise" (the default): every report valid, or nothing counted and RejectedReport
// naming the first invalid one — the reports are counted apart and merged only when all are
// valid. "collect": the valid ones counted, the rejected ones' count by reason returned (as the
// CLI reports them).
template <class Counts>
std::map<std::string, std::uint64_t> ingest_reports(Counts& into, const py::handle& reports, const std::string& mode) {
  if (mode != "raise" && mode != "collect")
    throw py::value_error("rejected must be \"raise\" or \"collect\", not \"" + mode + "\"");
  const auto r = reports_from(reports);
  std::map<std::string, std::uint64_t> rejected;
  if (mode == "collect") {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < r->size(); ++i)
      if (const ParseError e = into.ingest((*r)[i]); e != ParseError::none) ++rejected[collector::to_string(e)];
    return rejected;
  }
  std::optional<std::pair<std::size_t, ParseError>> first;
  collector::MergeResult merged;
  {
    py::gil_scoped_release release;
    Counts batch(into.mechanism(), into.labels());
    for (std::size_t i = 0; i < r->size() && !first; ++i)
      if (const ParseError e = batch.ingest((*r)[i]); e != ParseError::none) first.emplace(i, e);
    if (!first) merged = into.merge(batch);
  }
  if (first) raise_rejected(collector::to_string(first->second), first->first, r->size());
  if (!merged) throw py::value_error(std::string("cannot count these reports: ") + merged.reason());
  return rejected;
}

std::map<std::string, std::uint64_t> ingest(PyAggregator& a, const py::handle& reports, const std::string& mode) {
  return ingest_reports(a.aggregator, reports, mode);
}

std::string merge_refusal(const Aggregator& into, const Aggregator& other, collector::MergeResult result) {
  using Error = collector::MergeResult::Error;
  if (result.error == Error::other_labels)
    return "cannot merge: the states number their items by different label mappings (" +
           collector::describe(other.labels()) + " against " + collector::describe(into.labels()) +
           "): the same index would add up different labels";
  if (result.error == Error::other_parameters)
    return std::string("cannot merge: the states aggregate different mechanisms or parameters (") +
           collector::name_of(other.mechanism().config().id) + " into " + collector::name_of(into.mechanism().config().id) + ")";
  return std::string("cannot merge: ") + result.reason();
}

void merge(PyAggregator& a, const PyAggregator& other) {
  const auto result = a.aggregator.merge(other.aggregator);
  if (!result) throw py::value_error(merge_refusal(a.aggregator, other.aggregator, result));
}

py::bytes serialize(const PyAggregator& a) { return as_bytes(a.aggregator.serialize()); }

PyAggregator deserialize(const py::bytes& b) {
  const std::string s = b;
  std::string error;
  auto a = Aggregator::deserialize({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, error);
  if (!a) throw py::value_error("not a valid aggregate state: " + error);
  return PyAggregator{std::move(*a), nullptr};
}

collector::Postprocess postprocess_from(const std::string& name) {
  const auto p = collector::postprocess_from_name(name);
  if (!p) throw py::value_error("unknown postprocess \"" + name + "\" (none, clip, norm-sub, simplex, em)");
  return *p;
}

void check_confidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) throw py::value_error("confidence must be in (0, 1)");
}

void require_reports(const Aggregator& a) {
  if (a.mechanism().record())  // one channel per attribute: not this estimator's
    throw py::value_error(std::string(collector::name_of(a.mechanism().config().id)) +
                          " counts records of several attributes: estimate them per attribute (tinyldp multi) or "
                          "jointly (RecordCounts, estimate_joint)");
  if (a.reports() == 0) throw py::value_error("the aggregate holds no reports; nothing to estimate from");
}

py::dict estimate_columns(const std::vector<collector::ItemEstimate>& items) {
  std::vector<double> cols[6];
  for (const auto& e : items) {
    cols[0].push_back(e.frequency);
    cols[1].push_back(e.count);
    cols[2].push_back(e.ci_low);
    cols[3].push_back(e.ci_high);
    cols[4].push_back(e.unbiased_frequency);
    cols[5].push_back(e.standard_error);
  }
  py::dict d;
  const char* names[] = {"estimate", "count", "ci_low", "ci_high", "unbiased_estimate", "standard_error"};
  for (int i = 0; i < 6; ++i) d[names[i]] = copy(cols[i]);
  return d;
}

// What `tinyldp aggregate` estimates: the categorical frequencies (estimates.hpp), or a numeric
// mechanism's distribution over its items (numeric_estimate.hpp).
// smoothing: EMS's weight (bayesian_update.hpp; None: 0, plain EM).
// likelihood_tolerance: also stop when a step gains less in log-likelihood (the SW paper's rule, 10⁻³).
collector::BayesianUpdateOptions em_options(const collector::Mechanism& m, double tolerance,
                                            std::uint32_t max_iterations, std::optional<double> smoothing,
                                            double likelihood_tolerance) {
  if (!(tolerance >= 0)) throw py::value_error("em_tolerance must be at least 0");
  if (!(likelihood_tolerance >= 0)) throw py::value_error("em_likelihood_tolerance must be at least 0");
  if (max_iterations == 0) throw py::value_error("em_max_iterations must be at least 1");
  if (smoothing && !(*smoothing >= 0 && *smoothing < 0.5))
    throw py::value_error("em_smoothing must be in [0, 0.5) (each neighbour's weight; EMS: 0.25)");
  if (smoothing && *smoothing > 0 && !m.numeric())
    throw py::value_error("em_smoothing is for numeric mechanisms (it mixes neighbouring values); " +
                          std::string(collector::name_of(m.config().id)) + "'s categories have no order");
  collector::BayesianUpdateOptions o;
  o.tolerance = tolerance;
  o.max_iterations = max_iterations;
  o.smoothing = smoothing.value_or(0.0);
  o.likelihood_tolerance = likelihood_tolerance;
  return o;
}

// EM's model for the aggregate: the numeric model's kernel where the estimates deconvolve
// through it (built once per aggregator), else the mechanism's channel.
collector::ObservationModel em_model(PyAggregator& a) {
  const collector::Mechanism& m = a.aggregator.mechanism();
  return m.numeric() ? collector::observation_model(m, a.numeric_model()) : collector::observation_model(m);
}

// EM's run when the estimates need it (post is em): once, shared by what they compute.
std::optional<collector::BayesianUpdateResult> em_run(PyAggregator& a, collector::Postprocess post,
                                                      const collector::BayesianUpdateOptions& options) {
  if (post != collector::Postprocess::em) return std::nullopt;
  return collector::bayesian_update(em_model(a), a.aggregator.support(), a.aggregator.reports(), options);
}

py::dict estimate(PyAggregator& a, const std::string& postprocess, double confidence, double em_tolerance,
                  std::uint32_t em_max_iterations, std::optional<double> em_smoothing, double em_likelihood_tolerance) {
  const auto post = postprocess_from(postprocess);
  check_confidence(confidence);
  require_reports(a.aggregator);
  const auto options =
      em_options(a.aggregator.mechanism(), em_tolerance, em_max_iterations, em_smoothing, em_likelihood_tolerance);
  // The numeric model is built (and kept) with the GIL held; the rest runs without it.
  const collector::NumericModel* model = a.aggregator.mechanism().numeric() ? &a.numeric_model() : nullptr;
  std::vector<collector::ItemEstimate> items;
  {
    py::gil_scoped_release release;
    const auto em = em_run(a, post, options);
    const collector::BayesianUpdateResult* run = em ? &*em : nullptr;
    items = model ? collector::estimate_distribution(a.aggregator, *model, post, confidence, run)
                  : collector::estimate(a.aggregator, post, confidence, run);
  }
  return estimate_columns(items);
}

// EM's run on its own (bayesian_update.hpp): the distribution, iterations, convergence and,
// when asked, the log-likelihood at the start and after every step.
py::dict bayesian_update(PyAggregator& a, double tolerance, std::uint32_t max_iterations, bool track_likelihood,
                         std::optional<double> smoothing, double likelihood_tolerance) {
  require_reports(a.aggregator);
  auto options = em_options(a.aggregator.mechanism(), tolerance, max_iterations, smoothing, likelihood_tolerance);
  options.track_likelihood = track_likelihood;
  const collector::ObservationModel model = em_model(a);
  collector::BayesianUpdateResult r;
  {
    py::gil_scoped_release release;
    r = collector::bayesian_update(model, a.aggregator.support(), a.aggregator.reports(), options);
  }
  py::dict d;
  d["estimate"] = copy(r.p);
  d["iterations"] = r.iterations;
  d["converged"] = r.converged;
  d["log_likelihood"] = copy(r.log_likelihood);
  d["counts"] = model.counts == collector::ObservationModel::Counts::outputs ? "outputs" : "supports";
  d["smoothing"] = options.smoothing;
  return d;
}

// --- joint estimation ------------------------------------------------------------------------

collector::RecordCounts record_counts_from(const py::bytes& b) {
  const std::string s = b;
  std::string error;
  auto c = collector::RecordCounts::deserialize({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, error);
  if (!c) throw py::value_error("not a record-counts state: " + error);
  return std::move(*c);
}

collector::RecordCounts load_record_counts(const std::string& path) {
  std::string error;
  auto c = collector::RecordCounts::load(path, error);
  if (!c) throw py::value_error(error);
  return std::move(*c);
}

py::list attributes_of(const collector::RecordCounts& c) {
  py::list out;
  for (const auto& a : c.schema().attributes()) {
    py::dict d;
    d["name"] = a.name;
    d["size"] = a.size;
    d["labels"] = a.labels;
    out.append(d);
  }
  return out;
}

// The chosen attributes by name (or number as text) or index, as `tinyldp joint -a` takes them.
std::vector<std::uint32_t> chosen_attributes(const collector::RecordCounts& c, const py::iterable& attributes) {
  std::vector<std::uint32_t> chosen;
  for (const py::handle a : attributes) {
    std::optional<std::uint32_t> j;
    if (py::isinstance<py::str>(a)) j = c.schema().find(a.cast<std::string>());
    else if (py::hasattr(a, "__index__") && !py::isinstance<py::bool_>(a)) {
      const auto i = py::int_(py::reinterpret_borrow<py::object>(a)).cast<long long>();
      if (i >= 0 && static_cast<std::size_t>(i) < c.schema().attributes().size()) j = static_cast<std::uint32_t>(i);
    }
    if (!j) throw py::value_error("no attribute " + py::repr(a).cast<std::string>() + " in the record");
    chosen.push_back(*j);
  }
  return chosen;
}

py::dict joint_estimate_to_python(const collector::JointEstimate& e, double seconds) {
  py::dict d;
  d["estimate"] = copy(e.p);
  d["iterations"] = e.iterations;
  d["converged"] = e.converged;
  d["alive"] = e.alive;
  d["memory_bytes"] = e.memory_bytes;
  d["seconds"] = seconds;
  if (!e.log_likelihood.empty()) d["log_likelihood"] = copy(e.log_likelihood);
  return d;
}

// One joint estimator (joint.hpp) on the chosen attributes: em, map, lasso, lremh, pairs, or the
// baselines uniform and marginals.
py::dict estimate_joint(const collector::RecordCounts& c, const py::iterable& attributes, const std::string& estimator,
                        const std::string& stop, std::optional<double> delta, std::uint32_t max_iterations,
                        double lambda, unsigned threads, bool track_likelihood,
                        std::optional<double> prior_strength) {
  std::string error;
  const auto problem = collector::make_joint_problem(c, chosen_attributes(c, attributes), error);
  if (!problem) throw py::value_error(error);
  collector::EmOptions em;
  if (stop == "largest-cell") {
    em.stop = collector::StopRule::largest_cell;
    em.tolerance = 0.001;
  } else if (stop != "max-change") {
    throw py::value_error("stop must be max-change or largest-cell, not \"" + stop + "\"");
  }
  if (delta) {
    if (!(*delta >= 0)) throw py::value_error("delta must be at least 0");
    em.tolerance = *delta;
  }
  if (max_iterations == 0) throw py::value_error("max_iterations must be at least 1");
  if (threads == 0) throw py::value_error("threads must be at least 1");
  em.max_iterations = max_iterations;
  em.threads = threads;
  em.track_likelihood = track_likelihood;
  const auto known = {"em", "map", "lasso", "lremh", "pairs", "uniform", "marginals"};
  if (std::find(known.begin(), known.end(), estimator) == known.end())
    throw py::value_error("unknown joint estimator \"" + estimator +
                          "\" (em, map, lasso, lremh, pairs, uniform, marginals)");
  if (prior_strength && !(*prior_strength > 0 && std::isfinite(*prior_strength)))
    throw py::value_error("prior_strength must be a positive number of reports");
  if (prior_strength && estimator != "map") throw py::value_error("prior_strength is map's option");
  collector::JointEstimate e;
  double seconds = 0;
  {
    py::gil_scoped_release release;
    const auto start = std::chrono::steady_clock::now();
    if (estimator == "em") e = collector::estimate_em(*problem, em);
    else if (estimator == "map") e = collector::estimate_em(*problem, collector::map_options(*problem, em, prior_strength, delta));
    else if (estimator == "lasso") e = collector::estimate_lasso(*problem, lambda);
    else if (estimator == "lremh") e = collector::estimate_lremh(*problem, lambda, em);
    else if (estimator == "pairs") e = collector::estimate_cooccurrence(*problem);
    else if (estimator == "uniform") e.p = collector::uniform_joint(*problem);
    else e.p = collector::product_of_marginals(*problem);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  py::dict d = joint_estimate_to_python(e, seconds);
  d["patterns"] = problem->patterns();
  d["cells"] = problem->cells();
  return d;
}

py::dict estimate_bins(PyAggregator& a, const std::vector<std::uint32_t>& bin_start, const std::string& postprocess,
                       double confidence) {
  const auto post = postprocess_from(postprocess);
  check_confidence(confidence);
  require_reports(a.aggregator);
  const auto& model = a.numeric_model();
  if (bin_start.empty() || bin_start[0] != 0) throw py::value_error("bin_start must begin with 0");
  for (std::size_t i = 1; i < bin_start.size(); ++i)
    if (bin_start[i] <= bin_start[i - 1] || bin_start[i] >= model.atom_count())
      throw py::value_error("bin_start must ascend strictly within the " + std::to_string(model.atom_count()) + " rows");
  const auto em = em_run(a, post, {});
  return estimate_columns(collector::estimate_bins(a.aggregator, model, bin_start, post, confidence, em ? &*em : nullptr));
}

// A numeric distribution's quantiles (numeric_estimate.hpp), as `aggregate --quantiles`.
void require_distribution(PyAggregator& a, const char* what) {
  const Mechanism& m = a.aggregator.mechanism();
  if (!m.numeric() || m.mean_only() || m.memoized())
    throw py::value_error(std::string(what) + " is for a numeric distribution (sd, dlaplace, sw, hh, haar-hrr), not " +
                          collector::name_of(m.config().id));
}

py::dict quantiles(PyAggregator& a, const std::vector<double>& qs, const std::string& postprocess, double confidence,
                   double em_tolerance, std::uint32_t em_max_iterations, std::optional<double> em_smoothing,
                   double em_likelihood_tolerance) {
  require_distribution(a, "quantiles");
  const auto post = postprocess_from(postprocess);
  check_confidence(confidence);
  require_reports(a.aggregator);
  for (double q : qs)
    if (!(q > 0 && q < 1)) throw py::value_error("each q must be in (0, 1)");
  const auto options =
      em_options(a.aggregator.mechanism(), em_tolerance, em_max_iterations, em_smoothing, em_likelihood_tolerance);
  const auto& model = a.numeric_model();
  const auto em = em_run(a, post, options);
  const auto e = collector::estimate_quantiles(collector::estimate_cdf(a.aggregator, model, post, em ? &*em : nullptr),
                                               qs, confidence);
  std::vector<double> q, value, low, high;
  for (const auto& x : e) {
    q.push_back(x.q);
    value.push_back(x.value);
    low.push_back(x.ci_low);
    high.push_back(x.ci_high);
  }
  py::dict d;
  d["q"] = copy(q);
  d["estimate"] = copy(value);
  d["ci_low"] = copy(low);
  d["ci_high"] = copy(high);
  return d;
}

py::dict value_range(PyAggregator& a, double lo, double hi, const std::string& postprocess, double confidence,
                     double em_tolerance, std::uint32_t em_max_iterations, std::optional<double> em_smoothing,
                     double em_likelihood_tolerance) {
  require_distribution(a, "range");
  const auto post = postprocess_from(postprocess);
  check_confidence(confidence);
  require_reports(a.aggregator);
  if (!(lo <= hi)) throw py::value_error("range: lo must be at most hi");
  const auto options =
      em_options(a.aggregator.mechanism(), em_tolerance, em_max_iterations, em_smoothing, em_likelihood_tolerance);
  const auto em = em_run(a, post, options);
  return estimate_columns({collector::estimate_range(a.aggregator, a.numeric_model(), lo, hi, post, confidence,
                                                     em ? &*em : nullptr)});
}

py::dict mean(PyAggregator& a, double confidence) {
  const auto& model = a.numeric_model();
  check_confidence(confidence);
  require_reports(a.aggregator);
  const auto m = collector::estimate_mean(a.aggregator, model, confidence);
  py::dict d;
  d["estimate"] = m.mean;
  d["standard_error"] = m.standard_error;
  d["ci_low"] = m.ci_low;
  d["ci_high"] = m.ci_high;
  return d;
}

// --- report files ----------------------------------------------------------------------------

struct ReportFile {
  Mechanism mechanism;
  LabelMappingId labels;
  std::shared_ptr<Reports> reports;
};

ReportFile read_report_file(const std::string& path) {
  const FileHeader h = read_file_header(path);
  py::gil_scoped_release release;
  return {h.config.mechanism, h.config.labels, std::make_shared<Reports>(read_file_records(path, h))};
}

ReportFile parse_report_file(const py::bytes& b) {
  const std::string s = b;
  auto [config, reports] = parse_report_file_bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
  return {config.mechanism, config.labels, std::make_shared<Reports>(std::move(reports))};
}

void write_report_file(const std::string& path, const Mechanism& m, const py::handle& reports,
                       const std::optional<py::bytes>& labels) {
  const auto r = reports_from(reports);
  const LabelMappingId digest = digest_from(labels);
  {
    py::gil_scoped_release release;
    collector::ReportFileWriter writer(path, m, digest);
    for (std::size_t i = 0; i < r->size() && writer.ok(); ++i) writer.write((*r)[i]);
    if (writer.close()) return;
  }
  const int e = errno;
  throw FileError(e, "cannot write " + path + ": " + std::strerror(e));
}

py::tuple aggregate_range(const std::string& path, std::optional<std::uint64_t> start, std::optional<std::uint64_t> end) {
  std::optional<RangeAggregate> r;
  {
    py::gil_scoped_release release;
    r.emplace(aggregate_file_range(path, start, end));
  }
  return py::make_tuple(std::move(r->series), r->rejected, r->records(), py::make_tuple(r->digest.records, r->digest.sum));
}

// --- the time series (epoch_series.hpp) ------------------------------------------------------

using collector::EpochSeries;

py::bytes serialize_series(const EpochSeries& s) { return as_bytes(s.serialize()); }

EpochSeries deserialize_series(const py::bytes& b) {
  const std::string s = b;
  std::string error;
  auto series = EpochSeries::deserialize({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, error);
  if (!series) throw py::value_error("not a valid aggregate state: " + error);
  return std::move(*series);
}

void merge_series(EpochSeries& into, const EpochSeries& other) {
  using Error = collector::MergeResult::Error;
  const auto result = into.merge(other);
  if (result) return;
  if (result.error == Error::same_source)
    throw py::value_error("cannot merge: both count the same report file (the same records' digest): its reports "
                          "would count twice");
  Aggregator a(into.mechanism(), into.labels()), b(other.mechanism(), other.labels());
  throw py::value_error(merge_refusal(a, b, result));
}

py::dict series_epochs(const EpochSeries& s) {
  py::dict out;
  for (const auto& [epoch, a] : s.epochs())
    out[epoch ? py::cast(*epoch) : py::none()] = PyAggregator{a, nullptr};
  return out;
}

}  // namespace
}  // namespace tinyldp::python

PYBIND11_MODULE(_native, mod) {
  using namespace tinyldp;
  using namespace tinyldp::python;
  mod.doc() = "tinyldp's collector (C++), for Python: see the tinyldp package";
  py::register_exception<RangeNotAtRecords>(mod, "RangeNotAtRecords", PyExc_ValueError);
  // The central (ε, δ) of a shuffled batch (shuffle_amplification.hpp); std::invalid_argument → ValueError.
  mod.def(
      "shuffle_epsilon",
      [](double epsilon0, std::uint64_t n, double delta) {
        const collector::ShuffledEpsilon s = collector::shuffled_epsilon(epsilon0, n, delta);
        py::dict d;
        d["epsilon0"] = epsilon0;
        d["n"] = n;
        d["delta"] = delta;
        d["numerical_lower"] = s.numerical ? py::object(py::float_(s.numerical->lower)) : py::object(py::none());
        d["numerical_upper"] = s.numerical ? py::object(py::float_(s.numerical->upper)) : py::object(py::none());
        d["closed_form"] = s.closed_form ? py::object(py::float_(*s.closed_form)) : py::object(py::none());
        return d;
      },
      py::arg("epsilon0"), py::arg("n"), py::arg("delta") = 1e-6,
      "central (epsilon, delta) of n shuffled reports at local epsilon0 against the analyst (FMT21): "
      "numerical_upper (certified), numerical_lower, closed_form (None outside its condition)");
  // Reports the collector rejects, where the caller did not ask to collect them: `reason` (the
  // first's), `index` (its position, or None for a file), `rejected` (count by reason).
  mod.attr("RejectedReport") = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "tinyldp._native.RejectedReport",
      "reports the collector rejects (as tinyldp aggregate exits 3): reason, index, rejected by reason",
      PyExc_ValueError, nullptr));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const FileError& e) {
      // OSError(errno, message) is the errno's subclass: FileNotFoundError, PermissionError, …
      py::object error = py::reinterpret_steal<py::object>(
          PyObject_CallFunction(PyExc_OSError, "is", e.error_number, e.what()));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });

  py::class_<Reports, std::shared_ptr<Reports>>(mod, "Reports",
                                                "Wire reports in one buffer: data (uint8) and offsets (n + 1)")
      .def(py::init([](const py::handle& obj) {
             const auto r = reports_from(obj);
             return std::make_shared<Reports>(*r);
           }),
           py::arg("reports"), "From bytes, a 2-D uint8 array (a report per row) or a sequence of bytes")
      .def("__len__", &Reports::size)
      .def("__getitem__",
           [](const Reports& r, py::ssize_t i) {
             const auto n = static_cast<py::ssize_t>(r.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("report index out of range");
             return as_bytes(r[static_cast<std::size_t>(i)]);
           })
      .def_property_readonly("data", [](py::object self) { return view(self.cast<const Reports&>().data, self); },
                             "every report's bytes, concatenated (a read-only view)")
      .def_property_readonly("offsets", [](py::object self) { return view(self.cast<const Reports&>().offsets, self); },
                             "report i is data[offsets[i]:offsets[i + 1]]")
      .def(
          "matrix",
          [](py::object self) {
            const Reports& r = self.cast<const Reports&>();
            const std::uint64_t width = r.size() == 0 ? 0 : r.offsets[1];
            for (std::size_t i = 0; i < r.size(); ++i)
              if (r.offsets[i + 1] - r.offsets[i] != width)
                throw py::value_error("reports " + std::to_string(0) + " and " + std::to_string(i) +
                                      " differ in length (other header fields): no matrix");
            return py::array_t<std::uint8_t>({static_cast<py::ssize_t>(r.size()), static_cast<py::ssize_t>(width)},
                                             {static_cast<py::ssize_t>(width), py::ssize_t{1}}, r.data.data(), self);
          },
          "the reports as a 2-D uint8 array, a report per row (they must have one length)")
      .def(py::pickle([](const Reports& r) { return py::make_tuple(copy(r.data), copy(r.offsets)); },
                      [](const py::tuple& t) {
                        auto r = std::make_shared<Reports>();
                        const auto d = t[0].cast<py::array_t<std::uint8_t>>();
                        const auto o = t[1].cast<py::array_t<std::uint64_t>>();
                        r->data.assign(d.data(), d.data() + d.size());
                        r->offsets.assign(o.data(), o.data() + o.size());
                        return r;
                      }));

  py::class_<Mechanism>(mod, "Mechanism", "A configured mechanism, exactly as the devices configure it")
      .def(py::init(&configure), py::arg("name"), py::arg("epsilon") = py::none(), py::kw_only(),
           py::arg("domain") = py::none(), py::arg("lo") = py::none(), py::arg("hi") = py::none(),
           py::arg("levels") = py::none(), py::arg("sensitivity") = py::none(), py::arg("grid_step") = py::none(),
           py::arg("sampled_buckets") = py::none(), py::arg("branching") = py::none(), py::arg("epsilon_one") = py::none(),
           py::arg("f") = py::none(), py::arg("p") = py::none(), py::arg("q") = py::none(),
           py::arg("attribute_sizes") = py::none(), py::arg("bloom_bits") = py::none(),
           py::arg("hashes") = py::none(), py::arg("cohorts") = py::none(),
           py::arg("epsilon_tolerance") = py::none(), py::arg("precision_bits") = py::none())
      .def_property_readonly("name", [](const Mechanism& m) { return collector::name_of(m.config().id); })
      .def_property_readonly("id", [](const Mechanism& m) { return static_cast<int>(m.config().id); })
      .def_property_readonly("kind", [](const Mechanism& m) { return kind_name(m); })
      .def_property_readonly("numeric", &Mechanism::numeric)
      .def_property_readonly("mean_only", &Mechanism::mean_only,
                             "the reports give a mean, no distribution (pm): estimate() and its kin raise ValueError")
      .def_property_readonly("memoized", &Mechanism::memoized)
      .def_property_readonly("record", &Mechanism::record, "a record of several attributes per report")
      .def_property_readonly("attribute_sizes", [](const Mechanism& m) { return m.config().attribute_sizes; },
                             "a record's attributes' domain sizes (empty for the others)")
      .def_property_readonly("integer_items", &Mechanism::integer_items)
      .def_property_readonly("epsilon", [](const Mechanism& m) { return as_double(m.config().epsilon); },
                             "the requested ε, as configured (on the 2^-32 grid)")
      .def_property_readonly("epsilon_text", [](const Mechanism& m) { return collector::to_decimal(m.config().epsilon, 40); },
                             "the requested ε, exactly, as a decimal")
      .def_property_readonly("realized_epsilon", [](const Mechanism& m) { return as_double(m.realized_epsilon()); })
      .def_property_readonly("local_epsilon", [](const Mechanism& m) { return as_double(m.local_epsilon()); })
      .def_property_readonly("epsilon_infinity",
                             [](const Mechanism& m) -> std::optional<double> {
                               const auto e = m.epsilon_infinity();
                               return e ? std::optional(as_double(*e)) : std::nullopt;
                             })
      .def_property_readonly("domain", &Mechanism::domain, "the number of items estimated")
      .def_property_readonly("parameters", &parameters_of)
      .def_property_readonly("probabilities", &Mechanism::probabilities_as_fractions)
      .def_property_readonly("random_bits_per_report", &Mechanism::random_bits_per_report)
      .def_property_readonly("epsilon_tolerance",
                             [](const Mechanism& m) { return as_double(Epsilon{m.config().precision.tolerance_q32}); },
                             "how far below ε the realized ε may fall (the precision; default 2^-21)")
      .def_property_readonly("precision_bits", [](const Mechanism& m) { return unsigned{m.config().precision.max_bits}; },
                             "the most random bits of any one probability (the precision; default 64)")
      .def_property_readonly("payload_bytes", [](const Mechanism& m) { return m.description().payload_bytes(); })
      .def_property_readonly("item_values",
                             [](const Mechanism& m) {
                               std::vector<double> v;
                               for (std::uint32_t i = 0; i < m.domain(); ++i) v.push_back(m.item_value(i));
                               return copy(v);
                             },
                             "the value each reported item stands for (categorical: its index; pm, hm, sw: "
                             "a cell's score)")
      .def_property_readonly("atoms", &Mechanism::atoms,
                             "the rows of an estimate: sw's buckets, else the items (domain)")
      .def_property_readonly("atom_values",
                             [](const Mechanism& m) {
                               std::vector<double> v;
                               for (std::uint32_t i = 0; i < m.atoms(); ++i) v.push_back(m.atom_value(i));
                               return copy(v);
                             },
                             "the value each row of an estimate stands for (sw: its buckets, lo … hi evenly)")
      .def("report_bytes",
           [](const Mechanism& m, bool device_id, bool epoch, bool cohort) {
             const std::uint8_t f = (device_id ? wire::field_device_id : 0) | (epoch ? wire::field_epoch : 0) |
                                    (cohort ? wire::field_cohort : 0);
             return m.description().report_bytes(f);
           },
           py::kw_only(), py::arg("device_id") = false, py::arg("epoch") = false, py::arg("cohort") = false)
      .def("privatize", &privatize, py::arg("values"), py::kw_only(), py::arg("seed") = py::none(),
           py::arg("device_ids") = false, py::arg("epoch") = py::none(), py::arg("cohort") = py::none(),
           "One report per value (int64 array). seed: the DETERMINISTIC test source, reports identical to "
           "`tinyldp simulate --seed` and NOT private; without it the OS's entropy.")
      .def("check",
           [](const Mechanism& m, const py::handle& reports) {
             const auto r = reports_from(reports);
             py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(r->size()));
             auto* o = out.mutable_data();
             for (std::size_t i = 0; i < r->size(); ++i) o[i] = static_cast<std::uint8_t>(check_report(m, (*r)[i]));
             return out;
           },
           py::arg("reports"), "why each report would be rejected: a code of PARSE_ERRORS (0 = accepted)")
      .def("inspect", &inspect, py::arg("report"), "a report's header and payload fields, or why it is rejected")
      .def("true_frequencies", &true_frequencies, py::arg("values"),
           "the items' frequencies in noiseless values (sd: the levels they round to, in expectation)")
      .def("header", [](const Mechanism& m, const std::optional<py::bytes>& labels) {
             return as_bytes(collector::report_file_header(m, digest_from(labels)));
           }, py::arg("labels_digest") = py::none(), "the report-file header of this configuration")
      .def("__eq__", [](const Mechanism& a, const Mechanism& b) {
             return a.description().id == b.description().id && a.description().digest == b.description().digest &&
                    collector::config_difference(a.config(), b.config()).empty();
           })
      .def(py::pickle(&mechanism_state, &mechanism_from_state));

  py::class_<PyAggregator>(mod, "Aggregator", "Support counts of one mechanism's reports: mergeable, serializable")
      .def(py::init([](const Mechanism& m, const std::optional<py::bytes>& labels) {
             return PyAggregator{Aggregator(m, digest_from(labels)), nullptr};
           }),
           py::arg("mechanism"), py::arg("labels_digest") = py::none())
      .def("ingest", &ingest, py::arg("reports"), py::kw_only(), py::arg("rejected") = "raise",
           "Counts reports (bytes, Reports, 2-D uint8 array or a sequence of bytes). rejected=\"raise\" "
           "(default): all valid, or none counted and RejectedReport (a ValueError: reason, index); "
           "\"collect\": the valid ones counted, returns the rejected ones' count by reason")
      .def("merge", &merge, py::arg("other"), "adds another shard's counts exactly; ValueError with the reason")
      .def("serialize", &serialize)
      .def_static("deserialize", &deserialize, py::arg("state"))
      .def("assume_labels", [](PyAggregator& a, const py::bytes& d) { return a.aggregator.assume_labels(*digest_from(d)); })
      .def_property_readonly("mechanism", [](const PyAggregator& a) { return a.aggregator.mechanism(); })
      .def_property_readonly("labels_digest", [](const PyAggregator& a) { return digest_to_python(a.aggregator.labels()); })
      .def_property_readonly("reports", [](const PyAggregator& a) { return a.aggregator.reports(); })
      .def_property_readonly("support", [](const PyAggregator& a) { return copy(a.aggregator.support()); })
      .def("estimate", &estimate, py::arg("postprocess") = "none", py::arg("confidence") = 0.95,
           py::kw_only(), py::arg("em_tolerance") = 1e-6, py::arg("em_max_iterations") = 10000,
           py::arg("em_smoothing") = py::none(), py::arg("em_likelihood_tolerance") = 0.0,
           "the items' estimates (postprocess: none, clip, norm-sub, simplex or em; em_smoothing: EMS's "
           "weight for a numeric attribute, 0.25 in the SW paper; default 0, plain EM; "
           "em_likelihood_tolerance: also stop when a step gains less log-likelihood, the SW paper's 1e-3)")
      .def("bayesian_update", &bayesian_update, py::kw_only(), py::arg("tolerance") = 1e-6,
           py::arg("max_iterations") = 10000, py::arg("track_likelihood") = false, py::arg("smoothing") = py::none(),
           py::arg("likelihood_tolerance") = 0.0,
           "the non-negative maximum-likelihood distribution (EM; with smoothing, EMS) with its iterations and "
           "convergence")
      .def("estimate_bins", &estimate_bins, py::arg("bin_start"), py::arg("postprocess") = "none",
           py::arg("confidence") = 0.95)
      .def("mean", &mean, py::arg("confidence") = 0.95)
      .def("quantiles", &quantiles, py::arg("qs") = std::vector<double>{0.5, 0.9, 0.95, 0.99},
           py::arg("postprocess") = "none", py::arg("confidence") = 0.95, py::kw_only(), py::arg("em_tolerance") = 1e-6,
           py::arg("em_max_iterations") = 10000, py::arg("em_smoothing") = py::none(),
           py::arg("em_likelihood_tolerance") = 0.0,
           "a numeric distribution's quantiles with test-inversion intervals (aggregate --quantiles)")
      .def("range", &value_range, py::arg("lo"), py::arg("hi"), py::arg("postprocess") = "none",
           py::arg("confidence") = 0.95, py::kw_only(), py::arg("em_tolerance") = 1e-6,
           py::arg("em_max_iterations") = 10000, py::arg("em_smoothing") = py::none(),
           py::arg("em_likelihood_tolerance") = 0.0,
           "the share of values in [lo, hi] (aggregate --range LO:HI), as estimate's columns")
      .def(py::pickle(&serialize, &deserialize));

  py::class_<ReportFile>(mod, "ReportFile", "A report file's configuration and records")
      .def_readonly("mechanism", &ReportFile::mechanism)
      .def_property_readonly("labels_digest", [](const ReportFile& f) { return digest_to_python(f.labels); })
      .def_readonly("reports", &ReportFile::reports);
  mod.def("read_report_file", &read_report_file, py::arg("path"));
  mod.def("parse_report_file", &parse_report_file, py::arg("data"), "a report file's bytes (header first)");
  mod.def("write_report_file", &write_report_file, py::arg("path"), py::arg("mechanism"), py::arg("reports"),
          py::arg("labels_digest") = py::none());
  mod.def("report_file_info", [](const std::string& path) {
    const FileHeader h = read_file_header(path);
    py::dict d;
    d["mechanism"] = h.config.mechanism;
    d["labels_digest"] = digest_to_python(h.config.labels);
    d["header_bytes"] = h.header_bytes;
    d["file_bytes"] = h.file_bytes;
    d["records_end"] = h.records_end;
    d["trailer"] = h.trailer ? py::object(py::make_tuple(h.trailer->records, h.trailer->sum)) : py::object(py::none());
    d["first_record_bytes"] = h.first_record_bytes;
    return d;
  }, py::arg("path"), "a report file's header, sizes and first record's length, without reading the records");
  mod.def("aggregate_range", &aggregate_range, py::arg("path"), py::arg("start") = py::none(),
          py::arg("end") = py::none(),
          "(EpochSeries, rejected by reason, records, (records, digest)) of the records in [start, end) (default: "
          "all, checked against the file's trailer); RangeNotAtRecords if the range's last record runs past its end");

  py::class_<EpochSeries>(mod, "EpochSeries",
                          "Aggregates per epoch (a time series): memoized reports of several epochs share memos")
      .def(py::init([](const Mechanism& m, const std::optional<py::bytes>& labels) {
             return EpochSeries(m, digest_from(labels));
           }),
           py::arg("mechanism"), py::arg("labels_digest") = py::none())
      .def("ingest", &ingest_reports<EpochSeries>, py::arg("reports"), py::kw_only(), py::arg("rejected") = "raise",
           "Counts reports into their epoch's aggregate, as Aggregator.ingest: rejected=\"raise\" (default): all "
           "valid, or none counted and RejectedReport; \"collect\": the valid ones counted, returns the rejected "
           "ones' count by reason")
      .def("merge", &merge_series, py::arg("other"), "adds another series epoch by epoch; ValueError with the reason")
      .def("epochs", &series_epochs, "{epoch (None: reports without one): Aggregator}")
      .def("pooled", [](const EpochSeries& s) -> std::optional<PyAggregator> {
             auto a = s.pooled();
             if (!a) return std::nullopt;
             return PyAggregator{std::move(*a), nullptr};
           },
           "every epoch in one Aggregator (memoized: standard errors that account for the shared memos), or None "
           "where the mechanism has no model of them")
      .def("add_source", [](EpochSeries& s, std::uint64_t digest, std::optional<std::uint32_t> epoch) {
             return s.add_source({digest, epoch});
           }, py::arg("digest"), py::arg("epoch") = py::none(),
           "records a report file counted (its records' digest); False if it overlaps one already counted")
      .def_property_readonly("sources", [](const EpochSeries& s) {
             py::list out;
             for (const auto& source : s.sources().list())
               out.append(py::make_tuple(source.digest, source.epoch ? py::cast(*source.epoch) : py::none()));
             return out;
           })
      .def("assume_labels", [](EpochSeries& s, const py::bytes& d) { return s.assume_labels(*digest_from(d)); })
      .def_property_readonly("mechanism", [](const EpochSeries& s) { return s.mechanism(); })
      .def_property_readonly("labels_digest", [](const EpochSeries& s) { return digest_to_python(s.labels()); })
      .def_property_readonly("reports", [](const EpochSeries& s) { return s.reports(); })
      .def("serialize", &serialize_series)
      .def_static("deserialize", &deserialize_series, py::arg("state"),
                  "a series' state, or any aggregate state (a series of its one epoch)")
      .def(py::pickle(&serialize_series, &deserialize_series));
  mod.def("record_boundaries", &record_boundaries, py::arg("path"), py::arg("parts"),
          "offsets at which `parts` ranges of about equal size start (one pass over the file)");

  py::class_<collector::RecordCounts>(mod, "RecordCounts",
                                     "Multi-attribute record reports: the schema and the counts of distinct patterns")
      .def_static("load", &load_record_counts, py::arg("path"), "a record-counts file (tinyldp joint simulate / merge)")
      .def_static("deserialize", &record_counts_from, py::arg("state"))
      .def("serialize", [](const collector::RecordCounts& c) { return as_bytes(c.serialize()); })
      .def("save", [](const collector::RecordCounts& c, const std::string& path) {
             if (!c.save(path)) {
               const int e = errno;
               throw FileError(e, "cannot write " + path + ": " + std::strerror(e));
             }
           }, py::arg("path"))
      .def("merge", [](collector::RecordCounts& c, const collector::RecordCounts& other) {
             if (!c.merge(other)) throw py::value_error("cannot merge: another record schema (attributes, labels or f, p, q)");
           }, py::arg("other"), "adds another state's counts exactly; ValueError if its schema differs")
      .def_property_readonly("reports", &collector::RecordCounts::reports)
      .def_property_readonly("patterns", [](const collector::RecordCounts& c) { return c.patterns().size(); })
      .def_property_readonly("attributes", &attributes_of, "name, size and labels of every attribute, in order")
      .def_property_readonly("epsilon_one", [](const collector::RecordCounts& c) {
             return as_double(c.schema().mechanism().epsilon_one());
           }, "ε₁ of one record report")
      .def_property_readonly("epsilon_infinity", [](const collector::RecordCounts& c) {
             return as_double(c.schema().mechanism().epsilon_infinity());
           }, "ε∞: every report of one record")
      .def(py::pickle([](const collector::RecordCounts& c) { return as_bytes(c.serialize()); }, &record_counts_from));
  mod.def("estimate_joint", &estimate_joint, py::arg("counts"), py::arg("attributes"), py::arg("estimator") = "em",
          py::kw_only(), py::arg("stop") = "max-change", py::arg("delta") = py::none(),
          py::arg("max_iterations") = 10000, py::arg("lambda_") = 1e-3, py::arg("threads") = 2,
          py::arg("track_likelihood") = false, py::arg("prior_strength") = py::none(),
          "the joint of the chosen attributes by one estimator (joint.hpp): a dict with estimate over the cells; "
          "map's prior_strength in reports (default: the number of cells)");
  mod.def("average_variation_distance", &collector::average_variation_distance, py::arg("p"), py::arg("q"));

  mod.def("mechanism_names", [](std::optional<std::string> kind) {
    if (!kind) return collector::mechanism_names();
    if (*kind == "numeric") return collector::mechanism_names(collector::MechanismKind::numeric);
    if (*kind == "categorical") return collector::mechanism_names(collector::MechanismKind::categorical);
    if (*kind == "record") return collector::mechanism_names(collector::MechanismKind::record);
    throw py::value_error("kind is categorical, numeric or record");
  }, py::arg("kind") = py::none());
  // Every mechanism's names, one dict per wire id (scripts/mechanism-table writes them to
  // docs/mechanisms.md with the wire enums' spellings).
  mod.def("mechanism_table", [] {
    py::list rows;
    for (const auto& row : collector::mechanism_table()) {
      py::dict d;
      d["id"] = static_cast<int>(row.id);
      d["name"] = row.name;
      d["kind"] = kind_name(row.kind);
      d["core_type"] = row.core_type;
      d["core_header"] = row.core_header;
      d["configurable"] = row.configure != nullptr;
      rows.append(d);
    }
    return rows;
  });
  py::list errors;
  for (int e = 0; e <= static_cast<int>(collector::ParseError::missing_cohort); ++e)
    errors.append(collector::to_string(static_cast<collector::ParseError>(e)));
  mod.attr("PARSE_ERRORS") = errors;
  mod.def("normal_quantile_two_sided", &collector::normal_quantile_two_sided, py::arg("confidence"));
  mod.def("parse_epsilon", [](const py::object& e) { return epsilon_from(e, "epsilon").q32; }, py::arg("epsilon"),
          "ε·2^32 as the CLI reads it (exact decimal, rounded down)");
}
