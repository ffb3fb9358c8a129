/* The tiled matmul, its transposed form and fused epilogues (kernels.h). */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU

uint32_t k_variant;
/* The DONE count last read from each unit: a poll for a ticket already seen
 * done costs no MMIO read (7 clocks each). */
static uint32_t seen_done[4];

static void k_wait(unsigned unit, uint32_t ticket) {
  while ((int32_t)(seen_done[unit] - ticket) < 0) seen_done[unit] = tpu_done(unit);
  tpu_memory_barrier();
}

void k_need_slow(unsigned unit, unsigned on, uint32_t ticket) {
  if (!(k_variant & VARIANT_TOKENS)) {
    k_wait(on, ticket);
    return;
  }
  uint32_t cur = tpu_next_token[unit];
  if (cur != TPU_NO_TOKEN) {
    unsigned cur_unit = TPU_UNIT_ARG5_UNIT_GET(cur);
    uint32_t cur_ticket = TPU_UNIT_ARG5_TICKET_GET(cur);
    if (cur_unit == on) {
      if ((int32_t)(ticket - cur_ticket) < 0) ticket = cur_ticket;
    } else {
      k_wait(cur_unit, cur_ticket);
    }
  }
  tpu_after(unit, on, ticket);
}

void k_barrier(void) {
  k_need(DMA, MXU, tpu_pushed[MXU]);
  k_need(DMA, VPU, tpu_pushed[VPU]);
}

/* One A block's worth of state, shared by the tile steps below. RV32I has
 * no multiplier (a multiply is a ~80-clock libgcc call), so every address
 * in the loops is advanced by additions. */
struct mm_block {
  const struct mm_args *p;
  uint32_t r0, rows, groups;   /* the block: rows r0 .. r0+rows-1 of A */
  uint32_t arow, crow;         /* bytes per row of A and of C in the scratchpad */
  uint32_t a_group, c_group;   /* bytes per row group (TILE rows) of A and C in the scratchpad */
  uint32_t epi, double_buffer, causal_cols, causal_k;
  uint32_t b_tile, b_tile_step; /* SRAM address of B tile j, and its step */
  uint32_t c_tile;             /* SRAM address of C tile j, row r0 + TILE·g0 */
  uint32_t res_tile;           /* likewise for the residual */
  uint32_t g0;                 /* first row group tile j needs */
  uint32_t a_first, c_first;   /* its offsets in the A block and in a C buffer */
  /* LEAN: staging words computed once per call; the loops only add. */
  uint32_t lean;
  uint32_t b_arg1[2], b_arg2, b_arg3;   /* B load: SPAD_ADDR|ROWS, ROW_BYTES|SPAD_STRIDE, SRAM_STRIDE */
  uint32_t m_arg2, m_arg3;              /* MXU: A_STRIDE|B_STRIDE, C_STRIDE|SHIFT */
  uint32_t s_arg2, s_arg3;              /* C store */
  uint32_t m_flags;
  uint32_t b_read[2];          /* MXU ticket of the last matmul reading each B buffer */
  uint32_t r_read[2];          /* VPU ticket of the last command reading each R buffer */
  uint32_t loaded[2];          /* DMA ticket that completes each buffer's loads */
};

/* Position of the last query of row group g. */
static uint32_t group_last(const struct mm_block *s, uint32_t g) {
  uint32_t r = TILE * g + (TILE - 1);
  if (r > s->rows - 1) r = s->rows - 1;
  return s->p->row0 + s->r0 + r;
}

/* Moves to column tile j: its first row group (causal scores skip the
 * groups whose queries all precede the tile's keys) and its addresses. */
static void seek_tile(struct mm_block *s, uint32_t j) {
  const struct mm_args *p = s->p;
  if (s->causal_cols) {
    uint32_t base = p->row0 + s->r0, first = TILE * j > base ? (TILE * j - base) >> TILE_LOG2 : 0;
    for (; s->g0 < first; s->g0++) {
      s->c_tile += TILE * p->c_stride;
      s->a_first += s->a_group;
      s->c_first += s->c_group;
    }
  }
}

