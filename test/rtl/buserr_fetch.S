# Bus error: jump to an unmapped address (0x00010000, just past the BRAM).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x5, 0x10
    nop
    jalr x0, 0(x5)
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
