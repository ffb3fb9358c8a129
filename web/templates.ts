// The C editor's starting kernels, one per board: a program that builds with
// the board's fixed flags (scripts/web-build.ts) and runs to its end, for a
// learner to change. test/playground.test.ts builds and runs both.

/** picotpu: a DMA round trip through the scratchpad inside a PERF_CTRL window, checked on the CPU. */
export const PICOTPU_TEMPLATE = `/* A kernel for picotpu: copy a block SRAM -> scratchpad -> SRAM with the
 * TPU's DMA, inside a PERF_CTRL window (the report shows its clocks), and
 * check it on the CPU. Change it, then Build and run. */
#include "picotpu.h"
#include "tpu.h"

#define ROWS 16
#define ROW_BYTES 64

static uint8_t src[ROWS * ROW_BYTES] SRAM_BSS;
static uint8_t dst[ROWS * ROW_BYTES] SRAM_BSS;

int main(void)
{
	for (uint32_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 7 + 1);

	uint32_t t0 = rdcycle();
	tpu_perf_start();
	dma_load(tpu_sram_offset(src), 0, ROWS, ROW_BYTES, ROW_BYTES, ROW_BYTES);
	uint32_t t = dma_store(tpu_sram_offset(dst), 0, ROWS, ROW_BYTES, ROW_BYTES, ROW_BYTES);
	tpu_wait(TPU_UNIT_DMA, t);
	tpu_perf_stop();
	uint32_t t1 = rdcycle();

	uint32_t bad = 0;
	for (uint32_t i = 0; i < sizeof src; i++) bad += src[i] != dst[i];
	printf("copied %lu bytes in %lu clocks, %lu wrong\\n", (uint32_t)sizeof src, t1 - t0, bad);
	return bad != 0;
}
`;

/** The write-up's board: the same round trip with its DMA (seed.h); main's return value goes to DONE. */
export const SEED_TEMPLATE = `/* A kernel for the transformer-tpu-int4 board: write words into the
 * scratchpad window, spill them to SRAM and fill them back with the DMA,
 * and check them. main's return value is what start.S stores to DONE
 * (0: success). Change it, then Build and run. */
#include "seed.h"

#define WORDS 16

int main(void)
{
	volatile uint32_t *spad = (volatile uint32_t *)SEED_SPAD;
	for (uint32_t i = 0; i < WORDS; i++) spad[i] = 0x89abcdefu ^ (i * 0x01010101u);
	seed_dma_spill(0, 0x100, WORDS * 8);
	seed_wait(SEED_UNIT_DMA);
	seed_dma_fill(0x800, 0x100, WORDS * 8);
	seed_wait(SEED_UNIT_DMA);
	uint32_t bad = 0;
	for (uint32_t i = 0; i < WORDS; i++) bad |= spad[0x200 + i] ^ (0x89abcdefu ^ (i * 0x01010101u));
	return bad != 0;
}
`;
