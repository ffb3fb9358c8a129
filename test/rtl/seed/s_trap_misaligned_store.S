# seed AXI: a misaligned word store to the scratchpad window traps (CATCH_MISALIGN);
# cpu_subsys raises done on the trap. Measures the trap clock after the store's launch.
# Conventions: x31 = 0x80000000 (TPU MMIO; +0x70 = DONE), x30 = 0x90000000 (scratchpad window),
# x9 = 0x2000 (data in firmware RAM); sp = 0x4000 from STACKADDR. Built with -march=rv32ic_zmmul.
    .section .text.start
    .globl _start
_start:
    .option norvc
    lui x31, 0x80000
    lui x30, 0x90000
    lui x9, 0x2
    sw x9, 0(x30)
    .option rvc
    c.nop
    sw x9, 2(x30)        # misaligned: PicoRV32 (CATCH_MISALIGN) traps
    c.nop
    .option norvc
    sw x0, 0x70(x31)       # DONE (not reached)
1:  j 1b
