# seed AXI: a mixed loop as gcc -march=rv32ic emits it (array sum, byte copy).
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
    li x14, 0x2100
    c.li x11, 6
3:  lbu x13, 0(x9)
    sb x13, 0(x14)
    addi x9, x9, 1
    addi x14, x14, 1
    addi x11, x11, -1
    bnez x11, 3b
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
