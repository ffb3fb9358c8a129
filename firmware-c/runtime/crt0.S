/* Start-up code, placed at address 0 (PROGADDR_RESET) by link.ld.
 * Registers come out of reset undefined (the emulator gives 0), so set up
 * gp and sp before any C runs. .data lives in BRAM at its load address, so
 * there is nothing to copy; only .bss is cleared.
 */
#include "platform.h"

	.section .text.init, "ax"
	.globl _start
_start:
	/* gp-relative addressing is set up by the linker, so la gp must not be
	 * relaxed into an access through gp itself. */
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	sp, __stack_top

	/* Zero .bss a word at a time; link.ld keeps both ends 4-byte aligned. */
	la	t0, __bss_start
	la	t1, __bss_end
	bgeu	t0, t1, 2f
1:	sw	zero, 0(t0)
	addi	t0, t0, 4
	bltu	t0, t1, 1b
2:
	li	a0, 0		/* argc */
	li	a1, 0		/* argv */
	call	main

	/* main's return value becomes the emulator's exit status. */
	li	t0, SIM_EXIT_ADDR
	sw	a0, 0(t0)
	/* EXIT halts the machine; spin in case it ever does not. */
3:	j	3b
