# COMPRESSED_ISA: an illegal 32-bit word at a halfword pc (straddling).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.addi x10, 1
    .option norvc
    .4byte 0xffffffff
    .option rvc
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
