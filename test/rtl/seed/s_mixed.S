# seed AXI: compressed and 32-bit instructions interleaved, some 32-bit ones straddling.
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
    c.li x8, 1
    .option norvc
    addi x10, x8, 100
    .option rvc
    c.addi x8, 1
    c.addi x8, 1
    .option norvc
    addi x11, x10, 1
    addi x12, x11, 1
    .option rvc
    c.nop
    .option norvc
    add x13, x12, x8
    .option rvc
    c.mv x14, x13
    c.nop
    .option norvc
    lui x15, 0x12345
    .option rvc
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
