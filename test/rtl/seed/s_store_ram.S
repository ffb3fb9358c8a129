# seed AXI: stores to firmware RAM: sw sh sb, c.sw, c.swsp, then loads back.
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
    c.li x8, 13
    .option norvc
    sw x8, 0(x9)
    sh x8, 6(x9)
    sb x8, 9(x9)
    .option rvc
    c.sw x8, 12(x9)
    c.swsp x8, 12(x2)
    c.sw x8, 16(x9)
    c.nop
    c.sw x8, 20(x9)
    .option norvc
    sw x8, 24(x9)
    .option rvc
    c.lw x10, 4(x9)
    c.lw x11, 8(x9)
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
