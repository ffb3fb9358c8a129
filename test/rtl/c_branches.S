# COMPRESSED_ISA: c.beqz / c.bnez taken and not taken, forward and backward, to word-aligned and
# halfword targets, targets that are compressed or straddling 32-bit instructions, and
# fall-through instructions that straddle (32-bit branches beside them).
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.li x8, 0
    c.li x10, 3
    c.beqz x8, 1f          # taken, to an aligned compressed target?
    c.addi x11, 1
    .balign 4
1:  c.addi x11, 2
    c.bnez x8, 2f          # not taken
    c.bnez x10, 2f         # taken to a halfword target
    c.addi x11, 4
    c.nop
2:  c.addi x11, 8
    c.beqz x8, 3f          # taken; fall-through is a straddling 32-bit insn
    .option norvc
    addi x11, x11, 16
    .option rvc
    c.nop
3:  .option norvc
    addi x11, x11, 32      # straddling target
    .option rvc
4:  c.addi x10, -1         # loop: backward c.bnez
    c.bnez x10, 4b
    c.li x10, 3
    c.nop
5:  .option norvc
    addi x10, x10, -1      # straddling loop head
    .option rvc
    c.bnez x10, 5b
    .option norvc
    beq x0, x0, 6f         # 32-bit taken to a halfword target
    .option rvc
    c.nop
6:  c.nop
    .option norvc
    bne x0, x0, 6b         # 32-bit not taken, straddling
    bne x8, x10, 7f
    .option rvc
7:  c.beqz x10, 8f         # taken to a straddling target, fall-through straddles
    .option norvc
    addi x12, x12, 1
8:  addi x12, x12, 2
    .option rvc
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
