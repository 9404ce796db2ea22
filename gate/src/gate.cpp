// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/gate/gate.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "tinyldp/collector/report_file.hpp"

namespace tinyldp::gate {

namespace {

// Version 2: the reports awaiting release in `pending` (appended in arrival order, sorted by
// their shuffle key only when a batch is written); `admitted` keeps identities and counters.
constexpr int schema_version = 2;
// Tally rows beside the verdicts: admitted reports without a tag, and re-keys.
constexpr int tally_admitted_unauthenticated = 100;
constexpr int tally_rekeys = 101;
// Their places in the gate's in-memory tallies, after the verdicts'.
constexpr std::size_t tally_slot_rekeys = verdict_count;
constexpr std::size_t tally_slot_unauthenticated = verdict_count + 1;

constexpr const char* schema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS attributes(
  attribute INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,
  mechanism INTEGER NOT NULL, digest INTEGER NOT NULL, header BLOB NOT NULL,
  UNIQUE(mechanism, digest));
CREATE TABLE IF NOT EXISTS devices(device INTEGER PRIMARY KEY, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS generations(
  device INTEGER NOT NULL, attribute INTEGER NOT NULL, generation INTEGER NOT NULL,
  PRIMARY KEY(device, attribute)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS admitted(
  device INTEGER NOT NULL, attribute INTEGER NOT NULL, epoch INTEGER NOT NULL, counter INTEGER,
  PRIMARY KEY(device, attribute, epoch)) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS admitted_counter ON admitted(device, counter);
CREATE TABLE IF NOT EXISTS pending(
  attribute INTEGER NOT NULL, epoch INTEGER NOT NULL, shuffle INTEGER NOT NULL, batch INTEGER,
  report BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS batches(
  batch INTEGER PRIMARY KEY, attribute INTEGER NOT NULL, epoch INTEGER NOT NULL,
  reports INTEGER NOT NULL, path TEXT NOT NULL, released INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
  identity BLOB PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL, finished INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tallies(tally INTEGER PRIMARY KEY, count INTEGER NOT NULL);
)sql";

// A prepared statement, reset after each use.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("gate database: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(st_, i);
    return *this;
  }
  Statement& bind(int i, std::span<const std::uint8_t> blob) {
    sqlite3_bind_blob(st_, i, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, const std::string& text) {
    sqlite3_bind_text(st_, i, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Steps once: true if a row is ready; false when done (then resets). Throws on an error.
  bool row() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_CONSTRAINT) throw Constraint{};
    throw std::runtime_error(std::string("gate database: ") + sqlite3_errmsg(db_));
  }
  void run() {
    while (row()) {
    }
  }
  void done() {  // after reading the rows wanted
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
  bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  std::span<const std::uint8_t> blob(int col) const {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(st_, col));
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(st_, col))};
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(st_, col);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  }
  struct Constraint {};

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("gate: cannot fsync " + path + ": " + std::strerror(errno));
  }
  ::close(fd);
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::admitted: return "admitted";
    case Verdict::unauthenticated: return "unauthenticated";
    case Verdict::malformed: return "malformed";
    case Verdict::unknown_attribute: return "unknown_attribute";
    case Verdict::unknown_device: return "unknown_device";
    case Verdict::revoked_device: return "revoked_device";
    case Verdict::forged: return "forged";
    case Verdict::replayed: return "replayed";
    case Verdict::duplicate: return "duplicate";
    case Verdict::generation_rollback: return "generation_rollback";
  }
  return "unknown";
}

const char* explanation(Verdict v) {
  switch (v) {
    case Verdict::admitted: return "verified and kept for a batch";
    case Verdict::unauthenticated: return "no tag (format version 1), and the gate requires one";
    case Verdict::malformed: return "not a well-formed report of its attribute, or without device id and epoch";
    case Verdict::unknown_attribute: return "another mechanism or configuration than the gate's attributes";
    case Verdict::unknown_device: return "a device id the registry does not hold";
    case Verdict::revoked_device: return "a revoked device";
    case Verdict::forged: return "the tag does not verify under the device's key";
    case Verdict::replayed: return "a report counter of the device seen before: a copy";
    case Verdict::duplicate: return "the device's second report for the attribute and epoch";
    case Verdict::generation_rollback: return "a memo generation below the device's last one (its state was reset)";
  }
  return "";
}

