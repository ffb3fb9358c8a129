# seed AXI: compressed loads/stores before straddling 32-bit instructions, to RAM, MMIO and the window.
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
    c.li x8, 3
    c.sw x8, 0(x9)
    .option norvc
    addi x10, x8, 1
    .option rvc
    c.lw x11, 0(x9)
    .option norvc
    lw x12, 0x44(x31)
    sw x12, 8(x30)
    .option rvc
    c.nop
    .option norvc
    lw x13, 8(x30)
    .option rvc
    c.addi x13, 1
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
