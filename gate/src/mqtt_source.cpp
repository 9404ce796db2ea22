// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/gate/mqtt_source.hpp"

#include <mosquitto.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
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

// Messages from libmosquitto's network thread to the gate's: a queue of at most queue_bytes of
// payload (the network thread waits while it is full, so the broker holds what the gate has not
// taken), handed over whole.
constexpr std::size_t queue_bytes = std::size_t{4} << 20;
// A wire report is shorter than this (report files store its length in 16 bits); a longer
// message is offered as an empty one (malformed) without being copied.
constexpr std::size_t longest_report = 0xFFFF;

struct Session {
  explicit Session(const MqttOptions& o) : options(o) {}
  const MqttOptions& options;
  std::mutex mutex;
  std::condition_variable arrived, taken;
  std::deque<std::vector<std::uint8_t>> queue;  // guarded by mutex, as the fields below
  std::size_t queued_bytes = 0;
  bool closing = false;  // the gate stops: the network thread no longer waits for room
  bool subscribed = false;
  int connect_result = -1;
  std::string error;
};

}  // namespace

MqttRun run_mqtt(Gate& gate, const MqttOptions& options, const std::atomic<bool>* stop,
                 const std::function<void(const ReleasedBatch&)>& on_release) {
  if (options.topic.empty()) throw std::runtime_error("gate: an MQTT topic is required");
  static LibraryInit init;
  Session s(options);
  std::unique_ptr<mosquitto, decltype(&mosquitto_destroy)> mosq(
      mosquitto_new(options.client_id.c_str(), /*clean_session=*/false, &s), mosquitto_destroy);
  if (!mosq) throw std::runtime_error("gate: cannot create an MQTT client");
  // The callbacks run on libmosquitto's thread; no exception may cross its C frames.
  mosquitto_connect_callback_set(mosq.get(), [](mosquitto* m, void* obj, int rc) {
    auto* session = static_cast<Session*>(obj);
    const bool ok = rc != 0 || mosquitto_subscribe(m, nullptr, session->options.topic.c_str(), 1) == MOSQ_ERR_SUCCESS;
    std::lock_guard<std::mutex> lock(session->mutex);
    session->connect_result = rc;
    if (!ok) session->error = "gate: cannot subscribe to " + session->options.topic;
    session->arrived.notify_one();
  });
  mosquitto_subscribe_callback_set(mosq.get(), [](mosquitto*, void* obj, int, int, const int*) {
    auto* session = static_cast<Session*>(obj);
    std::lock_guard<std::mutex> lock(session->mutex);
    session->subscribed = true;
    session->arrived.notify_one();
  });
  mosquitto_message_callback_set(mosq.get(), [](mosquitto*, void* obj, const mosquitto_message* msg) {
    auto* session = static_cast<Session*>(obj);
    try {
      const auto* p = static_cast<const std::uint8_t*>(msg->payload);
      const std::size_t n = msg->payloadlen > 0 && static_cast<std::size_t>(msg->payloadlen) <= longest_report
                                ? static_cast<std::size_t>(msg->payloadlen)
                                : 0;
      std::vector<std::uint8_t> report(p, p + n);
      std::unique_lock<std::mutex> lock(session->mutex);
      session->taken.wait(lock, [&] {
        return session->closing || session->queue.empty() || session->queued_bytes + n <= queue_bytes;
      });
      session->queued_bytes += n;
      session->queue.push_back(std::move(report));
      session->arrived.notify_one();
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(session->mutex);
      if (session->error.empty()) session->error = std::string("gate: ") + e.what();
      session->arrived.notify_one();
    }
  });
  if (const int rc = mosquitto_connect(mosq.get(), options.host.c_str(), options.port, 30); rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error("gate: cannot connect to the MQTT broker at " + options.host + ":" +
                             std::to_string(options.port) + ": " + mosquitto_strerror(rc));
  // libmosquitto reads, acknowledges and reconnects on its own thread while this one admits.
  if (const int rc = mosquitto_loop_start(mosq.get()); rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error(std::string("gate: cannot start the MQTT client: ") + mosquitto_strerror(rc));
  MqttRun run;
  unsigned uncommitted = 0;
  Clock::time_point last_commit = Clock::now(), last_message = Clock::now();
  const auto commit_and_release = [&] {
    gate.commit();
    uncommitted = 0;
    last_commit = Clock::now();
    for (ReleasedBatch& b : gate.release()) {
      if (on_release) on_release(b);
      run.released.push_back(std::move(b));
    }
  };
  std::deque<std::vector<std::uint8_t>> batch;
  const auto offer_all = [&] {
    for (const auto& report : batch) {
      gate.offer(report);
      ++run.messages;
      if (++uncommitted >= options.commit_every) commit_and_release();
    }
    if (!batch.empty()) last_message = Clock::now();
    batch.clear();
  };
  const auto take = [&](std::unique_lock<std::mutex>&) {
    batch.swap(s.queue);
    s.queued_bytes = 0;
    s.taken.notify_all();
  };
  const auto stop_client = [&] {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.closing = true;
      s.taken.notify_all();
    }
    mosquitto_disconnect(mosq.get());
    mosquitto_loop_stop(mosq.get(), false);
  };
  const auto idle = std::chrono::duration<double>(options.idle_exit_s);
  bool announced = false;
  try {
    while (true) {
      bool subscribed = false;
      {
        std::unique_lock<std::mutex> lock(s.mutex);
        s.arrived.wait_for(lock, std::chrono::milliseconds(20),
                           [&] { return !s.queue.empty() || !s.error.empty() || (s.subscribed && !announced); });
        if (!s.error.empty()) throw std::runtime_error(s.error);
        if (s.connect_result > 0)
          throw std::runtime_error(std::string("gate: the MQTT broker refused the connection: ") +
                                   mosquitto_connack_string(s.connect_result));
        subscribed = s.subscribed;
        take(lock);
      }
      if (subscribed && !announced) {
        announced = true;
        if (options.on_subscribed) options.on_subscribed();
      }
      offer_all();
      const auto now = Clock::now();
      if (uncommitted > 0 && now - last_commit >= std::chrono::milliseconds(options.commit_ms)) commit_and_release();
      if (stop != nullptr && stop->load()) break;
      if (options.max_messages != 0 && run.messages >= options.max_messages) break;
      if (options.idle_exit_s > 0 && subscribed && now - last_message >= idle) break;
    }
  } catch (...) {
    stop_client();
    throw;
  }
  // What libmosquitto acknowledged is admitted before the run ends (nothing taken is dropped).
  stop_client();
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    take(lock);
  }
  offer_all();
  commit_and_release();
  return run;
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
    std::condition_variable acked;
    std::uint64_t acknowledged = 0;
    int connack = -1;
  } counts;
  std::unique_ptr<mosquitto, decltype(&mosquitto_destroy)> mosq(mosquitto_new(nullptr, true, &counts), mosquitto_destroy);
  if (!mosq) throw std::runtime_error("cannot create an MQTT client");
  mosquitto_connect_callback_set(mosq.get(), [](mosquitto*, void* obj, int rc) {
    auto* c = static_cast<Counts*>(obj);
    std::lock_guard<std::mutex> lock(c->mutex);
    c->connack = rc;
    c->acked.notify_one();
  });
  mosquitto_publish_callback_set(mosq.get(), [](mosquitto*, void* obj, int) {
    auto* c = static_cast<Counts*>(obj);
    std::lock_guard<std::mutex> lock(c->mutex);
    ++c->acknowledged;
    c->acked.notify_one();
  });
  if (const int rc = mosquitto_connect(mosq.get(), host.c_str(), port, 30); rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error("cannot connect to the MQTT broker at " + host + ":" + std::to_string(port) + ": " +
                             mosquitto_strerror(rc));
  if (mosquitto_loop_start(mosq.get()) != MOSQ_ERR_SUCCESS) throw std::runtime_error("cannot start the MQTT client");
  // Nothing is published before the broker accepted the session: published earlier, the first
  // thousand or so reports of a 200 000-report fleet never reached a subscriber, though counted
  // as acknowledged (scripts/gate-benchmark's gate then waited for them forever).
  {
    std::unique_lock<std::mutex> lock(counts.mutex);
    if (!counts.acked.wait_for(lock, std::chrono::seconds(30), [&] { return counts.connack >= 0; }) ||
        counts.connack != 0) {
      const int rc = counts.connack;
      lock.unlock();
      mosquitto_loop_stop(mosq.get(), true);
      throw std::runtime_error("the MQTT broker at " + host + ":" + std::to_string(port) + " did not accept the connection" +
                               (rc > 0 ? std::string(": ") + mosquitto_connack_string(rc) : std::string()));
    }
  }
  std::uint64_t sent = 0;
  std::vector<std::uint8_t> report;
  // At most publish_window messages unacknowledged: libmosquitto keeps every message it has
  // not sent yet in memory, under 16-bit message ids that must not repeat among them.
  constexpr std::uint64_t publish_window = 1000;
  while (next_report(report)) {
    {
      std::unique_lock<std::mutex> lock(counts.mutex);
      counts.acked.wait(lock, [&] { return sent - counts.acknowledged < publish_window; });
    }
    const int rc = mosquitto_publish(mosq.get(), nullptr, topic.c_str(), static_cast<int>(report.size()), report.data(), 1, false);
    if (rc != MOSQ_ERR_SUCCESS) throw std::runtime_error(std::string("MQTT publish failed: ") + mosquitto_strerror(rc));
    ++sent;
  }
  {
    std::unique_lock<std::mutex> lock(counts.mutex);
    counts.acked.wait(lock, [&] { return counts.acknowledged >= sent; });
  }
  mosquitto_disconnect(mosq.get());
  mosquitto_loop_stop(mosq.get(), false);
  return sent;
}

}  // namespace tinyldp::gate
