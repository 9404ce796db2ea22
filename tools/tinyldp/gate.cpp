// SPDX-License-Identifier: Apache-2.0
// tinyldp gate: authenticated reports in (report files — from simulate, or from wrap's serial
// captures — and an MQTT topic), anonymous shuffled batches out (docs/gate.md). The device
// registry, the admitted reports and every verdict live in the SQLite database --db; a run
// resumes whatever a killed run left (gate.hpp).
#include <openssl/evp.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "cli_common.hpp"
#include "nlohmann/json.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/gate/gate.hpp"
#include "tinyldp/gate/mqtt_source.hpp"

namespace tinyldp::tools {
namespace {

struct GateCliOptions {
  MechanismOptions mechanism;
  std::string db, fleet_secret, attribute, out_dir;
  std::uint64_t threshold = 1000;
  std::vector<std::string> inputs, register_ranges;
  std::vector<std::uint32_t> revoke;
  bool allow_unauthenticated = false, json = false, status = false;
  std::optional<std::string> mqtt;
  std::string topic;
  double idle_exit = 0;
  std::uint64_t max_messages = 0;
  unsigned commit_every = 1024;
  double delta = default_shuffle_delta;
};

std::atomic<bool> stop_requested{false};

// The SHA-256 of a file's bytes: the gate's name for an input, whatever its path.
std::array<std::uint8_t, 32> file_identity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 failed");
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (EVP_DigestUpdate(md.get(), chunk.data(), static_cast<std::size_t>(in.gcount())) != 1)
      throw std::runtime_error("SHA-256 failed");
  }
  if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
  std::array<std::uint8_t, 32> out{};
  unsigned n = 0;
  EVP_DigestFinal_ex(md.get(), out.data(), &n);
  return out;
}

// One report file: resumes where an earlier run's last commit stopped.
struct FileRun {
  std::string path;
  std::uint64_t offered = 0, skipped = 0;
  bool already = false;
};
FileRun ingest_file(gate::Gate& g, const std::string& path, const collector::Mechanism& m, unsigned commit_every) {
  FileRun run{path};
  const auto identity = file_identity(path);
  if (g.source_finished(identity)) {
    run.already = true;
    return run;
  }
  collector::ReportFileReader reader(path);
  if (!reader.ok()) throw BadInput(path + ": " + reader.error());
  if (collector::report_file_header(reader.mechanism()) != collector::report_file_header(m))
    throw BadInput(path + ": its reports are " + describe(reader.mechanism()) + ", the gate's attribute " + describe(m));
  const std::uint64_t resume = g.begin_source(identity, path);
  std::vector<std::uint8_t> report;
  std::uint64_t position = 0;
  while (reader.next(report)) {
    ++position;
    if (position <= resume) {
      ++run.skipped;
      continue;
    }
    g.offer(report);
    ++run.offered;
    if (position % commit_every == 0) g.commit(position);
    if (stop_requested.load()) {
      g.commit(position);
      return run;
    }
  }
  if (!reader.ok()) {
    g.commit(position);
    throw BadInput(path + ": " + reader.error() + " (the reports before it were taken)");
  }
  g.commit(position, /*finished=*/true);
  return run;
}

