/* FFN_ON_CHIP (VARIANT_FFN_ON_CHIP, prefill): matmul_stream (panel.c) with
 * the feed-forward block's rows kept in the scratchpad. Wo leaves its output
 * rows over the residual's region (STREAM_RES_OUT) instead of storing them;
 * W1 reads them there as its A and leaves its C block, ReLU'd once per block
 * of rows after its last MATMUL, in the A block's four regions at the row
 * stride d_ff/2 (STREAM_UP); W2 takes that block as its A and W1's A as its
 * residual rows (STREAM_DOWN), so neither the hidden rows nor the FFN's input
 * go through the SRAM. The code is a copy of matmul_stream's, in its own file
 * so that panel.c and the clocks of every variant without FFN_ON_CHIP are
 * what they were. The chain state (CHAIN: the ring buffer where the next call
 * starts) is this file's between the FFN's three calls; W2's next call is
 * panel.c's matmul_stream (the next layer's Wq), whose state stream_chain_set
 * writes. */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU

/* panel.c's dma_rows. */
static uint32_t dma_rows(uint32_t op, uint32_t sram, uint32_t spad, uint32_t rows, uint32_t row_bytes,
                         uint32_t sram_stride, uint32_t spad_stride) {
  return k_issued(DMA, dma_2d(op, sram, spad, rows, row_bytes, sram_stride, spad_stride));
}

/* matmul_stream's plan (panel.c):
 * The panel scheme for a block of up to 64 rows: B in the same chunks, every
 * chunk's tiles computed for every row group while the next chunks load, the
 * epilogue over the chunk's C columns, and those columns stored behind the
 * next chunk's load (so the DMA streams B while the MXU works, and only the
 * last chunk's epilogue and store are left when the MXU is done).
 * Plan: A in regions 0-3, a ring of four C chunk blocks in 4-7 (chunk i's C
 * in its own region, so that the MXU writing chunk i+1, the VPU on chunk i
 * and the DMA storing chunk i−1 never share a port), the residual in 8, a
 * ring of B buffers in 9-15. */
#define SS_A SP(0)
#define SS_C(i) SP(4 + ((i) & 3))
#define SS_R SP(8)
#define SS_B0 SP(9)
#define SS_BLOCK (4 * SP_REGION)
/* STREAM_BUFFERS, STREAM_CHUNK_BYTES and STREAM_AHEAD: kernel_constants.h. */


/* The B chunk loads of one call, in order (panel.c's struct stream_loads). */
struct stream_loads {
  uint32_t sram, tiles_left, buf, chunk, chunk_row, k, b_stride, count;
  uint32_t loaded[STREAM_BUFFERS];       /* DMA ticket of each buffer's chunk */
  uint32_t buffer_read[STREAM_BUFFERS];  /* MXU ticket of the last MATMUL reading each buffer */
};

/* CHAIN between the FFN's calls: the ring buffer where the next call starts
 * and how many of its chunks the call before it loaded. */
static uint32_t stream_ring_start, stream_prefetched;

/* FFN_ON_CHIP's W1 (STREAM_UP): its A in the residual region, its whole C
 * block (rows × n int4) in the four regions of the A block. */
int matmul_stream_up_fits(const struct mm_args *p) {
  return (k_variant & VARIANT_FFN_ON_CHIP) && matmul_stream_fits(p) && p->epi == EPI_RELU
    && p->m * (p->k / 2) <= SP_REGION && p->m * (p->n / 2) <= SS_BLOCK;
}

/* STREAM_RES_OUT and STREAM_UP: the VPU ticket of the last op on the rows
 * they leave in the scratchpad, which the next call's first MATMUL waits for. */
static uint32_t stream_on_chip;
/* STREAM_UP's ReLU, one VPU op per block of rows (TILE << relu_log2 rows, at
 * most a region's), so that STREAM_DOWN's first MATMULs start after the
 * first block's instead of the whole ReLU; at most RELU_BLOCKS_MAX blocks
 * (kernel_constants.h). */