struct Gate::Attribute {
  std::int64_t id;
  std::string name;
  collector::Mechanism mechanism;
};

struct Gate::Statements {
  explicit Statements(sqlite3* db)
      : device(db, "SELECT revoked FROM devices WHERE device = ?"),
        counter_seen(db, "SELECT 1 FROM admitted WHERE device = ? AND counter = ?"),
        insert(db, "INSERT INTO admitted(device, attribute, epoch, counter) VALUES (?, ?, ?, ?)"),
        unadmit(db, "DELETE FROM admitted WHERE device = ? AND attribute = ? AND epoch = ?"),
        pend(db, "INSERT INTO pending(attribute, epoch, shuffle, batch, report) VALUES (?, ?, ?, NULL, ?)"),
        generation(db, "SELECT generation FROM generations WHERE device = ? AND attribute = ?"),
        set_generation(db, "INSERT OR REPLACE INTO generations(device, attribute, generation) VALUES (?, ?, ?)"),
        tally(db, "INSERT INTO tallies(tally, count) VALUES (?, ?) ON CONFLICT(tally) DO UPDATE SET count = count + excluded.count"),
        source_position(db, "UPDATE sources SET position = ?, finished = ? WHERE identity = ?"),
        registry_changes(db, "SELECT value FROM meta WHERE key = ?") {}
  Statement device, counter_seen, insert, unadmit, pend, generation, set_generation, tally, source_position, registry_changes;
};

