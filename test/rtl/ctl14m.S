# Additivity with control flow and M instructions (seed 14).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x28, 0x40000
    li x1, 1891299130
    li x2, -1048936187
    li x3, 1005277327
    li x4, 680537650
    li x5, -846160206
    li x6, -443783326
    li x7, -1638961366
    li x8, 1724270823
    li x9, -1029064159
    li x10, -1504511745
    li x11, 704370583
    li x12, -1439036296
    li x13, 651539210
    li x14, -699795223
    li x15, -1790107984
    li x20, 5
100:
    bgeu x14, x3, 200f
    addi x16, x16, 1
    addi x16, x16, 1
200:
    sltu x10, x11, x5
    auipc x14, 949172
    slti x8, x9, -1056
    add x5, x8, x3
    srai x12, x13, 5
    bge x5, x12, 201f
    addi x16, x16, 1
201:
    jal x21, 900f
    sw x3, 48(x28)
    jal x21, 900f
    sw x15, 0(x28)
    auipc x7, 771650
    lb x6, 60(x30)
    lb x2, 24(x30)
    lw x1, 44(x30)
    lbu x2, 0(x30)
    xori x5, x8, -346
    sb x20, 0(x31)
    mulh x9, x5, x6
    jal x21, 900f
    rdtime x9
    mul x4, x13, x15
    and x5, x3, x4
    auipc x15, 1021371
    jal x21, 900f
    lhu x12, 16(x30)
    jal x21, 900f
    srai x1, x7, 2
    sw x14, 40(x28)
    remu x14, x11, x1
    or x7, x3, x1
    xor x1, x9, x1
    sw x0, 60(x28)
    lui x9, 569255
    addi x5, x0, 887
    mulhsu x14, x3, x12
    jal x21, 900f
    lbu x3, 56(x30)
    mul x15, x2, x14
    bgeu x13, x8, 202f
    addi x16, x16, 1
202:
    srli x13, x0, 15
    bne x3, x7, 203f
203:
    lb x14, 58(x30)
    lw x9, 4(x31)
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
    .word 0xbe88252d
    .word 0xa0044ac6
    .word 0x5f68ea2d
    .word 0xb0ee3b88
    .word 0x62732c50
    .word 0x9a3af75e
    .word 0x79149b23
    .word 0x592f4d47
    .word 0x4f84e683
    .word 0xa2f8efcd
    .word 0x46641b11
    .word 0xe775c7bd
    .word 0x88a586c0
    .word 0x2776c009
    .word 0x8561e79d
    .word 0xaeb9767a
1:  j 1b
