# seed AXI: compressed ALU instructions in runs (both halves of every word compressed).
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
    c.li x8, 5
    c.li x10, -3
    c.addi x8, 7
    c.mv x11, x8
    c.add x11, x10
    c.sub x8, x10
    c.xor x10, x11
    c.or x11, x8
    c.and x8, x10
    c.andi x10, 12
    c.lui x12, 0x1f
    c.srli x11, 1
    c.srai x8, 2
    c.slli x12, 3
    c.addi16sp x2, -32
    c.addi4spn x13, x2, 16
    c.nop
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