Gate::Gate(const std::string& db_path, const FleetSecret& secret, const GateOptions& options, std::string out_dir)
    : secret_(secret), options_(options), out_dir_(std::move(out_dir)) {
  if (options_.threshold == 0) throw std::runtime_error("gate: the batch threshold must be at least 1");
  // Tests only: TINYLDP_GATE_CRASH_AT=N kills the process with SIGKILL at its Nth crash point
  // (before and after each commit, after a batch's file is written and after it is renamed).
  if (const char* at = std::getenv("TINYLDP_GATE_CRASH_AT")) crash_at_ = std::strtoull(at, nullptr, 10);
  if (sqlite3_open_v2(db_path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("gate: cannot open " + db_path + ": " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    // 64 MiB of page cache: the admitted set's three B-trees take random inserts (the shuffle
    // key), which SQLite's default 2 MiB turns into reads and writes of the file.
    exec("PRAGMA cache_size=-65536");
    // Temporary files (the sorter that orders a batch by its shuffle keys) on disk: a batch of
    // any size is sorted within the page cache's memory.
    exec("PRAGMA temp_store=FILE");
    exec("BEGIN IMMEDIATE");
    exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB NOT NULL)");
    const auto fp = secret_.fingerprint();
    Statement get(db_, "SELECT value FROM meta WHERE key = ?");
    get.bind(1, std::string("fleet"));
    if (get.row()) {
      const auto stored = get.blob(0);
      const bool same = stored.size() == fp.size() && std::equal(fp.begin(), fp.end(), stored.begin());
      get.done();
      if (!same) throw std::runtime_error("gate: " + db_path + " belongs to another fleet (its secret's fingerprint differs)");
      // Checked before any table is created: an older database is left as it is.
      get.bind(1, std::string("schema"));
      const std::int64_t version = get.row() ? get.integer(0) : 0;
      get.done();
      if (version == 1)
        throw std::runtime_error("gate: " + db_path +
                                 " has schema version 1 (an earlier gate's: pending reports kept in `admitted`); this gate "
                                 "reads version " + std::to_string(schema_version) +
                                 ": release its batches with the gate that made it, then start a new database");
      if (version != schema_version)
        throw std::runtime_error("gate: " + db_path + ": unknown schema version " + std::to_string(version) +
                                 " (this gate reads version " + std::to_string(schema_version) + ")");
      exec(schema);
      // The batch threshold is a privacy floor: a later run may raise it, never lower it.
      get.bind(1, std::string("threshold"));
      const std::uint64_t floor = get.row() ? static_cast<std::uint64_t>(get.integer(0)) : 0;
      get.done();
      if (options_.threshold < floor)
        throw std::runtime_error("gate: " + db_path + " releases batches of at least " + std::to_string(floor) +
                                 " reports; a threshold of " + std::to_string(options_.threshold) +
                                 " would release smaller ones");
    } else {
      exec(schema);
      Statement put(db_, "INSERT INTO meta(key, value) VALUES (?, ?)");
      put.bind(1, std::string("fleet")).bind(2, std::span<const std::uint8_t>(fp)).run();
      put.bind(1, std::string("schema")).bind(2, std::int64_t{schema_version}).run();
      put.bind(1, std::string("threshold")).bind(2, static_cast<std::int64_t>(options_.threshold)).run();
    }
    exec("COMMIT");
    st_ = std::make_unique<Statements>(db_);
    load_registry();
    Statement groups(db_, "SELECT attribute, epoch, COUNT(*) FROM pending WHERE batch IS NULL GROUP BY attribute, epoch");
    while (groups.row())
      unassigned_[{groups.integer(0), static_cast<std::uint32_t>(groups.integer(1))}] =
          static_cast<std::uint64_t>(groups.integer(2));
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Gate::~Gate() {
  if (db_ == nullptr) return;
  if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  st_.reset();
  sqlite3_close_v2(db_);
}

void Gate::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("gate database: " + why);
  }
}

void Gate::begin() {
  if (in_transaction_) return;
  exec("BEGIN IMMEDIATE");
  in_transaction_ = true;
  // Another process (tinyldp gate --register, --revoke) changed the registry: read it again, so
  // that a revocation holds from the next transaction of a running gate on.
  if (st_ && registry_changes() != registry_changes_) load_registry();
}

std::int64_t Gate::registry_changes() {
  st_->registry_changes.bind(1, std::string("registry"));
  if (!st_->registry_changes.row()) return 0;
  const std::int64_t n = st_->registry_changes.integer(0);
  st_->registry_changes.done();
  return n;
}

void Gate::count_registry_change() {
  exec("INSERT INTO meta(key, value) VALUES ('registry', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1");
}

void Gate::add_attribute(const std::string& name, const collector::Mechanism& m) {
  // The name becomes part of batch file names: letters, digits, '_', '-' and '.', not first.
  const bool plain = !name.empty() && name.size() <= 64 && name[0] != '.' && name[0] != '-' &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
                     });
  if (!plain)
    throw std::runtime_error("gate: attribute name '" + name +
                             "': use 1-64 letters, digits, '_', '-' or '.' (it names the batch files), not "
                             "starting with '.' or '-'");
  if (m.record()) throw std::runtime_error("gate: record mechanisms (several attributes per report) are not gated yet");
  const std::vector<std::uint8_t> header = collector::report_file_header(m);
  begin();
  Statement find(db_, "SELECT attribute, header FROM attributes WHERE name = ?");
  find.bind(1, name);
  std::int64_t id = 0;
  if (find.row()) {
    id = find.integer(0);
    const auto stored = find.blob(1);
    const bool same = stored.size() == header.size() && std::equal(header.begin(), header.end(), stored.begin());
    find.done();
    if (!same) throw std::runtime_error("gate: attribute '" + name + "' is configured otherwise in this database");
  } else {
    Statement add(db_, "INSERT INTO attributes(name, mechanism, digest, header) VALUES (?, ?, ?, ?)");
    try {
      add.bind(1, name)
          .bind(2, std::int64_t{static_cast<std::uint8_t>(m.description().id)})
          .bind(3, std::int64_t{m.description().digest})
          .bind(4, std::span<const std::uint8_t>(header))
          .run();
    } catch (const Statement::Constraint&) {
      throw std::runtime_error("gate: another attribute has this configuration already (its reports could not be told apart)");
    }
    id = sqlite3_last_insert_rowid(db_);
  }
  commit();
  for (const auto& a : attributes_)
    if (a->id == id) return;
  attributes_.push_back(std::make_unique<Attribute>(Attribute{id, name, m}));
  finish_pending_batches();
}

void Gate::register_devices(std::uint32_t first, std::uint32_t last) {
  if (last < first) throw std::runtime_error("gate: an empty device range");
  begin();
  Statement add(db_, "INSERT OR IGNORE INTO devices(device, revoked) VALUES (?, 0)");
  for (std::uint64_t d = first; d <= last; ++d) add.bind(1, static_cast<std::int64_t>(d)).run();
  count_registry_change();
  commit();
  load_registry();
}

