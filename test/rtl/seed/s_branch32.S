# seed AXI: 32-bit branches taken and not taken (beq bne blt bge bltu bgeu), aligned and straddling.
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
    addi x10, x0, -1
    addi x11, x0, 1
    beq x10, x11, 1f
    bne x10, x11, 1f
    nop
1:  blt x11, x10, 2f
    bge x11, x10, 2f
    nop
2:  bltu x10, x11, 3f
    bgeu x10, x11, 3f
    nop
3:  .option rvc
    c.nop
    .option norvc
    beq x0, x0, 4f
    nop
4:  bne x0, x0, 4b
    .option rvc
    c.nop
    .option norvc
    addi x12, x0, 3
5:  addi x12, x12, -1
    bnez x12, 5b
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
