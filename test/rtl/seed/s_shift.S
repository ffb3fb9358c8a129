# seed AXI with BARREL_SHIFTER: immediate and register shifts, compressed and 32-bit.
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
    c.li x8, -13
    c.li x10, 9
    c.slli x8, 5
    c.srli x8, 3
    c.srai x8, 1
    .option norvc
    slli x11, x8, 31
    srli x12, x8, 17
    srai x13, x8, 9
    sll x14, x8, x10
    srl x15, x8, x10
    sra x5, x8, x10
    .option rvc
    c.nop
    .option norvc
    sll x6, x8, x10
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
