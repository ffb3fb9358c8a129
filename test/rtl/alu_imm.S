# CPI of lui, auipc, addi, slti, sltiu, xori, ori, andi (and nop = addi x0,x0,0).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    nop
    nop
    nop
    lui x1, 0x12345
    lui x2, 0xfffff
    auipc x3, 0
    auipc x4, 0x80000
    addi x5, x1, 0x678
    addi x6, x0, -1
    addi x0, x0, 0
    slti x7, x6, 0
    slti x8, x1, -5
    sltiu x9, x6, 5
    sltiu x10, x0, 1
    xori x11, x1, -1
    xori x12, x6, 0x555
    ori x13, x1, 0x0f0
    ori x14, x0, -2048
    andi x15, x6, 0x7ff
    andi x16, x1, -16
    addi x17, x17, 1
    addi x17, x17, 1
    addi x17, x17, 1
    sw x0, 8(x31)          # EXIT
1:  j 1b
