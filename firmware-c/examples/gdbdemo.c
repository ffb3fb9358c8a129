/* A small program to debug with `picotpu gdb` (test/gdb.test.ts walks
 * through it and knows every value below): a struct global in BRAM, a word
 * in the SRAM, a function with locals and a loop, and two TPU DMA commands
 * left in flight so that `monitor units` has something to show.
 *
 * The whole file is built without optimisation (the pragma comes before the
 * headers, so their inline functions too: optimised code in the unit would
 * carry location lists, and GDB then no longer skips function prologues), so
 * every local lives on the stack and every line has its own code: stepping
 * and printing behave predictably.
 * Prints "gdbdemo: sum 10 count 4" and exits 3. */
#pragma GCC optimize("O0")

#include "picotpu.h"
#include "tpu.h"

struct point {
	int x;
	int y;
};

struct stats {
	uint32_t count;
	int32_t sum;
	struct point last;
	char tag[8];
};

struct stats g_stats = { .count = 0, .sum = 0, .last = { -1, -1 }, .tag = "demo" };

/* Placed in the SRAM by the loader. */
uint32_t g_sram_magic SRAM_DATA = 0x5eed1234u;

/* Source of the DMA loads. */
static uint8_t dma_src[8192] SRAM_BSS;

/* Two 8 KiB loads into the scratchpad: the first runs for about 8000
 * clocks, the second waits behind it in the DMA queue. Not waited for. */
static void start_dma(void)
{
	uint32_t off = tpu_sram_offset(dma_src);
	dma_load(off, 0x0000, 32, 256, 256, 256);
	dma_load(off, 0x2000, 32, 256, 256, 256);
}

static int accumulate(int n)
{
	int total = 0;
	for (int i = 1; i <= n; i++) {
		total += i;
		g_stats.count = (uint32_t)i;
		g_stats.sum = total;
	}
	return total;
}

int main(void)
{
	int limit = 4;
	g_stats.last.x = 3;
	g_stats.last.y = 5;
	start_dma();
	int result = accumulate(limit);
	tpu_drain_all();
	printf("gdbdemo: sum %d count %lu\n", result, (unsigned long)g_stats.count);
	if (g_sram_magic != 0x5eed1234u)
		return 1;
	return result == 10 ? 3 : 2;
}
