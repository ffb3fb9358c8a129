# CPI of beq/bne/blt/bge/bltu/bgeu: taken forward, not taken, taken backward
# (signed and unsigned operand cases), a long forward branch, and a taken branch to the next instruction.
# Conventions: x31 = 0x10000000 (console; +8 = EXIT).
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    lui x1, 0x0
    addi x1, x1, 5
    lui x2, 0x0
    addi x2, x2, 7
    lui x3, 0x0
    addi x3, x3, -5
    lui x4, 0x0
    addi x4, x4, 5
    # beq x1,x4: taken forward
    beq x1, x4, 100f
    addi x10, x10, 1
100: nop
    # beq x1,x2: not taken
    beq x1, x2, 101f
    addi x10, x10, 1
101: nop
    # bne x1,x2: taken forward
    bne x1, x2, 102f
    addi x10, x10, 1
102: nop
    # bne x1,x4: not taken
    bne x1, x4, 103f
    addi x10, x10, 1
103: nop
    # blt x1,x2: taken forward
    blt x1, x2, 104f
    addi x10, x10, 1
104: nop
    # blt x2,x1: not taken
    blt x2, x1, 105f
    addi x10, x10, 1
105: nop
    # blt x3,x1: taken forward
    blt x3, x1, 106f
    addi x10, x10, 1
106: nop
    # blt x1,x3: not taken
    blt x1, x3, 107f
    addi x10, x10, 1
107: nop
    # bge x2,x1: taken forward
    bge x2, x1, 108f
    addi x10, x10, 1
108: nop
    # bge x1,x2: not taken
    bge x1, x2, 109f
    addi x10, x10, 1
109: nop
    # bge x1,x4: taken forward
    bge x1, x4, 110f
    addi x10, x10, 1
110: nop
    # bge x3,x1: not taken
    bge x3, x1, 111f
    addi x10, x10, 1
111: nop
    # bltu x1,x2: taken forward
    bltu x1, x2, 112f
    addi x10, x10, 1
112: nop
    # bltu x2,x1: not taken
    bltu x2, x1, 113f
    addi x10, x10, 1
113: nop
    # bltu x1,x3: taken forward
    bltu x1, x3, 114f
    addi x10, x10, 1
114: nop
    # bltu x3,x1: not taken
    bltu x3, x1, 115f
    addi x10, x10, 1
115: nop
    # bgeu x2,x1: taken forward
    bgeu x2, x1, 116f
    addi x10, x10, 1
116: nop
    # bgeu x1,x2: not taken
    bgeu x1, x2, 117f
    addi x10, x10, 1
117: nop
    # bgeu x3,x1: taken forward
    bgeu x3, x1, 118f
    addi x10, x10, 1
118: nop
    # bgeu x1,x3: not taken
    bgeu x1, x3, 119f
    addi x10, x10, 1
119: nop
    # beq x1,x4: taken backward
    j 121f
120: nop
    j 122f
121: beq x1, x4, 120b
    addi x10, x10, 100
122: nop
    # bne x1,x2: taken backward
    j 124f
123: nop
    j 125f
124: bne x1, x2, 123b
    addi x10, x10, 100
125: nop
    # blt x1,x2: taken backward
    j 127f
126: nop
    j 128f
127: blt x1, x2, 126b
    addi x10, x10, 100
128: nop
    # blt x3,x1: taken backward
    j 130f
129: nop
    j 131f
130: blt x3, x1, 129b
    addi x10, x10, 100
131: nop
    # bge x2,x1: taken backward
    j 133f
132: nop
    j 134f
133: bge x2, x1, 132b
    addi x10, x10, 100
134: nop
    # bge x1,x4: taken backward
    j 136f
135: nop
    j 137f
136: bge x1, x4, 135b
    addi x10, x10, 100
137: nop
    # bltu x1,x2: taken backward
    j 139f
138: nop
    j 140f
139: bltu x1, x2, 138b
    addi x10, x10, 100
140: nop
    # bltu x1,x3: taken backward
    j 142f
141: nop
    j 143f
142: bltu x1, x3, 141b
    addi x10, x10, 100
143: nop
    # bgeu x2,x1: taken backward
    j 145f
144: nop
    j 146f
145: bgeu x2, x1, 144b
    addi x10, x10, 100
146: nop
    # bgeu x3,x1: taken backward
    j 148f
147: nop
    j 149f
148: bgeu x3, x1, 147b
    addi x10, x10, 100
149: nop
    beq x0, x0, 150f
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
    addi x11, x11, 1
150: nop
    beq x0, x0, 151f
151: nop
    nop
    sw x0, 8(x31)          # EXIT
1:  j 1b
