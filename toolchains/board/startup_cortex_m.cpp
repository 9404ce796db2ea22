// SPDX-License-Identifier: Apache-2.0
// Reset code and vector table for the Cortex-M test boards: copy .data, zero .bss, enable the
// FPU on hard-float builds, run static constructors, call main() and report its result.
// Every fault ends the program with exit code 3 so a crash can never look like a pass.
#include "board.h"
#include <stdint.h>

extern "C" {
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();
int main();
void Reset_Handler();
void Fault_Handler();
}

constexpr int fault_exit_code = 3;

extern "C" void Fault_Handler() {
  static const char message[] = "fatal: processor fault\n";
  tinyldp_board_write(message, sizeof message - 1);
  tinyldp_board_exit(fault_exit_code);
}

extern "C" void Reset_Handler() {
  for (uint32_t *src = &_sidata, *dst = &_sdata; dst < &_edata;) *dst++ = *src++;
  for (uint32_t* dst = &_sbss; dst < &_ebss;) *dst++ = 0;
#if defined(__ARM_FP)
  // CPACR: full access to CP10 and CP11, then synchronise before the first FP instruction.
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88u) |= 0xFu << 20;
  asm volatile("dsb\n isb" ::: "memory");
#endif
  for (auto f = __init_array_start; f < __init_array_end; ++f) (*f)();
  tinyldp_board_exit(main());
}

using Vector = void (*)();
__attribute__((section(".isr_vector"), used)) const Vector vector_table[16] = {
    reinterpret_cast<Vector>(&_estack),  // initial stack pointer
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    nullptr, nullptr, nullptr, nullptr,
    Fault_Handler,  // SVCall
    Fault_Handler,  // DebugMonitor
    nullptr,
    Fault_Handler,  // PendSV
    Fault_Handler,  // SysTick
};
