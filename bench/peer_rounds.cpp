// SPDX-License-Identifier: Apache-2.0
// tinyldp's side of the longitudinal peer comparison (experiments/compare-peers --longitudinal,
// docs/peers.md "Reports over time"): a fleet of devices, each with its own memo key, reports
// every round of a value schedule through one memoized mechanism; the collector estimates each
// round. Not a test: the same workload the Python peers run, so the two can be compared.
//
//   peer_rounds --mechanism l-osue --epsilon 5 --epsilon-one 2.5 --domain 73
//               --schedule FILE --devices N --rounds R [--runs K]
//               [--attack-devices A --attack-boots B]
//
// FILE: R·N integers separated by white space (round-major: the N devices' values of round 0,
// then round 1, …). rappor takes --f, --p, --q (exact dyadic values as decimals) instead of the
// epsilons. Prints one JSON object:
// - runs: K independent fleets (fresh device keys from the OS each run) over the R rounds, the
//   mean squared error of each round's frequencies (raw and clip-renormalized) against that
//   round's true frequencies, and the run's client and server seconds (client: privatize every
//   report with the ChaCha20 DRBG; server: strict-parse and count every report, estimate).
// - budget: per device of the first run, the distinct memoized values over the R rounds (for
//   LOLOHA the distinct hashed values) × ε∞: mean and largest.
// - attack (A > 0): A devices of a fixed value (round 0's) boot B times each; at every boot the
//   memo key is loaded from emulated flash and the DRBG seeded afresh, one report is sent. The
//   attacker aggregates one device's B reports and guesses, per item, "this is the value" when
//   the unbiased estimate exceeds 1/2 (per UE bit: the majority vote at the midpoint of the two
//   report rates) and names the argmax as the value. Run twice: with the key kept (tinyldp) and
//   with the flash erased at every boot (a client that keeps no state, as the peers).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/random_bits.hpp"
#include "peer_common.hpp"

