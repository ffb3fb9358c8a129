/* The integer workload shared by intbench.c and bench.c: one round mixes
 * ALU work, data-dependent branches, loads and stores, a call, variable
 * shifts, and multiply/divide through libgcc (rv32i has no M extension).
 * Pure C on uint32_t, so a host build gives the same checksum. */
#ifndef INTMIX_H
#define INTMIX_H

#include <stdint.h>

#define MIX_WORDS 64   /* power of two: slots are picked with a mask */

struct mix {
	uint32_t mem[MIX_WORDS];
	uint32_t errors;   /* failed divide self-checks */
};

/* noinline: the call and return are part of the mix. */
static __attribute__((noinline)) uint32_t mix_rotl(uint32_t a, uint32_t n)
{
	n &= 31;
	return n ? (a << n) | (a >> (32 - n)) : a;
}

static uint32_t mix_round(struct mix *m, uint32_t x, uint32_t i)
{
	uint32_t *slot = &m->mem[(x >> 7) & (MIX_WORDS - 1)];
	uint32_t v = *slot + (x ^ i);

	/* Two variable operands, so GCC must call __mulsi3. */
	x = x * (v | 1) + 0x9E3779B9u;

	if (v & 1)                 /* Collatz step: an unpredictable branch */
		v = 3 * v + 1;
	else
		v >>= 1;
	if ((int32_t)v < 0)
		v = ~v;

	v = mix_rotl(v, x >> 27) ^ x;

	/* Every 8th round a division, checked against its own remainder. */
	if ((i & 7) == 0) {
		uint32_t d = (x >> 16) | 1;
		uint32_t q = v / d, r = v % d;
		if (q * d + r != v || r >= d)
			m->errors++;
		v ^= q;
	}

	/* A short sweep of neighbouring words. */
	uint32_t s = 0;
	for (uint32_t k = 0; k < 4; k++)
		s += m->mem[(i + k) & (MIX_WORDS - 1)];

	*slot = v ^ s;
	return x ^ v;
}

/* Runs iters rounds from a fixed state and folds everything into one word. */
static uint32_t mix_run(struct mix *m, uint32_t iters)
{
	uint32_t x = 0x12345678u;

	for (uint32_t k = 0; k < MIX_WORDS; k++)
		m->mem[k] = k * 0x01010101u;
	m->errors = 0;
	for (uint32_t i = 0; i < iters; i++)
		x = mix_round(m, x, i);
	for (uint32_t k = 0; k < MIX_WORDS; k++)
		x = mix_rotl(x, 5) + m->mem[k];
	return x;
}

#endif
