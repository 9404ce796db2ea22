/* SPDX-License-Identifier: Apache-2.0 */
/* Reset code for QEMU's RISC-V virt machine (-bios none starts here, at 0x80000000, in M-mode).
 * The ELF is loaded straight into RAM, so .data needs no copy; .bss is zeroed, traps end the
 * program through rv_trap_handler (exit code 3), static constructors run, then main(). */
  .section .text.start, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, _estack
  la t0, rv_trap_entry
  .option push
  .option arch, +zicsr
  csrw mtvec, t0
  .option pop
  la t0, _sbss
  la t1, _ebss
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  la s0, __init_array_start
  la s1, __init_array_end
3:
  bgeu s0, s1, 4f
  lw t0, 0(s0)
  jalr t0
  addi s0, s0, 4
  j 3b
4:
  call main
  call tinyldp_board_exit

  .balign 4
rv_trap_entry:
  la sp, _estack
  call rv_trap_handler
5:
  j 5b