static void load_tile(struct mm_block *s, uint32_t j) {
  const struct mm_args *p = s->p;
  uint32_t bi = s->double_buffer ? (j & 1) : 0;
  k_need(DMA, MXU, s->b_read[bi]);
  uint32_t t;
  if (s->lean) {
    tpu_stage(DMA, TPU_DMA_SRAM_ADDR_ARG, s->b_tile);
    tpu_stage(DMA, TPU_DMA_SPAD_ADDR_ARG, s->b_arg1[bi]);
    tpu_stage(DMA, TPU_DMA_ROW_BYTES_ARG, s->b_arg2);
    tpu_stage(DMA, TPU_DMA_SRAM_STRIDE_ARG, s->b_arg3);
    t = tpu_push(DMA, TPU_DMA_LOAD, 0);
  } else if (p->flags & MM_TRANSPOSE)
    t = dma_load(s->b_tile, SP_B(bi), TILE, s->arow, p->b_stride, s->arow);
  else
    t = dma_load(s->b_tile, SP_B(bi), p->k, TILE_ROW4, p->b_stride, TILE_ROW4);
  s->b_tile += s->b_tile_step;
  k_issued(DMA, t);
  if (s->epi == EPI_RESIDUAL) {
    /* Residual tiles exist only for plain (non-causal) matmuls: g0 is 0. */
    k_need(DMA, VPU, s->r_read[bi]);
    t = k_issued(DMA, dma_load(s->res_tile + TILE_ROW4 * j, SP_R(bi), s->rows, TILE_ROW4, p->res_stride, TILE_ROW4));
  }
  s->loaded[bi] = t;
}

static uint32_t epilogue(struct mm_block *s, uint32_t j, uint32_t bi, uint32_t g0) {
  const struct mm_args *p = s->p;
  struct vpu_op v = {
    .a = SP_C(bi) + TILE * TILE_ROW4 * g0, .b = SP_R(bi) + TILE * TILE_ROW4 * g0, .c = SP_C(bi) + TILE * TILE_ROW4 * g0,
    .a_stride = TILE_ROW4, .b_stride = TILE_ROW4, .c_stride = TILE_ROW4, .rows = s->rows - TILE * g0, .cols = TILE, .param = 0,
  };
  switch (s->epi) {
  case EPI_RELU:
    return k_issued(VPU, vpu_relu(&v));
  case EPI_RESIDUAL:
    k_issued(VPU, vpu_add(&v));
    v.param = p->bound;
    return k_issued(VPU, vpu_hardtanh(&v));
  default: /* EPI_MASK_RELU */
    v.param = vpu_mask_offsets(p->row0 + s->r0 + TILE * g0, TILE * j);
    k_issued(VPU, vpu_causal_mask(&v));
    v.param = 0;
    return k_issued(VPU, vpu_relu(&v));
  }
}

static void compute_tile(struct mm_block *s, uint32_t j) {
  const struct mm_args *p = s->p;
  uint32_t bi = s->double_buffer ? (j & 1) : 0;
  uint32_t g0 = s->g0;
  uint32_t transpose = p->flags & MM_TRANSPOSE;
  struct mxu_op m = {
    .b = SP_B(bi), .a_stride = s->arow, .b_stride = transpose ? s->arow : TILE_ROW4, .c_stride = s->crow,
    .k = p->k, .shift = p->shift,
    .flags = (transpose ? TPU_MXU_FLAG_TRANSPOSE_B : 0) | ((p->flags & MM_OUT_INT32) ? TPU_MXU_FLAG_OUT_INT32 : 0),
  };
  k_need(MXU, DMA, s->loaded[bi]);
  uint32_t last = 0, a = SP_A + s->a_first, c = SP_C(bi) + s->c_first;
  if (s->lean) {
    /* ARG2 and ARG3 hold for every group of the tile: written once. The
     * upper fields go through tpu_regs.h's macros; the low ones (A_ADDR,
     * C_ADDR, SPAD_ADDR: LSB 0) are scratchpad offsets below 64 KiB, or'd in
     * unmasked (a mask would cost instructions on every group). */
    tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, s->m_arg2);
    tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, s->m_arg3);
    uint32_t ab = a | TPU_MXU_B_ADDR(SP_B(bi)), ck = c | TPU_MXU_K(p->k);
    for (uint32_t g = g0; g < s->groups; g++) {
      if (s->causal_k) {
        uint32_t k = (group_last(s, g) + TILE) & ~(TILE - 1u);
        ck = TPU_MXU_C_ADDR_GET(ck) | TPU_MXU_K(k < p->k ? k : p->k);
      }
      tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
      tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, ck);
      last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, s->m_flags));
      ab += s->a_group;
      ck += s->c_group;
    }
  }
  else for (uint32_t g = g0; g < s->groups; g++) {
    m.a = a;
    m.c = c;
    if (s->causal_k) { /* causal P·V: row group g needs keys up to its last query only */
      uint32_t k = (group_last(s, g) + TILE) & ~(TILE - 1u);
      m.k = k < p->k ? k : p->k;
    }
    last = k_issued(MXU, mxu_matmul(&m));
    a += s->a_group;
    c += s->c_group;
  }
  s->b_read[bi] = last;
  if (s->epi != EPI_NONE) {
    k_need(VPU, MXU, last);
    uint32_t v = epilogue(s, j, bi, g0);
    s->r_read[bi] = v;
    k_need(DMA, VPU, v);
  } else {
    k_need(DMA, MXU, last);
  }
  if (s->lean) {
    tpu_stage(DMA, TPU_DMA_SRAM_ADDR_ARG, s->c_tile);
    tpu_stage(DMA, TPU_DMA_SPAD_ADDR_ARG, (SP_C(bi) + s->c_first) | TPU_DMA_ROWS(s->rows - TILE * g0));
    tpu_stage(DMA, TPU_DMA_ROW_BYTES_ARG, s->s_arg2);
    tpu_stage(DMA, TPU_DMA_SRAM_STRIDE_ARG, s->s_arg3);
    k_issued(DMA, tpu_push(DMA, TPU_DMA_STORE, 0));
  } else {
    k_issued(DMA, dma_store(s->c_tile, SP_C(bi) + s->c_first, s->rows - TILE * g0, s->crow, p->c_stride, s->crow));
  }
  s->c_tile += s->crow;
}

