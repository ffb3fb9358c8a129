/* Causal ReLU attention, standard and FlashAttention (kernels.h). */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU

/* Standard attention: P = relu(causal(R(q·kᵀ))) goes to SRAM (the scores
 * buffer, one head at a time), then out_h = R(P·v_h) reads it back. */
static void standard_attention(const struct attn_args *a) {
  uint32_t dh = a->d / a->heads, hb = dh / 2, rs = a->d / 2, kvs = a->kv_stride ? a->kv_stride : rs;
  uint32_t ctx = (a->row0 + a->rows + (TILE - 1)) & ~(TILE - 1u);
  for (uint32_t h = 0; h < a->heads; h++) {
    struct mm_args s = {
      .a = a->q + h * hb, .a_stride = rs, .b = a->k_cache + h * hb, .b_stride = kvs,
      .c = a->scores, .c_stride = a->scores_stride, .m = a->rows, .k = dh, .n = ctx,
      .shift = a->shift_s, .flags = MM_TRANSPOSE | MM_CAUSAL, .epi = EPI_MASK_RELU, .row0 = a->row0,
    };
    matmul(&s);
    if (!k_fuses(a->rows)) mask_relu_pass(a->scores, a->scores_stride, a->rows, ctx, a->row0);
    struct mm_args o = {
      .a = a->scores, .a_stride = a->scores_stride, .b = a->v_cache + h * hb, .b_stride = kvs,
      .c = a->out + h * hb, .c_stride = rs, .m = a->rows, .k = ctx, .n = dh,
      .shift = a->shift_o, .flags = MM_CAUSAL, .row0 = a->row0,
    };
    matmul(&o);
  }
}

/* FlashAttention state for one head and one block of queries. */
struct flash {
  const struct attn_args *a;
  uint32_t h, dh, hb, rs, kvs;
  uint32_t q0, mq, groups;     /* the query block */
  uint32_t kv0, bk;            /* the key block and its capacity */
  uint32_t kv_loaded;          /* DMA ticket: K and V blocks are in */
  uint32_t pipelined;
  uint32_t scores_done[2];     /* MXU ticket: P tile g is computed (buffer g & 1) */
  uint32_t mask_done[2];       /* VPU ticket: P tile g is masked */
  uint32_t last_pv;
};

static uint32_t flash_group_last(const struct flash *f, uint32_t g) {
  uint32_t r = TILE * g + (TILE - 1);
  if (r > f->mq - 1) r = f->mq - 1;
  return f->a->row0 + f->q0 + r;
}

/* Column tiles of this key block that row group g needs (0: none). */
static uint32_t flash_tiles(const struct flash *f, uint32_t g) {
  uint32_t last = flash_group_last(f, g);
  if (f->kv0 > last) return 0;
  uint32_t n = (last + TILE - f->kv0) / TILE;
  return n < f->bk / TILE ? n : f->bk / TILE;
}

/* qa: the group's rows in the Q block; oa: its int32 accumulator rows. (RV32I
 * has no multiplier, so the callers advance these by additions.) */
static void flash_scores(struct flash *f, uint32_t g, uint32_t qa) {
  uint32_t n = flash_tiles(f, g), pb = g & 1;
  struct mxu_op m = {
    .a = qa, .a_stride = f->hb, .b_stride = f->hb, .c_stride = f->bk / 2,
    .k = f->dh, .shift = f->a->shift_s, .flags = TPU_MXU_FLAG_TRANSPOSE_B,
  };
  k_need(MXU, DMA, f->kv_loaded);
  m.b = SP_FK;
  m.c = SP_FP(pb);
  for (uint32_t c = 0; c < n; c++) {
    f->scores_done[pb] = k_issued(MXU, mxu_matmul(&m));
    m.b += TILE * f->hb;
    m.c += TILE_ROW4;
  }
}

static void flash_mask(struct flash *f, uint32_t g) {
  uint32_t n = flash_tiles(f, g), pb = g & 1;
  struct vpu_op v = {
    .a = SP_FP(pb), .c = SP_FP(pb), .a_stride = f->bk / 2, .c_stride = f->bk / 2,
    .rows = TILE, .cols = TILE * n, .param = vpu_mask_offsets(f->a->row0 + f->q0 + TILE * g, f->kv0),
  };
  k_need(VPU, MXU, f->scores_done[pb]);
  k_issued(VPU, vpu_causal_mask(&v));
  v.param = 0;
  f->mask_done[pb] = k_issued(VPU, vpu_relu(&v));
}