static uint32_t stream_relu[RELU_BLOCKS_MAX], stream_relu_log2;


static void stream_load_ffn(struct stream_loads *l) {
  uint32_t nt = l->tiles_left < l->chunk ? l->tiles_left : l->chunk;
  if (l->count >= STREAM_BUFFERS) k_need(DMA, MXU, l->buffer_read[l->buf]);
  l->loaded[l->buf] = dma_rows(TPU_DMA_LOAD, l->sram, SS_B0 + l->buf * SP_REGION, l->k, nt * TILE_ROW4, l->b_stride, l->chunk_row);
  l->sram += l->chunk_row;
  l->tiles_left -= nt;
  l->count++;
  if (++l->buf == STREAM_BUFFERS) l->buf = 0;
}


static void stream_init_ffn(struct stream_loads *l, const struct mm_args *p) {
  l->sram = p->b; l->tiles_left = p->n / TILE; l->chunk = 1; l->k = p->k; l->b_stride = p->b_stride;
  for (uint32_t bytes = p->k * TILE_ROW4; 2 * bytes <= STREAM_CHUNK_BYTES; bytes <<= 1) l->chunk <<= 1;
  l->chunk_row = l->chunk * TILE_ROW4;
}

/* The next call's first chunks, ahead of this call's last C store: ring
 * buffers after this call's, each reused only after this call's MXU has
 * read it. */
static void stream_prefetch_ffn(struct stream_loads *l, const struct mm_args *next) {
  struct stream_loads n;
  stream_init_ffn(&n, next);
  stream_ring_start = l->buf;
  for (stream_prefetched = 0; stream_prefetched < STREAM_AHEAD && n.tiles_left; stream_prefetched++) {
    uint32_t nt = n.tiles_left < n.chunk ? n.tiles_left : n.chunk;
    if (l->count >= STREAM_BUFFERS) k_need(DMA, MXU, l->buffer_read[l->buf]);
    dma_rows(TPU_DMA_LOAD, n.sram, SS_B0 + l->buf * SP_REGION, n.k, nt * TILE_ROW4, n.b_stride, n.chunk_row);
    n.sram += n.chunk_row;
    n.tiles_left -= nt;
    l->count++;
    if (++l->buf == STREAM_BUFFERS) l->buf = 0;
  }
}

/* FFN_ON_CHIP's copy of matmul_stream with its opts (kernels.h), its own
 * function so that matmul_stream's code, and the clocks of every variant
 * without FFN_ON_CHIP, are what they were. */
