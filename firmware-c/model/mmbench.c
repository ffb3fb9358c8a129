/* mmbench: one tiled matmul C = R(A·B) in a PERF_CTRL window, for the
 * single-matmul benchmarks (`picotpu bench --matmul MxKxN`). Shape, variant
 * and offsets come from the header at SRAM offset 0 (model_format.h). */
#include "picotpu.h"
#include "kernels.h"

#define SRAM_WORD(off) (*(volatile uint32_t *)(SRAM_BASE + (off)))

static int status(void) {
  uint32_t err = tpu_error();
  SRAM_WORD(MATMUL_H_STATUS) = err ? 3 : 1;
  return err ? 3 : 0;
}

/* The tiled kernel (kernels/matmul.c) in its window. */
static __attribute__((noinline)) int run_tiled(const struct mm_args *a) {
  tpu_perf_start();
  matmul(a);
  tpu_drain_all();
  tpu_perf_stop();
  return status();
}

/* VARIANT_PANEL shapes (M ≤ TILE) and VARIANT_STREAM ones: decided before the window, so that the
 * tiled kernel's window holds the same instructions as before PANEL. */
static __attribute__((noinline)) int run_panel(const struct mm_args *a) {
  tpu_perf_start();
  if (matmul_panel_fits(a)) matmul_panel(a, 0, 0);
  else matmul_stream(a, 0, 0);
  tpu_drain(TPU_UNIT_DMA); /* its C store follows all of its MXU and VPU work */
  tpu_perf_stop();
  return status();
}

int main(void) {
  uint32_t m = SRAM_WORD(MATMUL_H_M), k = SRAM_WORD(MATMUL_H_K), n = SRAM_WORD(MATMUL_H_N);
  if (SRAM_WORD(MATMUL_H_MAGIC) != MATMUL_MAGIC || m == 0 || k < TILE || (k & (TILE - 1)) || k > 1024 || n < TILE || (n & (TILE - 1))) {
    SRAM_WORD(MATMUL_H_STATUS) = 2;
    printf("mmbench: bad header\n");
    return 2;
  }
#if TILE != 8
  if (TPU_REG_CONFIG_ARRAY_DIM_GET(tpu_config()) != TILE) {
    SRAM_WORD(MATMUL_H_STATUS) = 2;
    printf("mmbench: built for a 16x16 MXU; the TPU's CONFIG.ARRAY_DIM differs (run with --set mxuDim=16)\n");
    return 2;
  }
#endif
  struct mm_args a = {
    .a = SRAM_WORD(MATMUL_H_A), .a_stride = k / 2, .b = SRAM_WORD(MATMUL_H_B), .b_stride = n / 2,
    .c = SRAM_WORD(MATMUL_H_C), .c_stride = n / 2, .m = m, .k = k, .n = n, .shift = SRAM_WORD(MATMUL_H_SHIFT),
  };
  kernels_begin(SRAM_WORD(MATMUL_H_VARIANT));
  return matmul_panel_fits(&a) || matmul_stream_fits(&a) ? run_panel(&a) : run_tiled(&a);
}