int run(const GateCliOptions& o) {
  std::string error;
  const auto secret = gate::FleetSecret::read(o.fleet_secret, error);
  if (!secret) throw BadInput(error);
  std::filesystem::create_directories(o.out_dir);
  gate::GateOptions go;
  go.threshold = o.threshold;
  go.allow_unauthenticated = o.allow_unauthenticated;
  gate::Gate g(o.db, *secret, go, o.out_dir);
  const gate::GateCounts before = g.counts();
  std::optional<collector::Mechanism> m;
  if (!o.mechanism.mechanism.empty()) {
    m.emplace(configure(o.mechanism, epsilon_option(o.mechanism)));
    refuse_record(*m, "gate");
    if (o.attribute.empty()) throw BadInput("--attribute NAME is required with --mechanism");
    g.add_attribute(o.attribute, *m);
  } else if (!o.inputs.empty() || o.mqtt) {
    throw BadInput("reports need the attribute's configuration: --attribute NAME --mechanism … (as the devices use)");
  }
  for (const std::string& r : o.register_ranges) {
    const auto [first, last] = device_range("--register", r);
    g.register_devices(first, last);
  }
  for (std::uint32_t d : o.revoke) g.revoke_device(d);

  std::signal(SIGINT, [](int) { stop_requested = true; });
  std::signal(SIGTERM, [](int) { stop_requested = true; });
  std::vector<gate::ReleasedBatch> released;
  std::vector<FileRun> files;
  for (const std::string& path : o.inputs) {
    files.push_back(ingest_file(g, path, *m, o.commit_every));
    for (auto& b : g.release()) released.push_back(std::move(b));
    if (stop_requested.load()) break;
  }
  std::uint64_t mqtt_messages = 0;
  if (o.mqtt && !stop_requested.load()) {
    gate::MqttOptions mo;
    try {
      const gate::Broker b = gate::parse_broker(*o.mqtt);
      mo.host = b.host;
      mo.port = b.port;
    } catch (const std::invalid_argument& e) {
      throw BadInput(std::string("--mqtt ") + e.what());
    }
    mo.topic = o.topic;
    mo.idle_exit_s = o.idle_exit;
    mo.max_messages = o.max_messages;
    mo.commit_every = o.commit_every;
    mo.client_id = "tinyldp-gate-" + o.attribute;
    mo.on_subscribed = [&] { std::cerr << "tinyldp: gate subscribed to " << o.topic << " at " << *o.mqtt << std::endl; };
    const gate::MqttRun r = gate::run_mqtt(g, mo, &stop_requested);
    mqtt_messages = r.messages;
    released.insert(released.end(), r.released.begin(), r.released.end());
  }
  const gate::GateCounts after = g.counts();
  // The central ε of a batch depends on its size alone here: computed once per size (a run
  // over MQTT releases many batches, mostly of a few sizes).
  std::map<std::uint64_t, nlohmann::json> central;
  const auto shuffled = [&](std::uint64_t reports) -> const nlohmann::json& {
    auto it = central.find(reports);
    if (it == central.end())
      it = central.emplace(reports, shuffled_batch_json(as_double(m->local_epsilon()), reports, o.delta, m->memoized()))
               .first;
    return it->second;
  };
  const auto delta = [&](gate::Verdict v) {
    const auto i = static_cast<std::size_t>(v);
    return after.verdicts[i] - before.verdicts[i];
  };
  if (o.json) {
    nlohmann::json j;
    for (std::size_t i = 0; i < gate::verdict_count; ++i) {
      const auto v = static_cast<gate::Verdict>(i);
      j["this_run"][gate::to_string(v)] = delta(v);
      j["total"][gate::to_string(v)] = after.verdicts[i];
    }
    j["total"]["admitted_unauthenticated"] = after.admitted_unauthenticated;
    j["total"]["rekeys"] = after.rekeys;
    j["pending"] = after.pending;
    j["devices"] = after.devices;
    j["revoked"] = after.revoked;
    j["mqtt_messages"] = mqtt_messages;
    j["released"] = nlohmann::json::array();
    for (const auto& b : released)
      j["released"].push_back({{"batch", b.id}, {"attribute", b.attribute}, {"epoch", b.epoch}, {"reports", b.reports},
                               {"path", b.path},
                               {"shuffled_batch", shuffled(b.reports)}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (const FileRun& f : files) {
      if (f.already) std::cout << f.path << ": taken in full by an earlier run (nothing offered)\n";
      else if (f.skipped > 0) std::cout << f.path << ": resumed after " << f.skipped << " report(s) an earlier run committed\n";
    }
    if (o.mqtt) std::cout << "MQTT " << *o.mqtt << " " << o.topic << ": " << mqtt_messages << " message(s)\n";
    std::cout << "verdicts (this run / all runs):\n";
    for (std::size_t i = 0; i < gate::verdict_count; ++i) {
      const auto v = static_cast<gate::Verdict>(i);
      if (after.verdicts[i] == 0) continue;
      std::cout << "  " << gate::to_string(v) << ": " << delta(v) << " / " << after.verdicts[i] << "  ("
                << gate::explanation(v) << ")\n";
    }
    if (after.admitted_unauthenticated > 0)
      std::cout << "  of the admitted, without a tag (--allow-unauthenticated): " << after.admitted_unauthenticated << "\n";
    std::cout << "re-keys (memo generations that rose): " << after.rekeys << "\n";
    std::cout << "devices registered: " << after.devices << " (" << after.revoked << " revoked)\n";
    std::cout << "pending (admitted, below the threshold of " << o.threshold << " per attribute and epoch): "
              << after.pending << "\n";
    for (const auto& b : released) {
      std::cout << "released batch " << b.id << ": " << b.reports << " report(s) of " << b.attribute << ", epoch "
                << b.epoch << ", shuffled, without device ids -> " << b.path << "\n";
      print_shuffled_batch(std::cout, shuffled(b.reports), "  ");
    }
  }
  return 0;
}

}  // namespace

Subcommand add_gate(CLI::App& app) {
  auto o = std::make_shared<GateCliOptions>();
  auto* g = app.add_subcommand("gate", "verify authenticated reports, admit one per device and epoch, release shuffled anonymous batches");
  g->add_option("--db", o->db, "the gate's SQLite database (created if missing)")->required();
  g->add_option("--fleet-secret", o->fleet_secret, "the fleet's 32-byte secret (the devices' keys derive from it)")
      ->required();
  g->add_option("--out-dir", o->out_dir, "where released batches (report files) are written")->required();
  g->add_option("--attribute", o->attribute, "the attribute's name (its batches' file names)");
  add_mechanism_options(*g, o->mechanism, "the attribute's domain, as the devices configure it");
  g->add_option("--threshold", o->threshold, "release a batch only at this many reports of one attribute and epoch")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  g->add_option("--register", o->register_ranges, "register devices: an id or FIRST-LAST (repeatable)")->allow_extra_args(false);
  g->add_option("--revoke", o->revoke, "revoke a registered device (repeatable)")->allow_extra_args(false);
  g->add_flag("--allow-unauthenticated", o->allow_unauthenticated,
              "also admit version-1 reports without a tag (anyone can forge them: counted apart)");
  g->add_option("--mqtt", o->mqtt, "take reports from this MQTT broker, HOST:PORT (QoS 1, persistent session)");
  g->add_option("--topic", o->topic, "the MQTT topic (wildcards allowed), with --mqtt");
  g->add_option("--idle-exit", o->idle_exit, "with --mqtt: stop after this many seconds without a message")
      ->check(CLI::Range(0.0, 1e6));
  g->add_option("--max-messages", o->max_messages, "with --mqtt: stop after this many messages");
  g->add_option("--commit-every", o->commit_every, "commit after this many reports (and at the end)")
      ->check(CLI::Range(1u, 1u << 20));
  g->add_flag("--json", o->json, "print the counts as JSON");
  add_delta_option(*g, o->delta);
  g->add_option("inputs", o->inputs, "report files (tinyldp simulate, tinyldp wrap)");
  return {g, [o] {
            if (o->mqtt && o->topic.empty()) throw BadInput("--mqtt needs --topic");
            return run(*o);
          }};
}

}  // namespace tinyldp::tools
