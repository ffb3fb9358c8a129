# A counted loop of 1000 iterations (add, addi, bnez taken): total clocks.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    li x1, 1000
    li x2, 0
2:  add x2, x2, x1
    addi x1, x1, -1
    bnez x1, 2b
    sw x2, 8(x31)          # EXIT
1:  j 1b
