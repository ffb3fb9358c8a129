/* Start code of our own seed-board programs: the run pulse releases the core
 * at 0 with sp = 0x4000 already (STACKADDR); clear .bss, call main, then
 * store DONE (0x8000_0070), which ends the run, and park. */

  .section .text.init, "ax"
  .globl _start
_start:
  la    sp, __stack_top
  la    t0, __bss_start
  la    t1, __bss_end
1:
  bgeu  t0, t1, 2f
  sw    zero, 0(t0)
  addi  t0, t0, 4
  j     1b
2:
  call  main
  li    t0, 0x80000070
  sw    a0, 0(t0)
3:
  j     3b