void Gate::load_registry() {
  // The registry as runs of consecutive ids of one state, from the table (the truth): at most
  // registry_cache_runs of them, else the table answers every lookup.
  registry_.clear();
  registry_cached_ = true;
  registry_changes_ = registry_changes();
  Statement all(db_, "SELECT device, revoked FROM devices ORDER BY device");
  while (all.row()) {
    const auto device = static_cast<std::uint32_t>(all.integer(0));
    const bool revoked = all.integer(1) != 0;
    if (!registry_.empty() && registry_.back().last + 1 == device && registry_.back().revoked == revoked) {
      registry_.back().last = device;
      continue;
    }
    if (registry_.size() == registry_cache_runs) {
      all.done();
      registry_.clear();
      registry_.shrink_to_fit();
      registry_cached_ = false;
      return;
    }
    registry_.push_back({device, device, revoked});
  }
}

Verdict Gate::registry_verdict(std::uint32_t device) {
  if (registry_cached_) {
    const auto it = std::upper_bound(registry_.begin(), registry_.end(), device,
                                     [](std::uint32_t d, const DeviceRun& r) { return d < r.first; });
    if (it == registry_.begin() || std::prev(it)->last < device) return Verdict::unknown_device;
    return std::prev(it)->revoked ? Verdict::revoked_device : Verdict::admitted;
  }
  st_->device.bind(1, std::int64_t{device});
  if (!st_->device.row()) return Verdict::unknown_device;
  const bool revoked = st_->device.integer(0) != 0;
  st_->device.done();
  return revoked ? Verdict::revoked_device : Verdict::admitted;
}

void Gate::revoke_device(std::uint32_t device) {
  begin();
  Statement revoke(db_, "UPDATE devices SET revoked = 1 WHERE device = ?");
  revoke.bind(1, std::int64_t{device}).run();
  if (sqlite3_changes(db_) == 0) throw std::runtime_error("gate: device " + std::to_string(device) + " is not registered");
  count_registry_change();
  commit();
  load_registry();
}

std::uint64_t Gate::begin_source(std::span<const std::uint8_t, 32> identity, const std::string& name) {
  begin();
  Statement find(db_, "SELECT position FROM sources WHERE identity = ?");
  find.bind(1, std::span<const std::uint8_t>(identity));
  std::uint64_t position = 0;
  if (find.row()) {
    position = static_cast<std::uint64_t>(find.integer(0));
    find.done();
  } else {
    Statement add(db_, "INSERT INTO sources(identity, name, position, finished) VALUES (?, ?, 0, 0)");
    add.bind(1, std::span<const std::uint8_t>(identity)).bind(2, name).run();
  }
  commit();
  source_.emplace();
  std::copy(identity.begin(), identity.end(), source_->begin());
  return position;
}

bool Gate::source_finished(std::span<const std::uint8_t, 32> identity) {
  Statement find(db_, "SELECT finished FROM sources WHERE identity = ?");
  find.bind(1, std::span<const std::uint8_t>(identity));
  const bool finished = find.row() && find.integer(0) != 0;
  find.done();
  return finished;
}

std::uint64_t Gate::shuffle_key() {
  // Drawn a block at a time: one CSPRNG call per report was a tenth of the admission's time.
  if (shuffle_used_ == shuffle_keys_.size()) {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(shuffle_keys_.data()),
                   static_cast<int>(shuffle_keys_.size() * sizeof(std::uint64_t))) != 1)
      throw std::runtime_error("gate: no randomness for the shuffle (OpenSSL's RAND_bytes failed)");
    shuffle_used_ = 0;
  }
  return shuffle_keys_[shuffle_used_++];
}

Gate::KeySlot::~KeySlot() { OPENSSL_cleanse(key.data(), key.size()); }

const Key& Gate::device_key(std::uint32_t device) {
  // Direct-mapped: a fixed number of slots, a device's key in the slot of its id's low bits.
  KeySlot& slot = keys_[device % keys_.size()];
  if (!slot.valid || slot.device != device) {
    slot.key = secret_.device_key(device);
    slot.device = device;
    slot.valid = true;
  }
  return slot.key;
}

