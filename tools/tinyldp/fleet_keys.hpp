// SPDX-License-Identifier: Apache-2.0
// The memo keys of a simulated fleet (tinyldp simulate and tinyldp joint simulate).
#ifndef TINYLDP_TOOLS_FLEET_KEYS_HPP
#define TINYLDP_TOOLS_FLEET_KEYS_HPP

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "cli_common.hpp"
#include "tinyldp/endian.hpp"
#include "tinyldp/port/entropy/chacha20.hpp"
#include "tinyldp/port/entropy/host_os_source.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"

namespace tinyldp::tools {

// The fleet's devices' memo keys (memoized mechanisms): device i's 32-byte secret is block i of
// ChaCha20 under the fleet's master key — from --fleet-key FILE (32 bytes, created from the
// OS's randomness if missing, so that later runs continue the same fleet), else derived from
// --seed, else fresh from the OS for this run only.
class FleetKeys {
 public:
  FleetKeys(const std::optional<std::string>& fleet_key, const std::optional<std::uint64_t>& seed) {
    std::uint8_t master[32] = {};
    if (fleet_key) {
      std::ifstream in(*fleet_key, std::ios::binary);
      if (in) {
        in.read(reinterpret_cast<char*>(master), sizeof master);
        if (in.gcount() != static_cast<std::streamsize>(sizeof master) || in.peek() != EOF)
          throw BadInput(*fleet_key + ": not a fleet key (32 bytes)");
      } else {
        fresh(master);
        std::ofstream out(*fleet_key, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(master), sizeof master);
        if (!out.flush()) throw BadInput("cannot write " + *fleet_key + ": " + std::strerror(errno));
      }
    } else if (seed) {
      put_le(master, *seed);
    } else {
      fresh(master);
    }
    for (std::size_t i = 0; i < 8; ++i) master_[i] = get_le<std::uint32_t>(master + 4 * i);
  }
  port::MemoKey device(std::uint32_t i) const {
    const std::uint32_t nonce[3] = {i, 0x666C6565u /* "leef" */, 0};
    std::uint8_t secret[64];
    port::chacha20_block(master_, 0, nonce, secret);
    port::MemoKey key;
    key.set(secret, 0);
    return key;
  }

 private:
  static void fresh(std::uint8_t* out) {
    port::HostOsSource os;
    if (os.fill(out, 32, TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok)
      throw BadInput("the OS gave no randomness for the fleet key");
  }
  std::uint32_t master_[8] = {};
};

// Runs privatize(source) with the deterministic test source from --seed (warning that the
// reports are not private) or with the OS's randomness.
template <class Privatize>
void with_simulation_source(const std::optional<std::uint64_t>& seed, Privatize privatize) {
  if (seed) {
    std::cerr << "tinyldp: WARNING: --seed uses the deterministic test source; these reports are "
                 "NOT private (anyone with the seed can remove the noise). Simulation only.\n";
    port::InsecureTestSource source(*seed);
    privatize(source);
  } else {
    port::HostOsSource source;
    privatize(source);
  }
}

}  // namespace tinyldp::tools

#endif
