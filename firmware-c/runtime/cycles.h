/* PicoRV32 counters (ENABLE_COUNTERS, ENABLE_COUNTERS64).
 *
 * The core has no CSRs, only the rdcycle[h]/rdinstret[h] encodings of
 * `csrrs rd, csr, x0`. They are written with .insn so that they assemble
 * under plain -march=rv32i on any binutils (newer ones want _zicsr for the
 * mnemonics, and adding _zicsr to -march breaks GCC 12's multilib choice).
 * The 12-bit CSR number is a signed immediate to .insn: 0xC00 is -1024.
 * objdump still shows the mnemonics. Each read costs 4 clocks.
 */
#ifndef PICOTPU_CYCLES_H
#define PICOTPU_CYCLES_H

#include <stdint.h>

#define PICOTPU_CSR_READ(imm)                                              \
	({                                                                 \
		uint32_t v_;                                               \
		__asm__ volatile(".insn i 0x73, 2, %0, x0, " #imm : "=r"(v_)); \
		v_;                                                        \
	})

static inline uint32_t rdcycle(void)    { return PICOTPU_CSR_READ(-1024); } /* 0xC00 cycle */
static inline uint32_t rdcycleh(void)   { return PICOTPU_CSR_READ(-896); }  /* 0xC80 cycleh */
static inline uint32_t rdinstret(void)  { return PICOTPU_CSR_READ(-1022); } /* 0xC02 instret */
static inline uint32_t rdinstreth(void) { return PICOTPU_CSR_READ(-894); }  /* 0xC82 instreth */

/* Read high, low, high again: a carry between the two halves shows up as a
 * changed high word, and then the pair is read again. */
static inline uint64_t rdcycle64(void)
{
	uint32_t hi, lo;
	do {
		hi = rdcycleh();
		lo = rdcycle();
	} while (hi != rdcycleh());
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdinstret64(void)
{
	uint32_t hi, lo;
	do {
		hi = rdinstreth();
		lo = rdinstret();
	} while (hi != rdinstreth());
	return ((uint64_t)hi << 32) | lo;
}

#endif
