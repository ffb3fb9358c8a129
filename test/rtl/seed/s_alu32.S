# seed AXI: word-aligned 32-bit ALU instructions (lui, auipc, reg+imm, reg+reg, slt*).
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
    .option norvc
    addi x10, x0, 5
    addi x11, x10, -3
    add x12, x10, x11
    sub x13, x11, x10
    xor x14, x12, x13
    or x15, x12, x13
    and x8, x12, x13
    slt x5, x13, x12
    sltu x6, x13, x12
    slti x7, x13, 1
    sltiu x28, x13, 1
    xori x29, x13, -1
    ori x27, x13, 0x70
    andi x26, x13, 0x7f
    auipc x25, 1
    lui x24, 0xabcde
    nop
    fence
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