Verdict Gate::offer(std::span<const std::uint8_t> bytes) {
  begin();
  bool unauthenticated_admission = false;
  const auto verdict = [&]() -> Verdict {
    if (bytes.size() < wire::fixed_header_bytes) return Verdict::malformed;
    const auto found = std::find_if(attributes_.begin(), attributes_.end(), [&](const auto& a) {
      const wire::Description& d = a->mechanism.description();
      return bytes[1] == static_cast<std::uint8_t>(d.id) && get_le<std::uint32_t>(&bytes[2]) == d.digest;
    });
    if (found == attributes_.end()) return Verdict::unknown_attribute;
    const Attribute* attribute = found->get();
    const wire::Description& what = attribute->mechanism.description();
    const AuthenticatedReport r = split_authenticated(bytes, what);
    const bool authenticated = r.ok();
    if (r.error == AuthError::unauthenticated) {
      if (!options_.allow_unauthenticated) return Verdict::unauthenticated;
    } else if (!r.ok()) {
      return Verdict::malformed;
    }
    if (attribute->mechanism.check_payload(r.parsed.payload) != collector::ParseError::none) return Verdict::malformed;
    const std::uint32_t device = r.parsed.header.device_id;
    const std::uint32_t epoch = r.parsed.header.epoch;
    if (const Verdict v = registry_verdict(device); v != Verdict::admitted) return v;
    if (authenticated && !tag_verifies(bytes, device_key(device))) return Verdict::forged;
    const auto counter_seen = [&] {
      st_->counter_seen.bind(1, std::int64_t{device}).bind(2, std::int64_t{r.counter});
      const bool seen = st_->counter_seen.row();
      if (seen) st_->counter_seen.done();
      return seen;
    };
    const bool has_generation = (r.parsed.header.fields & wire::field_memo_generation) != 0;
    // The last generation admitted for (device, attribute): below it a rollback, above it a re-key.
    const auto generation_below = [&](bool& rekey) {
      rekey = false;
      if (!has_generation) return false;
      st_->generation.bind(1, std::int64_t{device}).bind(2, attribute->id);
      if (!st_->generation.row()) return false;
      const auto last = static_cast<std::uint32_t>(st_->generation.integer(0));
      st_->generation.done();
      rekey = r.parsed.header.memo_generation > last;
      return r.parsed.header.memo_generation < last;
    };
    // One insert answers both uniqueness checks (the key, the device's counter); the verdicts
    // keep their order — replayed, then generation_rollback, then duplicate — by asking again
    // only when it is refused, or undoing it when the generation went back.
    bool rekey = false;
    try {
      st_->insert.bind(1, std::int64_t{device}).bind(2, attribute->id).bind(3, std::int64_t{epoch});
      if (authenticated) st_->insert.bind(4, std::int64_t{r.counter});
      else st_->insert.bind_null(4);
      st_->insert.run();
    } catch (const Statement::Constraint&) {
      if (authenticated && counter_seen()) return Verdict::replayed;
      return generation_below(rekey) ? Verdict::generation_rollback : Verdict::duplicate;
    }
    if (generation_below(rekey)) {
      st_->unadmit.bind(1, std::int64_t{device}).bind(2, attribute->id).bind(3, std::int64_t{epoch}).run();
      return Verdict::generation_rollback;
    }
    const std::vector<std::uint8_t> anonymous = anonymous_report(r.parsed, what);
    st_->pend.bind(1, attribute->id)
        .bind(2, std::int64_t{epoch})
        .bind(3, static_cast<std::int64_t>(shuffle_key()))
        .bind(4, std::span<const std::uint8_t>(anonymous))
        .run();
    ++unassigned_[{attribute->id, epoch}];
    if (has_generation) {
      st_->set_generation.bind(1, std::int64_t{device})
          .bind(2, attribute->id)
          .bind(3, std::int64_t{r.parsed.header.memo_generation})
          .run();
      if (rekey) ++tallies_[tally_slot_rekeys];
    }
    unauthenticated_admission = !authenticated;
    return Verdict::admitted;
  }();
  ++tallies_[static_cast<std::size_t>(verdict)];
  if (unauthenticated_admission) ++tallies_[tally_slot_unauthenticated];
  return verdict;
}

