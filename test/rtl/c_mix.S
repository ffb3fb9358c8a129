# COMPRESSED_ISA: a small loop of mixed compressed and 32-bit code as gcc -march=rv32ic emits it
# (sum of an array, byte copy), run with whatever alignment the assembler gives.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.li x10, 0
    c.li x11, 8
    c.mv x12, x9
1:  sw x11, 0(x12)
    addi x12, x12, 4
    addi x11, x11, -1
    bnez x11, 1b
    c.li x11, 8
    c.mv x12, x9
2:  lw x13, 0(x12)
    add x10, x10, x13
    addi x12, x12, 4
    addi x11, x11, -1
    bnez x11, 2b
    li x14, 0x8100
    c.li x11, 6
3:  lbu x13, 0(x9)
    sb x13, 0(x14)
    addi x9, x9, 1
    addi x14, x14, 1
    addi x11, x11, -1
    bnez x11, 3b
    slli x15, x10, 3
    srli x15, x15, 1
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
