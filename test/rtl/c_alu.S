# COMPRESSED_ISA: CPI of every compressed ALU form (c.addi, c.li, c.lui, c.addi16sp, c.addi4spn,
# c.srli, c.srai, c.andi, c.sub/xor/or/and, c.slli, c.mv, c.add, c.nop and HINTs with rd = x0).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.li x8, 5
    c.li x10, -3
    c.lui x11, 0x1f
    c.lui x12, 0xfffe0
    c.addi x8, 7
    c.addi x10, -32
    c.mv x2, x9
    c.addi16sp x2, -64
    c.addi16sp x2, 496
    c.addi4spn x13, x2, 1020
    c.addi4spn x14, x2, 4
    c.srli x8, 1
    c.srai x10, 3
    c.srli x11, 12
    c.andi x8, -2
    c.andi x12, 15
    c.sub x8, x10
    c.xor x10, x11
    c.or x11, x12
    c.and x12, x8
    c.slli x13, 7
    c.slli x14, 31
    c.mv x15, x13
    c.add x15, x14
    c.add x1, x15
    c.nop
    c.addi x0, 5
    c.li x0, 3
    c.mv x0, x5
    c.add x0, x5
    c.lui x0, 1
    .2byte 0x8381        # c.srli x15, 0 (a HINT)
    .2byte 0x0782        # c.slli x15, 0 (a HINT)
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
