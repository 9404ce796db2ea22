// SPDX-License-Identifier: Apache-2.0
// tinyldp keys: the factory's step of authenticated reports — each device's 32-byte report key,
// derived from the fleet secret (gate::FleetSecret::device_key, the derivation the gate checks
// tags with), written to a file for the provisioning station to load into each device
// (port/auth/report_auth's provision). docs/gate.md "Provisioning".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

#include "cli_common.hpp"
#include "tinyldp/gate/authenticated_report.hpp"
#include "tinyldp/wipe.hpp"

namespace tinyldp::tools {
namespace {

struct KeysOptions {
  std::string fleet_secret, devices, output;
};

// One file holds at most this many keys (512 MiB): a factory provisions a batch at a time.
constexpr std::uint64_t max_devices_per_file = std::uint64_t{1} << 24;

void write_all(int fd, const std::uint8_t* bytes, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, bytes, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw BadInput("cannot write " + path + ": " + std::strerror(errno));
    bytes += w;
    n -= static_cast<std::size_t>(w);
  }
}

int run(const KeysOptions& o) {
  std::string error;
  const auto secret = gate::FleetSecret::read(o.fleet_secret, error);
  if (!secret) throw BadInput(error);
  const auto [first, last] = device_range("--devices", o.devices);
  const std::uint64_t count = std::uint64_t{last} - first + 1;
  if (count > max_devices_per_file)
    throw BadInput("--devices " + o.devices + ": " + std::to_string(count) + " devices; at most " +
                   std::to_string(max_devices_per_file) + " per file");
  // Written beside the output and renamed into place when complete and on disk: a file of that
  // name is always whole. Owner-only: the keys are as secret as the fleet secret.
  const std::string partial = o.output + ".partial";
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw BadInput("cannot create " + partial + ": " + std::strerror(errno));
  std::vector<std::uint8_t> buffer;  // keys on their way to the file: wiped after each write
  buffer.reserve(32 * 4096);
  try {
    for (std::uint64_t id = first; id <= last; ++id) {
      gate::Key key = secret->device_key(static_cast<std::uint32_t>(id));
      buffer.insert(buffer.end(), key.begin(), key.end());
      tinyldp::wipe(key.data(), key.size());
      if (buffer.size() == buffer.capacity() || id == last) {
        write_all(fd, buffer.data(), buffer.size(), partial);
        tinyldp::wipe(buffer.data(), buffer.size());
        buffer.clear();
      }
    }
    if (::fsync(fd) != 0) throw BadInput("cannot sync " + partial + ": " + std::strerror(errno));
  } catch (...) {
    tinyldp::wipe(buffer.data(), buffer.size());
    ::close(fd);
    std::remove(partial.c_str());
    throw;
  }
  if (::close(fd) != 0 || std::rename(partial.c_str(), o.output.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(partial.c_str());
    throw BadInput("cannot write " + o.output + ": " + why);
  }
  std::cerr << "tinyldp: " << count << " device key(s) (devices " << first << "-" << last << ", 32 bytes each, in id order) written to "
            << o.output << "; they are as secret as the fleet secret: load each into its device and delete the file\n";
  return 0;
}

}  // namespace

Subcommand add_keys(CLI::App& app) {
  auto o = std::make_shared<KeysOptions>();
  auto* k = app.add_subcommand("keys", "the factory's step: derive devices' report keys from the fleet secret, 32 bytes each, to a file");
  k->add_option("--fleet-secret", o->fleet_secret, "the fleet's 32-byte secret (as given to tinyldp gate)")->required();
  k->add_option("--devices", o->devices, "a device id or FIRST-LAST")->required();
  k->add_option("-o,--output", o->output, "the key file (written whole or not at all; mode 0600)")->required();
  return {k, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
