/* Seed board: the CPU writes words into the scratchpad window, the DMA spills
 * them to the SRAM at 0x100 and fills them back to scratchpad 0x800, the CPU
 * checks them; DONE gets 0 on success (a0 is what start.S stores). Exercises
 * the window, the command port, the status registers and --sram-out. */
#include "seed.h"

#define WORDS 8

int main(void) {
  volatile uint32_t *spad = (volatile uint32_t *)SEED_SPAD;
  for (uint32_t i = 0; i < WORDS; i++) spad[i] = 0x01234567u + (i << 28);
  seed_dma_spill(0, 0x100, WORDS * 8);
  seed_wait(SEED_UNIT_DMA);
  seed_dma_fill(0x800, 0x100, WORDS * 8);
  seed_wait(SEED_UNIT_DMA);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < WORDS; i++) bad |= spad[0x200 + i] ^ (0x01234567u + (i << 28));
  return bad != 0;
}
