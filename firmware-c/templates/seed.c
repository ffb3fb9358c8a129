/* A kernel for the transformer-tpu-int4 board: write words into the
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
