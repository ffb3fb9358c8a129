# Bus-wait regions (+2 wait clocks per access): console TX stores (sb/sh/sw to +0), RX loads
# (lw/lb at +4), TPU-region word stores to staging registers and word loads into x0.
# Only accesses to real register offsets, so the program is valid on the emulated board too.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x29, 0x20000
    la x30, data
    lui x1, 0x41424
    addi x1, x1, 836
    nop
    lw x2, 4(x31)        # console RX (no input: 0xffffffff)
    lb x3, 4(x31)        # console RX, byte read (the bus still reads the word)
    sb x1, 0(x31)        # TX 'D'
    sh x1, 0(x31)        # TX 'D'
    sw x1, 0(x31)        # TX 'D'
    sw x1, 0x100(x29)    # TPU region: DMA ARG0 (staging register)
    sw x1, 0x114(x29)    # TPU region: DMA ARG5
    lw x0, 0(x29)        # TPU region read (ID); rd = x0 so the value does not matter
    lw x0, 0x124(x29)    # TPU region read (DMA DONE)
    nop
    lw x19, 0(x30)       # BRAM again
    sw x19, 4(x30)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
data: .word 0xdeadbeef, 0
1:  j 1b
