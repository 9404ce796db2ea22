// SPDX-License-Identifier: Apache-2.0
// The privacy budget ledger (privacy_ledger.hpp): basic composition per epoch, refusal at the
// cap with nothing written, memoized values charged once per change, epochs that only move
// forward — and, over ≥ 10^4 random power cuts during a provision / report / epoch-roll
// workload on the emulated flash, no acknowledged total ever lost. The same workload against a
// planted ledger that rewrites one flash sector in place must show violations.
#include "check.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/privacy_ledger.hpp"

using tinyldp::Epsilon;
using tinyldp::LedgerResult;
using tinyldp::PrivacyLedger;
using tinyldp::Record;
using tinyldp::StorageGeometry;
using tinyldp::StorageResult;
using tinyldp::port::EmulatedFlash;
using tinyldp::port::PowerCut;

namespace {

constexpr StorageGeometry geometry{128, 4, 4, 0xFF};
uint8_t memory[128 * 4];
using Ledger = PrivacyLedger<EmulatedFlash, 2>;

constexpr Epsilon eps(uint64_t quarters) { return Epsilon{quarters << 30}; }  // quarters / 4

}  // namespace

TEST(charges_compose_and_the_cap_refuses_without_writing) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<EmulatedFlash> record(flash, 0, 2);
  Ledger ledger(record, eps(8));  // cap 2
  CHECK(ledger.charge(eps(1)) == LedgerResult::not_open);
  CHECK(ledger.open() == LedgerResult::ok);
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
  Record<EmulatedFlash> again(flash, 0, 2);
  Ledger reopened(again, eps(8));
  CHECK(reopened.open() == LedgerResult::ok);
  CHECK_EQ(reopened.spent().q32, eps(8).q32);
  CHECK_EQ(reopened.lifetime().q32, eps(8).q32);
  CHECK_EQ(reopened.charges(), 3u);
}

TEST(epochs_only_move_forward_and_the_lifetime_total_stays) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<EmulatedFlash> record(flash, 0, 2);
  Ledger ledger(record, eps(4));
  CHECK(ledger.open() == LedgerResult::ok);
  CHECK(ledger.charge(eps(4)) == LedgerResult::ok);
  CHECK(ledger.charge(eps(1)) == LedgerResult::budget_exhausted);
  CHECK(ledger.roll_epoch() == LedgerResult::ok);
  CHECK_EQ(ledger.epoch(), 1u);
  CHECK_EQ(ledger.spent().q32, 0u);
  CHECK(ledger.charge(eps(1)) == LedgerResult::ok);
  CHECK_EQ(ledger.lifetime().q32, eps(5).q32);
}

TEST(a_memoized_value_is_charged_once_per_change) {
  EmulatedFlash flash(memory, geometry);
  flash.format();
  Record<EmulatedFlash> record(flash, 0, 2);
  Ledger ledger(record, eps(100));
  CHECK(ledger.open() == LedgerResult::ok);
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
  Record<EmulatedFlash> again(flash, 0, 2);
  Ledger reopened(again, eps(100));
  CHECK(reopened.open() == LedgerResult::ok);
  CHECK(reopened.charge_memoized(0, 0xAAAA, 1, inf) == LedgerResult::ok);
  CHECK_EQ(reopened.spent().q32, 5 * inf.q32);
}

namespace {

// A planted ledger: the same interface, kept in one sector rewritten in place (erase, then
// program) — a power cut between the two loses everything.
class InPlaceLedger {
 public:
  InPlaceLedger(EmulatedFlash& flash, Epsilon cap) : flash_(flash), cap_(cap) {}
  LedgerResult open() {
    uint8_t b[16];
    if (flash_.read(0, b, sizeof b) != StorageResult::ok) return LedgerResult::storage_failed;
    epoch_ = b[0] == 0xFF ? 0 : tinyldp::get_le<uint32_t>(b);
    spent_ = b[0] == 0xFF ? 0 : tinyldp::get_le<uint64_t>(b + 4);
    lifetime_ = b[0] == 0xFF ? 0 : tinyldp::get_le<uint32_t>(b + 12);
    return LedgerResult::ok;
  }
  LedgerResult charge(Epsilon cost) {
    if (spent_ + cost.q32 > cap_.q32) return LedgerResult::budget_exhausted;
    return write(epoch_, spent_ + cost.q32, lifetime_ + static_cast<uint32_t>(cost.q32 >> 28));
  }
  LedgerResult roll_epoch() { return write(epoch_ + 1, 0, lifetime_); }
  uint32_t epoch() const { return epoch_; }
  Epsilon spent() const { return Epsilon{spent_}; }
  Epsilon lifetime() const { return Epsilon{uint64_t{lifetime_} << 28}; }

 private:
  LedgerResult write(uint32_t epoch, uint64_t spent, uint32_t lifetime) {
    uint8_t b[16];
    tinyldp::put_le(b, epoch);
    tinyldp::put_le(b + 4, spent);
    tinyldp::put_le(b + 12, lifetime);
    if (flash_.erase(0) != StorageResult::ok || flash_.program(0, b, sizeof b) != StorageResult::ok)
      return LedgerResult::storage_failed;
    epoch_ = epoch, spent_ = spent, lifetime_ = lifetime;
    return LedgerResult::ok;
  }
  EmulatedFlash& flash_;
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
  EmulatedFlash flash(memory, geometry, 7);
  uint32_t random = 0x1234567u;
  CutResults results;
  Acknowledged acked;
  for (uint32_t cut = 0; cut < cuts; ++cut) {
    if (cut % 500 == 0) {
      flash.format();
      acked = {};
    }
    const PowerCut when = static_cast<PowerCut>(next_random(random) % 3);
    flash.cut_power(next_random(random) % 24, when);
    {
      auto ledger = make(flash);
      if (ledger.open() == LedgerResult::ok) {
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
    if (after.open() != LedgerResult::ok) {
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
  Record<EmulatedFlash> record;
  Ledger ledger;
  explicit RecordLedger(EmulatedFlash& flash) : record(flash, 0, 2), ledger(record, eps(40)) {}
  RecordLedger(const RecordLedger&) = delete;
  LedgerResult open() { return ledger.open(); }
  LedgerResult charge(Epsilon e) { return ledger.charge(e); }
  LedgerResult roll_epoch() { return ledger.roll_epoch(); }
  uint32_t epoch() const { return ledger.epoch(); }
  Epsilon spent() const { return ledger.spent(); }
  Epsilon lifetime() const { return ledger.lifetime(); }
};

}  // namespace

TEST(no_acknowledged_total_is_lost_at_any_power_cut) {
  const CutResults r = violations_under_power_cuts(cut_count, [](EmulatedFlash& f) { return RecordLedger(f); });
  CHECK(r.power_lost >= required_cuts);
  CHECK_EQ(r.violations, 0u);
  tinyldp::test::print("    ledger: ");
  tinyldp::test::print_u64(r.power_lost);
  tinyldp::test::print(" power cuts, no total lost\n");
}

TEST(the_check_catches_a_ledger_rewritten_in_place) {
  const CutResults r = violations_under_power_cuts(cut_count, [](EmulatedFlash& f) { return InPlaceLedger(f, eps(40)); });
  CHECK(r.power_lost >= required_cuts);
  CHECK(r.violations > r.power_lost / 100);
  tinyldp::test::print("    planted ledger: ");
  tinyldp::test::print_u64(r.violations);
  tinyldp::test::print(" violations in ");
  tinyldp::test::print_u64(r.power_lost);
  tinyldp::test::print(" power cuts\n");
}
