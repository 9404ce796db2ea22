// SPDX-License-Identifier: Apache-2.0
// tinyldp/privacy_ledger.hpp — the device's privacy budget, kept in a storage Record: how much
// ε it has spent in the current epoch and over its life, and a cap it will not exceed.
//
// Accounting is basic composition. A one-shot report (any frequency oracle) costs its ε. A
// memoized report (two_stage_rr.hpp) of a value costs that mechanism's ε∞ the first time the
// value is reported — every later report of it is post-processing of the same memo — and
// nothing while the value stays the same. The ledger remembers, per attribute, a keyed tag
// of the last value reported (MemoKey::value_tag: a PRF output, not the value), so a value
// that changes and comes back is charged again: the ledger's total is at least distinct
// values × ε∞, which bounds what all reports reveal. A new memo key generation (re-keying)
// forgets the tags: every memo is new.
//
// Epochs are a monotonic counter that only moves forward (roll_epoch: by one; advance_epoch:
// to a later epoch in one write, however far); there is no way to move it back, so a clock
// that is reset cannot refill the budget. The per-epoch cap bounds what an epoch may spend;
// the lifetime total never decreases. The ledger also keeps the memo key generation of its
// last memoized charge and refuses a charge under an older one (stale_generation): a key
// provisioned again after a loss must take a later generation (memo_key.hpp), which the
// collector then sees.
//
// The order that makes it safe: charge_memo() checks that the report would be made (the key
// provisioned, the mechanism configured, the value in its domain) *before* it charges — a
// report that would be refused costs nothing —; a charge makes the new totals durable *before*
// it answers ok, and the caller privatizes and sends only after ok. A report that would
// exceed the cap is refused (budget_exhausted) and nothing is written; a storage failure
// (power cut included) answers storage_failed and no report may be sent.
//
// What storage damage can do (tests/core/test_privacy_ledger, every byte of both slots
// corrupted or erased): nothing silent. open() never creates a ledger: a record with no
// readable ledger (blank, erased, corrupt in both slots) is not_provisioned and the device
// reports nothing until the explicit provisioning step, provision(epoch, generation, spent,
// lifetime) — at the factory zeros; after a loss the fleet registry's epoch and generation,
// with the current epoch counted as spent (spent = cap). Every write goes to both slots
// (Record::write_both), so at rest both hold the last acknowledged totals: damage confined to
// one slot reads those totals from the other, never an older charge. After a power cut the
// ledger holds the totals before or after the interrupted charge, never less than any total
// that was acknowledged (10^4 random cut points).
// Cost: RAM sizeof(PrivacyLedger<D, A>) = 56 + 8·A bytes (test_context_sizes) plus the Record;
// a charge that changes the totals is one Record::write_both (two slot erases, 2 × (28 + 8·A)
// bytes programmed), and so is moving forward any number of epochs; a repeated memoized value
// costs no write. No heap, no floating point.
#ifndef TINYLDP_PRIVACY_LEDGER_HPP
#define TINYLDP_PRIVACY_LEDGER_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/endian.hpp"
#include "tinyldp/epsilon.hpp"
#include "tinyldp/status.hpp"
#include "tinyldp/storage.hpp"

namespace tinyldp {

enum class [[nodiscard]] LedgerResult : uint8_t {
  ok = 0,
  budget_exhausted,  // the charge would exceed the epoch's cap: nothing spent, send nothing
  storage_failed,    // the ledger could not be read or made durable: send nothing
  not_open,          // open() has not succeeded
  bad_attribute,     // attribute index ≥ the ledger's attribute slots
  not_provisioned,      // the record holds no readable ledger (blank, erased, corrupt): provision()
  already_provisioned,  // provision() refused: the record holds a readable ledger
  bad_report,           // charge_memo: the mechanism would refuse the report (not configured,
                        // value out of its domain): nothing charged
  key_not_provisioned,  // charge_memo: the memo key is not provisioned: nothing charged
  stale_generation,     // a memo generation older than the ledger's: nothing charged
  bad_epoch,            // roll_epoch past the last epoch (2^32 − 1)
};

constexpr const char* to_string(LedgerResult r) {
  switch (r) {
    case LedgerResult::ok: return "ok";
    case LedgerResult::budget_exhausted: return "privacy budget of this epoch exhausted";
    case LedgerResult::storage_failed: return "privacy ledger storage failed";
    case LedgerResult::not_open: return "privacy ledger not open";
    case LedgerResult::bad_attribute: return "attribute outside the ledger's slots";
    case LedgerResult::not_provisioned: return "privacy ledger not provisioned (blank, erased or corrupt)";
    case LedgerResult::already_provisioned: return "privacy ledger already provisioned";
    case LedgerResult::bad_report: return "the report would be refused (configuration or value): nothing charged";
    case LedgerResult::key_not_provisioned: return "memo key not provisioned: nothing charged";
    case LedgerResult::stale_generation: return "memo key generation older than the ledger's";
    case LedgerResult::bad_epoch: return "no epoch after the last one";
  }
  return "unknown ledger result";
}

template <StorageDevice Device, uint32_t Attributes = 1>
class PrivacyLedger {
  static_assert(Attributes >= 1 && Attributes <= 64, "1 … 64 attribute slots");

