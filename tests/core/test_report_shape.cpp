// SPDX-License-Identifier: Apache-2.0
// The one report shape (fail_closed.hpp), for every mechanism of the device list
// (tests/support/device_mechanisms.hpp): privatize(value, [key,] rng, report, size) writes the
// wire payload — for a mechanism with a typed report, byte for byte what its typed privatize
// and pack give from the same stream — and is fail-closed the same way everywhere: an entropy
// failure, an unconfigured context and a buffer too small each give their status and leave the
// report zero.
#include <stddef.h>
#include <stdint.h>

#include "check.hpp"
#include "device_mechanisms.hpp"
#include "device_memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;
constexpr size_t room = device::Mechanisms::max_payload_bytes() + 8;

// The context type of an entry (its mechanism is declared const).
template <class T>
struct Unqualified {
  using type = T;
};
template <class T>
struct Unqualified<const T> {
  using type = T;
};

template <class Entry>
concept HasTypedReport = requires { typename Unqualified<decltype(Entry::mechanism)>::type::Report; };

bool all_zero(const uint8_t* p, size_t n) {
  uint32_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= p[i];
  return any == 0;
}
void poison(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = 0xA5;
}

const port::MemoKey& key() {
  static const port::MemoKey k = test::device_memo_key(2, 31, 7);
  return k;
}

TEST(every_report_is_its_wire_payload) {
  device::Mechanisms::for_each([]<class Entry>() {
    const size_t n = Entry::mechanism.description().payload_bytes();
    for (uint32_t run = 0; run < 4; ++run) {
      port::InsecureTestSource source(40 + run);
      Rng rng(source);
      uint8_t report[room];
      poison(report, room);
      CHECK_EQ(device::privatize<Entry>(Entry::values[run], key(), rng, report, room), Status::ok);
      for (size_t i = n; i < room; ++i) CHECK_EQ(report[i], 0xA5);  // nothing past the payload
      if constexpr (HasTypedReport<Entry>) {
        port::InsecureTestSource again(40 + run);
        Rng typed_rng(again);
        typename Unqualified<decltype(Entry::mechanism)>::type::Report typed{};
        Status s;
        if constexpr (Entry::memoized) s = Entry::mechanism.privatize(Entry::values[run], key(), typed_rng, typed);
        else s = Entry::mechanism.privatize(Entry::values[run], typed_rng, typed);
        CHECK_EQ(s, Status::ok);
        uint8_t packed[room] = {};
        Entry::mechanism.pack(typed, packed);
        for (size_t i = 0; i < n; ++i) CHECK_EQ(report[i], packed[i]);
        CHECK_EQ(rng.bits_drawn(), typed_rng.bits_drawn());
      }
    }
  });
}

TEST(every_report_fails_closed) {
  device::Mechanisms::for_each([]<class Entry>() {
    const size_t n = Entry::mechanism.description().payload_bytes();
    uint8_t report[room];
    // The source fails on its first fill: the draw's status, the payload zero.
    port::InsecureTestSource failing_source(5);
    failing_source.fail_on_call(1, EntropyResult::failed);
    Rng failing(failing_source);
    poison(report, room);
    CHECK_EQ(device::privatize<Entry>(Entry::values[1], key(), failing, report, room), to_status(EntropyResult::failed));
    CHECK(all_zero(report, n));
    // Never configured: not_configured, the whole buffer zero.
    port::InsecureTestSource source(6);
    Rng rng(source);
    const typename Unqualified<decltype(Entry::mechanism)>::type unconfigured{};
    poison(report, room);
    CHECK_EQ(device::privatize<Entry>(unconfigured, Entry::values[1], key(), rng, report, room), Status::not_configured);
    CHECK(all_zero(report, room));
    // A buffer one byte short: refused, zero as far as it goes.
    poison(report, room);
    CHECK_EQ(device::privatize<Entry>(Entry::values[1], key(), rng, report, n - 1), Status::buffer_too_small);
    CHECK(all_zero(report, n - 1));
    CHECK_EQ(report[n - 1], 0xA5);
  });
}

}  // namespace
}  // namespace tinyldp::test
