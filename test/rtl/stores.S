# CPI of sb/sh/sw to BRAM (all byte lanes), data-handshake offsets and wstrb, read back with lw.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x1, 0x11223
    addi x1, x1, 836
    lui x2, 0xa5b6c
    addi x2, x2, 2008
    sb x1, 0(x30)
    sb x2, 1(x30)
    sb x1, 2(x30)
    sb x2, 3(x30)
    sh x1, 4(x30)
    sh x2, 6(x30)
    sw x1, 8(x30)
    sw x2, 12(x30)
    sw x0, 16(x30)
    sh x0, 20(x30)
    sb x0, 24(x30)
    lw x3, 0(x30)
    lw x4, 4(x30)
    lw x5, 8(x30)
    lw x6, 12(x30)
    sw x2, 0(x30)
    sw x2, 4(x30)
    sh x1, 2(x30)
    sb x1, 1(x30)
    lw x7, 0(x30)
    lw x8, 4(x30)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data:
    .word 0x01010101, 0x02020202, 0x03030303, 0x04040404, 0x05050505, 0x06060606, 0x07070707
1:  j 1b
