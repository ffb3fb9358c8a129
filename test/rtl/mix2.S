# Additivity: 50 random ALU/load/store/branch instructions (seed 2); total clocks must
# equal the sum of the per-instruction CPIs.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, -1904597345
    li x2, -1782961187
    li x3, 1440956708
    li x4, -824047624
    li x5, 455026734
    li x6, 458709969
    li x7, 1930138874
    li x8, -2029608891
    li x9, -515331985
    li x10, 110607312
    li x11, 259890040
    li x12, -1133341320
    li x13, -2045013968
    li x14, -751005387
    li x15, 43911088
    bge x5, x14, 500f
    addi x16, x16, 1
    addi x16, x16, 1
500:
    blt x11, x11, 501f
    addi x16, x16, 1
501:
    andi x13, x12, -1
    sw x15, 56(x30)
    sw x14, 28(x30)
    lhu x14, 38(x30)
    lbu x13, 62(x30)
    bgeu x2, x10, 502f
502:
    ori x12, x3, -1648
    lw x10, 16(x30)
    lhu x4, 4(x30)
    sub x6, x11, x5
    lui x1, 53151
    slt x12, x0, x11
    ori x14, x5, -2033
    sb x1, 4(x30)
    slt x6, x3, x9
    sw x9, 4(x30)
    lhu x13, 28(x30)
    add x11, x10, x3
    sh x4, 40(x30)
    sltiu x14, x10, 1390
    auipc x1, 70372
    xori x3, x5, -151
    bne x1, x7, 503f
    addi x16, x16, 1
    addi x16, x16, 1
503:
    sw x8, 28(x30)
    bgeu x11, x8, 504f
    addi x16, x16, 1
504:
    lb x9, 49(x30)
    sb x3, 13(x30)
    add x1, x5, x7
    sltiu x1, x14, 1064
    xori x11, x6, -1874
    bltu x1, x13, 505f
    addi x16, x16, 1
    addi x16, x16, 1
505:
    sltiu x15, x3, -1889
    blt x3, x11, 506f
    addi x16, x16, 1
    addi x16, x16, 1
506:
    lb x5, 13(x30)
    lb x4, 52(x30)
    lui x8, 11174
    lb x1, 28(x30)
    sh x3, 58(x30)
    addi x13, x11, 34
    or x2, x2, x10
    sw x3, 60(x30)
    slt x12, x15, x9
    sh x11, 60(x30)
    auipc x12, 827686
    ori x3, x15, 1455
    lui x11, 746706
    addi x9, x4, -1343
    auipc x13, 819135
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0xae5c812f
    .word 0x70583376
    .word 0x8624857a
    .word 0x1cb0a312
    .word 0xc17a9f18
    .word 0x189d9439
    .word 0x84396eee
    .word 0x41dbd351
    .word 0xe517f271
    .word 0xb406f5fc
    .word 0xfec109fb
    .word 0x250f5218
    .word 0x985cadfb
    .word 0x2e304ca0
    .word 0x829a9993
    .word 0x7b826399
1:  j 1b