 public:
  // Everything the record holds (little-endian): epoch u32, memo generation u32, spent u64,
  // lifetime u64, then one u64 tag per attribute (0: nothing memoized yet), and a u32 count
  // of charges (for the power-cut tests and audits).
  static constexpr size_t record_bytes = 4 + 4 + 8 + 8 + 4 + 8 * size_t{Attributes};

  // `cap`: the most ε one epoch may spend.
  PrivacyLedger(Record<Device>& record, Epsilon cap) : record_(&record), cap_(cap) {}
  // No record (nullptr: the C API's ledger given none): open() refuses, storage_failed.
  PrivacyLedger(Record<Device>* record, Epsilon cap) : record_(record), cap_(cap) {}

  // Loads the totals. Never creates them: a record without a readable ledger is
  // not_provisioned (provision() is the explicit step); one that cannot be read, or holds
  // something that is not a ledger of this size, is storage_failed.
  LedgerResult open() {
    open_ = false;
    state_ = State{};
    if (record_ == nullptr) return LedgerResult::storage_failed;  // all-zero C context: no record
    uint8_t bytes[record_bytes];
    size_t length = 0;
    const StorageResult r = record_->read(bytes, sizeof bytes, &length);
    if (r == StorageResult::not_found) return LedgerResult::not_provisioned;
    if (r != StorageResult::ok || length != record_bytes) return LedgerResult::storage_failed;
    decode(bytes, state_);
    open_ = true;
    return LedgerResult::ok;
  }

  // The explicit provisioning step, only where open() answers not_provisioned: at the factory
  // provision(0, 0, Epsilon{0}, Epsilon{0}); after the record was lost, the epoch and memo
  // generation the fleet registry last saw from the device, spent = cap() (the interrupted
  // epoch counts as spent) and its lifetime as the registry knows it. Durable in both slots
  // before it answers ok; the ledger is then open.
  LedgerResult provision(uint32_t epoch, uint32_t generation, Epsilon spent, Epsilon lifetime) {
    const LedgerResult r = open();
    if (r == LedgerResult::ok) {
      open_ = false;
      state_ = State{};
      return LedgerResult::already_provisioned;
    }
    if (r != LedgerResult::not_provisioned) return r;
    State fresh{};
    fresh.epoch = epoch;
    fresh.generation = generation;
    fresh.spent = spent.q32;
    fresh.lifetime = lifetime.q32 > spent.q32 ? lifetime.q32 : spent.q32;
    if (!store(fresh)) return LedgerResult::storage_failed;
    open_ = true;
    return LedgerResult::ok;
  }

  // Spends `cost` in the current epoch (a one-shot report's ε), durably, or refuses.
  LedgerResult charge(Epsilon cost) {
    if (!open_) return LedgerResult::not_open;
    State next = state_;
    if (!add(next, cost)) return LedgerResult::budget_exhausted;
    ++next.charges;
    return store(next) ? LedgerResult::ok : LedgerResult::storage_failed;
  }

  // A memoized report of the value with keyed tag `tag` (MemoKey::value_tag) for `attribute`,
  // under memo key `generation`: free if it is the value last charged for the attribute under
  // this generation, else ε∞ (`epsilon_infinity`).
  LedgerResult charge_memoized(uint32_t attribute, uint64_t tag, uint32_t generation,
                               Epsilon epsilon_infinity) {
    if (!open_) return LedgerResult::not_open;
    if (attribute >= Attributes) return LedgerResult::bad_attribute;
    if (generation < state_.generation) return LedgerResult::stale_generation;
    State next = state_;
    if (next.generation != generation) {  // a new key: every memo is new
      next.generation = generation;
      for (uint64_t& t : next.tags) t = 0;
    }
    const uint64_t stored_tag = tag | 1u;  // never 0 ("nothing memoized")
    if (next.generation == state_.generation && next.tags[attribute] == stored_tag)
      return LedgerResult::ok;  // the same memo as last time: post-processing, no cost
    if (!add(next, epsilon_infinity)) return LedgerResult::budget_exhausted;
    next.tags[attribute] = stored_tag;
    ++next.charges;
    return store(next) ? LedgerResult::ok : LedgerResult::storage_failed;
  }