/* O_acc(g) (+)= P(g)·V, int32: the first key block starts the sum. */
static void flash_pv(struct flash *f, uint32_t g, uint32_t oa) {
  uint32_t n = flash_tiles(f, g), pb = g & 1, orow = f->dh * 4;
  struct mxu_op m = {
    .a = SP_FP(pb), .a_stride = f->bk / 2, .b_stride = f->hb, .c_stride = orow, .cin_stride = orow,
    .k = TILE * n, .flags = TPU_MXU_FLAG_OUT_INT32 | (f->kv0 ? TPU_MXU_FLAG_ACCUMULATE : 0),
  };
  k_need(MXU, VPU, f->mask_done[pb]);
  m.b = SP_FV;
  m.c = m.cin = oa;
  for (uint32_t c = 0; c < f->dh / TILE; c++) {
    f->last_pv = k_issued(MXU, mxu_matmul(&m));
    m.b += TILE_ROW4;
    m.c = m.cin = m.c + TILE_ROW32;
  }
}

static void flash_key_block(struct flash *f) {
  const struct attn_args *a = f->a;
  uint32_t last = flash_group_last(f, f->groups - 1);
  uint32_t nk = last + 1 - f->kv0;
  if (nk > f->bk) nk = f->bk;
  k_need(DMA, MXU, tpu_pushed[MXU]); /* the previous key block has been read */
  k_issued(DMA, dma_load(a->k_cache + f->kv0 * f->kvs + f->h * f->hb, SP_FK, nk, f->hb, f->kvs, f->hb));
  f->kv_loaded = k_issued(DMA, dma_load(a->v_cache + f->kv0 * f->kvs + f->h * f->hb, SP_FV, nk, f->hb, f->kvs, f->hb));
  /* Pipelined: scores of group g+1 run on the MXU while the VPU masks g. */
  uint32_t prev = ~0u, prev_oa = 0, qa = SP_FQ, oa = SP_FO32;
  for (uint32_t g = 0; g < f->groups; g++, qa += TILE * f->hb, oa += TILE * 4 * f->dh) {
    if (!flash_tiles(f, g)) continue;
    flash_scores(f, g, qa);
    if (!f->pipelined) {
      flash_mask(f, g);
      flash_pv(f, g, oa);
      continue;
    }
    if (prev != ~0u) flash_pv(f, prev, prev_oa);
    flash_mask(f, g);
    prev = g;
    prev_oa = oa;
  }
  if (f->pipelined && prev != ~0u) flash_pv(f, prev, prev_oa);
}

static void flash_attention(const struct attn_args *a) {
  struct flash f = { .a = a, .dh = a->d / a->heads, .rs = a->d / 2, .kvs = a->kv_stride ? a->kv_stride : a->d / 2 };
  f.hb = f.dh / 2;
  f.pipelined = k_variant & (VARIANT_DOUBLE_BUFFER | VARIANT_TOKENS);
  /* Query blocks: Q in one region, the int32 accumulator in four. */
  uint32_t bq = SP_REGION / f.hb;
  if (bq > SP_FO32_REGIONS * SP_REGION / (f.dh * 4)) bq = SP_FO32_REGIONS * SP_REGION / (f.dh * 4);
  uint32_t rows_t = (a->rows + (TILE - 1)) & ~(TILE - 1u);
  if (bq > rows_t) bq = rows_t;
  bq &= ~(TILE - 1u);
  /* Key blocks: K and V in two regions each, P tiles of TILE rows in one. */
  uint32_t ctx = (a->row0 + a->rows + (TILE - 1)) & ~(TILE - 1u);
  f.bk = SP_FKV_REGIONS * SP_REGION / f.hb;
  if (f.bk > 2 * SP_REGION) f.bk = 2 * SP_REGION;
  if (f.bk > ctx) f.bk = ctx;
  f.bk &= ~(TILE - 1u);
  for (f.h = 0; f.h < a->heads; f.h++) {
    for (f.q0 = 0; f.q0 < a->rows; f.q0 += bq) {
      f.mq = a->rows - f.q0 < bq ? a->rows - f.q0 : bq;
      f.groups = (f.mq + (TILE - 1)) / TILE;
      k_barrier();
      k_issued(DMA, dma_load(a->q + f.q0 * f.rs + f.h * f.hb, SP_FQ, f.mq, f.hb, f.rs, f.hb));
      uint32_t last = flash_group_last(&f, f.groups - 1);
      for (f.kv0 = 0; f.kv0 <= last; f.kv0 += f.bk) flash_key_block(&f);
      struct vpu_op v = {
        .a = SP_FO32, .c = SP_FO4, .a_stride = f.dh * 4, .c_stride = f.hb, .rows = f.mq, .cols = f.dh,
        .param = a->shift_o,
      };
      k_need(VPU, MXU, f.last_pv);
      uint32_t t = k_issued(VPU, vpu_requant(&v));
      k_need(DMA, VPU, t);
      k_issued(DMA, dma_store(a->out + f.q0 * f.rs + f.h * f.hb, SP_FO4, f.mq, f.hb, f.rs, f.hb));
    }
  }
}

