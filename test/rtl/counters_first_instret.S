# rdinstret as the very first instruction, then rdcycle, rdinstreth, rdcycleh.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    rdinstret x1         # very first instruction
    rdcycle x2
    rdinstreth x3
    rdcycleh x4
    lui x31, 0x10000
    sw x1, 8(x31)
1:  j 1b
1:  j 1b
