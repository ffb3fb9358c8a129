# CPI of mul/mulh/mulhsu/mulhu with operands zero, negative, divide by zero, INT_MIN/-1, ...;
# each result is stored to BRAM (res) so the values can be checked.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    la x30, res
    # operands 0x00000000, 0x00000000
    lui x1, 0x0
    addi x1, x1, 0
    lui x2, 0x0
    addi x2, x2, 0
    mul x3, x1, x2
    sw x3, 0(x30)
    mulh x3, x1, x2
    sw x3, 4(x30)
    mulhsu x3, x1, x2
    sw x3, 8(x30)
    mulhu x3, x1, x2
    sw x3, 12(x30)
    # operands 0x00000001, 0x00000001
    lui x1, 0x0
    addi x1, x1, 1
    lui x2, 0x0
    addi x2, x2, 1
    mul x3, x1, x2
    sw x3, 16(x30)
    mulh x3, x1, x2
    sw x3, 20(x30)
    mulhsu x3, x1, x2
    sw x3, 24(x30)
    mulhu x3, x1, x2
    sw x3, 28(x30)
    # operands 0x00000007, 0x00000003
    lui x1, 0x0
    addi x1, x1, 7
    lui x2, 0x0
    addi x2, x2, 3
    mul x3, x1, x2
    sw x3, 32(x30)
    mulh x3, x1, x2
    sw x3, 36(x30)
    mulhsu x3, x1, x2
    sw x3, 40(x30)
    mulhu x3, x1, x2
    sw x3, 44(x30)
    # operands 0xfffffff9, 0x00000003
    lui x1, 0x0
    addi x1, x1, -7
    lui x2, 0x0
    addi x2, x2, 3
    mul x3, x1, x2
    sw x3, 48(x30)
    mulh x3, x1, x2
    sw x3, 52(x30)
    mulhsu x3, x1, x2
    sw x3, 56(x30)
    mulhu x3, x1, x2
    sw x3, 60(x30)
    # operands 0x00000007, 0xfffffffd
    lui x1, 0x0
    addi x1, x1, 7
    lui x2, 0x0
    addi x2, x2, -3
    mul x3, x1, x2
    sw x3, 64(x30)
    mulh x3, x1, x2
    sw x3, 68(x30)
    mulhsu x3, x1, x2
    sw x3, 72(x30)
    mulhu x3, x1, x2
    sw x3, 76(x30)
    # operands 0xffffffff, 0xffffffff
    lui x1, 0x0
    addi x1, x1, -1
    lui x2, 0x0
    addi x2, x2, -1
    mul x3, x1, x2
    sw x3, 80(x30)
    mulh x3, x1, x2
    sw x3, 84(x30)
    mulhsu x3, x1, x2
    sw x3, 88(x30)
    mulhu x3, x1, x2
    sw x3, 92(x30)
    # operands 0x80000000, 0xffffffff
    lui x1, 0x80000
    addi x1, x1, 0
    lui x2, 0x0
    addi x2, x2, -1
    mul x3, x1, x2
    sw x3, 96(x30)
    mulh x3, x1, x2
    sw x3, 100(x30)
    mulhsu x3, x1, x2
    sw x3, 104(x30)
    mulhu x3, x1, x2
    sw x3, 108(x30)
    # operands 0x00bc614e, 0x00000000
    lui x1, 0xbc6
    addi x1, x1, 334
    lui x2, 0x0
    addi x2, x2, 0
    mul x3, x1, x2
    sw x3, 112(x30)
    mulh x3, x1, x2
    sw x3, 116(x30)
    mulhsu x3, x1, x2
    sw x3, 120(x30)
    mulhu x3, x1, x2
    sw x3, 124(x30)
    # operands 0x7fffffff, 0x7fffffff
    lui x1, 0x80000
    addi x1, x1, -1
    lui x2, 0x80000
    addi x2, x2, -1
    mul x3, x1, x2
    sw x3, 128(x30)
    mulh x3, x1, x2
    sw x3, 132(x30)
    mulhsu x3, x1, x2
    sw x3, 136(x30)
    mulhu x3, x1, x2
    sw x3, 140(x30)
    # operands 0x80000000, 0x80000000
    lui x1, 0x80000
    addi x1, x1, 0
    lui x2, 0x80000
    addi x2, x2, 0
    mul x3, x1, x2
    sw x3, 144(x30)
    mulh x3, x1, x2
    sw x3, 148(x30)
    mulhsu x3, x1, x2
    sw x3, 152(x30)
    mulhu x3, x1, x2
    sw x3, 156(x30)
    # operands 0xffffffff, 0x00000001
    lui x1, 0x0
    addi x1, x1, -1
    lui x2, 0x0
    addi x2, x2, 1
    mul x3, x1, x2
    sw x3, 160(x30)
    mulh x3, x1, x2
    sw x3, 164(x30)
    mulhsu x3, x1, x2
    sw x3, 168(x30)
    mulhu x3, x1, x2
    sw x3, 172(x30)
    # operands 0x12345678, 0x9abcdef0
    lui x1, 0x12345
    addi x1, x1, 1656
    lui x2, 0x9abce
    addi x2, x2, -272
    mul x3, x1, x2
    sw x3, 176(x30)
    mulh x3, x1, x2
    sw x3, 180(x30)
    mulhsu x3, x1, x2
    sw x3, 184(x30)
    mulhu x3, x1, x2
    sw x3, 188(x30)
    nop
    sw x0, 8(x31)
1:  j 1b
    .balign 4
res: .space 192
1:  j 1b
