# Additivity with control flow (seed 11): a 5-iteration loop over random blocks of ALU,
# shift, load/store (BRAM, SRAM, console), forward branches, calls (jal/jalr) and counter reads.
# EXIT value = rdinstret at the end.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, -147531839
    li x2, 375314994
    li x3, 51147202
    li x4, 1258326099
    li x5, -1743226477
    li x6, -844385151
    li x7, 2071004980
    li x8, 1996119480
    li x9, 121896630
    li x10, -1891713581
    li x11, -154900306
    li x12, 1470713325
    li x13, 82137440
    li x14, 602548301
    li x15, -974295
    li x20, 5
100:
    jal x21, 900f
    rdcycleh x15
    rdtime x5
    and x7, x3, x9
    sltu x1, x0, x6
    jal x21, 900f
    or x10, x6, x8
    lb x6, 17(x30)
    addi x12, x3, 1760
    srai x11, x6, 12
    auipc x13, 244334
    blt x6, x0, 200f
    addi x16, x16, 1
    addi x16, x16, 1
200:
    lbu x15, 50(x30)
    lh x11, 26(x28)
    lhu x1, 8(x30)
    add x2, x6, x7
    lh x6, 60(x28)
    lh x3, 38(x28)
    sltiu x14, x7, -438
    jal x21, 900f
    srl x2, x3, x1
    lhu x4, 62(x30)
    lbu x9, 29(x30)
    jal x21, 900f
    ori x12, x0, 1322
    jal x21, 900f
    slti x5, x11, 918
    jal x21, 900f
    add x8, x11, x9
    sub x10, x2, x15
    sh x2, 46(x30)
    auipc x1, 178104
    lw x8, 4(x31)
    jal x21, 900f
    lbu x1, 14(x28)
    lhu x15, 58(x30)
    jal x21, 900f
    lb x10, 29(x30)
    auipc x2, 23712
    lh x3, 56(x30)
    jal x21, 900f
    bgeu x8, x6, 201f
    addi x16, x16, 1
201:
    xori x15, x6, 544
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
    .word 0x35bb8498
    .word 0x22720c54
    .word 0xfaf8dfcd
    .word 0xd26542ee
    .word 0x1ce262d6
    .word 0x78aa8105
    .word 0xecfcc396
    .word 0xd4b59c05
    .word 0x851d1a33
    .word 0xac11d871
    .word 0x9ff157b9
    .word 0x520235bc
    .word 0xd42779f5
    .word 0x9b88b1e5
    .word 0x5aadd0d2
    .word 0x9064dbd9
1:  j 1b
