// SPDX-License-Identifier: Apache-2.0
// The host-file storage backend: the storage conformance suite (failure = the file closed
// under the Record), values kept across a reopen (the host's reboot), a short image extended
// with erased bytes, and paths that cannot be opened reported as io_error. Host only.
#include <stdlib.h>
#include <unistd.h>

#include "check.hpp"
#include "tinyldp/port/test/storage_conformance.hpp"
#include "tinyldp/port/storage/file_storage.hpp"

namespace tinyldp::test {
namespace {

constexpr StorageGeometry geometry{256, 4, 4, 0xFF};

struct TempFile {
  char path[64] = "/tmp/tinyldp_file_storage_XXXXXX";
  TempFile() {
    const int fd = mkstemp(path);
    if (fd >= 0) close(fd);
  }
  ~TempFile() { unlink(path); }
};

struct Reopen {
  port::FileStorage* file;
  const char* path;
};
void close_file(void* c) { static_cast<Reopen*>(c)->file->close(); }
void reopen_file(void* c) {
  auto* r = static_cast<Reopen*>(c);
  CHECK(r->file->open(r->path, geometry) == StorageResult::ok);
}

TEST(file_storage_conforms) {
  TempFile tmp;
  port::FileStorage file;
  CHECK(file.open(tmp.path, geometry) == StorageResult::ok);
  Reopen ctx{&file, tmp.path};
  conformance::StorageConformanceOptions o;
  o.output = write;
  o.name = "file";
  o.inject_failure = &close_file;
  o.restore = &reopen_file;
  o.context = &ctx;
  CHECK_EQ(conformance::storage_conformance(file, o), 0u);
}

TEST(file_storage_keeps_values_across_a_reopen) {
  TempFile tmp;
  const uint8_t value[5] = {'h', 'e', 'l', 'l', 'o'};
  {
    port::FileStorage file;
    CHECK(file.open(tmp.path, geometry) == StorageResult::ok);  // mkstemp left it empty
    Record<port::FileStorage> record(file, 0, 1);
    size_t n = 0;
    uint8_t out[8];
    CHECK(record.read(out, sizeof out, &n) == StorageResult::not_found);  // extended, erased
    CHECK(record.write(value, 5) == StorageResult::ok);
    CHECK(record.write(value, 4) == StorageResult::ok);
  }
  port::FileStorage file;
  CHECK(file.open(tmp.path, geometry) == StorageResult::ok);
  Record<port::FileStorage> record(file, 0, 1);
  uint8_t out[8] = {};
  size_t n = 0;
  CHECK(record.read(out, sizeof out, &n) == StorageResult::ok);
  CHECK_EQ(n, 4u);
  CHECK(out[0] == 'h' && out[3] == 'l');
  CHECK_EQ(record.sequence(), 2u);
}

TEST(file_storage_reports_unusable_paths_and_sizes) {
  port::FileStorage file;
  CHECK(file.open("/", geometry) == StorageResult::io_error);  // a directory
  CHECK(file.open("/nonexistent-dir/x/y", geometry) == StorageResult::io_error);
  CHECK(!file.is_open());
  uint8_t b[4];
  CHECK(file.read(0, b, 4) == StorageResult::io_error);
  CHECK(file.program(0, b, 4) == StorageResult::io_error);
  CHECK(file.erase(0) == StorageResult::io_error);
  TempFile tmp;
  CHECK(file.open(tmp.path, StorageGeometry{256, 4, 3, 0xFF}) == StorageResult::bad_geometry);
  CHECK(file.open(tmp.path, StorageGeometry{0, 4, 1, 0xFF}) == StorageResult::bad_geometry);
}

}  // namespace
}  // namespace tinyldp::test
