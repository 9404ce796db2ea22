// SPDX-License-Identifier: Apache-2.0
// The privacy budget ledger (privacy_ledger.hpp): basic composition per epoch, refusal at the
// cap with nothing written, memoized values charged once per change, epochs that only move
// forward (any distance in one write), a report checked before it is charged, a ledger never
// created by open() — and, over ≥ 10^4 random power cuts during a provision / report /
// epoch-roll workload on the emulated flash, no acknowledged total ever lost. The same workload
// against a planted ledger that rewrites one flash sector in place must show violations. Every
// byte of both slots corrupted or erased: the acknowledged totals or a refusal, never a reset.
#include "check.hpp"
#include "slot_damage.hpp"
#include "test_memo_key.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];
using Ledger = PrivacyLedger<port::EmulatedFlash, 2>;

constexpr Epsilon eps(uint64_t quarters) { return Epsilon{quarters << 30}; }  // quarters / 4

// A device fresh from the factory: formatted flash and a ledger of `cap` over sectors 0–1, not
// yet provisioned.
struct BlankDevice {
  port::EmulatedFlash flash{memory, geometry};
  Record<port::EmulatedFlash> record{flash, 0, 2};
  Ledger ledger;
  explicit BlankDevice(Epsilon cap) : ledger(record, cap) { flash.format(); }
};
// ... and provisioned: epoch 0, nothing spent.
struct ProvisionedDevice : BlankDevice {
  explicit ProvisionedDevice(Epsilon cap) : BlankDevice(cap) {
    CHECK(ledger.provision(0, 0, Epsilon{0}, Epsilon{0}) == LedgerResult::ok);
  }
};

// The reports a device makes at `cost` each under a cap of 10 (every one charged in full).
uint32_t reports_under_a_cap_of_ten(Epsilon cost) {
  ProvisionedDevice device(eps(40));
  uint32_t reports = 0;
  while (device.ledger.charge(cost) == LedgerResult::ok) ++reports;
  CHECK_EQ(device.ledger.spent().q32, reports * cost.q32);
  return reports;
}

TEST(a_mechanism_without_memo_is_charged_every_report) {
  // pm has no memoized form: each report of the same value costs its realized ε again, so a
  // cap of 10 allows ⌊10/ε⌋ reports at ε = 2 − 2^-21… (the realized ε is a little below 2).
  constexpr auto pm = PiecewiseMechanism::make(Epsilon::from_double(2.0), 0, 1000);
  CHECK_EQ(reports_under_a_cap_of_ten(pm.realized_epsilon()), 5u);
  // hm likewise: its realized ε (the larger branch's) per report.
  constexpr auto hm = HybridMechanism::make(Epsilon::from_double(2.0), 0, 1000);
  CHECK_EQ(reports_under_a_cap_of_ten(hm.realized_epsilon()), 5u);
  // hh takes the memo key for the device's level, not for a memo: its realized ε per report.
  constexpr auto hh = HierarchicalHistogram::make(Epsilon::from_double(2.0), 0, 1000);
  CHECK_EQ(reports_under_a_cap_of_ten(hh.realized_epsilon()), 5u);
  // haar-hrr likewise (the key gives the level): its binary RR's realized ε per report.
  constexpr auto haar = HaarHrr::make(Epsilon::from_double(2.0), 0, 1000);
  CHECK_EQ(reports_under_a_cap_of_ten(haar.realized_epsilon()), 5u);
}

