// SPDX-License-Identifier: Apache-2.0
// tinyldp/gate/gate.hpp — the fleet's trust boundary on the collector side: authenticated
// reports in, anonymous shuffled batches out (docs/gate.md).
//
// A report is admitted only if its tag verifies under its device's key (derived from the fleet
// secret), the device is registered and not revoked, it is the device's first report of its
// attribute and epoch, and its counter was never seen (a copy is a replay). A memo generation
// below the one last admitted for the device is refused (state rolled back); one above it is a
// re-key, counted. Admitted reports wait in SQLite (schema version 2: docs/gate.md) in arrival
// order, each with a random 64-bit shuffle key from OpenSSL's CSPRNG; when an (attribute,
// epoch) holds at least `threshold` unreleased reports they are released as one batch: a report
// file (the configured mechanism's header) of the reports without device id and memo
// generation, sorted by shuffle key as it is written — a uniform permutation the analyst cannot
// see. Every verdict is tallied in the same database (at each commit).
//
// Durability (SIGKILL at any point; tests/tools/test_cli_gate.py): reports are admitted in
// transactions with their input's position, so a restarted gate resumes each input where the
// last commit left it and admits nothing twice; a batch is assigned in one transaction, written
// to a temporary file, fsynced, renamed into place and then marked released, and reopening
// completes a batch that was assigned but not marked — rewriting it only if its file is not in
// place, so no report is released twice. SQLite runs in WAL mode with synchronous=FULL.
// Memory: bounded, whatever the fleet and the batch sizes — SQLite's page cache (64 MiB, which
// also bounds the sorter that orders a batch), the registry cache (at most 12 MiB), the
// device-key cache (160 KiB) and a counter per (attribute, epoch) awaiting a batch; see
// registry_cache_runs below. A batch is streamed, never held in memory. Host only.
#ifndef TINYLDP_GATE_GATE_HPP
#define TINYLDP_GATE_GATE_HPP

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/gate/authenticated_report.hpp"

struct sqlite3;

namespace tinyldp::gate {

enum class Verdict : std::uint8_t {
  admitted = 0,
  unauthenticated,     // version 1 and the gate requires tags
  malformed,           // not a well-formed report of the attribute (or no identity fields)
  unknown_attribute,   // another mechanism or parameter digest than the gate's attributes
  unknown_device,      // not in the registry
  revoked_device,      // in the registry, revoked
  forged,              // the tag does not verify
  replayed,            // a counter of the device seen before (a copy)
  duplicate,           // a second report of the device for the attribute and epoch
  generation_rollback, // a memo generation below the device's last admitted one
};
inline constexpr std::size_t verdict_count = 10;
const char* to_string(Verdict v);        // "admitted", "forged", …
const char* explanation(Verdict v);      // one sentence

struct GateOptions {
  std::uint64_t threshold = 1000;      // a batch is released at this many reports, not fewer; the
                                       // database keeps the first run's as a floor (never lowered)
  bool allow_unauthenticated = false;  // admit version-1 reports with a device id and epoch
                                       // field (no tag: anyone may send them), counted apart
};

struct ReleasedBatch {
  std::uint64_t id = 0;
  std::string attribute;
  std::uint32_t epoch = 0;
  std::uint64_t reports = 0;
  std::string path;
};

struct GateCounts {
  std::array<std::uint64_t, verdict_count> verdicts{};  // by Verdict
  std::uint64_t admitted_unauthenticated = 0;  // of the admitted, those without a tag
  std::uint64_t rekeys = 0;                    // memo generations that rose
  std::uint64_t pending = 0;                   // admitted, not yet released
  std::uint64_t released_reports = 0, batches = 0;
  std::uint64_t devices = 0, revoked = 0;
};

// The memory the gate holds beside SQLite's page cache (64 MiB, which also bounds the sorter
// that orders a batch: beyond it, temporary files): the registry cached as runs of consecutive
// ids in one state, at most registry_cache_runs of them (12 B each, 12 MiB: a registry more
// fragmented than that is looked up in the table instead); derived device keys in
// key_cache_slots direct-mapped slots (40 B each, 160 KiB, wiped on exit); 512 shuffle keys;
// and one counter per (attribute, epoch) with reports awaiting a batch.
inline constexpr std::size_t registry_cache_runs = std::size_t{1} << 20;
inline constexpr std::size_t key_cache_slots = 4096;

class Gate {
 public:
  // Opens or creates the database. A new database records the fleet secret's fingerprint and
  // the options; an existing one refuses another fleet's secret. Completes batches a killed
  // gate assigned but did not mark released (in out_dir). Throws std::runtime_error with the
  // reason on any refusal.
  Gate(const std::string& db_path, const FleetSecret& secret, const GateOptions& options, std::string out_dir);
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // Declares an attribute by name and configuration (a new name is recorded; a known one must
  // have the same configuration, else it throws).
  void add_attribute(const std::string& name, const collector::Mechanism& m);
  void register_devices(std::uint32_t first, std::uint32_t last);  // inclusive range
  void revoke_device(std::uint32_t device);

