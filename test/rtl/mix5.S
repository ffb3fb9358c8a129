# Additivity: 80 random instructions including shifts, console and SRAM accesses (seed 5).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, 527858757
    li x2, 1038467225
    li x3, 1904202612
    li x4, 639840853
    li x5, 1721854523
    li x6, -1661267722
    li x7, -1088461400
    li x8, 187951464
    li x9, 317574981
    li x10, -1216636254
    li x11, -947116003
    li x12, 1141282117
    li x13, 1276236631
    li x14, 504454731
    li x15, -1603314586
    and x14, x0, x6
    sh x5, 24(x30)
    lb x15, 4(x31)
    sb x12, 46(x30)
    slli x3, x4, 21
    beq x0, x10, 500f
    addi x16, x16, 1
500:
    auipc x14, 387497
    srl x8, x5, x1
    add x12, x11, x12
    sb x13, 0(x31)
    lb x14, 23(x28)
    sw x3, 44(x28)
    lw x6, 4(x31)
    lb x12, 55(x28)
    slti x4, x10, 736
    bgeu x2, x9, 501f
    addi x16, x16, 1
501:
    bgeu x2, x4, 502f
    addi x16, x16, 1
    addi x16, x16, 1
502:
    beq x5, x1, 503f
    addi x16, x16, 1
    addi x16, x16, 1
503:
    lw x15, 4(x31)
    sh x8, 18(x28)
    slt x15, x1, x15
    sb x4, 21(x30)
    srli x6, x4, 18
    lhu x8, 40(x30)
    srl x5, x9, x15
    lhu x2, 42(x30)
    lw x2, 44(x30)
    sltiu x13, x11, 929
    sb x8, 0(x31)
    bge x5, x0, 504f
    addi x16, x16, 1
    addi x16, x16, 1
504:
    blt x8, x14, 505f
    addi x16, x16, 1
    addi x16, x16, 1
505:
    auipc x6, 734097
    lh x14, 18(x30)
    sb x6, 0(x31)
    bne x2, x13, 506f
    addi x16, x16, 1
    addi x16, x16, 1
506:
    lw x9, 0(x28)
    sb x14, 23(x30)
    add x8, x7, x5
    lhu x2, 24(x30)
    sb x13, 0(x31)
    slli x11, x2, 23
    and x6, x12, x8
    slli x14, x3, 19
    sltiu x5, x10, -990
    slli x7, x11, 10
    lh x7, 10(x28)
    lui x14, 683759
    sh x4, 54(x28)
    srli x4, x15, 24
    srai x14, x5, 19
    srl x5, x13, x0
    bge x9, x4, 507f
507:
    sltiu x11, x14, -1721
    lhu x14, 34(x30)
    sb x15, 62(x30)
    blt x4, x9, 508f
    addi x16, x16, 1
508:
    lh x8, 38(x28)
    bgeu x10, x9, 509f
    addi x16, x16, 1
    addi x16, x16, 1
509:
    or x8, x11, x11
    lw x3, 56(x28)
    xori x15, x6, 1455
    sw x15, 48(x28)
    sb x9, 38(x30)
    or x12, x13, x9
    sll x15, x9, x4
    sra x12, x15, x10
    lbu x7, 34(x30)
    sltiu x13, x2, 1469
    addi x7, x15, -1046
    sh x3, 56(x30)
    lbu x3, 8(x30)
    sh x1, 8(x28)
    bltu x3, x12, 510f
510:
    or x7, x2, x10
    sb x15, 7(x28)
    lw x12, 36(x30)
    lw x9, 4(x31)
    lb x4, 4(x31)
    lhu x13, 48(x30)
    lb x3, 4(x30)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0x980eb273
    .word 0x3d13e9b6
    .word 0xe07e43d1
    .word 0x52c2e316
    .word 0xb99a0948
    .word 0xf3b8fd46
    .word 0x1db745e7
    .word 0xaa418d7d
    .word 0xd2129764
    .word 0x9ff2ba27
    .word 0x3c2a31ef
    .word 0x62c060bc
    .word 0xd4c300e7
    .word 0xa5dc1968
    .word 0xda00e4c6
    .word 0x847a4df6
1:  j 1b
