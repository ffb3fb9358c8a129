# CPI of lb/lbu/lh/lhu/lw from BRAM, and the clock of each data handshake relative to the
# load's own fetch handshake.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    nop
    lb x1, 0(x30)
    lb x2, 1(x30)
    lb x3, 2(x30)
    lb x4, 3(x30)
    lb x5, 5(x30)
    lbu x1, 0(x30)
    lbu x2, 1(x30)
    lbu x3, 2(x30)
    lbu x4, 3(x30)
    lbu x5, 7(x30)
    lh x1, 0(x30)
    lh x2, 2(x30)
    lh x3, 6(x30)
    lhu x1, 0(x30)
    lhu x2, 2(x30)
    lhu x3, 4(x30)
    lw x1, 0(x30)
    lw x2, 4(x30)
    lw x3, 8(x30)
    lw x0, 0(x30)
    lw x9, 8(x30)
    lw x9, -4(x30)
    addi x12, x30, 16
    lw x13, -16(x12)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
    .word 0x0badf00d
data:
    .word 0x8281f0ff, 0x7f80fe01, 0x11223344, 0xcafebabe
1:  j 1b
