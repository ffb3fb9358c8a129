# Values returned by rdcycle/rdcycleh/rdinstret/rdinstreth/rdtime/rdtimeh: rdcycle is the
# very first instruction; later reads after N retired instructions. Results in registers (regs dump)
# and stored to BRAM; EXIT value = x10 (rdcycle after the loop).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    rdcycle x1           # very first instruction
    rdinstret x2
    rdcycleh x3
    rdinstreth x4
    rdtime x5
    rdtimeh x6
    nop
    nop
    rdcycle x7
    rdinstret x8
    csrrs x0, cycle, x0  # rdcycle into x0
    .word 0xc0102973     # csrrs x18, time, x0 (= rdtime x18)
    .word 0xc81029f3     # csrrs x19, timeh, x0
    li x9, 10
2:  addi x9, x9, -1
    bnez x9, 2b
    rdcycle x10
    rdinstret x11
    lui x31, 0x10000
    la x30, res
    sw x1, 0(x30)
    sw x2, 4(x30)
    sw x7, 8(x30)
    sw x8, 12(x30)
    rdcycle x12
    sw x12, 0(x31)       # console byte = low byte of cycle
    rdinstret x13
    sw x10, 8(x31)
1:  j 1b
    .balign 4
res: .word 0, 0, 0, 0
1:  j 1b
