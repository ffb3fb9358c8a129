# seed AXI: 32-bit stores and loads through the scratchpad window at 0x9000_0000 (no unit busy).
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
    c.li x8, 11
    .option norvc
    sw x8, 0(x30)
    sw x8, 4(x30)
    lw x10, 0(x30)
    lw x11, 4(x30)
    sw x10, 0x7fc(x30)
    lw x12, 0x7fc(x30)
    .option rvc
    c.nop
    .option norvc
    lw x13, 0(x30)
    addi x13, x13, 1
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