TEST(charges_compose_and_the_cap_refuses_without_writing) {
  BlankDevice device(eps(8));  // cap 2
  auto& [flash, record, ledger] = device;
  CHECK(ledger.charge(eps(1)) == LedgerResult::not_open);
  CHECK(ledger.open() == LedgerResult::not_provisioned);  // a blank record is not a ledger
  CHECK(ledger.provision(0, 0, Epsilon{0}, Epsilon{0}) == LedgerResult::ok);
  CHECK(ledger.charge(eps(3)) == LedgerResult::ok);
  CHECK(ledger.charge(eps(4)) == LedgerResult::ok);
  CHECK_EQ(ledger.spent().q32, eps(7).q32);
  CHECK_EQ(ledger.remaining().q32, eps(1).q32);
  const uint32_t erases = flash.counters().erases;
  CHECK(ledger.charge(eps(2)) == LedgerResult::budget_exhausted);
  CHECK_EQ(flash.counters().erases, erases);  // nothing written
  CHECK_EQ(ledger.spent().q32, eps(7).q32);
  CHECK(ledger.charge(eps(1)) == LedgerResult::ok);  // exactly the cap is allowed
  CHECK(ledger.charge(Epsilon{1}) == LedgerResult::budget_exhausted);
  // A reboot reads the same totals.
  flash.power_on();
  Record<port::EmulatedFlash> again(flash, 0, 2);
  Ledger reopened(again, eps(8));
  CHECK(reopened.open() == LedgerResult::ok);
  CHECK_EQ(reopened.spent().q32, eps(8).q32);
  CHECK_EQ(reopened.lifetime().q32, eps(8).q32);
  CHECK_EQ(reopened.charges(), 3u);
}

TEST(epochs_only_move_forward_and_the_lifetime_total_stays) {
  ProvisionedDevice device(eps(4));
  auto& [flash, record, ledger] = device;
  CHECK(ledger.charge(eps(4)) == LedgerResult::ok);
  CHECK(ledger.charge(eps(1)) == LedgerResult::budget_exhausted);
  CHECK(ledger.roll_epoch() == LedgerResult::ok);
  CHECK_EQ(ledger.epoch(), 1u);
  CHECK_EQ(ledger.spent().q32, 0u);
  CHECK(ledger.charge(eps(1)) == LedgerResult::ok);
  CHECK_EQ(ledger.lifetime().q32, eps(5).q32);
}

TEST(a_memoized_value_is_charged_once_per_change) {
  ProvisionedDevice device(eps(100));
  auto& [flash, record, ledger] = device;
  const Epsilon inf = eps(8);
  CHECK(ledger.charge_memoized(0, 0xAAAA, 0, inf) == LedgerResult::ok);
  const uint32_t erases = flash.counters().erases;
  for (int i = 0; i < 10; ++i) CHECK(ledger.charge_memoized(0, 0xAAAA, 0, inf) == LedgerResult::ok);
  CHECK_EQ(flash.counters().erases, erases);  // a repeated value costs no write…
  CHECK_EQ(ledger.spent().q32, inf.q32);       // …and no budget
  CHECK(ledger.charge_memoized(1, 0xAAAA, 0, inf) == LedgerResult::ok);  // another attribute
  CHECK(ledger.charge_memoized(0, 0xBBBB, 0, inf) == LedgerResult::ok);  // a change
  CHECK(ledger.charge_memoized(0, 0xAAAA, 0, inf) == LedgerResult::ok);  // and back: charged
  CHECK_EQ(ledger.spent().q32, 4 * inf.q32);
  CHECK(ledger.charge_memoized(0, 0xAAAA, 1, inf) == LedgerResult::ok);  // a new key: new memo
  CHECK_EQ(ledger.spent().q32, 5 * inf.q32);
  CHECK(ledger.charge_memoized(2, 0xAAAA, 1, inf) == LedgerResult::bad_attribute);
  // The tags survive a reboot: the same value is still free afterwards.
  flash.power_on();
  Record<port::EmulatedFlash> again(flash, 0, 2);
  Ledger reopened(again, eps(100));
  CHECK(reopened.open() == LedgerResult::ok);
  CHECK(reopened.charge_memoized(0, 0xAAAA, 1, inf) == LedgerResult::ok);
  CHECK_EQ(reopened.spent().q32, 5 * inf.q32);
}

