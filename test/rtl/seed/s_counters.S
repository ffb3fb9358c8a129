# seed AXI: rdcycle and rdinstret (ENABLE_COUNTERS=1), compressed neighbours.
# Conventions: x31 = 0x80000000 (TPU MMIO; +0x70 = DONE), x30 = 0x90000000 (scratchpad window),
# x9 = 0x2000 (data in firmware RAM); sp = 0x4000 from STACKADDR. Built with -march=rv32ic_zmmul.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x80000
    lui x30, 0x90000
    lui x9, 0x2
    .option rvc
    .option norvc
    rdcycle x10
    rdinstret x11
    .option rvc
    c.nop
    .option norvc
    rdcycle x12
    .option rvc
    c.nop
    c.nop
    .option norvc
    rdinstret x13
    sub x14, x12, x10
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
