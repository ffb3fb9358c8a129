# seed AXI: stores into the command staging words (words 0-2 of each unit's port; no commit).
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
    c.li x8, 5
    .option norvc
    sw x8, 0x00(x31)
    sw x8, 0x04(x31)
    sw x8, 0x08(x31)
    sw x8, 0x14(x31)
    sw x8, 0x28(x31)
    .option rvc
    c.nop
    .option norvc
    sw x8, 0x24(x31)
    lw x10, 0x40(x31)
    .option rvc
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
