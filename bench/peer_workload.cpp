// SPDX-License-Identifier: Apache-2.0
// tinyldp's side of the peer comparison (experiments/compare-peers, docs/peers.md): privatizes a
// column of category indices into complete wire reports, ingests them and estimates the
// frequencies, timing the client and the server separately. Not a test and not a benchmark of
// one function: the same end-to-end workload a Python peer runs, so the two can be compared.
//
//   peer_workload MECHANISM EPSILON DOMAIN VALUES_FILE [REPEATS] [--epsilon-tolerance T]
//
// VALUES_FILE holds one category index (0 … DOMAIN − 1) per line. The client is timed with two
// entropy sources — the ChaCha20 DRBG seeded and reseeded from the OS (what a deployment uses)
// and the simulation source (a fast non-cryptographic generator, like the peers' numpy
// generators) — each the best of REPEATS passes (default 5) over every value. The server
// (strict parse + support counting of every report, then the estimates) is timed the same
// way. T (a decimal, e.g. 1e-3; default: the default precision's 2^-21) is how far below EPSILON
// the realized ε may fall (MechanismConfig::precision.tolerance_q32 = T · 2^32, rounded down, as
// the CLI's --epsilon-tolerance): a coarse tolerance takes fewer random bits per report. Prints
// one JSON object: the tolerance, the realized ε and the random bits per report of the
// configuration, the timings and the raw and clip-renormalized frequencies of the DRBG pass's
// estimate.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/test/simulation_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "peer_common.hpp"