void attention(const struct attn_args *a) {
  if (k_variant & VARIANT_FLASH) flash_attention(a);
  else standard_attention(a);
}

/* ---- one-query attention (VARIANT_HEADS, decode) ----
 * One new query against the cache: every head's keys arrive in one DMA
 * command (the cache rows are contiguous), each head's values as a 2-D slice
 * of their own, and the heads overlap: the MXU computes every head's scores
 * while the values stream in, the VPU masks head h while the MXU works on
 * head h+1, and P·V writes head h's int4 output straight into one output row
 * (R(P·V, shift_o) as standard attention has it), stored once.
 * Tokens: V_h's load waits for head h−1's scores, so the mask of head h can
 * wait for V_(h+1) alone (both its scores and its values are then there);
 * the last head's mask waits for V_last and polls its scores. */
#define SP_DQ SP(0)
#define SP_DK SP(1)
#define SP_DV SP(3)
#define SP_DP(i) SP(5 + (i))
#define SP_DO SP(7)
#define DECODE_KV_BYTES (2 * SP_REGION)

int attention_decode_fits(uint32_t d, uint32_t max_keys) {
  uint32_t ctx = (max_keys + (TILE - 1)) & ~(TILE - 1u);
  return (k_variant & VARIANT_HEADS) && SP_KIB == 64
    && ctx * (d / 2) <= DECODE_KV_BYTES && TILE * (ctx / 2) <= SP_REGION && TILE * (d / 2) <= SP_REGION;
}

/* Head h's mask, ReLU and P·V (its scores and values are there by the tokens
 * the caller set); returns the last MATMUL's ticket. */
static uint32_t decode_pv(const struct attn_args *a, uint32_t h, uint32_t dh, uint32_t o_addr, uint32_t ctx, uint32_t v_addr) {
  uint32_t rs = a->d / 2, hb = dh / 2, prow = ctx / 2;
  struct vpu_op v = {
    .a = SP_DP(h & 1), .c = SP_DP(h & 1), .a_stride = prow, .c_stride = prow, .rows = 1, .cols = ctx,
    .param = vpu_mask_offsets(a->row0, 0),
  };
  k_issued(VPU, vpu_causal_mask(&v));
  v.param = 0;
  uint32_t relu = k_issued(VPU, vpu_relu(&v));
  k_need(MXU, VPU, relu);
  struct mxu_op m = {
    .a = SP_DP(h & 1), .b = v_addr, .c = o_addr, .a_stride = prow, .b_stride = hb, .c_stride = rs,
    .k = ctx, .shift = a->shift_o, .flags = 0,
  };
  uint32_t last = 0;
  for (uint32_t t = 0; t < dh / TILE; t++, m.b += TILE_ROW4, m.c += TILE_ROW4) last = k_issued(MXU, mxu_matmul(&m));
  return last;
}

/* The head width d / heads without a divide (RV32I: a ~100-clock libgcc call). */
static uint32_t head_width(const struct attn_args *a) {
  uint32_t dh = TILE;
  for (uint32_t sum = TILE * a->heads, step = sum; sum < a->d; sum += step) dh += TILE;
  return dh;
}

