# seed AXI: STACKADDR = 0x4000: push/pop through sp as gcc's prologue/epilogue does.
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
    c.addi16sp x2, -32
    c.swsp x1, 28(x2)
    c.swsp x8, 24(x2)
    c.swsp x9, 20(x2)
    c.li x8, 9
    c.lwsp x10, 28(x2)
    c.lwsp x11, 24(x2)
    c.lwsp x12, 20(x2)
    c.addi16sp x2, 32
    c.mv x13, x2
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
