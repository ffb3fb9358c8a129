# Instruction fetches from external SRAM (each fetch is a read: +2+4 wait clocks):
# copy a snippet to 0x40000000 and call it.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x28, 0x40000
    la x5, code
    la x6, code_end
    mv x7, x28
2:  lw x8, 0(x5)
    sw x8, 0(x7)
    addi x5, x5, 4
    addi x7, x7, 4
    bne x5, x6, 2b
    jalr x1, 0(x28)      # run the copied code from SRAM
    nop
    sw x10, 8(x31)
1:  j 1b
code:
    addi x10, x0, 1
    addi x10, x10, 2
    beq x0, x0, 3f
    nop
3:  lw x11, 0(x28)
    jalr x0, 0(x1)
code_end:
1:  j 1b
