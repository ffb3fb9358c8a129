# CPI of sll/srl/sra with register shift amounts 0..31 and amounts with high bits set
# (32, 33, 36, 63, -1, -32, 0x7fffffe1, 0x80000000, -4): only the low 5 bits count.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x1, 0x87654
    addi x1, x1, 801
    # amount 0x00000000 (low 5 bits = 0)
    lui x5, 0x0
    addi x5, x5, 0
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000001 (low 5 bits = 1)
    lui x5, 0x0
    addi x5, x5, 1
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000002 (low 5 bits = 2)
    lui x5, 0x0
    addi x5, x5, 2
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000003 (low 5 bits = 3)
    lui x5, 0x0
    addi x5, x5, 3
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000004 (low 5 bits = 4)
    lui x5, 0x0
    addi x5, x5, 4
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000005 (low 5 bits = 5)
    lui x5, 0x0
    addi x5, x5, 5
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000006 (low 5 bits = 6)
    lui x5, 0x0
    addi x5, x5, 6
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000007 (low 5 bits = 7)
    lui x5, 0x0
    addi x5, x5, 7
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000008 (low 5 bits = 8)
    lui x5, 0x0
    addi x5, x5, 8
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000009 (low 5 bits = 9)
    lui x5, 0x0
    addi x5, x5, 9
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000a (low 5 bits = 10)
    lui x5, 0x0
    addi x5, x5, 10
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000b (low 5 bits = 11)
    lui x5, 0x0
    addi x5, x5, 11
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000c (low 5 bits = 12)
    lui x5, 0x0
    addi x5, x5, 12
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000d (low 5 bits = 13)
    lui x5, 0x0
    addi x5, x5, 13
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000e (low 5 bits = 14)
    lui x5, 0x0
    addi x5, x5, 14
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000000f (low 5 bits = 15)
    lui x5, 0x0
    addi x5, x5, 15
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000010 (low 5 bits = 16)
    lui x5, 0x0
    addi x5, x5, 16
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000011 (low 5 bits = 17)
    lui x5, 0x0
    addi x5, x5, 17
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000012 (low 5 bits = 18)
    lui x5, 0x0
    addi x5, x5, 18
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000013 (low 5 bits = 19)
    lui x5, 0x0
    addi x5, x5, 19
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000014 (low 5 bits = 20)
    lui x5, 0x0
    addi x5, x5, 20
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000015 (low 5 bits = 21)
    lui x5, 0x0
    addi x5, x5, 21
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000016 (low 5 bits = 22)
    lui x5, 0x0
    addi x5, x5, 22
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000017 (low 5 bits = 23)
    lui x5, 0x0
    addi x5, x5, 23
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000018 (low 5 bits = 24)
    lui x5, 0x0
    addi x5, x5, 24
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000019 (low 5 bits = 25)
    lui x5, 0x0
    addi x5, x5, 25
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001a (low 5 bits = 26)
    lui x5, 0x0
    addi x5, x5, 26
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001b (low 5 bits = 27)
    lui x5, 0x0
    addi x5, x5, 27
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001c (low 5 bits = 28)
    lui x5, 0x0
    addi x5, x5, 28
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001d (low 5 bits = 29)
    lui x5, 0x0
    addi x5, x5, 29
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001e (low 5 bits = 30)
    lui x5, 0x0
    addi x5, x5, 30
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000001f (low 5 bits = 31)
    lui x5, 0x0
    addi x5, x5, 31
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000020 (low 5 bits = 0)
    lui x5, 0x0
    addi x5, x5, 32
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000021 (low 5 bits = 1)
    lui x5, 0x0
    addi x5, x5, 33
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x00000024 (low 5 bits = 4)
    lui x5, 0x0
    addi x5, x5, 36
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x0000003f (low 5 bits = 31)
    lui x5, 0x0
    addi x5, x5, 63
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0xffffffff (low 5 bits = 31)
    lui x5, 0x0
    addi x5, x5, -1
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0xffffffe0 (low 5 bits = 0)
    lui x5, 0x0
    addi x5, x5, -32
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x7fffffe1 (low 5 bits = 1)
    lui x5, 0x80000
    addi x5, x5, -31
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0x80000000 (low 5 bits = 0)
    lui x5, 0x80000
    addi x5, x5, 0
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    # amount 0xfffffffc (low 5 bits = 28)
    lui x5, 0x0
    addi x5, x5, -4
    sll x2, x1, x5
    srl x3, x1, x5
    sra x4, x1, x5
    sw x0, 8(x31)          # EXIT
1:  j 1b
