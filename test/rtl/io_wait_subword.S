# Bus-wait regions, timing only: sub-word and unused-offset accesses to the console and the
# TPU region (+2 wait clocks each). In the testbench both regions answer every offset (reads 0 except
# RX); on the emulated board some of these offsets may be bus errors, so use only the clocks.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x29, 0x20000
    lui x1, 0x41424
    addi x1, x1, 836
    nop
    lbu x4, 5(x31)       # console, offset 5 (inside RX word)
    lh x5, 6(x31)
    lw x6, 0x10(x31)     # unused console offset (testbench: reads 0)
    sw x1, 0x10(x31)     # unused console offset (testbench: ignored)
    lw x7, 0(x29)        # TPU region (testbench: dummy, reads 0)
    lb x8, 1(x29)
    lh x9, 2(x29)
    sh x1, 0x102(x29)
    sb x1, 0x103(x29)
    lui x26, 0x20001
    sb x1, -1(x26)       # 0x20000fff, last TPU-region byte
    lw x10, -4(x26)
    nop
    sw x0, 8(x31)
1:  j 1b
1:  j 1b
