# seed AXI: loads of the TPU status block (issued/retired/level per unit, +0x70 idle bits), undefined offsets.
# Conventions: x31 = 0x80000000 (TPU MMIO; +0x70 = DONE), x30 = 0x90000000 (scratchpad window),
# x9 = 0x2000 (data in firmware RAM); sp = 0x4000 from STACKADDR. Built with -march=rv32ic_zmmul.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x80000
    lui x30, 0x90000
    lui x9, 0x2
    .option rvc
    .option norvc
    lw x10, 0x40(x31)
    lw x11, 0x44(x31)
    lw x12, 0x48(x31)
    lw x13, 0x50(x31)
    lw x14, 0x58(x31)
    lw x15, 0x60(x31)
    lw x8, 0x68(x31)
    lw x5, 0x70(x31)
    lw x6, 0x4c(x31)
    .option rvc
    c.nop
    .option norvc
    lw x7, 0x64(x31)
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