  // Inputs. A source is identified by a digest of its contents; begin_source returns how many
  // of its reports were consumed already (0 for a new one; the count if it was finished).
  std::uint64_t begin_source(std::span<const std::uint8_t, 32> identity, const std::string& name);
  bool source_finished(std::span<const std::uint8_t, 32> identity);
  Verdict offer(std::span<const std::uint8_t> report);
  // Commits what was offered, with the current source's position (reports consumed); finished
  // marks it done. Without a source (MQTT) commits the reports alone.
  void commit(std::uint64_t position = 0, bool finished = false);
  // Releases every (attribute, epoch) holding ≥ threshold unreleased reports (after a commit).
  std::vector<ReleasedBatch> release();

  GateCounts counts() const;
  const GateOptions& options() const { return options_; }

 private:
  struct Attribute;
  struct Statements;
  void exec(const char* sql);
  void begin();
  void finish_pending_batches();
  void write_batch(std::uint64_t batch, const Attribute& a, const std::string& path);
  const Key& device_key(std::uint32_t device);
  std::uint64_t shuffle_key();
  void load_registry();
  Verdict registry_verdict(std::uint32_t device);  // admitted: registered and not revoked
  void flush_tallies();
  std::int64_t registry_changes();  // meta's count of register/revoke transactions
  void count_registry_change();

  // The registry's runs of consecutive ids in one state (registered, or revoked), sorted.
  struct DeviceRun {
    std::uint32_t first, last;
    bool revoked;
  };
  struct KeySlot {
    Key key{};
    std::uint32_t device = 0;
    bool valid = false;
    ~KeySlot();
  };

  sqlite3* db_ = nullptr;
  std::unique_ptr<Statements> st_;
  FleetSecret secret_;
  GateOptions options_;
  std::string out_dir_;
  std::vector<std::unique_ptr<Attribute>> attributes_;
  std::vector<DeviceRun> registry_;
  bool registry_cached_ = false;
  std::int64_t registry_changes_ = 0;
  std::array<KeySlot, key_cache_slots> keys_{};
  // The verdicts, re-keys and unauthenticated admissions since the last commit.
  std::array<std::uint64_t, verdict_count + 2> tallies_{};
  // Per (attribute, epoch), the reports admitted and not yet assigned to a batch.
  std::map<std::pair<std::int64_t, std::uint32_t>, std::uint64_t> unassigned_;
  std::array<std::uint64_t, 512> shuffle_keys_{};
  std::size_t shuffle_used_ = shuffle_keys_.size();
  std::optional<std::array<std::uint8_t, 32>> source_;
  bool in_transaction_ = false;
  bool completing_ = false;  // release() completes assigned batches only
  void crash_point();
  std::uint64_t crash_at_ = 0, steps_ = 0;
};

}  // namespace tinyldp::gate

#endif
