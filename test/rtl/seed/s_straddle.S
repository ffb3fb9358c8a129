# seed AXI: runs of straddling 32-bit instructions (ALU, load, store) after a compressed one.
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
    c.nop
    .option norvc
    addi x10, x10, 1
    addi x10, x10, 2
    addi x10, x10, 3
    sw x10, 0(x9)
    lw x11, 0(x9)
    sw x11, 4(x9)
    .option rvc
    c.nop
    .option norvc
    lw x12, 4(x9)
    .option rvc
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
