/* A kernel for picotpu: copy a block SRAM -> scratchpad -> SRAM with the
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
	printf("copied %lu bytes in %lu clocks, %lu wrong\n", (uint32_t)sizeof src, t1 - t0, bad);
	return bad != 0;
}
