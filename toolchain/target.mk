# Target flags for picotpu firmware: the one place that holds them.
# Read by firmware-c/Makefile (include) and by toolchain/toolchain.ts (regex),
# so keep to plain `NAME := value` lines, no $(...) references, no
# continuations. Paths are relative to firmware-c/, where make runs.

CROSS := riscv64-unknown-elf-

# Plain rv32i: GCC 12 picks multilibs by exact -march string, and
# rv32i_zicsr would fall back to the default rv64imafdc libgcc/picolibc.
# The counter reads in cycles.h are encoded with .insn, so no Zicsr needed.
ARCH_FLAGS := -march=rv32i -mabi=ilp32

# The core traps on misaligned accesses (CATCH_MISALIGN=1): -mstrict-align
# keeps GCC from ever assuming they are cheap. picolibc supplies only the
# string functions; its "release" build has word-wise, alignment-checked
# memcpy/memset (the default build copies byte by byte).
CFLAGS := -O2 -g -std=gnu11 -ffreestanding -fno-common -ffunction-sections -fdata-sections -mstrict-align -Wall -Wextra -Wshadow -Wundef --specs=picolibc.specs --picolibc-buildtype=release

LDFLAGS := -nostartfiles -T runtime/link.ld --specs=picolibc.specs --picolibc-buildtype=release -Wl,--gc-sections -Wl,--no-warn-rwx-segments

# Libraries go after the objects: picolibc for string.h, libgcc for the
# multiply/divide helpers (rv32i has no M extension).
LDLIBS := -lc -lgcc

# The seed board (--board seed, docs/seed-board.md): picorv32_axi with
# COMPRESSED_ISA and ENABLE_FAST_MUL, as the seed's firmware Makefile builds
# for it. No libc and no libgcc (the seed links neither): our seed-board
# programs avoid what would need them.
SEED_ARCH_FLAGS := -march=rv32ic_zmmul -mabi=ilp32
# The transformer (seed-model/) multiplies: gcc 12 calls libgcc's __mulsi3 for
# zmmul, so it is built rv32imc, the same contract on this core as long as it
# has no divide or remainder (ENABLE_DIV = 0 traps them; a test checks none is
# in its disassembly).
SEED_MUL_ARCH_FLAGS := -march=rv32imc -mabi=ilp32
SEED_CFLAGS := -Os -g -std=gnu11 -ffreestanding -fno-common -ffunction-sections -fdata-sections -Wall -Wextra -Wshadow -Wundef
SEED_LDFLAGS := -nostdlib -nostartfiles -T seed/link.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments
