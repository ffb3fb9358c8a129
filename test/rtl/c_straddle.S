# COMPRESSED_ISA: 32-bit instructions that straddle a word boundary (each one costs one more clock,
# charged to the instruction before it), in runs, after compressed and 32-bit ones, and loads/stores
# before a straddling one (their data handshake moves by one).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.nop
    .option norvc
    addi x10, x10, 1
    addi x10, x10, 2
    addi x10, x10, 3
    .option rvc
    c.addi x10, 1
    c.addi x10, 1
    .option norvc
    addi x11, x10, 5
    .option rvc
    c.addi x10, 1
    .option norvc
    lw x12, 0(x9)
    sw x10, 4(x9)
    .option rvc
    c.lw x13, 4(x9)
    .option norvc
    addi x14, x13, 1
    .option rvc
    c.sw x14, 8(x9)
    .option norvc
    lui x15, 0x12345
    .option rvc
    c.lw x8, 8(x9)
    c.nop
    .option norvc
    slli x8, x8, 7
    srai x8, x8, 3
    .option rvc
    c.srli x8, 2
    .option norvc
    add x8, x8, x10
    .option rvc
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