  // A memoized report of `value` by `mechanism` under `key`, in slot `attribute`: checked
  // first — the key provisioned (else key_not_provisioned), the mechanism configured and the
  // value in its domain (mechanism.accepts(value), else bad_report) — and only then charged as
  // charge_memoized(attribute, the key's tag of the value, the key's generation, the
  // mechanism's ε∞). A refused report costs nothing. (Whether the value is in the domain is
  // made public by the refusal, as privatize's status makes it: it may decide this branch.)
  template <class Mechanism, class Key>
  LedgerResult charge_memo(uint32_t attribute, const Mechanism& mechanism, const Key& key,
                           uint32_t value) {
    if (!open_) return LedgerResult::not_open;
    if (!key.provisioned()) return LedgerResult::key_not_provisioned;
    if (!mechanism.accepts(value)) return LedgerResult::bad_report;
    return charge_memoized(attribute, key.memo_value_tag(mechanism.memo_attribute_word(), value),
                           key.generation(), mechanism.epsilon_infinity());
  }

  // Starts the next epoch: its spending starts at zero. Durable before it answers ok.
  LedgerResult roll_epoch() {
    if (!open_) return LedgerResult::not_open;
    if (state_.epoch == ~uint32_t{0}) return LedgerResult::bad_epoch;
    return advance_epoch(state_.epoch + 1u);
  }

  // Moves forward to `epoch` (its spending starts at zero) in one write, however many epochs
  // that skips; an epoch that is not later than the current one changes nothing (ok, no write).
  LedgerResult advance_epoch(uint32_t epoch) {
    if (!open_) return LedgerResult::not_open;
    if (epoch <= state_.epoch) return LedgerResult::ok;
    State next = state_;
    next.epoch = epoch;
    next.spent = 0;
    return store(next) ? LedgerResult::ok : LedgerResult::storage_failed;
  }

  bool is_open() const { return open_; }
  uint32_t epoch() const { return state_.epoch; }
  // The memo key generation of the last memoized charge (or the provisioned one).
  uint32_t generation() const { return state_.generation; }
  Epsilon cap() const { return cap_; }
  Epsilon spent() const { return Epsilon{state_.spent}; }
  Epsilon remaining() const { return Epsilon{cap_.q32 > state_.spent ? cap_.q32 - state_.spent : 0}; }
  Epsilon lifetime() const { return Epsilon{state_.lifetime}; }
  uint32_t charges() const { return state_.charges; }

 private:
  struct State {
    uint32_t epoch = 0;
    uint32_t generation = 0;
    uint64_t spent = 0;     // ε·2^32 in this epoch
    uint64_t lifetime = 0;  // ε·2^32 over the device's life (saturating)
    uint32_t charges = 0;
    uint64_t tags[Attributes] = {};
  };

  bool add(State& s, Epsilon cost) const {
    if (cost.q32 > cap_.q32 || s.spent > cap_.q32 - cost.q32) return false;
    s.spent += cost.q32;
    s.lifetime = s.lifetime > ~uint64_t{0} - cost.q32 ? ~uint64_t{0} : s.lifetime + cost.q32;
    return true;
  }

  // Writes `next`; only a durable write becomes the ledger's state.
  bool store(const State& next) {
    uint8_t bytes[record_bytes];
    put_le(bytes, next.epoch);
    put_le(bytes + 4, next.generation);
    put_le(bytes + 8, next.spent);
    put_le(bytes + 16, next.lifetime);
    put_le(bytes + 24, next.charges);
    for (uint32_t a = 0; a < Attributes; ++a) put_le(bytes + 28 + 8 * a, next.tags[a]);
    if (record_->write_both(bytes, sizeof bytes) != StorageResult::ok) {
      open_ = false;  // what is stored is unknown until the next open()
      return false;
    }
    state_ = next;
    return true;
  }

  static void decode(const uint8_t* bytes, State& s) {
    s.epoch = get_le<uint32_t>(bytes);
    s.generation = get_le<uint32_t>(bytes + 4);
    s.spent = get_le<uint64_t>(bytes + 8);
    s.lifetime = get_le<uint64_t>(bytes + 16);
    s.charges = get_le<uint32_t>(bytes + 24);
    for (uint32_t a = 0; a < Attributes; ++a) s.tags[a] = get_le<uint64_t>(bytes + 28 + 8 * a);
  }

  // A pointer, not a reference: a C context never initialised is all zero bytes, and open()
  // then refuses (storage_failed) instead of following a null reference.
  Record<Device>* record_;
  Epsilon cap_;
  State state_{};
  bool open_ = false;
};

}  // namespace tinyldp

#endif
