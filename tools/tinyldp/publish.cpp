// SPDX-License-Identifier: Apache-2.0
// tinyldp publish: a simulated fleet's side of MQTT — each report of a report file published as
// one QoS-1 message, as devices publish them, for `tinyldp gate --mqtt` (docs/gate.md).
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/gate/mqtt_source.hpp"

namespace tinyldp::tools {
namespace {

struct PublishOptions {
  std::string input, broker = "localhost:1883", topic;
};

int run(const PublishOptions& o) {
  collector::ReportFileReader reader(o.input);
  if (!reader.ok()) throw BadInput(o.input + ": " + reader.error());
  gate::Broker broker;
  try {
    broker = gate::parse_broker(o.broker);
  } catch (const std::invalid_argument& e) {
    throw BadInput(std::string("--mqtt ") + e.what());
  }
  const std::uint64_t sent = gate::publish_mqtt(broker.host, broker.port, o.topic,
                                                [&](std::vector<std::uint8_t>& r) { return reader.next(r); });
  if (!reader.ok()) throw BadInput(o.input + ": " + reader.error() + " (" + std::to_string(sent) + " published before it)");
  std::cerr << "tinyldp: " << sent << " report(s) of " << o.input << " published on " << o.topic << " at " << o.broker
            << " (QoS 1, all acknowledged)\n";
  return 0;
}

}  // namespace

Subcommand add_publish(CLI::App& app) {
  auto o = std::make_shared<PublishOptions>();
  auto* p = app.add_subcommand("publish", "publish a report file's reports to an MQTT broker, one message each (a simulated fleet)");
  p->add_option("input", o->input, "report file (tinyldp simulate)")->required();
  p->add_option("--mqtt", o->broker, "the broker, HOST:PORT");
  p->add_option("--topic", o->topic, "the topic")->required();
  return {p, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
