// SPDX-License-Identifier: Apache-2.0
// The fleet demo's firmware (scripts/demo): one QEMU run plays one round of a fleet of devices
// (device.hpp), one after another. Each device's flash (its memo key, its privacy ledger and its
// report key with the report counter, 768 bytes) lives in a file on the host, loaded before the device boots and written back
// after its report — the next run (a reboot: a fresh QEMU process) finds it as the device
// left it. Each device reports one value, read from a file of one byte per device, over the
// UART. A device without a flash image yet is new from the factory: it is provisioned first,
// its report key read from KEYS (32 bytes per device in id order: `tinyldp keys`; device d is
// id d). At the end it prints the round's summary: reports sent, budget refusals, and the
// devices' ledgers (epsilon spent in this epoch and over their lives).
//
// Command line (semihosting on the boards, argv on the host):
//   fleet_device FLASH VALUES ROUND DEVICES KEYS [CAPTURE]
// CAPTURE: where the UART bytes go on boards without a UART driver (and on the host).
#include "board.h"
#include "device.hpp"
#include "example_print.hpp"
#include "tinyldp/port/entropy/health_tests.hpp"
#include "tinyldp/wipe.hpp"
#include "uart.hpp"

namespace {
using example::print;
using example::print_uint;

// The command line's words, in place (NUL-separated).
[[maybe_unused]] int split(char* line, char** words, int max_words) {
  int n = 0;
  for (char* p = line; *p != '\0' && n < max_words;) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    words[n++] = p;
    while (*p != '\0' && *p != ' ') ++p;
  }
  return n;
}

uint32_t number(const char* s) {
  uint32_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) v = v * 10u + static_cast<uint32_t>(*s - '0');
  return v;
}

void print_epsilon(tinyldp::Epsilon e) {  // to three decimals
  const uint64_t thousandths = (e.q32 * 1000u + (uint64_t{1} << 31)) >> 32;
  print_uint(thousandths / 1000);
  const char digits[5] = {'.', static_cast<char>('0' + thousandths / 100 % 10),
                          static_cast<char>('0' + thousandths / 10 % 10), static_cast<char>('0' + thousandths % 10), 0};
  print(digits);
}

tinyldp::port::ChaCha20Drbg drbg;    // one device at a time: re-seeded at every boot
tinyldp::port::ChaCha20Drbg fleet_rng;  // seeded once from the TRNG: the devices' seeds
uint8_t flash_image[fleet::flash_bytes];

// The TRNG through the health tests, as in device.cpp.
struct Trng {
  tinyldp::EntropyResult fill(uint8_t* out, size_t length, uint32_t) {
    return static_cast<tinyldp::EntropyResult>(platform_trng_fill(out, length));
  }
  uint16_t min_entropy_q8() const { return TINYLDP_ENTROPY_ESTIMATE_FULL; }
};

int run(int argc, char** argv) {
  if (argc < 6) {
    print("usage: fleet_device FLASH VALUES ROUND DEVICES KEYS [CAPTURE]\n");
    return 2;
  }
  const char* flash_path = argv[1];
  const char* values_path = argv[2];
  const uint32_t round = number(argv[3]), devices = number(argv[4]);
  const char* keys_path = argv[5];
  if (argc > 6) fleet_uart_capture_path(argv[6]);
  {
    Trng raw;
    tinyldp::port::HealthTested<Trng> checked(raw, tinyldp::port::HealthPlan::make(tinyldp::port::HealthConfig{}));
    if (fleet_rng.seed(checked) != tinyldp::EntropyResult::ok) {
      print("fleet_device: the TRNG failed its health tests; nothing sent\n");
      return 1;
    }
  }
  const tinyldp::CEntropySource device_seeds(tinyldp::to_c_source(fleet_rng), TINYLDP_ENTROPY_ESTIMATE_FULL);
  uint32_t sent = 0, refused = 0, failed = 0, charged = 0;
  uint64_t most_spent = 0, most_lifetime = 0, total_lifetime = 0;
  for (uint32_t d = 0; d < devices; ++d) {
    uint8_t value = 0;
    if (tinyldp_board_file_read(values_path, d, &value, 1) != 1) {
      print("fleet_device: no value for device ");
      print_uint(d);
      print("\n");
      return 2;
    }
    const long got = tinyldp_board_file_read(flash_path, size_t{d} * fleet::flash_bytes, flash_image, sizeof flash_image);
    if (got < 0) return 2;
    for (size_t i = static_cast<size_t>(got); i < sizeof flash_image; ++i) flash_image[i] = 0xFF;  // never written: erased
    drbg.wipe();
    fleet::Flash flash(flash_image, fleet::flash_geometry, d + 1);
    fleet::Device device(drbg, flash);
    fleet::Result r = fleet::Result::ok;
    if (got == 0) {  // a device new from the factory (no flash image yet): provisioned there
      uint8_t report_key[tinyldp::port::device_key_bytes];
      if (tinyldp_board_file_read(keys_path, size_t{d} * sizeof report_key, report_key, sizeof report_key) !=
          static_cast<long>(sizeof report_key)) {
        print("fleet_device: no report key for device ");
        print_uint(d);
        print(" in the keys file\n");
        return 2;
      }
      r = device.provision(device_seeds, d, report_key);
      tinyldp::wipe(report_key, sizeof report_key);
      drbg.wipe();
    }
    if (r == fleet::Result::ok) r = device.boot(device_seeds, round);
    if (r == fleet::Result::ok) r = device.report(value);
    if (r == fleet::Result::ok) ++sent;
    else if (r == fleet::Result::budget_exhausted) ++refused;
    else ++failed;
    if (device.ledger().is_open()) {
      if (device.ledger().spent().q32 > most_spent) most_spent = device.ledger().spent().q32;
      if (device.ledger().spent().q32 > 0) ++charged;
      if (device.ledger().lifetime().q32 > most_lifetime) most_lifetime = device.ledger().lifetime().q32;
      total_lifetime += device.ledger().lifetime().q32 / devices;
    }
    if (tinyldp_board_file_write(flash_path, size_t{d} * fleet::flash_bytes, flash_image, sizeof flash_image) != 0) {
      print("fleet_device: cannot write the flash file\n");
      return 2;
    }
  }
  print("fleet_device: round ");
  print_uint(round);
  print(": ");
  print_uint(sent);
  print(" reports sealed and sent, ");
  print_uint(refused);
  print(" refused by the ledger (epoch budget spent), ");
  print_uint(failed);
  print(" failed; ");
  print_uint(charged);
  print(" devices spent budget this epoch (a new value), the others re-used their memo\n");
  print("fleet_device: epsilon per report ");
  print_epsilon(fleet::mechanism.epsilon_one());
  print(", per memoized value ");
  print_epsilon(fleet::mechanism.epsilon_infinity());
  print("; ledgers: most spent this epoch ");
  print_epsilon(tinyldp::Epsilon{most_spent});
  print(" (cap ");
  print_epsilon(fleet::epoch_cap);
  print("), over the devices' lives ");
  print_epsilon(tinyldp::Epsilon{total_lifetime});
  print(" on average, ");
  print_epsilon(tinyldp::Epsilon{most_lifetime});
  print(" at most\n");
  return failed == 0 ? 0 : 1;
}
}  // namespace

#if defined(__arm__) || defined(__riscv)
int main() {
  static char line[512];
  if (tinyldp_board_command_line(line, sizeof line) != 0) return 2;
  char* words[8];
  return run(split(line, words, 8), words);
}
#else
int main(int argc, char** argv) { return run(argc, argv); }
#endif