namespace {
using namespace tinyldp;
using namespace tinyldp::collector;
using bench::Clock;

[[noreturn]] void fail(const std::string& why) { bench::fail("peer_rounds", why); }

struct Options {
  std::string mechanism, schedule;
  double epsilon = 0, epsilon_one = 0;
  std::optional<double> f, p, q;
  std::uint32_t domain = 0, devices = 0, rounds = 0, runs = 1, attack_devices = 0, attack_boots = 1000;
};

// ε rounded down to a multiple of 2^-32, as the CLI reads it.
Epsilon epsilon_from(double e) { return Epsilon::from_q32(static_cast<std::uint64_t>(std::ldexp(e, 32))); }

// An exact dyadic value given as a double (at most 52 fraction bits, so exact).
Dyadic dyadic_from(const char* name, double x) {
  if (!(x >= 0 && x <= 1)) fail(std::string(name) + " must be a probability");
  const double scaled = std::ldexp(x, 52);
  if (scaled != std::floor(scaled)) fail(std::string(name) + " is not a multiple of 2^-52");
  return make_dyadic(static_cast<std::uint64_t>(scaled), 52);
}

Mechanism configure(const Options& o) {
  const auto id = mechanism_from_name(o.mechanism);
  if (!id) fail("unknown mechanism " + o.mechanism);
  MechanismConfig c;
  c.id = *id;
  c.domain = o.domain;
  if (o.f) {
    if (!o.p || !o.q) fail("rappor needs --f, --p and --q");
    c.prr_f = dyadic_from("f", *o.f);
    c.irr_p = dyadic_from("p", *o.p);
    c.irr_q = dyadic_from("q", *o.q);
  } else {
    c.epsilon = epsilon_from(o.epsilon);
    c.epsilon_one = epsilon_from(o.epsilon_one);
  }
  Mechanism m;
  if (const auto r = Mechanism::configure(c, m); !r) fail(r.reason);
  if (!m.memoized()) fail(o.mechanism + " is not a memoized mechanism");
  return m;
}

// The schedule: values[round · devices + device], read from whitespace-separated integers.
std::vector<std::uint16_t> read_schedule(const Options& o) {
  std::ifstream in(o.schedule, std::ios::binary);
  if (!in) fail("cannot read " + o.schedule);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint16_t> values;
  values.reserve(std::size_t{o.rounds} * o.devices);
  const char* at = text.data();
  const char* const end = text.data() + text.size();
  while (true) {
    while (at < end && std::isspace(static_cast<unsigned char>(*at))) ++at;
    if (at == end) break;
    std::uint32_t v = 0;
    const auto [next, ec] = std::from_chars(at, end, v);
    if (ec != std::errc{} || v >= o.domain)
      fail(o.schedule + ": value #" + std::to_string(values.size() + 1) + " is not an integer in [0, " +
           std::to_string(o.domain) + ")");
    values.push_back(static_cast<std::uint16_t>(v));
    at = next;
  }
  if (values.size() != std::size_t{o.rounds} * o.devices)
    fail(o.schedule + " holds " + std::to_string(values.size()) + " values, not rounds x devices");
  return values;
}

double mse(const std::vector<ItemEstimate>& e, const std::vector<double>& truth) {
  double s = 0;
  for (std::size_t v = 0; v < truth.size(); ++v) s += (e[v].frequency - truth[v]) * (e[v].frequency - truth[v]);
  return s / static_cast<double>(truth.size());
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A device's memo key: 32 bytes of the DRBG (the generation 0), as provisioning draws it.
port::MemoKey fresh_key(port::ChaCha20Drbg& drbg) {
  std::uint8_t secret[port::memo_key_bytes];
  if (drbg.fill(secret, sizeof secret, TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) fail("the DRBG failed");
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

// What a device's memo is per: its value, or (LOLOHA) its hashed value under its seed.
struct MemoIdentity {
  std::optional<Loloha> loloha;
  explicit MemoIdentity(const Mechanism& m, const Options& o) {
    const auto id = m.config().id;
    if (id != wire::MechanismId::loloha && id != wire::MechanismId::biloloha) return;
    Loloha core;
    const Epsilon inf = epsilon_from(o.epsilon), one = epsilon_from(o.epsilon_one);
    const Status s = id == wire::MechanismId::loloha ? Loloha::configure_optimal(inf, one, o.domain, core)
                                                     : Loloha::configure_binary(inf, one, o.domain, core);
    if (s != Status::ok) fail("LOLOHA's core refused the configuration");
    loloha = core;
  }
  std::uint32_t operator()(const port::MemoKey& key, std::uint32_t value) const {
    if (!loloha) return value;
    // The seed as Loloha::privatize draws it (detail::privatize_with_device_draw).
    auto stream = key.memo_stream(loloha->memo_attribute_word(), detail::device_draw_value);
    MemoDraws<decltype(stream)> seeds(stream);
    return local_hash(Loloha::hash_seed(seeds), value, loloha->range());
  }
};

struct Fleet {
  const Mechanism& m;
  const Options& o;
  const std::vector<std::uint16_t>& schedule;
  std::vector<std::vector<double>> truth;  // per round
};

// One run: a fresh fleet over every round. Returns the run's JSON; budget (first run) fills the
// distinct-memo counts.
nlohmann::json run_fleet(const Fleet& fleet, port::ChaCha20Drbg& drbg, RandomBits<port::ChaCha20Drbg, 4096>& rng,
                         std::vector<std::uint32_t>* memos) {
  const auto& o = fleet.o;
  std::vector<port::MemoKey> keys;
  keys.reserve(o.devices);
  for (std::uint32_t i = 0; i < o.devices; ++i) keys.push_back(fresh_key(drbg));
  const MemoIdentity identity(fleet.m, o);
  std::vector<std::vector<bool>> seen;
  if (memos) seen.assign(o.devices, std::vector<bool>(o.domain, false));

  nlohmann::json out;
  std::vector<double> raw, clipped;
  double client = 0, server = 0;
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> ends(o.devices);
  const wire::Header header{};
  for (std::uint32_t round = 0; round < o.rounds; ++round) {
    const std::uint16_t* values = fleet.schedule.data() + std::size_t{round} * o.devices;
    bytes.clear();
    const auto t0 = Clock::now();
    for (std::uint32_t i = 0; i < o.devices; ++i) {
      if (fleet.m.privatize(values[i], rng, keys[i], header, bytes) != Status::ok) fail("a report failed");
      ends[i] = bytes.size();
    }
    client += seconds_since(t0);
    const auto t1 = Clock::now();
    Aggregator a(fleet.m);
    std::size_t begin = 0;
    for (const std::size_t end : ends) {
      if (a.ingest(std::span<const std::uint8_t>(bytes.data() + begin, end - begin)) != ParseError::none)
        fail("a report was rejected");
      begin = end;
    }
    const auto e_raw = estimate(a, Postprocess::none), e_clip = estimate(a, Postprocess::clip);
    server += seconds_since(t1);
    raw.push_back(mse(e_raw, fleet.truth[round]));
    clipped.push_back(mse(e_clip, fleet.truth[round]));
    if (memos)
      for (std::uint32_t i = 0; i < o.devices; ++i) seen[i][identity(keys[i], values[i])] = true;
  }
  if (memos) {
    memos->clear();
    for (const auto& s : seen) memos->push_back(static_cast<std::uint32_t>(std::count(s.begin(), s.end(), true)));
  }
  out["mse_raw"] = raw;
  out["mse_clipped"] = clipped;
  out["client_seconds"] = client;
  out["server_seconds"] = server;
  return out;
}

// The averaging attack over reboots (see the header comment). keep_state = false erases the
// flash at every boot: a new key, so a new memo, at every report.
nlohmann::json attack(const Fleet& fleet, bool keep_state) {
  const auto& o = fleet.o;
  constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
  std::vector<std::uint8_t> memory(128 * 4);
  port::HostOsSource os;
  auto drbg = std::make_unique<port::ChaCha20Drbg>();
  double right_items = 0, named = 0;
  std::vector<std::uint8_t> report;
  for (std::uint32_t device = 0; device < o.attack_devices; ++device) {
    const std::uint32_t value = fleet.schedule[device];
    port::EmulatedFlash flash(memory.data(), geometry);
    flash.format();
    Aggregator a(fleet.m);
    for (std::uint32_t boot = 0; boot < o.attack_boots; ++boot) {
      flash.power_on();
      if (!keep_state) flash.format();
      if (drbg->seed(os) != EntropyResult::ok) fail("seeding the DRBG from the OS failed");
      Record<port::EmulatedFlash> record(flash, 0, 2);
      port::MemoKey key;
      port::MemoKeyResult loaded = port::load_memo_key(record, key);
      if (loaded == port::MemoKeyResult::not_provisioned)  // a blank flash: the factory's step
        loaded = port::provision_memo_key(*drbg, record, 0, key);
      if (loaded != port::MemoKeyResult::ok) fail("no memo key");
      RandomBits<port::ChaCha20Drbg> rng(*drbg);
      report.clear();
      if (fleet.m.privatize(value, rng, key, wire::Header{}, report) != Status::ok) fail("a report failed");
      if (a.ingest(report) != ParseError::none) fail("a report was rejected");
    }
    const auto e = estimate(a, Postprocess::none);
    std::uint32_t right = 0, best = 0;
    for (std::uint32_t v = 0; v < o.domain; ++v) {
      right += (e[v].unbiased_frequency > 0.5) == (v == value) ? 1u : 0u;
      if (e[v].unbiased_frequency > e[best].unbiased_frequency) best = v;
    }
    right_items += static_cast<double>(right) / o.domain;
    named += best == value ? 1 : 0;
  }
  return {{"per_item_accuracy", right_items / o.attack_devices}, {"value_named", named / o.attack_devices}};
}
}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("tinyldp's side of experiments/compare-peers --longitudinal");
  app.add_option("--mechanism", o.mechanism)->required();
  app.add_option("--epsilon", o.epsilon, "ε∞");
  app.add_option("--epsilon-one", o.epsilon_one, "ε₁");
  app.add_option("--f", o.f, "rappor: exact dyadic f");
  app.add_option("--p", o.p, "rappor: exact dyadic p");
  app.add_option("--q", o.q, "rappor: exact dyadic q");
  app.add_option("--domain", o.domain)->required();
  app.add_option("--schedule", o.schedule)->required();
  app.add_option("--devices", o.devices)->required()->check(CLI::Range(1u, 1u << 24));
  app.add_option("--rounds", o.rounds)->required()->check(CLI::Range(1u, 100000u));
  app.add_option("--runs", o.runs)->check(CLI::Range(1u, 1000u));
  app.add_option("--attack-devices", o.attack_devices);
  app.add_option("--attack-boots", o.attack_boots)->check(CLI::Range(1u, 1000000u));
  CLI11_PARSE(app, argc, argv);
  if (o.attack_devices > o.devices) fail("--attack-devices is at most --devices");

  const Mechanism m = configure(o);
  const std::vector<std::uint16_t> schedule = read_schedule(o);
  Fleet fleet{m, o, schedule, {}};
  for (std::uint32_t round = 0; round < o.rounds; ++round) {
    std::vector<double> t(o.domain, 0);
    for (std::uint32_t i = 0; i < o.devices; ++i) t[schedule[std::size_t{round} * o.devices + i]] += 1.0 / o.devices;
    fleet.truth.push_back(std::move(t));
  }

  // Heap-allocated: the DRBG and the RandomBits buffer are a few KiB each.
  auto os = std::make_unique<port::HostOsSource>();
  auto drbg = std::make_unique<port::ChaCha20Drbg>();
  drbg->set_reseed_source(*os);
  if (drbg->seed(*os) != EntropyResult::ok) fail("seeding the DRBG from the OS failed");
  auto rng = std::make_unique<RandomBits<port::ChaCha20Drbg, 4096>>(*drbg);

  nlohmann::json j;
  j["mechanism"] = o.mechanism;
  j["domain"] = o.domain;
  j["devices"] = o.devices;
  j["rounds"] = o.rounds;
  j["epsilon_one"] = std::ldexp(static_cast<double>(m.local_epsilon().q32), -32);
  j["epsilon_infinity"] = std::ldexp(static_cast<double>(m.epsilon_infinity()->q32), -32);
  std::vector<std::uint32_t> memos;
  for (std::uint32_t run = 0; run < o.runs; ++run)
    j["runs"].push_back(run_fleet(fleet, *drbg, *rng, run == 0 ? &memos : nullptr));
  double total = 0;
  for (const auto c : memos) total += c;
  j["memos_mean"] = total / static_cast<double>(memos.size());
  j["memos_max"] = *std::max_element(memos.begin(), memos.end());
  if (o.attack_devices > 0) {
    j["attack_devices"] = o.attack_devices;
    j["attack_boots"] = o.attack_boots;
    j["attack_kept"] = attack(fleet, true);
    j["attack_erased"] = attack(fleet, false);
  }
  std::cout << j.dump() << "\n";
  return 0;
}
