# seed AXI: byte and half stores to the scratchpad window (the RTL writes the whole bus word), loads back.
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
    li x8, 0x1234a5
    sb x8, 1(x30)
    lw x10, 0(x30)
    sh x8, 6(x30)
    lw x11, 4(x30)
    lbu x12, 2(x30)
    lh x13, 6(x30)
    .option rvc
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
