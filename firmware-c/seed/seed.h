/* The few seed-board registers our own test programs use (docs/seed-board.md;
 * cpu_subsys.sv). The full register/command table lives with the seed's TPU
 * model (periph/seed/), which generates the board's own header. */
#ifndef SEED_H
#define SEED_H

#include <stdint.h>

#define SEED_MMIO        0x80000000u
#define SEED_SPAD        0x90000000u
#define SEED_UNIT_MXU    0
#define SEED_UNIT_VPU    1
#define SEED_UNIT_DMA    2
#define SEED_DONE        (SEED_MMIO + 0x70)

#define SEED_REG(a) (*(volatile uint32_t *)(a))

/* One 128-bit command: four stores, the one to word 3 commits (a full queue holds it). */
static inline void seed_push(unsigned unit, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
  volatile uint32_t *port = (volatile uint32_t *)(SEED_MMIO + 0x10 * unit);
  port[0] = w0;
  port[1] = w1;
  port[2] = w2;
  port[3] = w3;
}

static inline uint32_t seed_issued(unsigned unit) { return SEED_REG(SEED_MMIO + 0x40 + 0x10 * unit); }
static inline uint32_t seed_retired(unsigned unit) { return SEED_REG(SEED_MMIO + 0x44 + 0x10 * unit); }

/* Waits until every command pushed to `unit` has retired (issued - retired, signed). */
static inline void seed_wait(unsigned unit) {
  while ((int32_t)(seed_issued(unit) - seed_retired(unit)) > 0) {}
}

/* DMA_MOVE: fill (SRAM -> scratchpad) `elems` int4 elements in one row. */
static inline void seed_dma_fill(uint32_t spad, uint32_t sram, uint32_t elems) {
  seed_push(SEED_UNIT_DMA, 0x01u | (spad << 16), sram, elems | (1u << 16), 0);
}

/* DMA_MOVE: spill (scratchpad -> SRAM). */
static inline void seed_dma_spill(uint32_t spad, uint32_t sram, uint32_t elems) {
  seed_push(SEED_UNIT_DMA, 0x01u | (1u << 8) | (spad << 16), sram, elems | (1u << 16), 0);
}

#endif