// A planted ledger: the same interface, kept in one sector rewritten in place (erase, then
// program) — a power cut between the two loses everything.
class InPlaceLedger {
 public:
  InPlaceLedger(port::EmulatedFlash& flash, Epsilon cap) : flash_(flash), cap_(cap) {}
  LedgerResult open() {
    uint8_t b[16];
    if (flash_.read(0, b, sizeof b) != StorageResult::ok) return LedgerResult::storage_failed;
    epoch_ = b[0] == 0xFF ? 0 : get_le<uint32_t>(b);  // blank: zero (never refused)
    spent_ = b[0] == 0xFF ? 0 : get_le<uint64_t>(b + 4);
    lifetime_ = b[0] == 0xFF ? 0 : get_le<uint32_t>(b + 12);
    return LedgerResult::ok;
  }
  LedgerResult charge(Epsilon cost) {
    if (spent_ + cost.q32 > cap_.q32) return LedgerResult::budget_exhausted;
    return write(epoch_, spent_ + cost.q32, lifetime_ + static_cast<uint32_t>(cost.q32 >> 28));
  }
  LedgerResult roll_epoch() { return write(epoch_ + 1, 0, lifetime_); }
  LedgerResult provision() { return open(); }
  uint32_t epoch() const { return epoch_; }
  Epsilon spent() const { return Epsilon{spent_}; }
  Epsilon lifetime() const { return Epsilon{uint64_t{lifetime_} << 28}; }

 private:
  LedgerResult write(uint32_t epoch, uint64_t spent, uint32_t lifetime) {
    uint8_t b[16];
    put_le(b, epoch);
    put_le(b + 4, spent);
    put_le(b + 12, lifetime);
    if (flash_.erase(0) != StorageResult::ok || flash_.program(0, b, sizeof b) != StorageResult::ok)
      return LedgerResult::storage_failed;
    epoch_ = epoch, spent_ = spent, lifetime_ = lifetime;
    return LedgerResult::ok;
  }
  port::EmulatedFlash& flash_;
  Epsilon cap_;
  uint32_t epoch_ = 0;
  uint64_t spent_ = 0;
  uint32_t lifetime_ = 0;
};

struct Acknowledged {
  uint32_t epoch = 0;
  uint64_t spent = 0, lifetime = 0;
};

