# CPI of jal (forward, backward, rd=x0, to next insn) and jalr (call/ret, offsets, rd=rs1,
# target with bit 0 set which jalr clears).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    nop
    jal x1, 10f          # jal forward
    addi x10, x10, 1
10: nop
    j 12f                # jal x0 forward
11: nop
    j 13f
12: j 11b                # jal backward
13: nop
    jal x1, 20f          # call
    nop
    auipc x5, 0
    jalr x6, 16(x5)      # jalr with offset to 15
    addi x10, x10, 1
    addi x10, x10, 1
    addi x10, x10, 1
15: nop
    auipc x7, 0
    addi x7, x7, 12
    jalr x7, 0(x7)       # jalr with rd = rs1
    nop
    jal x0, 30f
20: nop
    jalr x0, 0(x1)       # ret
30: nop
    jal x2, 31f          # jal to next instruction
31: nop
    auipc x8, 0
    jalr x0, 8(x8)       # jalr to next instruction
    nop
    auipc x9, 0
    jalr x0, 9(x9)       # jalr target with bit0 set (cleared by hardware)
    nop
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
