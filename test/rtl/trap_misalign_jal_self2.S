# Trap timing: misalign_jal_self2. The clock at which `trap` goes high relative to the
# fetch handshake of the trapping instruction.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, data
    lui x1, 0x12345
    addi x1, x1, 1656
    lui x2, 0x0
    addi x2, x2, 3
    nop
    .word 0x0020006f         # jal x0, +2
    nop
    nop
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data: .word 0x11223344, 0x55667788
1:  j 1b
