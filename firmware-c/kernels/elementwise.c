/* Elementwise passes over SRAM tensors larger than the scratchpad, in
 * chunks of rows (the unfused kernels), and the embedding (kernels.h). */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define VPU TPU_UNIT_VPU

enum { EW_RESIDUAL, EW_RELU, EW_MASK_RELU };

struct ew {
  uint32_t kind, x, t, stride, rows, cols, param, row0;
  uint32_t row_bytes, chunk, double_buffer;
  uint32_t used[2];    /* VPU ticket of the last command on each buffer pair */
  uint32_t loaded[2];  /* DMA ticket that completes each buffer's loads */
};

/* Chunk i uses SP(b) for x and SP_EW2(b) for t, b its buffer. */
static uint32_t chunk_rows(const struct ew *e, uint32_t i) {
  uint32_t r = i * e->chunk;
  return e->rows - r < e->chunk ? e->rows - r : e->chunk;
}

static void ew_load(struct ew *e, uint32_t i) {
  uint32_t b = e->double_buffer ? (i & 1) : 0, r = i * e->chunk, n = chunk_rows(e, i), rb = e->row_bytes;
  k_need(DMA, VPU, e->used[b]);
  uint32_t t = k_issued(DMA, dma_load(e->x + r * e->stride, SP(b), n, rb, e->stride, rb));
  if (e->kind == EW_RESIDUAL) t = k_issued(DMA, dma_load(e->t + r * e->stride, SP_EW2(b), n, rb, e->stride, rb));
  e->loaded[b] = t;
}

static void ew_process(struct ew *e, uint32_t i) {
  uint32_t b = e->double_buffer ? (i & 1) : 0, r = i * e->chunk, n = chunk_rows(e, i), rb = e->row_bytes;
  struct vpu_op v = {
    .a = SP(b), .b = SP_EW2(b), .c = SP(b), .a_stride = rb, .b_stride = rb, .c_stride = rb,
    .rows = n, .cols = e->cols, .param = 0,
  };
  k_need(VPU, DMA, e->loaded[b]);
  uint32_t last;
  if (e->kind == EW_RESIDUAL) {
    k_issued(VPU, vpu_add(&v));
    v.param = e->param;
    last = k_issued(VPU, vpu_hardtanh(&v));
  } else if (e->kind == EW_RELU) {
    last = k_issued(VPU, vpu_relu(&v));
  } else {
    v.param = vpu_mask_offsets(e->row0 + r, 0);
    k_issued(VPU, vpu_causal_mask(&v));
    v.param = 0;
    last = k_issued(VPU, vpu_relu(&v));
  }
  e->used[b] = last;
  k_need(DMA, VPU, last);
  k_issued(DMA, dma_store(e->x + r * e->stride, SP(b), n, rb, e->stride, rb));
}

static void elementwise(struct ew *e) {
  e->row_bytes = e->cols / 2;
  e->chunk = SP_REGION / e->row_bytes;
  e->double_buffer = k_variant & VARIANT_DOUBLE_BUFFER;
  e->used[0] = e->used[1] = 0;
  uint32_t chunks = (e->rows + e->chunk - 1) / e->chunk;
  k_barrier();
  if (e->double_buffer) ew_load(e, 0);
  for (uint32_t i = 0; i < chunks; i++) {
    if (!e->double_buffer) ew_load(e, i);
    else if (i + 1 < chunks) ew_load(e, i + 1);
    ew_process(e, i);
  }
}

void residual_pass(uint32_t x, uint32_t t, uint32_t stride, uint32_t rows, uint32_t cols, uint32_t bound) {
  struct ew e = { .kind = EW_RESIDUAL, .x = x, .t = t, .stride = stride, .rows = rows, .cols = cols, .param = bound };
  elementwise(&e);
}

void relu_pass(uint32_t x, uint32_t stride, uint32_t rows, uint32_t cols) {
  struct ew e = { .kind = EW_RELU, .x = x, .stride = stride, .rows = rows, .cols = cols };
  elementwise(&e);
}

void mask_relu_pass(uint32_t s, uint32_t stride, uint32_t rows, uint32_t cols, uint32_t row0) {
  struct ew e = { .kind = EW_MASK_RELU, .x = s, .stride = stride, .rows = rows, .cols = cols, .row0 = row0 };
  elementwise(&e);
}

void embed(uint32_t x, const uint8_t *tokens, uint32_t rows, uint32_t pos0, uint32_t tok_emb, uint32_t pos_emb, uint32_t d) {
  uint32_t rb = d / 2, chunk = SP_REGION / rb;
  k_barrier();
  for (uint32_t r = 0; r < rows; r += chunk) {
    uint32_t n = rows - r < chunk ? rows - r : chunk;
    k_need(TPU_UNIT_DMA, VPU, tpu_pushed[VPU]);
    for (uint32_t i = 0; i < n; i++)
      k_issued(DMA, dma_load(tok_emb + tokens[r + i] * rb, SP(0) + i * rb, 1, rb, rb, rb));
    uint32_t t = k_issued(DMA, dma_load(pos_emb + (pos0 + r) * rb, SP_EW2(0), n, rb, rb, rb));
    struct vpu_op v = { .a = SP(0), .b = SP_EW2(0), .c = SP(0), .a_stride = rb, .b_stride = rb, .c_stride = rb, .rows = n, .cols = d };
    k_need(VPU, DMA, t);
    uint32_t a = k_issued(VPU, vpu_add(&v));
    k_need(DMA, VPU, a);
    k_issued(DMA, dma_store(x + r * rb, SP(0), n, rb, rb, rb));
  }
}
