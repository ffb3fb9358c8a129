# seed AXI: c.ebreak traps (cpu_subsys raises done on the trap).
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
    c.nop
    c.addi x10, 1
    c.ebreak
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE
1:  j 1b
