# COMPRESSED_ISA with BARREL_SHIFTER and ENABLE_FAST_MUL (the seed's CPU options): shifts and
# mul, compressed and 32-bit, aligned and straddling.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.li x8, 13
    c.li x10, -7
    c.slli x8, 9
    c.srai x10, 1
    .option norvc
    slli x11, x8, 17
    sll x12, x8, x10
    .option rvc
    c.srli x8, 3
    .option norvc
    mul x13, x8, x10
    .option rvc
    c.nop
    .option norvc
    mul x14, x13, x13
    mulh x15, x13, x8
    .option rvc
    c.add x14, x15
    .option norvc
    mul x12, x14, x8
    .option rvc
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
