// SPDX-License-Identifier: Apache-2.0
// tinyldp/gate/mqtt_source.hpp — reports from an MQTT broker into the gate (libmosquitto).
//
// Subscribes to a topic (wildcards allowed: fleets publish one message per report, e.g. on
// "tinyldp/<attribute>/<device>") at QoS 1 with a persistent session, so a broker keeps what
// arrives while the gate is down. libmosquitto reads and acknowledges messages on its own
// thread and hands them over through a queue of at most 4 MiB of reports (while it is full the
// network thread waits and the broker keeps the rest); this thread offers each to the gate,
// commits every `commit_every` messages or `commit_ms` milliseconds and releases batches after
// each commit. libmosquitto 2.0 acknowledges a QoS-1 message before handing it over, so a gate
// killed before the next commit loses the messages of that window (those queued, at most
// 4 MiB of them, and at most commit_every offered) — reports that were never admitted; what was
// committed is never lost and never released twice (gate.hpp). A run that stops (idle,
// max_messages, *stop) admits every message already acknowledged before it returns. Host only.
#ifndef TINYLDP_GATE_MQTT_SOURCE_HPP
#define TINYLDP_GATE_MQTT_SOURCE_HPP

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "tinyldp/gate/gate.hpp"

namespace tinyldp::gate {

struct Broker {
  std::string host;
  int port = 1883;
};
// "HOST" or "HOST:PORT" (port 1 … 65535); throws std::invalid_argument otherwise.
Broker parse_broker(const std::string& text);

struct MqttOptions {
  std::string host = "localhost";
  int port = 1883;
  std::string topic;             // required
  std::string client_id = "tinyldp-gate";
  unsigned commit_every = 1024;  // messages
  unsigned commit_ms = 50;
  double idle_exit_s = 0;        // stop after this long without a message (0: run until stopped)
  std::uint64_t max_messages = 0;  // stop after this many (0: no limit)
  std::function<void()> on_subscribed;  // once the broker confirmed the subscription
};

struct MqttRun {
  std::uint64_t messages = 0;
  std::vector<ReleasedBatch> released;
};

// Runs until idle_exit_s passes without a message, max_messages arrive (a few more may: those
// acknowledged already) or *stop becomes true
// (a signal handler may set it). Throws std::runtime_error if the broker cannot be reached.
MqttRun run_mqtt(Gate& gate, const MqttOptions& options, const std::atomic<bool>* stop = nullptr,
                 const std::function<void(const ReleasedBatch&)>& on_release = {});

// A fleet's side, for simulations, demos and the benchmark: publishes each report the callback
// yields (false: no more) as one QoS-1 message on topic, and returns once the broker has
// acknowledged them all.
std::uint64_t publish_mqtt(const std::string& host, int port, const std::string& topic,
                           const std::function<bool(std::vector<std::uint8_t>&)>& next_report);

}  // namespace tinyldp::gate

#endif