void attention_decode(const struct attn_args *a, const struct mm_args *next) {
  uint32_t rs = a->d / 2, dh = head_width(a), hb = dh / 2, keys = a->row0 + 1;
  uint32_t ctx = (keys + (TILE - 1)) & ~(TILE - 1u), tiles = ctx / TILE, v_step = 0;
  for (uint32_t t = 0; t < tiles; t++) v_step += TILE * hb; /* ctx · hb by additions */
  k_issued(DMA, dma_load(a->q, SP_DQ, 1, rs, rs, rs));
  uint32_t k_loaded = k_issued(DMA, dma_load(a->k_cache, SP_DK, keys, rs, rs, rs));
  k_need(MXU, DMA, k_loaded);
  uint32_t scores = 0, v_loaded = 0, v_prev = 0, v_addr = SP_DV, col = 0;
  for (uint32_t h = 0; h < a->heads; h++, v_addr += v_step, col += hb) {
    if (h) k_need(DMA, MXU, scores);
    v_loaded = k_issued(DMA, dma_load(a->v_cache + col, v_addr, keys, hb, rs, hb));
    struct mxu_op m = {
      .a = SP_DQ + col, .b = SP_DK + col, .c = SP_DP(h & 1), .a_stride = rs, .b_stride = rs, .c_stride = ctx / 2,
      .k = dh, .shift = a->shift_s, .flags = TPU_MXU_FLAG_TRANSPOSE_B,
    };
    for (uint32_t t = 0; t < tiles; t++, m.b += TILE * rs, m.c += TILE_ROW4) scores = k_issued(MXU, mxu_matmul(&m));
    if (h) {
      k_need(VPU, DMA, v_loaded); /* V_h's load followed head h−1's scores */
      decode_pv(a, h - 1, dh, SP_DO + col - hb, ctx, v_prev);
    }
    v_prev = v_addr;
  }
  k_need(VPU, DMA, v_loaded);
  k_need(VPU, MXU, scores);
  uint32_t last = decode_pv(a, a->heads - 1, dh, SP_DO + col - hb, ctx, v_prev);
  /* CHAIN: the next matmul's first chunk streams during the last head. */
  if (next) matmul_panel_ahead(next);
  k_need(DMA, MXU, last);
  k_issued(DMA, dma_store(a->out, SP_DO, 1, rs, rs, rs));
}

/* ---- block attention (VARIANT_BLOCK_ATTN, prefill) ----
 * Every query of the block at once (queries at positions 0..rows−1, the
 * prompt): Q, K and V whole in three DMA commands, per head the causal score
 * tiles (row group g needs key tiles 0..g) with lean staging, mask + ReLU
 * over the head's whole P block, P·V per row group over its keys only,
 * written as int4 (R(P·V, shift_o), standard attention's result) into one
 * output block, each head's columns stored as soon as they are done. Heads overlap as in attention_decode: the MXU
 * computes head h+1's scores while the VPU masks head h (P alternates
 * between two regions). Tokens: V's load waits for head 0's scores, so head
 * 0's mask waits for V alone; later masks wait for their scores. */
#define SP_BQ SP(0)
#define SP_BK SP(1)
#define SP_BV SP(2)
#define SP_BP(i) SP(3 + (i))
#define SP_BO SP(5)

int attention_block_fits(uint32_t d, uint32_t rows) {
  uint32_t ctx = (rows + (TILE - 1)) & ~(TILE - 1u);
  return (k_variant & VARIANT_BLOCK_ATTN) && SP_KIB == 64 && ctx * (d / 2) <= SP_REGION && ctx * (ctx / 2) <= SP_REGION;
}

