# COMPRESSED_ISA: c.j, c.jal, c.jr, c.jalr and jal/jalr between aligned and halfword addresses,
# to compressed and straddling 32-bit targets; jalr clearing bit 0; a call/return pair.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.j 1f                 # to halfword compressed
    c.nop
1:  c.jal 2f               # to a straddling target
    c.nop
    c.nop
2:  .option norvc
    addi x10, x10, 1
    .option rvc
    la x13, 3f
    c.jr x13               # to aligned
    c.nop
    .balign 4
3:  la x13, 4f
    c.jalr x13             # to halfword compressed
    c.nop
4:  la x13, 5f
    .option norvc
    jalr x0, 0(x13)        # 32-bit jalr to a straddling target
    .option rvc
    c.nop
5:  .option norvc
    addi x10, x10, 2
    .option rvc
    la x13, 6f+1
    c.jr x13               # target bit 0 set: cleared
    c.nop
6:  c.nop
    .option norvc
    jal x1, 10f            # call a compressed function
    .option rvc
    c.nop
    .option norvc
    jal x0, 7f
    .option rvc
    c.nop
7:  c.j 8f
    c.nop
8:  .option norvc
    j 9f
    .option rvc
9:  c.nop
    c.nop
    c.j 20f
10: c.addi x11, 1
    c.jr x1                # ret (c.jr ra)
20: c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