namespace {
using namespace tinyldp;
using namespace tinyldp::collector;
using bench::Clock;

[[noreturn]] void fail(const std::string& why) { bench::fail("peer_workload", why); }

std::vector<std::uint32_t> read_values(const char* path, std::uint32_t domain) {
  std::ifstream in(path);
  if (!in) fail(std::string("cannot read ") + path);
  std::vector<std::uint32_t> values;
  long long v = 0;
  while (in >> v) {
    if (v < 0 || v >= static_cast<long long>(domain))
      fail("value " + std::to_string(v) + " outside [0, " + std::to_string(domain) + ")");
    values.push_back(static_cast<std::uint32_t>(v));
  }
  if (!in.eof()) fail(std::string("not an integer in ") + path);
  if (values.empty()) fail(std::string("no values in ") + path);
  return values;
}

// Every value privatized into one complete wire report (no header fields), all reports
// concatenated; `ends` marks where each one stops.
struct Reports {
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> ends;
};

template <class Rng>
Reports privatize_all(const Mechanism& m, const std::vector<std::uint32_t>& values, Rng& rng) {
  Reports r;
  r.ends.reserve(values.size());
  const wire::Header header{};
  for (const std::uint32_t v : values) {
    // Every report of a configuration has one size: after the first, room for all of them.
    if (r.ends.size() == 1) r.bytes.reserve(r.bytes.size() * values.size());
    if (m.privatize(v, rng, header, r.bytes) != Status::ok) fail("a report failed");
    r.ends.push_back(r.bytes.size());
  }
  return r;
}

// Seconds of the fastest of `repeats` runs of f; `keep` receives the last run's result.
template <class F, class Result>
double best_of(int repeats, F f, Result& keep) {
  double best = INFINITY;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    keep = f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

struct ServerResult {
  std::vector<ItemEstimate> raw;
  std::vector<ItemEstimate> clipped;
};

ServerResult serve(const Mechanism& m, const Reports& reports) {
  Aggregator a(m);
  std::size_t begin = 0;
  for (const std::size_t end : reports.ends) {
    const std::span<const std::uint8_t> one(reports.bytes.data() + begin, end - begin);
    if (a.ingest(one) != ParseError::none) fail("a report was rejected");
    begin = end;
  }
  return {estimate(a, Postprocess::none), estimate(a, Postprocess::clip)};
}

nlohmann::json frequencies(const std::vector<ItemEstimate>& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& item : e) out.push_back(item.frequency);
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  // The positional arguments, and --epsilon-tolerance T anywhere after the program's name.
  std::vector<const char*> args;
  const char* tolerance_text = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--epsilon-tolerance") {
      if (i + 1 >= argc) fail("--epsilon-tolerance needs a value");
      tolerance_text = argv[++i];
    } else {
      args.push_back(argv[i]);
    }
  }
  if (args.size() < 4 || args.size() > 5) {
    std::cerr << "usage: peer_workload MECHANISM EPSILON DOMAIN VALUES_FILE [REPEATS] [--epsilon-tolerance T]\n";
    return 1;
  }
  const auto id = mechanism_from_name(args[0]);
  if (!id) fail(std::string("unknown mechanism ") + args[0]);
  char* end = nullptr;
  const double eps = std::strtod(args[1], &end);
  if (*end != '\0' || !(eps > 0) || eps > 64) fail("epsilon must be a number in (0, 64]");
  const auto domain = static_cast<std::uint32_t>(std::strtoul(args[2], nullptr, 10));
  const int repeats = args.size() == 5 ? std::atoi(args[4]) : 5;
  if (repeats < 1) fail("REPEATS must be at least 1");

  MechanismConfig config;
  config.id = *id;
  config.domain = domain;
  // ε rounded down to a multiple of 2^-32, as the CLI reads it.
  config.epsilon = Epsilon::from_q32(static_cast<std::uint64_t>(std::ldexp(eps, 32)));
  if (tolerance_text != nullptr) {
    // The tolerance likewise: T · 2^32 rounded down.
    const double tolerance = std::strtod(tolerance_text, &end);
    if (*end != '\0' || !(tolerance >= 0) || !(tolerance < eps))
      fail(std::string("--epsilon-tolerance ") + tolerance_text + ": a number in [0, EPSILON)");
    config.precision.tolerance_q32 = static_cast<std::uint64_t>(std::floor(std::ldexp(tolerance, 32)));
  }
  Mechanism m;
  if (const ConfigureResult r = Mechanism::configure(config, m); !r)
    fail("the mechanism rejected this configuration: " + r.reason);
  const std::vector<std::uint32_t> values = read_values(args[3], domain);

  // Heap-allocated: the DRBG and the RandomBits buffers are a few KiB each.
  auto os = std::make_unique<port::HostOsSource>();
  auto drbg = std::make_unique<port::ChaCha20Drbg>();
  drbg->set_reseed_source(*os);
  if (drbg->seed(*os) != EntropyResult::ok) fail("seeding the DRBG from the OS failed");
  auto drbg_bits = std::make_unique<RandomBits<port::ChaCha20Drbg, 4096>>(*drbg);
  auto sim = std::make_unique<port::SimulationSource>(1);
  auto sim_bits = std::make_unique<RandomBits<port::SimulationSource, 1024>>(*sim);

  Reports simulated, reports;
  const double client_sim = best_of(repeats, [&] { return privatize_all(m, values, *sim_bits); }, simulated);
  const double client_drbg = best_of(repeats, [&] { return privatize_all(m, values, *drbg_bits); }, reports);
  ServerResult result;
  const double server = best_of(repeats, [&] { return serve(m, reports); }, result);

  const double n = static_cast<double>(values.size());
  nlohmann::json j;
  j["mechanism"] = args[0];
  j["epsilon"] = eps;
  j["epsilon_tolerance"] = std::ldexp(static_cast<double>(config.precision.tolerance_q32), -32);
  j["epsilon_tolerance_q32"] = config.precision.tolerance_q32;
  j["realized_epsilon"] = std::ldexp(static_cast<double>(m.realized_epsilon().q32), -32);
  j["random_bits_per_report"] = m.random_bits_per_report();
  j["domain"] = domain;
  j["n"] = values.size();
  j["repeats"] = repeats;
  j["report_bytes"] = reports.bytes.size() / values.size();
  j["client_drbg_seconds"] = client_drbg;
  j["client_drbg_reports_per_second"] = n / client_drbg;
  j["client_simulation_seconds"] = client_sim;
  j["client_simulation_reports_per_second"] = n / client_sim;
  j["server_seconds"] = server;
  j["server_reports_per_second"] = n / server;
  j["frequencies_raw"] = frequencies(result.raw);
  j["frequencies_clipped"] = frequencies(result.clipped);
  std::cout << j.dump() << "\n";
  return 0;
}
