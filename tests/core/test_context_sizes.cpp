// SPDX-License-Identifier: Apache-2.0
// Contexts are caller-owned and their sizes are documented in each header; this keeps the
// documentation true on every target (and the sizes constexpr).
#include "check.hpp"
#include "device_mechanisms.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/wipe.hpp"

namespace tinyldp::test {
namespace {

TEST(documented_context_sizes_hold) {
  // Every mechanism of the device list, at the size its entry (and its header) documents.
  device::Mechanisms::for_each([]<class Entry>() {
    static_assert(sizeof Entry::mechanism == Entry::context_bytes);
  });
  static_assert(sizeof(port::MemoKey) == 40);
  // The ledger: 56 + 8 bytes per attribute slot (a Record reference, the cap, the totals).
  static_assert(sizeof(PrivacyLedger<port::EmulatedFlash, 1>) == 64);
  static_assert(sizeof(PrivacyLedger<port::EmulatedFlash, 8>) == 120);
  // A memo stream: its block buffer (64 B), nonce, counters and key pointer.
  CHECK(sizeof(port::MemoStream) == (sizeof(void*) == 8 ? 96u : 88u));
  static_assert(UnaryEncoding::report_bytes_for(1024) == 128);
  constexpr size_t reader = sizeof(RandomBits<port::CountingSource>);
  // 32-byte buffer + state: 80 B with 32-bit pointers, 96 B on 64-bit hosts.
  CHECK(reader == 80 || (sizeof(void*) == 8 && reader == 96));
}

// Contexts a firmware may keep as plain globals register no destructor (docs/privacy-model.md,
// "Static placement"); the mechanisms are also constant-initialized.
constinit UnaryEncoding global_ue;
constinit KaryRr global_krr;
TEST(contexts_are_trivially_destructible) {
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(RandomBits<port::CountingSource>));
  device::Mechanisms::for_each([]<class Entry>() {
    static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(decltype(Entry::mechanism)));
  });
  CHECK(UnaryEncoding::configure_oue(Epsilon::from_ratio(1, 1), 64, global_ue) ==
        Status::ok);
  CHECK(global_ue.report_bytes() == 8);
  CHECK(KaryRr::configure(Epsilon::from_ratio(1, 1), 4, global_krr) ==
        Status::ok);
}

}  // namespace
}  // namespace tinyldp::test
