# External SRAM window: reads cost +2+4 wait clocks (always a whole word), writes +2+2*bytes
# (sb +4, sh +6, sw +10), for lb/lbu/lh/lhu/lw/sb/sh/sw.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x28, 0x40000
    lui x1, 0x41424
    addi x1, x1, 836
    nop
    sw x1, 0(x28)        # SRAM: 4 bytes written
    lw x11, 0(x28)
    sh x1, 4(x28)        # 2 bytes
    sh x1, 6(x28)
    sb x1, 8(x28)        # 1 byte
    sb x1, 9(x28)
    sb x1, 10(x28)
    sb x1, 11(x28)
    lw x12, 4(x28)
    lh x13, 6(x28)
    lhu x14, 2(x28)
    lb x15, 8(x28)
    lbu x16, 11(x28)
    lw x17, 8(x28)
    lui x27, 0x40080
    addi x27, x27, -4
    sw x1, 0(x27)        # last SRAM word 0x4007fffc
    lw x18, 0(x27)
    nop
    sw x0, 8(x31)
1:  j 1b
1:  j 1b