uint32_t next_random(uint32_t& x) {  // xorshift32: the workload's choices
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

// Runs `cuts` power cuts at random steps of a report / epoch-roll workload (with a new device
// — a blank flash, provisioning — every 500 cuts); after each reboot the reopened ledger must
// hold at least every total that was acknowledged.
struct CutResults {
  uint32_t power_lost = 0;  // runs in which the armed cut really happened
  uint32_t violations = 0;
};
template <class MakeLedger>
CutResults violations_under_power_cuts(uint32_t cuts, MakeLedger make) {
  port::EmulatedFlash flash(memory, geometry, 7);
  uint32_t random = 0x1234567u;
  CutResults results;
  Acknowledged acked;
  bool provisioned = false;  // the factory's provisioning was acknowledged
  for (uint32_t cut = 0; cut < cuts; ++cut) {
    if (cut % 500 == 0) {
      flash.format();
      acked = {};
      provisioned = false;
    }
    const port::PowerCut when = static_cast<port::PowerCut>(next_random(random) % 3);
    flash.cut_power(next_random(random) % 24, when);
    {
      auto ledger = make(flash);
      LedgerResult opened = ledger.open();
      if (opened == LedgerResult::not_provisioned && !provisioned) opened = ledger.provision();
      if (opened == LedgerResult::ok) {
        provisioned = true;
        for (int op = 0; op < 12 && flash.powered(); ++op) {
          const bool roll = next_random(random) % 4 == 0;
          const LedgerResult r = roll ? ledger.roll_epoch() : ledger.charge(eps(1 + next_random(random) % 3));
          if (r == LedgerResult::ok) {  // acknowledged: a report may have left
            acked.epoch = ledger.epoch();
            acked.spent = ledger.spent().q32;
            acked.lifetime = ledger.lifetime().q32;
          } else if (r == LedgerResult::budget_exhausted) {
            if (ledger.roll_epoch() == LedgerResult::ok) {
              acked.epoch = ledger.epoch();
              acked.spent = 0;
            }
          }
        }
      }
    }
    results.power_lost += flash.powered() ? 0u : 1u;
    flash.power_on();
    auto after = make(flash);
    const LedgerResult reopened = after.open();
    if (reopened == LedgerResult::not_provisioned && !provisioned) continue;  // cut while provisioning
    if (reopened != LedgerResult::ok) {
      ++results.violations;  // a ledger that cannot be read again
      continue;
    }
    const bool lost = after.epoch() < acked.epoch || after.lifetime().q32 < acked.lifetime ||
                      (after.epoch() == acked.epoch && after.spent().q32 < acked.spent);
    results.violations += lost ? 1u : 0u;
  }
  return results;
}

#ifdef TINYLDP_TEST_ON_TARGET
constexpr uint32_t cut_count = 2000, required_cuts = 1500;
#else
constexpr uint32_t cut_count = 12000, required_cuts = 10000;
#endif

struct RecordLedger {  // a Record and the ledger over it, as a device holds them
  Record<port::EmulatedFlash> record;
  Ledger ledger;
  explicit RecordLedger(port::EmulatedFlash& flash) : record(flash, 0, 2), ledger(record, eps(40)) {}
  RecordLedger(const RecordLedger&) = delete;
  LedgerResult open() { return ledger.open(); }
  LedgerResult provision() { return ledger.provision(0, 0, Epsilon{0}, Epsilon{0}); }
  LedgerResult charge(Epsilon e) { return ledger.charge(e); }
  LedgerResult roll_epoch() { return ledger.roll_epoch(); }
  uint32_t epoch() const { return ledger.epoch(); }
  Epsilon spent() const { return ledger.spent(); }
  Epsilon lifetime() const { return ledger.lifetime(); }
};

TEST(no_acknowledged_total_is_lost_at_any_power_cut) {
  const CutResults r = violations_under_power_cuts(cut_count, [](port::EmulatedFlash& f) { return RecordLedger(f); });
  CHECK(r.power_lost >= required_cuts);
  CHECK_EQ(r.violations, 0u);
  print("    ledger: ");
  print_u64(r.power_lost);
  print(" power cuts, no total lost\n");
}

TEST(the_check_catches_a_ledger_rewritten_in_place) {
  const CutResults r = violations_under_power_cuts(cut_count, [](port::EmulatedFlash& f) { return InPlaceLedger(f, eps(40)); });
  CHECK(r.power_lost >= required_cuts);
  CHECK(r.violations > r.power_lost / 100);
  print("    planted ledger: ");
  print_u64(r.violations);
  print(" violations in ");
  print_u64(r.power_lost);
  print(" power cuts\n");
}

TEST(open_never_creates_a_ledger_and_provisioning_is_explicit) {
  BlankDevice device(eps(8));
  auto& [flash, record, ledger] = device;
  const uint32_t erases = flash.counters().erases;
  CHECK(ledger.open() == LedgerResult::not_provisioned);
  CHECK(ledger.open() == LedgerResult::not_provisioned);  // and nothing was written meanwhile
  CHECK_EQ(flash.counters().erases, erases);
  CHECK(!ledger.is_open());
  CHECK(ledger.charge(eps(1)) == LedgerResult::not_open);
  // After a loss: the registry's epoch and generation, the epoch counted as spent.
  CHECK(ledger.provision(41, 3, eps(8), eps(100)) == LedgerResult::ok);
  CHECK(ledger.is_open());
  CHECK_EQ(ledger.epoch(), 41u);
  CHECK_EQ(ledger.generation(), 3u);
  CHECK_EQ(ledger.remaining().q32, 0u);
  CHECK(ledger.charge(Epsilon{1}) == LedgerResult::budget_exhausted);
  // A readable ledger is never provisioned over.
  CHECK(ledger.provision(0, 0, Epsilon{0}, Epsilon{0}) == LedgerResult::already_provisioned);
  CHECK(!ledger.is_open());
  CHECK(ledger.open() == LedgerResult::ok);
  CHECK_EQ(ledger.epoch(), 41u);
  CHECK_EQ(ledger.lifetime().q32, eps(100).q32);
  CHECK(to_string(LedgerResult::not_provisioned)[0] == 'p');
}

TEST(epochs_move_forward_any_distance_in_one_write) {
  ProvisionedDevice device(eps(4));
  auto& [flash, record, ledger] = device;
  CHECK(ledger.charge(eps(4)) == LedgerResult::ok);
  uint32_t before = flash.counters().erases;
  CHECK(ledger.advance_epoch(1) == LedgerResult::ok);
  const uint32_t one_epoch = flash.counters().erases - before;
  CHECK_EQ(ledger.spent().q32, 0u);
  before = flash.counters().erases;
  CHECK(ledger.advance_epoch(1000001) == LedgerResult::ok);  // 10^6 epochs
  CHECK_EQ(flash.counters().erases - before, one_epoch);      // the same one write
  CHECK_EQ(one_epoch, 4u);  // write_both: two slots of two sectors each
  CHECK_EQ(ledger.epoch(), 1000001u);
  before = flash.counters().erases;
  CHECK(ledger.advance_epoch(7) == LedgerResult::ok);  // an older epoch changes nothing
  CHECK(ledger.advance_epoch(1000001) == LedgerResult::ok);
  CHECK_EQ(flash.counters().erases, before);
  CHECK_EQ(ledger.epoch(), 1000001u);
  CHECK(ledger.roll_epoch() == LedgerResult::ok);
  CHECK_EQ(ledger.epoch(), 1000002u);
  CHECK(ledger.advance_epoch(~uint32_t{0}) == LedgerResult::ok);
  CHECK(ledger.roll_epoch() == LedgerResult::bad_epoch);  // no wrap back to epoch 0
  CHECK_EQ(ledger.epoch(), ~uint32_t{0});
  Record<port::EmulatedFlash> again(flash, 0, 2);
  Ledger reopened(again, eps(4));
  CHECK(reopened.open() == LedgerResult::ok);
  CHECK_EQ(reopened.epoch(), ~uint32_t{0});
}

TEST(a_report_is_checked_before_it_is_charged) {
  ProvisionedDevice device(eps(100));
  auto& [flash, record, ledger] = device;
  constexpr TwoStageRr m = TwoStageRr::make_chain(
      UeStage::oue, UeStage::sue, Epsilon::from_ratio(2, 1), Epsilon::from_ratio(1, 1),
      TwoStageRr::one_hot(16));
  const TestMemoKey key{5, 0, true}, unprovisioned{5, 0, false};
  const TwoStageRr unconfigured{};
  const uint32_t erases = flash.counters().erases;
  CHECK(ledger.charge_memo(0, m, key, 16) == LedgerResult::bad_report);  // k = 16: out of the domain
  CHECK(ledger.charge_memo(0, m, key, ~uint32_t{0}) == LedgerResult::bad_report);
  CHECK(ledger.charge_memo(0, unconfigured, key, 3) == LedgerResult::bad_report);
  CHECK(ledger.charge_memo(0, m, unprovisioned, 3) == LedgerResult::key_not_provisioned);
  CHECK_EQ(ledger.spent().q32, 0u);  // nothing spent…
  CHECK_EQ(ledger.charges(), 0u);
  CHECK_EQ(flash.counters().erases, erases);  // …nothing written
  CHECK(ledger.charge_memo(0, m, key, 15) == LedgerResult::ok);
  CHECK_EQ(ledger.spent().q32, m.epsilon_infinity().q32);
  // Memos under an older generation than the ledger's are refused.
  const TestMemoKey newer{5, 2, true}, older{5, 1, true};
  CHECK(ledger.charge_memo(0, m, newer, 15) == LedgerResult::ok);
  CHECK_EQ(ledger.generation(), 2u);
  CHECK(ledger.charge_memo(0, m, older, 15) == LedgerResult::stale_generation);
  CHECK_EQ(ledger.charges(), 2u);
}

// The ledger's state as a test compares it.
struct Totals {
  uint32_t epoch, generation, charges;
  uint64_t spent, lifetime;
};
Totals totals(const Ledger& l) {
  return {l.epoch(), l.generation(), l.charges(), l.spent().q32, l.lifetime().q32};
}
bool same(const Totals& a, const Totals& b) {
  return a.epoch == b.epoch && a.generation == b.generation && a.charges == b.charges &&
         a.spent == b.spent && a.lifetime == b.lifetime;
}

struct DamageCount {
  uint32_t cases = 0, right = 0, refused = 0, wrong = 0;
};

// Opens the ledger on the damaged flash: right (the acknowledged totals, and the next charge
// adds to them), refused (not_provisioned / storage_failed: nothing reported), or wrong.
void classify(port::EmulatedFlash& flash, const Totals& acked, DamageCount& count) {
  Record<port::EmulatedFlash> record(flash, 0, 2);
  Ledger ledger(record, eps(40));
  const LedgerResult r = ledger.open();
  ++count.cases;
  if (r == LedgerResult::not_provisioned || r == LedgerResult::storage_failed) {
    ++count.refused;
    if (ledger.charge(eps(1)) != LedgerResult::not_open) ++count.wrong;  // a refusal is final
    return;
  }
  if (r != LedgerResult::ok || !same(totals(ledger), acked)) {
    ++count.wrong;
    return;
  }
  ++count.right;
}

TEST(no_damage_to_either_slot_resets_or_rolls_back_the_ledger) {
  // A ledger with three acknowledged charges (the last one a memo under generation 1): each
  // byte of each slot's record (header and payload) in turn flipped in one bit, inverted, and
  // erased (0xFF); then the same byte in both slots at once; then each slot wholly erased, and
  // both. Damage to one slot must read the acknowledged totals (before the fix the newest slot
  // alone held the last charge: damaging it rolled the charge back); damage to both must be
  // refused (before the fix a blank record was a new ledger at zero).
  port::EmulatedFlash flash(memory, geometry);
  flash.format();
  Totals acked{};
  {
    Record<port::EmulatedFlash> record(flash, 0, 2);
    Ledger ledger(record, eps(40));
    CHECK(ledger.provision(0, 0, Epsilon{0}, Epsilon{0}) == LedgerResult::ok);
    CHECK(ledger.charge(eps(3)) == LedgerResult::ok);
    CHECK(ledger.advance_epoch(2) == LedgerResult::ok);
    CHECK(ledger.charge(eps(2)) == LedgerResult::ok);
    CHECK(ledger.charge_memoized(1, 0xABCDEF, 1, eps(5)) == LedgerResult::ok);
    acked = totals(ledger);
  }
  const uint32_t slot_bytes = 2 * geometry.sector_size;
  const uint32_t record_bytes = Record<port::EmulatedFlash>::header_bytes + Ledger::record_bytes;
  SlotDamage damage(memory, flash, slot_bytes, record_bytes);
  DamageCount one_slot, both_slots;
  damage.sweep([&](bool one) { classify(flash, acked, one ? one_slot : both_slots); });
  CHECK_EQ(one_slot.cases, 2 * record_bytes * 3 + 2);
  CHECK_EQ(one_slot.wrong, 0u);
  CHECK_EQ(one_slot.right, one_slot.cases);  // one good slot always holds the acknowledged totals
  CHECK_EQ(both_slots.wrong, 0u);
  CHECK(both_slots.refused >= record_bytes);  // some bytes (padding, the erased ones) do not matter
  // A refused ledger stays refused until the explicit provisioning step.
  damage.restore();
  for (uint32_t i = 0; i < 2 * slot_bytes; ++i) memory[i] = 0xFF;
  Record<port::EmulatedFlash> record(flash, 0, 2);
  Ledger lost(record, eps(40));
  CHECK(lost.open() == LedgerResult::not_provisioned);
  CHECK(lost.provision(acked.epoch, acked.generation, eps(40), Epsilon{acked.lifetime}) == LedgerResult::ok);
  CHECK(lost.charge(Epsilon{1}) == LedgerResult::budget_exhausted);  // the epoch counts as spent
  damage.restore();
  print("    ledger damage: ");
  print_u64(one_slot.cases + both_slots.cases);
  print(" cases, ");
  print_u64(one_slot.right + both_slots.right);
  print(" read the acknowledged totals, ");
  print_u64(one_slot.refused + both_slots.refused);
  print(" refused, ");
  print_u64(one_slot.wrong + both_slots.wrong);
  print(" wrong (reset or rolled back)\n");
}

}  // namespace
}  // namespace tinyldp::test
