/* Data in the external SRAM: a table the loader places there (SRAM_DATA),
 * read by the CPU, and a scratch buffer (SRAM_BSS) written and read back
 * with byte, half and word accesses. */
#include "picotpu.h"

#define N 256

/* table[i] = i * i, so the sum is known in closed form. */
#define SQ(i) ((i) * (i))
#define ROW(i) SQ(i), SQ(i + 1), SQ(i + 2), SQ(i + 3), SQ(i + 4), SQ(i + 5), SQ(i + 6), SQ(i + 7)
#define ROWS8(i) ROW(i), ROW(i + 8), ROW(i + 16), ROW(i + 24), ROW(i + 32), ROW(i + 40), ROW(i + 48), ROW(i + 56)
static const uint32_t table[N] SRAM_DATA = { ROWS8(0), ROWS8(64), ROWS8(128), ROWS8(192) };

static uint32_t scratch[N] SRAM_BSS;

int main(void)
{
	int fails = 0;
	const uint32_t expected = (N - 1) * N * (2 * N - 1) / 6;   /* sum of i^2 */

	if ((uintptr_t)table < SRAM_BASE || (uintptr_t)scratch < SRAM_BASE) {
		puts("FAIL: SRAM sections not in SRAM");
		return 1;
	}

	uint32_t t0 = rdcycle();
	uint32_t sum = 0;
	for (int i = 0; i < N; i++)
		sum += table[i];
	uint32_t t1 = rdcycle();
	printf("sum of %d SRAM words at %p = %lu (%lu clocks)\n", N, (const void *)table, sum, t1 - t0);
	if (sum != expected) {
		printf("FAIL: expected %lu\n", expected);
		fails |= 2;
	}

	/* Words out, words back. */
	for (int i = 0; i < N; i++)
		scratch[i] = table[i] ^ 0xA5A5A5A5u;
	uint32_t bad = 0;
	for (int i = 0; i < N; i++)
		bad += (scratch[i] ^ 0xA5A5A5A5u) != table[i];

	/* Bytes and halves must land at the little-endian positions. */
	volatile uint8_t *b = (volatile uint8_t *)scratch;
	volatile uint16_t *h = (volatile uint16_t *)scratch;
	b[0] = 0x11;
	b[1] = 0x22;
	h[1] = 0x4433;
	bad += scratch[0] != 0x44332211u;
	bad += b[3] != 0x44 || h[0] != 0x2211;

	printf("SRAM scratch at %p: %lu mismatches\n", (void *)scratch, bad);
	if (bad)
		fails |= 4;
	return fails;
}