void Gate::flush_tallies() {
  // The verdicts since the last commit, written in its transaction.
  for (std::size_t i = 0; i < tallies_.size(); ++i) {
    if (tallies_[i] == 0) continue;
    const std::int64_t tally = i == tally_slot_rekeys              ? tally_rekeys
                               : i == tally_slot_unauthenticated ? tally_admitted_unauthenticated
                                                                 : static_cast<std::int64_t>(i);
    st_->tally.bind(1, tally).bind(2, static_cast<std::int64_t>(tallies_[i])).run();
    tallies_[i] = 0;
  }
}

void Gate::crash_point() {
  if (crash_at_ != 0 && ++steps_ == crash_at_) std::raise(SIGKILL);
}

void Gate::commit(std::uint64_t position, bool finished) {
  begin();
  if (source_) {
    st_->source_position.bind(1, static_cast<std::int64_t>(position))
        .bind(2, std::int64_t{finished ? 1 : 0})
        .bind(3, std::span<const std::uint8_t>(*source_))
        .run();
    if (finished) source_.reset();
  }
  flush_tallies();
  crash_point();
  exec("COMMIT");
  in_transaction_ = false;
  crash_point();
}

std::vector<ReleasedBatch> Gate::release() {
  if (in_transaction_) commit();
  begin();
  struct Group {
    std::int64_t attribute;
    std::uint32_t epoch;
    std::uint64_t reports;
  };
  std::vector<Group> ready;
  if (!completing_)
    for (const auto& [group, reports] : unassigned_)
      if (reports >= options_.threshold) ready.push_back({group.first, group.second, reports});
  // Only the attributes this gate was given can be written (their mechanism is needed).
  std::erase_if(ready, [&](const Group& g) {
    return std::none_of(attributes_.begin(), attributes_.end(), [&](const auto& a) { return a->id == g.attribute; });
  });
  Statement next_id(db_, "SELECT COALESCE(MAX(batch), 0) + 1 FROM batches");
  Statement add(db_, "INSERT INTO batches(batch, attribute, epoch, reports, path, released) VALUES (?, ?, ?, ?, ?, 0)");
  Statement assign(db_, "UPDATE pending SET batch = ? WHERE batch IS NULL AND attribute = ? AND epoch = ?");
  // The pending reports counted in the database (the truth, should another gate share it): a
  // batch is never cut below the threshold.
  Statement recount(db_, "SELECT COUNT(*) FROM pending WHERE batch IS NULL AND attribute = ? AND epoch = ?");
  for (Group& g : ready) {
    recount.bind(1, g.attribute).bind(2, std::int64_t{g.epoch}).row();
    g.reports = static_cast<std::uint64_t>(recount.integer(0));
    recount.done();
    unassigned_[{g.attribute, g.epoch}] = g.reports;
  }
  std::erase_if(ready, [&](const Group& g) { return g.reports < options_.threshold; });
  for (const Group& g : ready) {
    next_id.row();
    const std::int64_t id = next_id.integer(0);
    next_id.done();
    const Attribute& a = **std::find_if(attributes_.begin(), attributes_.end(),
                                        [&](const auto& x) { return x->id == g.attribute; });
    const std::string path = (std::filesystem::path(out_dir_) /
                              (a.name + "-epoch" + std::to_string(g.epoch) + "-batch" + std::to_string(id) + ".reports"))
                                 .string();
    add.bind(1, id).bind(2, g.attribute).bind(3, std::int64_t{g.epoch}).bind(4, static_cast<std::int64_t>(g.reports))
        .bind(5, path)
        .run();
    assign.bind(1, id).bind(2, g.attribute).bind(3, std::int64_t{g.epoch}).run();
    if (static_cast<std::uint64_t>(sqlite3_changes(db_)) != g.reports)
      throw std::logic_error("gate: a batch's count differs from its pending reports");
  }
  commit();
  for (const Group& g : ready) unassigned_.erase({g.attribute, g.epoch});
  std::vector<ReleasedBatch> out;
  Statement pending(db_, "SELECT batch, attribute, epoch, reports, path FROM batches WHERE released = 0 ORDER BY batch");
  struct Pending {
    ReleasedBatch batch;
    std::int64_t attribute;
  };
  std::vector<Pending> todo;
  while (pending.row())
    todo.push_back({{static_cast<std::uint64_t>(pending.integer(0)), "", static_cast<std::uint32_t>(pending.integer(2)),
                     static_cast<std::uint64_t>(pending.integer(3)), pending.text(4)},
                    pending.integer(1)});
  for (Pending& p : todo) {
    const auto it = std::find_if(attributes_.begin(), attributes_.end(), [&](const auto& x) { return x->id == p.attribute; });
    if (it == attributes_.end()) continue;  // another run's attribute: completed when it is given
    p.batch.attribute = (*it)->name;
    write_batch(p.batch.id, **it, p.batch.path);
    out.push_back(p.batch);
  }
  return out;
}

