// SPDX-License-Identifier: Apache-2.0
// Every storage backend that runs on this target passes the storage conformance suite; and
// the suite itself catches the broken devices it is meant to catch.
#include "tinyldp/port/test/storage_conformance.hpp"

#include "check.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/storage/ram_storage.hpp"

namespace tinyldp::test {
namespace {

constexpr StorageGeometry geometry(uint32_t program_size, uint8_t erased = 0xFF) {
  return {256, 4, program_size, erased};
}

void cut(void* c) { static_cast<port::EmulatedFlash*>(c)->cut_power_now(); }
void power(void* c) { static_cast<port::EmulatedFlash*>(c)->power_on(); }

conformance::StorageConformanceOptions flash_options(port::EmulatedFlash& flash, const char* name) {
  conformance::StorageConformanceOptions o;
  o.output = write;
  o.name = name;
  o.inject_failure = &cut;
  o.restore = &power;
  o.context = &flash;
  return o;
}

conformance::StorageConformanceOptions quiet() {
  conformance::StorageConformanceOptions o;
  o.output = write;
  o.print_violations = false;
  return o;
}

// The C form of a device: trampolines onto an EmulatedFlash.
tinyldp_storage_device c_device(port::EmulatedFlash& flash) {
  tinyldp_storage_device d{};
  d.read = [](void* c, uint32_t a, uint8_t* out, size_t n) {
    return static_cast<tinyldp_storage_result>(static_cast<port::EmulatedFlash*>(c)->read(a, out, n));
  };
  d.program = [](void* c, uint32_t a, const uint8_t* in, size_t n) {
    return static_cast<tinyldp_storage_result>(static_cast<port::EmulatedFlash*>(c)->program(a, in, n));
  };
  d.erase = [](void* c, uint32_t s) {
    return static_cast<tinyldp_storage_result>(static_cast<port::EmulatedFlash*>(c)->erase(s));
  };
  d.context = &flash;
  d.geometry = flash.geometry();
  return d;
}

// Broken devices the suite must reject (it reads into guarded buffers of every length from
// 1 to 64, so the overrun is within its own buffer).
struct OverrunningRead {
  port::RamStorage inner;
  StorageResult read(uint32_t a, uint8_t* out, size_t n) {
    const StorageResult r = inner.read(a, out, n);
    if (n == 17) out[n] = 0;  // one length is enough for the sentinels to notice
    return r;
  }
  StorageResult program(uint32_t a, const uint8_t* in, size_t n) { return inner.program(a, in, n); }
  StorageResult erase(uint32_t s) { return inner.erase(s); }
  StorageGeometry geometry() const { return inner.geometry(); }
};

struct LazyErase {
  port::RamStorage inner;
  StorageResult read(uint32_t a, uint8_t* out, size_t n) { return inner.read(a, out, n); }
  StorageResult program(uint32_t a, const uint8_t* in, size_t n) { return inner.program(a, in, n); }
  StorageResult erase(uint32_t) { return StorageResult::ok; }
  StorageGeometry geometry() const { return inner.geometry(); }
};

struct NoRangeCheck {  // accepts reads past the end by returning erased bytes
  port::RamStorage inner;
  StorageResult read(uint32_t a, uint8_t* out, size_t n) {
    if (inner.read(a, out, n) == StorageResult::ok) return StorageResult::ok;
    for (size_t i = 0; i < n; ++i) out[i] = 0xFF;
    return StorageResult::ok;
  }
  StorageResult program(uint32_t a, const uint8_t* in, size_t n) { return inner.program(a, in, n); }
  StorageResult erase(uint32_t s) { return inner.erase(s); }
  StorageGeometry geometry() const { return inner.geometry(); }
};

TEST(ram_storage_conforms) {
  uint8_t memory[1024];
  port::RamStorage ram(memory, geometry(1));
  ram.format();
  conformance::StorageConformanceOptions o;
  o.output = write;
  o.name = "ram";
  CHECK_EQ(conformance::storage_conformance(ram, o), 0u);
  uint8_t memory8[1024];
  port::RamStorage ram8(memory8, geometry(8, 0x00));
  ram8.format();
  o.name = "ram(program 8, erased 0x00)";
  CHECK_EQ(conformance::storage_conformance(ram8, o), 0u);
}

TEST(emulated_flash_conforms_at_every_program_size) {
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (uint32_t size : sizes) {
    uint8_t memory[1024];
    port::EmulatedFlash flash(memory, geometry(size), size);
    flash.format();
    CHECK_EQ(conformance::storage_conformance(flash, flash_options(flash, "emulated_flash")), 0u);
    CHECK_EQ(flash.counters().violations, 0u);  // the Record never programs unerased bytes
    CHECK_GT(flash.counters().erases, 0u);
  }
  uint8_t memory[1024];
  port::EmulatedFlash zeros(memory, geometry(4, 0x00));
  zeros.format();
  CHECK_EQ(conformance::storage_conformance(zeros, flash_options(zeros, "emulated_flash(erased 0x00)")), 0u);
}

TEST(c_storage_adapter_conforms) {
  uint8_t memory[1024];
  port::EmulatedFlash flash(memory, geometry(4));
  flash.format();
  CStorageDevice device(c_device(flash));
  CHECK_EQ(conformance::storage_conformance(device, flash_options(flash, "c_adapter")), 0u);
  // A driver with no functions fails every call rather than crashing.
  CStorageDevice empty(tinyldp_storage_device{nullptr, nullptr, nullptr, nullptr, geometry(4)});
  uint8_t b[4];
  CHECK(empty.read(0, b, 4) == StorageResult::io_error);
  CHECK(empty.program(0, b, 4) == StorageResult::io_error);
  CHECK(empty.erase(0) == StorageResult::io_error);
}

TEST(suite_catches_broken_devices) {
  uint8_t m1[1024 + 1], m2[1024], m3[1024];
  OverrunningRead overrun{port::RamStorage(m1, geometry(1))};
  overrun.inner.format();
  CHECK_GT(conformance::storage_conformance(overrun, quiet()), 0u);
  LazyErase lazy{port::RamStorage(m2, geometry(1))};
  lazy.inner.format();
  for (uint8_t& b : m2) b = 0x12;  // "erase" leaves this behind
  CHECK_GT(conformance::storage_conformance(lazy, quiet()), 0u);
  NoRangeCheck unchecked{port::RamStorage(m3, geometry(1))};
  unchecked.inner.format();
  CHECK_GT(conformance::storage_conformance(unchecked, quiet()), 0u);
  // A device that cannot hold the suite's layout is reported, not passed.
  uint8_t tiny[64];
  port::RamStorage small(tiny, StorageGeometry{32, 2, 1, 0xFF});
  CHECK_GT(conformance::storage_conformance(small, quiet()), 0u);
}

TEST(record_refuses_unusable_layouts) {
  uint8_t memory[1024];
  port::RamStorage ram(memory, geometry(1));
  ram.format();
  uint8_t b[8] = {};
  size_t n = 0;
  Record<port::RamStorage> outside(ram, 3, 1);  // slot 1 would be sector 4 of 4
  CHECK(outside.mount() == StorageResult::bad_geometry);
  CHECK(outside.write(b, 8) == StorageResult::bad_geometry);
  CHECK(outside.read(b, 8, &n) == StorageResult::bad_geometry);
  CHECK_EQ(outside.capacity(), 0u);
  Record<port::RamStorage> huge(ram, 0xFFFFFFFFu, 2);  // wraps in 32 bits
  CHECK(huge.mount() == StorageResult::bad_geometry);
  port::RamStorage odd(memory, StorageGeometry{100, 4, 3, 0xFF});  // 3 does not divide the header
  Record<port::RamStorage> r(odd, 0, 1);
  CHECK(r.mount() == StorageResult::bad_geometry);
  Record<port::RamStorage> two(ram, 0, 2);  // two sectors per slot
  CHECK(two.mount() == StorageResult::ok);
  CHECK_EQ(two.capacity(), 2u * 256u - 16u);
}

TEST(sizes_stated_in_the_headers) {
  if constexpr (sizeof(void*) == 4) {
    CHECK_EQ(sizeof(Record<port::RamStorage>), 28u);
    CHECK_EQ(sizeof(port::RamStorage), 20u);
    CHECK_EQ(sizeof(port::EmulatedFlash), 48u);
    CHECK_EQ(sizeof(CStorageDevice), 32u);
  } else {
    CHECK_EQ(sizeof(Record<port::RamStorage>), 32u);  // 8-byte reference on a 64-bit host
  }
}

}  // namespace
}  // namespace tinyldp::test
