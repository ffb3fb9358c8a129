# COMPRESSED_ISA: c.ebreak ends the run with a trap (launch to trap clock).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.nop
    c.addi x10, 1
    c.ebreak
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
