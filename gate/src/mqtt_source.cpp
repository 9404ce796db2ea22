// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/gate/mqtt_source.hpp"

#include <mosquitto.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tinyldp::gate {

namespace {

using Clock = std::chrono::steady_clock;

struct LibraryInit {
  LibraryInit() { mosquitto_lib_init(); }
  ~LibraryInit() { mosquitto_lib_cleanup(); }
};

struct Session {
  Session(Gate& g, const MqttOptions& o, const std::function<void(const ReleasedBatch&)>& r)
      : gate(g), options(o), on_release(r) {}
  Gate& gate;
  const MqttOptions& options;
  const std::function<void(const ReleasedBatch&)>& on_release;
  MqttRun run;
  unsigned uncommitted = 0;
  Clock::time_point last_commit = Clock::now(), last_message = Clock::now();
  bool subscribed = false;
  int connect_result = -1;
  std::string error;

  void commit_and_release() {
    gate.commit();
    uncommitted = 0;
    last_commit = Clock::now();
    for (ReleasedBatch& b : gate.release()) {
      if (on_release) on_release(b);
      run.released.push_back(std::move(b));
    }
  }
};

}  // namespace

MqttRun run_mqtt(Gate& gate, const MqttOptions& options, const std::atomic<bool>* stop,
                 const std::function<void(const ReleasedBatch&)>& on_release) {
  if (options.topic.empty()) throw std::runtime_error("gate: an MQTT topic is required");
  static LibraryInit init;
  Session s(gate, options, on_release);
  std::unique_ptr<mosquitto, decltype(&mosquitto_destroy)> mosq(
      mosquitto_new(options.client_id.c_str(), /*clean_session=*/false, &s), mosquitto_destroy);
  if (!mosq) throw std::runtime_error("gate: cannot create an MQTT client");
  mosquitto_connect_callback_set(mosq.get(), [](mosquitto* m, void* obj, int rc) {
    auto* session = static_cast<Session*>(obj);
    session->connect_result = rc;
    if (rc != 0) return;
    if (mosquitto_subscribe(m, nullptr, session->options.topic.c_str(), 1) != MOSQ_ERR_SUCCESS)
      session->error = "gate: cannot subscribe to " + session->options.topic;
  });
  mosquitto_subscribe_callback_set(mosq.get(), [](mosquitto*, void* obj, int, int, const int*) {
    auto* session = static_cast<Session*>(obj);
    if (!session->subscribed && session->options.on_subscribed) session->options.on_subscribed();
    session->subscribed = true;
  });
  mosquitto_message_callback_set(mosq.get(), [](mosquitto*, void* obj, const mosquitto_message* msg) {
    auto* session = static_cast<Session*>(obj);
    if (!session->error.empty()) return;  // the loop below throws it
    // No exception may cross libmosquitto's C frames: a database error is kept and rethrown.
    try {
      session->gate.offer({static_cast<const std::uint8_t*>(msg->payload), static_cast<std::size_t>(msg->payloadlen)});
      ++session->run.messages;
      ++session->uncommitted;
      session->last_message = Clock::now();
      if (session->uncommitted >= session->options.commit_every) session->commit_and_release();
    } catch (const std::exception& e) {
      session->error = e.what();
    }
  });
  if (const int rc = mosquitto_connect(mosq.get(), options.host.c_str(), options.port, 30); rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error("gate: cannot connect to the MQTT broker at " + options.host + ":" +
                             std::to_string(options.port) + ": " + mosquitto_strerror(rc));
  const auto idle = std::chrono::duration<double>(options.idle_exit_s);
  s.last_message = Clock::now();
  while (true) {
    const int rc = mosquitto_loop(mosq.get(), 20, 1);
    if (!s.error.empty()) throw std::runtime_error(s.error);
    if (s.connect_result > 0)
      throw std::runtime_error(std::string("gate: the MQTT broker refused the connection: ") +
                               mosquitto_connack_string(s.connect_result));
    if (rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_NO_CONN) {
      if (mosquitto_reconnect(mosq.get()) != MOSQ_ERR_SUCCESS)
        throw std::runtime_error("gate: lost the MQTT broker at " + options.host + ":" + std::to_string(options.port));
    }
    const auto now = Clock::now();
    if (s.uncommitted > 0 && now - s.last_commit >= std::chrono::milliseconds(options.commit_ms)) s.commit_and_release();
    if (stop != nullptr && stop->load()) break;
    if (options.max_messages != 0 && s.run.messages >= options.max_messages) break;
    if (options.idle_exit_s > 0 && s.subscribed && now - s.last_message >= idle) break;
  }
  s.commit_and_release();
  mosquitto_disconnect(mosq.get());
  return std::move(s.run);
}

Broker parse_broker(const std::string& text) {
  Broker b;
  const auto colon = text.rfind(':');
  b.host = text.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string port = text.substr(colon + 1);
    const bool digits = !port.empty() && port.size() <= 5 &&
                        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    b.port = digits ? std::stoi(port) : 0;
  }
  if (b.host.empty() || b.port < 1 || b.port > 65535) throw std::invalid_argument(text + ": not HOST or HOST:PORT");
  return b;
}

std::uint64_t publish_mqtt(const std::string& host, int port, const std::string& topic,
                           const std::function<bool(std::vector<std::uint8_t>&)>& next_report) {
  static LibraryInit init;
  struct Counts {
    std::mutex mutex;
    std::uint64_t acknowledged = 0;
  } counts;
  std::unique_ptr<mosquitto, decltype(&mosquitto_destroy)> mosq(mosquitto_new(nullptr, true, &counts), mosquitto_destroy);
  if (!mosq) throw std::runtime_error("cannot create an MQTT client");
  mosquitto_publish_callback_set(mosq.get(), [](mosquitto*, void* obj, int) {
    auto* c = static_cast<Counts*>(obj);
    std::lock_guard<std::mutex> lock(c->mutex);
    ++c->acknowledged;
  });
  if (const int rc = mosquitto_connect(mosq.get(), host.c_str(), port, 30); rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error("cannot connect to the MQTT broker at " + host + ":" + std::to_string(port) + ": " +
                             mosquitto_strerror(rc));
  if (mosquitto_loop_start(mosq.get()) != MOSQ_ERR_SUCCESS) throw std::runtime_error("cannot start the MQTT client");
  std::uint64_t sent = 0;
  std::vector<std::uint8_t> report;
  while (next_report(report)) {
    const int rc = mosquitto_publish(mosq.get(), nullptr, topic.c_str(), static_cast<int>(report.size()), report.data(), 1, false);
    if (rc != MOSQ_ERR_SUCCESS) throw std::runtime_error(std::string("MQTT publish failed: ") + mosquitto_strerror(rc));
    ++sent;
  }
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(counts.mutex);
      if (counts.acknowledged >= sent) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  mosquitto_disconnect(mosq.get());
  mosquitto_loop_stop(mosq.get(), false);
  return sent;
}

}  // namespace tinyldp::gate
