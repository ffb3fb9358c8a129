# Additivity: 80 random instructions including shifts (seed 4).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, -1133664809
    li x2, -446426455
    li x3, -1481882790
    li x4, -1861803471
    li x5, 1795103241
    li x6, 1138864728
    li x7, 157539438
    li x8, -1691429874
    li x9, 1835993865
    li x10, 1317061808
    li x11, 1290413637
    li x12, -1316683993
    li x13, -816688224
    li x14, 1632305552
    li x15, 454630388
    slli x9, x7, 30
    blt x9, x0, 500f
    addi x16, x16, 1
    addi x16, x16, 1
500:
    bge x6, x13, 501f
    addi x16, x16, 1
    addi x16, x16, 1
501:
    bne x14, x5, 502f
    addi x16, x16, 1
502:
    beq x1, x2, 503f
    addi x16, x16, 1
503:
    bne x15, x10, 504f
    addi x16, x16, 1
    addi x16, x16, 1
504:
    sw x13, 56(x30)
    bgeu x11, x13, 505f
    addi x16, x16, 1
    addi x16, x16, 1
505:
    lui x11, 129206
    sh x7, 22(x30)
    blt x0, x1, 506f
    addi x16, x16, 1
    addi x16, x16, 1
506:
    addi x15, x9, 596
    bltu x4, x13, 507f
    addi x16, x16, 1
    addi x16, x16, 1
507:
    sltiu x5, x6, -931
    bltu x5, x10, 508f
508:
    auipc x1, 760687
    bne x3, x14, 509f
    addi x16, x16, 1
509:
    sb x1, 21(x30)
    lw x10, 28(x30)
    auipc x1, 419978
    srl x4, x7, x14
    srl x1, x7, x13
    sh x13, 24(x30)
    sub x1, x8, x8
    sh x7, 18(x30)
    auipc x1, 84941
    sll x7, x2, x13
    lh x6, 52(x30)
    sh x8, 62(x30)
    addi x14, x8, 1186
    lbu x13, 59(x30)
    sll x12, x12, x12
    xor x4, x5, x0
    bne x12, x12, 510f
    addi x16, x16, 1
    addi x16, x16, 1
510:
    or x15, x6, x5
    lui x14, 165652
    xor x12, x3, x15
    blt x4, x1, 511f
511:
    add x5, x11, x2
    srl x7, x6, x9
    sb x15, 9(x30)
    xori x15, x11, 1591
    xori x11, x6, 1412
    slti x13, x5, -604
    lh x6, 0(x30)
    lw x1, 12(x30)
    sra x13, x15, x2
    sb x9, 23(x30)
    xor x11, x1, x10
    sra x13, x9, x14
    sra x7, x4, x8
    auipc x11, 173141
    lh x11, 24(x30)
    auipc x11, 376807
    lui x11, 630362
    and x10, x0, x2
    lui x13, 1038595
    andi x13, x3, 1877
    sw x9, 28(x30)
    srl x12, x7, x9
    sh x10, 50(x30)
    lui x5, 526979
    lhu x15, 48(x30)
    or x3, x2, x14
    auipc x10, 1013876
    sb x15, 30(x30)
    slti x5, x4, 1211
    beq x7, x5, 512f
512:
    slt x6, x2, x3
    or x15, x9, x5
    lb x11, 46(x30)
    sub x12, x4, x13
    sw x9, 8(x30)
    srai x3, x5, 25
    bne x12, x10, 513f
    addi x16, x16, 1
513:
    or x7, x0, x8
    sub x5, x4, x2
    slti x14, x0, -1978
    sra x15, x5, x14
    slli x6, x5, 30
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0xe9679cd3
    .word 0xe5ac6e61
    .word 0xa1c756f2
    .word 0xe54902a9
    .word 0xd58c4282
    .word 0xe4414ee7
    .word 0xe4a8765d
    .word 0xe21d9f3d
    .word 0xb2dff7a7
    .word 0x9acc664d
    .word 0x86ef8378
    .word 0x14dde0b7
    .word 0xb6a893b7
    .word 0x3ff7ce03
    .word 0x1243a0d2
    .word 0xe890f855
1:  j 1b
