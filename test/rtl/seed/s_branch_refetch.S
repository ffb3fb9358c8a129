# seed AXI: taken branches whose fall-through word holds a compressed instruction and then the
# first half of a 32-bit one: a halfword target is fetched twice (compressed and straddling
# targets, 32-bit and compressed branches); the same branches with a compressed second half.
# Conventions: x31 = 0x80000000 (TPU MMIO; +0x70 = DONE). Built with -march=rv32ic_zmmul.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x80000
    .option rvc
    c.li x8, 1
    .option norvc
    beq x0, x0, 1f          # straddling: its fall-through is in the buffer, no refetch
    .option rvc
    c.addi x10, 1
    .option norvc
    addi x10, x10, 1
    nop
    .option rvc
    c.nop
1:  c.addi x11, 1           # halfword compressed target
    c.nop
    c.bnez x8, 2f           # upper half: fall-through word = [c.addi | addi...]
    c.addi x10, 1
    .option norvc
    addi x10, x10, 1
    nop
2:  addi x12, x12, 1        # halfword straddling target
    beq x0, x0, 3f          # fall-through word = [c.addi | c.nop]: fetched once
    .option rvc
    c.addi x10, 1
    c.nop
    .option norvc
    nop
    .option rvc
    c.nop
3:  c.addi x11, 1
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
