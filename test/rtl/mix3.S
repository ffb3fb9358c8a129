# Additivity: 50 random ALU/load/store/branch instructions (seed 3); total clocks must
# equal the sum of the per-instruction CPIs.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, 189963082
    li x2, 446333181
    li x3, 1449418665
    li x4, -1141039821
    li x5, -101562192
    li x6, -1500591035
    li x7, 579222143
    li x8, 99562544
    li x9, 1036168857
    li x10, -1872470703
    li x11, 391269738
    li x12, 1569927520
    li x13, 1626988600
    li x14, 1808605022
    li x15, 1870830728
    lhu x2, 26(x30)
    lhu x11, 48(x30)
    blt x13, x7, 500f
    addi x16, x16, 1
    addi x16, x16, 1
500:
    or x14, x8, x5
    lw x9, 32(x30)
    lhu x2, 10(x30)
    lbu x13, 2(x30)
    lb x7, 5(x30)
    sw x10, 28(x30)
    add x5, x0, x2
    bge x1, x6, 501f
    addi x16, x16, 1
501:
    blt x4, x1, 502f
    addi x16, x16, 1
502:
    lhu x3, 48(x30)
    auipc x14, 498358
    lw x7, 40(x30)
    add x13, x13, x10
    sw x4, 40(x30)
    sw x11, 60(x30)
    slt x10, x1, x0
    lw x11, 40(x30)
    sltiu x6, x5, 115
    lb x13, 16(x30)
    lbu x9, 41(x30)
    addi x11, x13, 589
    lbu x11, 10(x30)
    lh x12, 28(x30)
    and x1, x6, x10
    bgeu x8, x10, 503f
503:
    blt x4, x13, 504f
    addi x16, x16, 1
    addi x16, x16, 1
504:
    lh x8, 52(x30)
    bne x1, x13, 505f
505:
    add x8, x13, x7
    lui x8, 142748
    beq x3, x7, 506f
506:
    lui x9, 27566
    sw x3, 36(x30)
    addi x11, x0, -1118
    lb x3, 45(x30)
    slti x4, x3, -87
    lhu x15, 50(x30)
    slt x13, x8, x7
    bge x13, x1, 507f
    addi x16, x16, 1
507:
    add x14, x1, x4
    add x1, x2, x15
    lui x2, 659721
    xor x6, x12, x12
    lh x6, 54(x30)
    and x3, x0, x12
    slt x10, x5, x1
    sw x12, 52(x30)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0x0d95a701
    .word 0xa0a0304d
    .word 0x50a078d8
    .word 0x6b153e7a
    .word 0x0496be39
    .word 0x9703d20d
    .word 0xcd9a68b4
    .word 0x3974f660
    .word 0x535838c4
    .word 0xdecf5508
    .word 0x1f17692a
    .word 0xb0c83cf5
    .word 0x882f45f9
    .word 0xb771eb29
    .word 0x793a6af9
    .word 0x63801bf2
1:  j 1b
