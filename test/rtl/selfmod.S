# Self-modifying code: stores into the next instruction word, the one after next, and 3 ahead.
# Shows whether the (already prefetched) next instruction sees the store.
# EXIT = (x10 << 8) | (x11 << 4) | x12; each nibble is 2 if the patched instruction ran, 1 if the old one did.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, patch1
    la x29, patch2
    la x28, newinsn
    lw x1, 0(x28)        # x1 = 'addi x10, x0, 2'
    lw x3, 4(x28)        # x3 = 'addi x11, x0, 2'
    nop
    sw x1, 0(x30)        # store into the very next instruction word
patch1:
    addi x10, x0, 1      # becomes 'addi x10, x0, 2' if the store is seen by the fetch
    sw x3, 4(x29)        # store into the instruction after next
patch2:
    nop
    addi x11, x0, 1      # becomes 'addi x11, x0, 2' if the store is seen
    la x27, patch3
    lw x2, 8(x28)
    sw x2, 0(x27)        # store 'addi x12, x0, 2' into an instruction 3 ahead
    nop
    nop
patch3:
    addi x12, x0, 1
    slli x13, x10, 8
    slli x14, x11, 4
    or x13, x13, x14
    or x13, x13, x12
    sw x13, 8(x31)       # EXIT value = (x10 << 8) | (x11 << 4) | x12
1:  j 1b
    .balign 4
newinsn:
    addi x10, x0, 2
    addi x11, x0, 2
    addi x12, x0, 2
1:  j 1b
