# Trap timing: misalign_jalr_self2. The clock at which `trap` goes high relative to the
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
    auipc x5, 0
    jalr x1, 6(x5)           # target = this jalr + 2
    nop
    nop
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data: .word 0x11223344, 0x55667788
1:  j 1b
