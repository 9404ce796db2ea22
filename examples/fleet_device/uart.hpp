// SPDX-License-Identifier: Apache-2.0
// Where the fleet demo's UART bytes go on boards without a UART driver (uart.cpp).
#ifndef TINYLDP_EXAMPLES_FLEET_UART_HPP
#define TINYLDP_EXAMPLES_FLEET_UART_HPP

void fleet_uart_capture_path(const char* path);

#endif
