# Additivity with control flow (seed 12): a 5-iteration loop over random blocks of ALU,
# shift, load/store (BRAM, SRAM, console), forward branches, calls (jal/jalr) and counter reads.
# EXIT value = rdinstret at the end.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, -109218082
    li x2, 714727545
    li x3, -1535019803
    li x4, -537925359
    li x5, 1332934744
    li x6, 435754673
    li x7, 249924358
    li x8, -257462711
    li x9, -1450550792
    li x10, 1743640679
    li x11, 1369322020
    li x12, 1470611294
    li x13, 38336515
    li x14, 2092224555
    li x15, 1918617807
    li x20, 5
100:
    lw x7, 4(x31)
    lui x15, 839948
    bltu x15, x15, 200f
    addi x16, x16, 1
200:
    rdcycleh x1
    sb x12, 32(x30)
    srai x6, x11, 11
    srl x7, x13, x1
    and x4, x13, x1
    lbu x2, 35(x28)
    or x7, x8, x15
    sb x1, 26(x28)
    lbu x8, 21(x30)
    jal x21, 900f
    ori x13, x7, 751
    xori x4, x0, -1098
    rdcycleh x9
    lw x14, 4(x31)
    rdcycleh x9
    lhu x11, 36(x30)
    sltu x5, x10, x14
    lui x5, 57167
    sltiu x9, x8, -72
    srai x7, x15, 16
    and x7, x13, x2
    slli x10, x11, 10
    lui x12, 153073
    beq x6, x12, 201f
    addi x16, x16, 1
    addi x16, x16, 1
201:
    slti x5, x8, -312
    rdcycle x10
    bgeu x10, x2, 202f
    addi x16, x16, 1
202:
    ori x11, x2, -576
    sh x0, 56(x30)
    jal x21, 900f
    jal x21, 900f
    ori x1, x11, -399
    lui x7, 697334
    rdinstreth x8
    jal x21, 900f
    bgeu x12, x14, 203f
203:
    rdcycle x10
    sw x15, 36(x30)
    ori x8, x7, 2003
    and x7, x11, x9
    sb x20, 0(x31)
    addi x20, x20, -1
    bnez x20, 100b
    rdcycle x17
    rdinstret x18
    sw x18, 8(x31)
1:  j 1b
900:
    add x16, x16, x20
    xor x16, x16, x1
    jalr x0, 0(x21)
    .balign 4
data:
    .word 0x25f013ba
    .word 0x60e011eb
    .word 0xa8921644
    .word 0x56ffe58d
    .word 0xc4c7f5e9
    .word 0x7e1160e7
    .word 0xf09c9b1a
    .word 0x2ec5c4dc
    .word 0xc9ed87a2
    .word 0xd5f381d6
    .word 0xe33e30bc
    .word 0xb725f591
    .word 0xea3fcbe0
    .word 0xc553a16d
    .word 0xdf675139
    .word 0xdc0b005e
1:  j 1b