void matmul_stream_ffn(const struct mm_args *p, uint32_t opts, const struct mm_args *next) {
  uint32_t arow = p->k / 2, up = opts & STREAM_UP, res_out = opts & STREAM_RES_OUT, a_at = up ? SS_R : SS_A;
  struct stream_loads l;
  stream_init_ffn(&l, p);
  uint32_t work_buf = stream_ring_start, prefetched = stream_prefetched;
  l.buf = stream_ring_start;
  l.count = 0;
  stream_ring_start = stream_prefetched = 0;
  for (uint32_t i = 0; i < prefetched; i++) { /* loaded by the call before */
    l.tiles_left -= l.tiles_left < l.chunk ? l.tiles_left : l.chunk;
    l.sram += l.chunk_row;
    l.count++;
    if (++l.buf == STREAM_BUFFERS) l.buf = 0;
  }
  uint32_t epi = p->epi, groups = (p->m + (TILE - 1)) >> TILE_LOG2, crow = l.chunk_row;
  /* STREAM_UP: C rows are the block's full rows (n/2 bytes), not a chunk's. */
  uint32_t c_row = up ? p->n / 2 : crow;
  uint32_t a_group = arow << TILE_LOG2, c_group = c_row << TILE_LOG2;
  if (!(opts & (STREAM_KEEP_A | STREAM_DOWN))) dma_rows(TPU_DMA_LOAD, p->a, a_at, p->m, arow, p->a_stride, arow);
  /* RES_OUT (Wo) with nothing prefetched: the residual rows load after the first chunks, which the MXU needs first. */
  uint32_t res_late = res_out && !prefetched, res_loaded = 0;
  if (epi == EPI_RESIDUAL && !(opts & STREAM_DOWN) && !res_late) dma_rows(TPU_DMA_LOAD, p->res, SS_R, p->m, p->n / 2, p->res_stride, p->n / 2);
  /* DOWN: A is W1's C, once ReLU'd; UP with KEEP_A: A is Wo's output rows. */
  if (up && (opts & STREAM_KEEP_A)) k_need(MXU, VPU, stream_on_chip);
  /* DOWN: the first tile's row group g waits for the ReLU of its block only. */
  uint32_t relu_wait = opts & STREAM_DOWN, relu_gmask = (1u << stream_relu_log2) - 1;
  /* Prefetched chunks: the DMA's latest command (A, the residual or the
   * previous call's last store) follows them, and the MXU must not write the
   * C ring before that store has read it. */
  for (uint32_t i = 0, b = work_buf; i < prefetched; i++, b = b + 1 == STREAM_BUFFERS ? 0 : b + 1) l.loaded[b] = tpu_pushed[DMA];
  for (uint32_t i = prefetched; i < STREAM_AHEAD && l.tiles_left; i++) stream_load_ffn(&l);
  if (res_late) res_loaded = dma_rows(TPU_DMA_LOAD, p->res, SS_R, p->m, p->n / 2, p->res_stride, p->n / 2);
  uint32_t next_loaded = !(next && (k_variant & VARIANT_CHAIN)); /* 1: nothing (more) to load ahead */
  uint32_t m_arg2 = TPU_MXU_A_STRIDE(arow) | TPU_MXU_B_STRIDE(l.chunk_row), m_arg3 = TPU_MXU_C_STRIDE(c_row) | TPU_MXU_SHIFT(p->shift);
  uint32_t store_sram = p->c, res_col = 0, tiles = p->n / TILE, last = 0;
  for (uint32_t i = 0, j = 0; j < tiles; i++) {
    uint32_t nt = tiles - j < l.chunk ? tiles - j : l.chunk;
    tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, m_arg2);
    tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, m_arg3);
    k_need(MXU, DMA, l.loaded[work_buf]);
    uint32_t b = SS_B0 + work_buf * SP_REGION, c_tile = up ? SS_A + j * TILE_ROW4 : SS_C(i);
    if (relu_wait) { /* DOWN's first tile: row group g waits for the ReLU of its block only */
      uint32_t ab = a_at | TPU_MXU_B_ADDR(b), ck = c_tile | TPU_MXU_K(p->k);
      for (uint32_t g = 0; g < groups; g++, ab += a_group, ck += c_group) {
        if (!(g & relu_gmask)) k_need(MXU, VPU, stream_relu[g >> stream_relu_log2]);
        tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
        tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, ck);
        last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, 0));
      }
      relu_wait = 0;
      j++; b += TILE_ROW4; c_tile += TILE_ROW4;
      for (uint32_t t = 1; t < nt; t++, j++, b += TILE_ROW4, c_tile += TILE_ROW4) {
        ab = a_at | TPU_MXU_B_ADDR(b); ck = c_tile | TPU_MXU_K(p->k);
        for (uint32_t g = 0; g < groups; g++, ab += a_group, ck += c_group) {
          tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
          tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, ck);
          last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, 0));
        }
      }
    } else
    for (uint32_t t = 0; t < nt; t++, j++, b += TILE_ROW4, c_tile += TILE_ROW4) {
      uint32_t ab = a_at | TPU_MXU_B_ADDR(b), ck = c_tile | TPU_MXU_K(p->k);
      for (uint32_t g = 0; g < groups; g++) {
        tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
        tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, ck);
        last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, 0));
        ab += a_group;
        ck += c_group;
        /* Keeps GCC from computing the loops' final values with a multiply. */
        __asm__("" : "+r"(ab), "+r"(ck));
      }
      __asm__("" : "+r"(b), "+r"(c_tile), "+r"(j));
    }
    l.buffer_read[work_buf] = last;
    if (++work_buf == STREAM_BUFFERS) work_buf = 0;
    if (up) { /* no epilogue and no store per chunk: the ReLU follows the last MATMUL */
      if (l.tiles_left) stream_load_ffn(&l);
      else if (!next_loaded) { stream_prefetch_ffn(&l, next); next_loaded = 1; }
      continue;
    }
    uint32_t done = last, on = MXU;
    if (epi != EPI_NONE) {
      struct vpu_op v = {
        .a = SS_C(i), .b = SS_R + res_col, .c = SS_C(i), .a_stride = crow, .b_stride = p->n / 2, .c_stride = crow,
        .rows = p->m, .cols = nt * TILE, .param = 0,
      };
      if (res_out) { v.c = SS_R + res_col; v.c_stride = p->n / 2; } /* the new rows over the residual's */
      if (res_loaded) { k_need(VPU, DMA, res_loaded); res_loaded = 0; }
      k_need(VPU, MXU, last);
      if (epi == EPI_RESIDUAL) {
        k_issued(VPU, vpu_add(&v));
        v.param = p->bound;
        v.a = v.c; v.a_stride = v.c_stride;
        done = k_issued(VPU, vpu_hardtanh(&v));
      } else {
        done = k_issued(VPU, vpu_relu(&v));
      }
      on = VPU;
    }
    /* The next chunk's load goes ahead of this chunk's store in the DMA's order. */
    if (l.tiles_left) stream_load_ffn(&l);
    else if (!next_loaded) { stream_prefetch_ffn(&l, next); next_loaded = 1; }
    uint32_t width = nt * TILE_ROW4;
    if (res_out) stream_on_chip = done;
    else {
      k_need(DMA, on, done);
      dma_rows(TPU_DMA_STORE, store_sram, SS_C(i), p->m, width, p->c_stride, crow);
    }
    store_sram += width;
    res_col += width;
  }
  if (up) {
    uint32_t log2 = 0;
    /* Blocks of at most a region (c_row · TILE ≤ a region: stream_up_fits); m ≤ 64 rows make at most 8. */
    while ((c_row << (TILE_LOG2 + log2 + 1)) <= SP_REGION && (1u << (log2 + 1)) <= RELU_BLOCKS_MAX) log2++;
    uint32_t block_rows = TILE << log2, block_bytes = c_row << (TILE_LOG2 + log2);
    struct vpu_op v = { .a = SS_A, .b = SS_R, .c = SS_A, .a_stride = c_row, .b_stride = c_row, .c_stride = c_row, .rows = 0, .cols = p->n, .param = 0 };
    k_need(VPU, MXU, last);
    for (uint32_t r = 0, q = 0; r < p->m; r += block_rows, q++, v.a += block_bytes, v.c += block_bytes) {
      v.rows = p->m - r < block_rows ? p->m - r : block_rows;
      stream_relu[q] = k_issued(VPU, vpu_relu(&v));
    }
    stream_relu_log2 = log2;
  }
  if (opts & STREAM_DOWN) { /* the next layer's Wq is panel.c's */
    stream_chain_set(stream_ring_start, stream_prefetched);
    stream_ring_start = stream_prefetched = 0;
  }
}

/* LONG_CONTEXT: the FFN of the next block of rows follows this W2 (its Wo's
 * first chunks were loaded ahead by W2, which handed the state to panel.c). */
void stream_ffn_chain_resume(void) { stream_chain_take(&stream_ring_start, &stream_prefetched); }
