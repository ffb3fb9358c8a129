# seed AXI: c.j, c.jal, jal between aligned and halfword addresses, to compressed and straddling targets.
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
    c.j 1f
    c.nop
1:  c.jal 2f
    c.nop
2:  .option norvc
    addi x10, x10, 1
    jal x1, 3f
    nop
    .option rvc
    c.nop
3:  c.nop
    .option norvc
    j 4f
    .option rvc
    c.nop
4:  .option norvc
    addi x10, x10, 1
    .option rvc
    c.j 5f
    c.nop
    c.nop
5:  c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
