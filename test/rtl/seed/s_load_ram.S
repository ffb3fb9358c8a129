# seed AXI: loads from firmware RAM: lw lh lhu lb lbu, c.lw, c.lwsp, at aligned and halfword pcs.
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
    c.li x8, -7
    .option norvc
    sw x8, 0(x9)
    lw x10, 0(x9)
    lh x11, 2(x9)
    lhu x12, 0(x9)
    lb x13, 3(x9)
    lbu x14, 1(x9)
    .option rvc
    c.lw x15, 0(x9)
    c.addi16sp x2, -16
    c.lwsp x5, 12(x2)
    c.lw x10, 4(x9)
    c.nop
    c.lw x11, 8(x9)
    .option norvc
    lw x12, 12(x9)
    .option rvc
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
