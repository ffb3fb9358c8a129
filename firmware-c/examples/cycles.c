/* Clocks of small instruction sequences, measured with rdcycle and checked
 * against the PicoRV32 timing of PLATFORM.md section 2 (and section 3 for
 * the SRAM window). Exit status: bit 0 a CPU timing mismatch, bit 1 an SRAM
 * one, bit 2 an instret mismatch.
 *
 * Two rdcycles sample the counter at the same point of their own execution,
 * so their difference is the clocks of the first rdcycle (4) plus those of
 * the code between them. The code sits in one asm block so that the
 * compiler cannot add or move anything in between.
 */
#include "picotpu.h"

#define RDCYCLE(r)   ".insn i 0x73, 2, " r ", x0, -1024\n"   /* 0xC00 */
#define RDINSTRET(r) ".insn i 0x73, 2, " r ", x0, -1022\n"   /* 0xC02 */

/* Clocks of body, which may use t0-t2 and reads its buffer through %2. */
#define MEASURE(body, buf)                                                   \
	({                                                                   \
		uint32_t a_, b_;                                             \
		__asm__ volatile(RDCYCLE("%0") body "\n" RDCYCLE("%1")       \
				 : "=&r"(a_), "=&r"(b_)                      \
				 : "r"(buf)                                  \
				 : "t0", "t1", "t2", "memory");              \
		b_ - a_;                                                     \
	})

#define LOOP10 "li t0, 10\n1: addi t0, t0, -1\nbnez t0, 1b\n"

static uint32_t bram_buf[4];
static uint32_t sram_buf[4] SRAM_BSS;

struct check {
	const char *name;
	uint32_t clocks;
	uint32_t expected;
	int fail_bit;
};

int main(void)
{
	uint32_t *b = bram_buf, *s = sram_buf;
	const struct check checks[] = {
		/* expected = 4 for the first rdcycle + the body */
		{ "rdcycle alone", MEASURE("", b), 4, 1 },
		{ "8 x addi", MEASURE(".rept 8\naddi t0, t0, 1\n.endr", b), 4 + 8 * 3, 1 },
		{ "lui + auipc", MEASURE("lui t0, 1\nauipc t1, 0", b), 4 + 3 + 3, 1 },
		/* li 3, 10 x addi 3, 9 taken bnez 5, 1 not taken 3 */
		{ "countdown loop of 10", MEASURE(LOOP10, b), 4 + 3 + 10 * 3 + 9 * 5 + 3, 1 },
		{ "4 x beq not taken", MEASURE(".rept 4\nbne zero, zero, 1f\n1:\n.endr", b), 4 + 4 * 3, 1 },
		{ "4 x beq taken", MEASURE(".rept 4\nbeq zero, zero, 1f\n1:\n.endr", b), 4 + 4 * 5, 1 },
		{ "jal + jalr", MEASURE("jal t1, 2f\nj 3f\n2: jalr zero, 0(t1)\n3:", b), 4 + 3 + 6 + 3, 1 },
		{ "lw lh lb sw sh sb (BRAM)",
		  MEASURE("lw t0, 0(%2)\nlh t0, 4(%2)\nlb t0, 8(%2)\nsw t0, 0(%2)\nsh t0, 4(%2)\nsb t0, 8(%2)", b),
		  4 + 6 * 5, 1 },
		/* shifts without BARREL_SHIFTER: 4 + n/4 + n%4 */
		{ "slli by 0, 1, 4, 7, 31",
		  MEASURE("slli t0, t0, 0\nslli t0, t0, 1\nslli t0, t0, 4\nslli t0, t0, 7\nslli t0, t0, 31", b),
		  4 + 4 + 5 + 5 + 8 + 14, 1 },
		{ "sll by register 13", MEASURE("li t1, 13\nsll t0, t0, t1", b), 4 + 3 + (4 + 3 + 1), 1 },
		/* SRAM window: 5 + 2 AXI clocks + 1 per byte read / 2 per byte
		 * written. PicoRV32 reads carry no byte enables, so every load
		 * reads all four bytes; stores write only their enabled lanes. */
		{ "lw from SRAM", MEASURE("lw t0, 0(%2)", s), 4 + 5 + 2 + 4, 2 },
		{ "lb from SRAM", MEASURE("lb t0, 0(%2)", s), 4 + 5 + 2 + 4, 2 },
		{ "sw to SRAM", MEASURE("sw zero, 0(%2)", s), 4 + 5 + 2 + 8, 2 },
		{ "sb to SRAM", MEASURE("sb zero, 0(%2)", s), 4 + 5 + 2 + 2, 2 },
	};

	int fails = 0;
	for (unsigned i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		const struct check *c = &checks[i];
		int ok = c->clocks == c->expected;
		printf("%-28s %4lu clocks (expected %4lu)%s\n", c->name, c->clocks, c->expected,
		       ok ? "" : "  MISMATCH");
		if (!ok)
			fails |= c->fail_bit;
	}

	/* instret counts each instruction once: the first rdinstret, li, and
	 * 10 x (addi, bnez). */
	uint32_t i0, i1;
	__asm__ volatile(RDINSTRET("%0") LOOP10 RDINSTRET("%1")
			 : "=&r"(i0), "=&r"(i1) : : "t0");
	uint32_t insns = i1 - i0, expected = 1 + 1 + 10 * 2;
	printf("%-28s %4lu instret (expected %4lu)%s\n", "countdown loop of 10", insns, expected,
	       insns == expected ? "" : "  MISMATCH");
	if (insns != expected)
		fails |= 4;

	return fails;
}
