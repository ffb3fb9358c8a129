/* tpubench: a stream of tiled int4 matmuls for `npm run bench:tpu`. Each
 * iteration loads an A and a B tile into one of two buffer sets, multiplies
 * them and stores C; the units synchronise only through wait tokens, so the
 * CPU issues as fast as the queues take commands. 20,000 iterations are
 * 80,000 DMA + MXU commands. */
#include "picotpu.h"
#include "tpu.h"

#define ITERS 20000
#define K 64

static SRAM_BSS uint8_t a_tiles[2][8 * K / 2];
static SRAM_BSS uint8_t b_tiles[2][K * 4];
static SRAM_BSS uint8_t c_tiles[2][8 * 4];

int main(void) {
  /* Scratchpad regions: A in 0/1, B in 2/3, C in 4/5 (buffer b). */
  const uint32_t region = 4096;
  tpu_perf_start();
  uint32_t mxu_ticket = 0;
  for (uint32_t i = 0; i < ITERS; i++) {
    uint32_t b = i & 1;
    /* Buffer b was last read by the matmul two iterations ago. */
    if (i >= 2) tpu_after(TPU_UNIT_DMA, TPU_UNIT_MXU, mxu_ticket - 1);
    dma_load(tpu_sram_offset(a_tiles[b]), (0 + b) * region, 8, K / 2, K / 2, K / 2);
    uint32_t loaded = dma_load(tpu_sram_offset(b_tiles[b]), (2 + b) * region, K, 4, 4, 4);
    struct mxu_op m = {
      .a = (0 + b) * region, .b = (2 + b) * region, .c = (4 + b) * region,
      .a_stride = K / 2, .b_stride = 4, .c_stride = 4, .k = K, .shift = 3, .flags = 0,
    };
    tpu_after(TPU_UNIT_MXU, TPU_UNIT_DMA, loaded);
    mxu_ticket = mxu_matmul(&m);
    tpu_after(TPU_UNIT_DMA, TPU_UNIT_MXU, mxu_ticket);
    dma_store(tpu_sram_offset(c_tiles[b]), (4 + b) * region, 8, 4, 4, 4);
  }
  tpu_drain_all();
  tpu_perf_stop();
  uint32_t err = tpu_error();
  printf("tpubench: %d iterations, %lu DMA + %lu MXU commands, error 0x%lx\n", ITERS,
         (unsigned long)tpu_done(TPU_UNIT_DMA), (unsigned long)tpu_done(TPU_UNIT_MXU), (unsigned long)err);
  return err != 0;
}
