// SPDX-License-Identifier: Apache-2.0
// A storage device in a host file: pread/pwrite, fdatasync after every program and erase.
#include "tinyldp/port/storage/file_storage.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tinyldp::port {

StorageResult FileStorage::open(const char* path, StorageGeometry geometry) {
  close();
  const uint64_t size = uint64_t{geometry.sector_size} * geometry.sector_count;
  if (geometry.program_size == 0 || geometry.sector_size == 0 ||
      geometry.sector_size % geometry.program_size != 0 || size == 0 ||
      size > (uint64_t{1} << 32))
    return StorageResult::bad_geometry;
  int fd;
  do {
    fd = ::open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return StorageResult::io_error;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return StorageResult::io_error;
  }
  fd_ = fd;
  geometry_ = geometry;
  const uint64_t have = static_cast<uint64_t>(st.st_size);
  if (have < size) {
    const StorageResult r = write_at(have, nullptr, geometry.erased_value,
                                     static_cast<size_t>(size - have));
    if (r != StorageResult::ok) {
      close();
      return r;
    }
  }
  return StorageResult::ok;
}

void FileStorage::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool FileStorage::in_range(uint32_t address, size_t length) const {
  const uint64_t size = uint64_t{geometry_.sector_size} * geometry_.sector_count;
  return uint64_t{address} <= size && length <= size - address;
}

StorageResult FileStorage::write_at(uint64_t offset, const uint8_t* data, uint8_t fill,
                                    size_t length) {
  uint8_t chunk[64];
  for (uint8_t& b : chunk) b = fill;
  size_t done = 0;
  while (done < length) {
    const uint8_t* from = data != nullptr ? data + done : chunk;
    size_t n = length - done;
    if (data == nullptr && n > sizeof chunk) n = sizeof chunk;
    const ssize_t w = pwrite(fd_, from, n, static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return StorageResult::io_error;
    done += static_cast<size_t>(w);
  }
  return fdatasync(fd_) == 0 ? StorageResult::ok : StorageResult::io_error;
}

StorageResult FileStorage::read(uint32_t address, uint8_t* out, size_t length) {
  if (fd_ < 0) return StorageResult::io_error;
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  size_t done = 0;
  while (done < length) {
    const ssize_t n = pread(fd_, out + done, length - done, static_cast<off_t>(address + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      for (size_t i = 0; i < done; ++i) out[i] = 0;
      return StorageResult::io_error;
    }
    done += static_cast<size_t>(n);
  }
  return StorageResult::ok;
}

StorageResult FileStorage::program(uint32_t address, const uint8_t* data, size_t length) {
  if (fd_ < 0) return StorageResult::io_error;
  const uint32_t unit = geometry_.program_size;
  if (address % unit != 0 || length % unit != 0) return StorageResult::bad_geometry;
  if (length == 0) return StorageResult::ok;
  if (!in_range(address, length)) return StorageResult::bad_geometry;
  return write_at(address, data, 0, length);
}

StorageResult FileStorage::erase(uint32_t sector) {
  if (fd_ < 0) return StorageResult::io_error;
  if (sector >= geometry_.sector_count) return StorageResult::bad_geometry;
  return write_at(uint64_t{sector} * geometry_.sector_size, nullptr, geometry_.erased_value,
                  geometry_.sector_size);
}

}  // namespace tinyldp::port
