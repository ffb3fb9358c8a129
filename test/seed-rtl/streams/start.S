/* Reset stub for the seed board fixtures (ours; the seed publishes none). Per the seed's
 * fw/README.md: "Reset entry (gp/sp, zero .bss, main, raise done)". sp is also
 * preset by picorv32's STACKADDR parameter (0x4000 = top of the 16 KB RAM). */
    .section .text.start
    .globl _start
_start:
    .option push
    .option norelax
    la   gp, __global_pointer$
    .option pop
    li   sp, 0x4000
    la   t0, __bss_start
    la   t1, __bss_end
1:  bgeu t0, t1, 2f
    sw   zero, 0(t0)
    addi t0, t0, 4
    j    1b
2:  call main
    li   t0, 0x80000070     /* TPU_DONE (cpu_subsys.sv MMIO_DONE) */
    sw   a0, 0(t0)
3:  j    3b
