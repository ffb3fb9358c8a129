# seed AXI: c.jr, c.jalr, jalr, a call and return, targets aligned and halfword, bit 0 cleared.
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
    la x13, 1f
    c.jr x13
    c.nop
    .balign 4
1:  la x13, 2f
    c.jalr x13
    c.nop
2:  la x13, 3f+1
    .option norvc
    jalr x5, 0(x13)
    .option rvc
    c.nop
3:  c.nop
    .option norvc
    jal x1, 10f
    .option rvc
    c.nop
    c.j 20f
10: c.addi x11, 1
    c.jr x1
20: c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
