// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/storage/file_storage.hpp — a storage device in a host file (POSIX), for host tools,
// gateways and simulations that keep the same records a device would.
//
// The file is the flash image: sector_size * sector_count bytes, created (or extended) filled
// with erased_value. Erase rewrites a sector with erased_value, program writes the bytes; each
// call ends with fdatasync, so an ok means the bytes are on stable storage. A crash inside a
// call can tear it like a power cut tears a flash step; the Record layer's two slots and CRC
// cover that exactly as on flash. Out-of-range or misaligned calls answer bad_geometry;
// system-call failures (and every call on a closed device) answer io_error. One process at a
// time (no locking). Host builds only.
// Cost: RAM sizeof(FileStorage) = 20 bytes; stack < 128 bytes; time: one pread/pwrite per call
// plus one fdatasync per program or erase (milliseconds on a disk, microseconds on tmpfs).
#ifndef TINYLDP_PORT_FILE_STORAGE_HPP
#define TINYLDP_PORT_FILE_STORAGE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/storage.hpp"

namespace tinyldp::port {

class FileStorage {
 public:
  FileStorage() = default;
  FileStorage(const FileStorage&) = delete;
  FileStorage& operator=(const FileStorage&) = delete;
  ~FileStorage() { close(); }

  // Opens (creating if needed) the image at `path`; a short file is extended with erased
  // bytes, existing contents are kept. io_error if it cannot, bad_geometry for unusable sizes.
  StorageResult open(const char* path, StorageGeometry geometry);
  void close();
  bool is_open() const { return fd_ >= 0; }

  StorageResult read(uint32_t address, uint8_t* out, size_t length);
  StorageResult program(uint32_t address, const uint8_t* data, size_t length);
  StorageResult erase(uint32_t sector);
  StorageGeometry geometry() const { return geometry_; }

 private:
  bool in_range(uint32_t address, size_t length) const;
  // Writes length bytes (data, or `fill` repeated when data is null) at offset, then syncs.
  StorageResult write_at(uint64_t offset, const uint8_t* data, uint8_t fill, size_t length);

  int fd_ = -1;
  StorageGeometry geometry_ = {0, 0, 1, 0xFF};
};

static_assert(StorageDevice<FileStorage>);

}  // namespace tinyldp::port

#endif
