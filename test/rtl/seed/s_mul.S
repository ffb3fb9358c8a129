# seed AXI with ENABLE_FAST_MUL: mul, mulh, mulhsu, mulhu (zmmul), aligned and straddling.
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
    c.li x10, 13
    .option norvc
    mul x11, x8, x10
    mulh x12, x8, x10
    mulhsu x13, x8, x10
    mulhu x14, x8, x10
    .option rvc
    c.nop
    .option norvc
    mul x15, x11, x11
    .option rvc
    c.addi x15, 1
    .option norvc
    mul x5, x15, x8
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
