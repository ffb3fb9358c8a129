/* Seed board: three DMA fills of 32 KiB (32,767 clocks each, one a byte) while
 * the CPU polls the status registers, then a short one; DONE gets 0. A waveform of it
 * (--vcd) must show the long fill busy from its start, which the CPU's polling
 * outlasts by thousands of instructions (the VCD writer's batches). */
#include "seed.h"

int main(void) {
  for (int i = 0; i < 3; i++) seed_dma_fill(0, 0, 0xfffe);
  seed_wait(SEED_UNIT_DMA);
  seed_dma_fill(0x8000, 0x100, 64);
  seed_wait(SEED_UNIT_DMA);
  return 0;
}
