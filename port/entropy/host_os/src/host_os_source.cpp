// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/port/entropy/host_os_source.hpp"

#include <errno.h>
#include <sys/random.h>

namespace tinyldp::port {

EntropyResult HostOsSource::fill(uint8_t* out, size_t length, uint32_t flags) {
  if ((flags & TINYLDP_ENTROPY_FROM_ISR) != 0) return EntropyResult::not_supported;
  const unsigned os_flags = (flags & TINYLDP_ENTROPY_NONBLOCKING) != 0 ? GRND_NONBLOCK : 0u;
  size_t done = 0;
  while (done < length) {
    const ssize_t n = getrandom(out + done, length - done, os_flags);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return EntropyResult::not_ready;
    } else {
      return EntropyResult::failed;
    }
  }
  return EntropyResult::ok;
}

namespace {
tinyldp_entropy_result fill_c(void* /*context*/, uint8_t* out, size_t length, uint32_t flags) {
  HostOsSource source;
  return static_cast<tinyldp_entropy_result>(source.fill(out, length, flags));
}
}  // namespace

tinyldp_entropy_source HostOsSource::as_c_source() { return {&fill_c, nullptr}; }

}  // namespace tinyldp::port