/* Head h's scores: row group g against key tiles 0..g. */
static uint32_t block_scores(const struct attn_args *a, uint32_t col, uint32_t pbuf, uint32_t groups, uint32_t dh, uint32_t prow) {
  uint32_t rs = a->d / 2, last = 0;
  tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(rs) | TPU_MXU_B_STRIDE(rs));
  tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(prow) | TPU_MXU_SHIFT(a->shift_s));
  uint32_t qa = SP_BQ + col, pc = pbuf, q_group = rs << TILE_LOG2, p_group = prow << TILE_LOG2;
  for (uint32_t g = 0; g < groups; g++, qa += q_group, pc += p_group) {
    uint32_t kb = SP_BK + col, c = pc;
    for (uint32_t t = 0; t <= g; t++, kb += q_group, c += TILE_ROW4) {
      tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, TPU_MXU_A_ADDR(qa) | TPU_MXU_B_ADDR(kb));
      tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, TPU_MXU_C_ADDR(c) | TPU_MXU_K(dh));
      last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, TPU_MXU_FLAG_TRANSPOSE_B));
      __asm__("" : "+r"(kb), "+r"(c));
    }
  }
  return last;
}

/* Head h's mask + ReLU over its P block, then P·V into the output block. */
static uint32_t block_pv(const struct attn_args *a, uint32_t col, uint32_t pbuf, uint32_t groups, uint32_t dh, uint32_t prow, uint32_t ctx) {
  uint32_t rs = a->d / 2, last = 0;
  struct vpu_op v = { .a = pbuf, .c = pbuf, .a_stride = prow, .c_stride = prow, .rows = a->rows, .cols = ctx, .param = vpu_mask_offsets(0, 0) };
  k_issued(VPU, vpu_causal_mask(&v));
  v.param = 0;
  k_need(MXU, VPU, k_issued(VPU, vpu_relu(&v)));
  tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(prow) | TPU_MXU_B_STRIDE(rs));
  tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(rs) | TPU_MXU_SHIFT(a->shift_o));
  uint32_t pa = pbuf, oc = SP_BO + col, k = TILE, p_group = prow << TILE_LOG2, o_group = rs << TILE_LOG2;
  for (uint32_t g = 0; g < groups; g++, pa += p_group, oc += o_group, k += TILE) {
    uint32_t vb = SP_BV + col, c = oc;
    for (uint32_t t = 0; t < dh; t += TILE, vb += TILE_ROW4, c += TILE_ROW4) {
      tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, TPU_MXU_A_ADDR(pa) | TPU_MXU_B_ADDR(vb));
      tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, TPU_MXU_C_ADDR(c) | TPU_MXU_K(k));
      last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, 0));
    }
  }
  return last;
}

void attention_block(const struct attn_args *a) {
  uint32_t rs = a->d / 2, dh = head_width(a), hb = dh / 2, rows = a->rows;
  uint32_t ctx = (rows + (TILE - 1)) & ~(TILE - 1u), prow = ctx / 2, groups = ctx >> TILE_LOG2;
  k_issued(DMA, dma_load(a->q, SP_BQ, rows, rs, rs, rs));
  uint32_t k_loaded = k_issued(DMA, dma_load(a->k_cache, SP_BK, rows, rs, rs, rs));
  k_need(MXU, DMA, k_loaded);
  uint32_t scores = block_scores(a, 0, SP_BP(0), groups, dh, prow);
  k_need(DMA, MXU, scores);
  uint32_t v_loaded = k_issued(DMA, dma_load(a->v_cache, SP_BV, rows, rs, rs, rs));
  uint32_t last = 0, col = 0;
  for (uint32_t h = 1; h < a->heads; h++, col += hb) {
    uint32_t next = block_scores(a, col + hb, SP_BP(h & 1), groups, dh, prow);
    if (h == 1) k_need(VPU, DMA, v_loaded);
    else k_need(VPU, MXU, scores);
    last = block_pv(a, col, SP_BP((h - 1) & 1), groups, dh, prow, ctx);
    /* Head h−1's output columns go out while the next heads compute. */
    k_need(DMA, MXU, last);
    k_issued(DMA, dma_store(a->out + col, SP_BO + col, rows, hb, rs, rs));
    scores = next;
  }
  if (a->heads == 1) k_need(VPU, DMA, v_loaded);
  else k_need(VPU, MXU, scores);
  last = block_pv(a, col, SP_BP((a->heads - 1) & 1), groups, dh, prow, ctx);
  k_need(DMA, MXU, last);
  k_issued(DMA, dma_store(a->out + col, SP_BO + col, rows, hb, rs, rs));
}
