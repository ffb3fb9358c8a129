# CPI of add, sub, slt, sltu, xor, or, and (reg+reg) and fence.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x1, 0x12345
    addi x1, x1, 1656
    lui x2, 0xfedcc
    addi x2, x2, -1384
    lui x3, 0x0
    addi x3, x3, 5
    lui x4, 0x80000
    addi x4, x4, 0
    add x5, x1, x2
    add x0, x1, x2
    sub x6, x1, x2
    sub x7, x0, x3
    slt x8, x2, x1
    slt x9, x1, x2
    sltu x10, x2, x1
    sltu x11, x0, x3
    xor x12, x1, x2
    or x13, x1, x2
    and x14, x1, x2
    add x15, x15, x15
    fence
    fence rw, rw
    fence iorw, iorw
    add x16, x4, x4
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
