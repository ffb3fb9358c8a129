# Back-to-back M instructions (mul/mulhu/div/divu/rem) and M followed by ALU.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x1, 0x1
    addi x1, x1, 564
    lui x2, 0x5
    addi x2, x2, 1656
    mul x3, x1, x2
    mul x4, x3, x2
    mulhu x5, x1, x2
    nop
    mul x6, x1, x2
    div x7, x3, x2
    divu x8, x3, x1
    rem x9, x3, x1
    mul x10, x1, x1
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
