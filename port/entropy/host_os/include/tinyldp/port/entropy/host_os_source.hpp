// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/host_os_source.hpp — entropy from the host operating system (Linux
// getrandom(2), urandom pool). The default source for host tools and simulations.
//
// Blocking requests wait until the kernel pool is initialised (early boot only);
// TINYLDP_ENTROPY_NONBLOCKING answers not_ready instead. Interrupted calls are resumed; any
// other error is `failed`. Cost: a system call per fill (reports draw through a RandomBits
// buffer, so about one call per 32 bytes); no state.
#ifndef TINYLDP_PORT_HOST_OS_SOURCE_HPP
#define TINYLDP_PORT_HOST_OS_SOURCE_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/entropy.hpp"

namespace tinyldp::port {

class HostOsSource {
 public:
  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags);
  // The kernel's pool is treated as full entropy.
  uint16_t min_entropy_q8() const { return TINYLDP_ENTROPY_ESTIMATE_FULL; }
  // The same source for C callers.
  static tinyldp_entropy_source as_c_source();
};

// Every port is checked against its contract where it is declared.
static_assert(EntropySource<HostOsSource> && EntropyEstimating<HostOsSource>);

}  // namespace tinyldp::port

#endif
