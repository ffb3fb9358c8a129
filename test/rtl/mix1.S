# Additivity: 50 random ALU/load/store/branch instructions (seed 1); total clocks must
# equal the sum of the per-instruction CPIs.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, 1132903364
    li x2, -1051970500
    li x3, -216934237
    li x4, 651086875
    li x5, 1240057366
    li x6, -1744359796
    li x7, 1442100146
    li x8, -234560211
    li x9, 1912423074
    li x10, 1724117817
    li x11, -2016100644
    li x12, 177865246
    li x13, -1146393543
    li x14, -2055186059
    li x15, 611149651
    andi x11, x9, 677
    auipc x12, 595925
    bltu x15, x12, 500f
500:
    sw x12, 20(x30)
    lhu x9, 12(x30)
    xori x9, x12, -1806
    sw x9, 20(x30)
    slti x9, x7, -147
    sh x11, 34(x30)
    lui x9, 430933
    sw x15, 24(x30)
    bge x15, x11, 501f
    addi x16, x16, 1
501:
    xor x9, x10, x14
    xor x13, x7, x5
    beq x2, x8, 502f
    addi x16, x16, 1
    addi x16, x16, 1
502:
    add x2, x0, x14
    lw x4, 20(x30)
    lbu x5, 32(x30)
    bge x8, x9, 503f
    addi x16, x16, 1
    addi x16, x16, 1
503:
    lb x8, 39(x30)
    sh x13, 12(x30)
    lb x15, 28(x30)
    or x7, x4, x1
    andi x8, x13, 1645
    andi x9, x0, 583
    auipc x11, 263577
    addi x15, x1, -1422
    lhu x15, 32(x30)
    ori x1, x1, 1727
    slti x14, x1, 794
    sltu x4, x13, x6
    xor x11, x12, x9
    sh x10, 2(x30)
    sltiu x4, x10, 1468
    ori x5, x3, 768
    lui x9, 84725
    xor x3, x5, x5
    sltiu x5, x10, 727
    lw x2, 60(x30)
    addi x10, x3, 1282
    slt x7, x4, x4
    xor x10, x12, x2
    blt x2, x8, 504f
    addi x16, x16, 1
504:
    blt x3, x14, 505f
505:
    xor x14, x9, x0
    lui x1, 83935
    addi x4, x13, 1645
    andi x11, x7, -1206
    sw x12, 32(x30)
    lui x8, 665670
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0x0a248cff
    .word 0x98b8da9f
    .word 0x732902f4
    .word 0x50332cb8
    .word 0x101e75eb
    .word 0xe9d40f2b
    .word 0xf8449560
    .word 0x1c823d9e
    .word 0xb02d3504
    .word 0xa96dfb2c
    .word 0x425375be
    .word 0x8aa67235
    .word 0x4eac98d6
    .word 0x3f12d68e
    .word 0x47e1a38b
    .word 0x72a9b8a4
1:  j 1b
