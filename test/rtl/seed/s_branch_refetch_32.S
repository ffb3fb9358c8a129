# seed AXI: a poll-like loop whose taken backward branch goes to a halfword target and whose
# aligned 32-bit fall-through has bits 17:16 = 11 (rs1 = x15): the target is fetched twice;
# the same loop with bits 17:16 = 01 (rs1 = x11) fetches it once.
# Conventions: x31 = x8 = 0x80000000 (TPU MMIO; +0x70 = DONE). Built with -march=rv32ic_zmmul.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x80000
    lui x8, 0x80000
    .option rvc
    c.li x14, 3
    c.nop
    c.nop
1:  c.lw x13, 0x40(x8)
    .option norvc
    lw x12, 0x44(x31)
    .option rvc
    c.addi x14, -1
    c.nop
    .option norvc
    bgtz x14, 1b
    addi x10, x15, 1        # aligned fall-through, upper half 0x..7 (bits 17:16 = 11)
    .option rvc
    c.li x14, 3
    c.nop
2:  c.lw x13, 0x40(x8)
    c.nop
    c.addi x14, -1
    .option norvc
    bgtz x14, 2b
    addi x10, x11, 1        # aligned fall-through, upper half 0x..5 (bits 17:16 = 01)
    sw x0, 0x70(x31)       # DONE
1:  j 1b
