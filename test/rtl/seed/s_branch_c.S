# seed AXI: c.beqz / c.bnez taken and not taken, forward and backward, aligned and halfword targets.
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
    c.li x8, 0
    c.li x10, 3
    c.beqz x8, 1f
    c.nop
    .balign 4
1:  c.bnez x8, 2f
    c.bnez x10, 2f
    c.nop
    c.nop
2:  c.addi x10, -1
    c.bnez x10, 2b
    c.beqz x10, 3f
    .option norvc
    addi x11, x11, 1
    .option rvc
3:  c.nop
    c.beqz x8, 4f
    .option norvc
    addi x11, x11, 1
4:  addi x11, x11, 2
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
