# seed AXI: DONE written with a value, after a compressed store; the run ends at its handshake.
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
    c.li x10, 7
    c.li x8, 1
    c.sw x8, 0(x9)
    .option norvc
    sw x10, 0x70(x31)
1:  j 1b