void matmul(const struct mm_args *p) {
  struct mm_block s = {
    .p = p, .arow = p->k / 2, .crow = (p->flags & MM_OUT_INT32) ? TILE_ROW32 : TILE_ROW4,
    .epi = k_fuses(p->m) ? p->epi : EPI_NONE,
    .double_buffer = k_variant & VARIANT_DOUBLE_BUFFER,
    .causal_cols = (p->flags & MM_CAUSAL) && (p->flags & MM_TRANSPOSE),
    .causal_k = (p->flags & MM_CAUSAL) && !(p->flags & MM_TRANSPOSE),
  };
  s.a_group = TILE * s.arow;
  s.c_group = TILE * s.crow;
  s.b_tile_step = (p->flags & MM_TRANSPOSE) ? TILE * p->b_stride : TILE_ROW4;
  s.lean = k_variant & VARIANT_LEAN;
  if (s.lean) {
    uint32_t transpose = p->flags & MM_TRANSPOSE;
    for (uint32_t i = 0; i < 2; i++)
      s.b_arg1[i] = TPU_DMA_SPAD_ADDR(SP_B(i)) | TPU_DMA_ROWS(transpose ? TILE : p->k);
    s.b_arg2 = transpose ? TPU_DMA_ROW_BYTES(s.arow) | TPU_DMA_SPAD_STRIDE(s.arow) : TPU_DMA_ROW_BYTES(TILE_ROW4) | TPU_DMA_SPAD_STRIDE(TILE_ROW4);
    s.b_arg3 = TPU_DMA_SRAM_STRIDE(p->b_stride);
    s.m_arg2 = TPU_MXU_A_STRIDE(s.arow) | TPU_MXU_B_STRIDE(transpose ? s.arow : TILE_ROW4);
    s.m_arg3 = TPU_MXU_C_STRIDE(s.crow) | TPU_MXU_SHIFT(p->shift);
    s.m_flags = (transpose ? TPU_MXU_FLAG_TRANSPOSE_B : 0) | ((p->flags & MM_OUT_INT32) ? TPU_MXU_FLAG_OUT_INT32 : 0);
    s.s_arg2 = TPU_DMA_ROW_BYTES(s.crow) | TPU_DMA_SPAD_STRIDE(s.crow);
    s.s_arg3 = TPU_DMA_SRAM_STRIDE(p->c_stride);
  }
  /* Rows per A block: A and the C tiles must fit their regions. */
  uint32_t block = SP_A_BYTES / s.arow;
  if (block > SP_REGION / s.crow) block = SP_REGION / s.crow;
  block &= ~(TILE - 1u);
  uint32_t m_tiles = (p->m + (TILE - 1)) & ~(TILE - 1u);
  if (block > m_tiles) block = m_tiles;
  uint32_t tiles = p->n / TILE;
  k_barrier();
  for (s.r0 = 0; s.r0 < p->m; s.r0 += block) {
    s.rows = p->m - s.r0 < block ? p->m - s.r0 : block;
    s.groups = (s.rows + (TILE - 1)) / TILE;
    uint32_t block_tiles = tiles;
    uint32_t a_rows = p->a + s.r0 * p->a_stride;
    s.b_tile = p->b;
    s.c_tile = p->c + s.r0 * p->c_stride;
    s.res_tile = p->res + s.r0 * p->res_stride;
    s.g0 = s.a_first = s.c_first = 0;
    if (s.causal_cols) {
      uint32_t last_tile = group_last(&s, s.groups - 1) / TILE + 1;
      if (last_tile < block_tiles) block_tiles = last_tile;
    }
    /* The previous block's matmuls have read A. */
    k_need(DMA, MXU, tpu_pushed[MXU]);
    k_issued(DMA, dma_load(a_rows, SP_A, s.rows, s.arow, p->a_stride, s.arow));
    if (s.double_buffer) load_tile(&s, 0);
    for (uint32_t j = 0; j < block_tiles; j++) {
      if (!s.double_buffer) load_tile(&s, j);
      else if (j + 1 < block_tiles) load_tile(&s, j + 1);
      seek_tile(&s, j);
      compute_tile(&s, j);
    }
  }
}
