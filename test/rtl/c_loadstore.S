# COMPRESSED_ISA: c.lw, c.sw, c.lwsp, c.swsp and 32-bit loads/stores at aligned and halfword pcs,
# to the BRAM and to the console / dummy TPU block (2 wait clocks), before compressed and
# straddling instructions.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT), x9 = 0x8000 (data). Built with -march=rv32ic.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x10000
    lui x9, 0x8
    .option rvc
    c.mv x2, x9
    c.li x8, 7
    c.sw x8, 0(x9)
    c.swsp x8, 4(x2)
    c.lw x10, 0(x9)
    c.lwsp x11, 4(x2)
    .option norvc
    sw x10, 8(x9)
    lw x12, 8(x9)
    .option rvc
    c.nop
    .option norvc
    lb x13, 8(x9)
    sh x13, 12(x9)
    .option rvc
    c.lw x14, 12(x9)
    .option norvc
    lhu x15, 12(x9)
    .option rvc
    c.nop
    .option norvc
    lui x12, 0x20000
    .option rvc
    c.sw x8, 0(x12)         # dummy TPU block
    c.lw x10, 4(x12)
    .option norvc
    lw x10, 8(x12)
    .option rvc
    c.nop
    lui x13, 0x10000
    c.nop
    c.lw x10, 4(x13)        # console RX reads 0xFFFFFFFF
    li x8, 65
    c.sw x8, 0(x13)         # console TX, before a straddling insn
    .option norvc
    addi x8, x8, 1
    sw x8, 0(x13)
    .option rvc
    c.nop
    .option norvc
    sw x0, 8(x31)          # EXIT
1:  j 1b
