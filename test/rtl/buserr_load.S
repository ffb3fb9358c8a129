# Bus error: lw from an unmapped address (0x30000000); the bus error is recorded at the clock
# the request would have completed.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x5, 0x30000
    nop
    lw x6, 0(x5)
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