void Gate::finish_pending_batches() {
  // A batch assigned by a gate that was killed: release() completes it (rewriting its file only
  // if the rename had not happened).
  Statement count(db_, "SELECT COUNT(*) FROM batches WHERE released = 0");
  count.row();
  const bool any = count.integer(0) > 0;
  count.done();
  if (any) {
    completing_ = true;  // complete what was assigned; assign nothing new
    try {
      release();
    } catch (...) {
      completing_ = false;
      throw;
    }
    completing_ = false;
  }
}

void Gate::write_batch(std::uint64_t batch, const Attribute& a, const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) {
    const std::string partial = path + ".partial";
    {
      collector::ReportFileWriter writer(partial, a.mechanism);
      if (!writer.ok()) throw std::runtime_error("gate: cannot write " + partial + ": " + std::strerror(errno));
      // The batch's reports in the order of their keys from the CSPRNG: SQLite's sorter, in
      // the page cache's memory and temporary files beyond it.
      Statement reports(db_, "SELECT report FROM pending WHERE batch = ? ORDER BY shuffle");
      reports.bind(1, static_cast<std::int64_t>(batch));
      while (reports.row()) writer.write(reports.blob(0));
      if (!writer.close()) throw std::runtime_error("gate: cannot write " + partial + ": " + std::strerror(errno));
    }
    crash_point();
    fsync_path(partial, false);
    if (std::rename(partial.c_str(), path.c_str()) != 0)
      throw std::runtime_error("gate: cannot rename " + partial + ": " + std::strerror(errno));
    fsync_path(fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path().string(), true);
    crash_point();
  }
  // The reports' bytes are no longer needed (the admitted rows stay: they refuse replays).
  begin();
  Statement mark(db_, "UPDATE batches SET released = 1 WHERE batch = ?");
  mark.bind(1, static_cast<std::int64_t>(batch)).run();
  Statement clear(db_, "DELETE FROM pending WHERE batch = ?");
  clear.bind(1, static_cast<std::int64_t>(batch)).run();
  commit();
}

GateCounts Gate::counts() const {
  GateCounts c;
  const auto one = [&](const char* sql) {
    Statement s(db_, sql);
    const std::uint64_t v = s.row() ? static_cast<std::uint64_t>(s.integer(0)) : 0;
    s.done();
    return v;
  };
  Statement tallies(db_, "SELECT tally, count FROM tallies");
  while (tallies.row()) {
    const std::int64_t t = tallies.integer(0);
    const auto n = static_cast<std::uint64_t>(tallies.integer(1));
    if (t >= 0 && t < static_cast<std::int64_t>(verdict_count)) c.verdicts[static_cast<std::size_t>(t)] = n;
    else if (t == tally_admitted_unauthenticated) c.admitted_unauthenticated = n;
    else if (t == tally_rekeys) c.rekeys = n;
  }
  // Not yet committed: counted as they will be.
  for (std::size_t i = 0; i < verdict_count; ++i) c.verdicts[i] += tallies_[i];
  c.rekeys += tallies_[tally_slot_rekeys];
  c.admitted_unauthenticated += tallies_[tally_slot_unauthenticated];
  c.pending = one("SELECT COUNT(*) FROM pending WHERE batch IS NULL");
  c.released_reports = one("SELECT COALESCE(SUM(reports), 0) FROM batches WHERE released = 1");
  c.batches = one("SELECT COUNT(*) FROM batches WHERE released = 1");
  c.devices = one("SELECT COUNT(*) FROM devices");
  c.revoked = one("SELECT COUNT(*) FROM devices WHERE revoked = 1");
  return c;
}

}  // namespace tinyldp::gate
