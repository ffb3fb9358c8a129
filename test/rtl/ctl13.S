# Additivity with control flow (seed 13): a 5-iteration loop over random blocks of ALU,
# shift, load/store (BRAM, SRAM, console), forward branches, calls (jal/jalr) and counter reads.
# EXIT value = rdinstret at the end.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, -1035050629
    li x2, 1005123725
    li x3, -1588222948
    li x4, -881942512
    li x5, -293860246
    li x6, -1517367605
    li x7, 1314461158
    li x8, 1401728461
    li x9, 1051193913
    li x10, 1929829377
    li x11, -1044931275
    li x12, 1502976610
    li x13, -1643426075
    li x14, 2085984805
    li x15, 820006544
    li x20, 5
100:
    sw x4, 20(x28)
    lh x4, 46(x30)
    jal x21, 900f
    xori x10, x15, -455
    auipc x6, 972351
    bne x13, x1, 200f
200:
    lui x14, 867153
    lui x14, 785920
    rdinstreth x12
    andi x14, x1, 748
    srai x5, x6, 7
    srli x2, x13, 21
    sb x20, 0(x31)
    sra x7, x9, x8
    lui x2, 11987
    sw x4, 60(x30)
    addi x11, x6, 1033
    rdcycleh x12
    bge x6, x8, 201f
    addi x16, x16, 1
    addi x16, x16, 1
201:
    slli x6, x7, 13
    bge x10, x12, 202f
202:
    xor x13, x1, x0
    andi x8, x15, -1546
    lbu x9, 6(x30)
    sh x5, 38(x30)
    sb x9, 16(x28)
    sb x14, 44(x30)
    rdcycleh x5
    rdinstret x12
    sb x20, 0(x31)
    add x6, x8, x6
    lw x14, 4(x31)
    lbu x7, 17(x28)
    rdcycleh x13
    rdcycleh x5
    add x15, x0, x5
    or x9, x8, x2
    slti x10, x9, -1273
    lhu x7, 34(x30)
    ori x13, x4, -2018
    rdcycleh x1
    slli x15, x7, 10
    bltu x4, x14, 203f
    addi x16, x16, 1
    addi x16, x16, 1
203:
    jal x21, 900f
    srai x1, x1, 11
    ori x2, x0, -1388
    jal x21, 900f
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
    .word 0xb0f94bb3
    .word 0x88193416
    .word 0xae5fdcbb
    .word 0x9e931932
    .word 0xa67ce511
    .word 0xc03750ba
    .word 0x39c88ec0
    .word 0x180c5db5
    .word 0x81060d35
    .word 0x9241b7ed
    .word 0xe8334ba1
    .word 0xa727a3ba
    .word 0x9bae401e
    .word 0xfe183d04
    .word 0x0341ea23
    .word 0x17c5da8e
1:  j 1b
