// SPDX-License-Identifier: Apache-2.0
// The fleet device's UART. On the micro:bit, the nRF51's UART0 (QEMU sends its bytes to the
// character device given with -serial, e.g. -serial file:capture.bin). Boards without a UART
// driver here (mps2, virt) and the host append the bytes to the file named by
// fleet_uart_capture_path, as a capture of the line would be.
#include "device.hpp"
#include "uart.hpp"

#include "board.h"

namespace {
const char* capture_path = nullptr;
size_t capture_offset = 0;
bool uart_started = false;

#if defined(TINYLDP_BOARD_MICROBIT)
volatile uint32_t& reg(uint32_t offset) { return *reinterpret_cast<volatile uint32_t*>(0x40002000u + offset); }
constexpr uint32_t tasks_starttx = 0x008, events_txdrdy = 0x11C, enable = 0x500, txd = 0x51C,
                   baudrate = 0x524;
#endif
}  // namespace

void fleet_uart_capture_path(const char* path) { capture_path = path; }

extern "C" void platform_uart_send(const uint8_t* bytes, size_t length) {
#if defined(TINYLDP_BOARD_MICROBIT)
  (void)capture_path;
  (void)capture_offset;
  if (!uart_started) {
    reg(enable) = 4;
    reg(baudrate) = 0x01D7E000u;  // 115200 baud
    reg(tasks_starttx) = 1;
    uart_started = true;
  }
  for (size_t i = 0; i < length; ++i) {
    reg(events_txdrdy) = 0;
    reg(txd) = bytes[i];
    while (reg(events_txdrdy) == 0) {
    }
  }
#else
  (void)uart_started;
  if (capture_path == nullptr) return;
  if (tinyldp_board_file_write(capture_path, capture_offset, bytes, length) == 0) capture_offset += length;
#endif
}
