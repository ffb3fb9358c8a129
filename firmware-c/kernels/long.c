/* LONG_CONTEXT (VARIANT_LONG_CONTEXT, prefill; model.c's main_long):
 * attention_long. (The weight matmuls go by 64-row blocks through panel.c's
 * matmul_stream and stream_ffn.c's matmul_stream_ffn; stream_chain_take and
 * stream_ffn_chain_resume hand the CHAIN state from one block's W2 to the
 * next block's Wo.)
 *
 * Block attention (attention.c) keeps Q, K, V and a head's whole P block in
 * one region each, so it stops at 64 rows (d = 128). Here K and V stay whole
 * in four regions each and the queries go in blocks of qb rows (64 at
 * d = 128): per query block b and head h the causal score tiles (row group
 * G = b·qb/8 + g against key tiles 0..G) into a P block of qb rows × the
 * block's keys, mask + ReLU over it, P·V per row group over its keys only,
 * written as int4 into the block's output rows, and the head's columns
 * stored at once. The (block, head) items are pipelined as block attention
 * pipelines heads: the MXU computes item i+1's scores while the VPU masks
 * item i (P alternates between two two-region buffers), so the MXU has
 * work while the VPU masks. K and V load block by block, each ahead of the first
 * item that needs it, so the first scores start after 2·qb rows of loads.
 *
 * Tokens (a command holds one; every other dependency is implied by order):
 *   item (b, 0)'s scores   wait for K_b's load (Q_b's is before it)
 *   V_b's load             waits for item (b, 0)'s scores; Q_b+1 and K_b+1
 *                          load behind it (so Q_b+1 overwrites Q_b−1's buffer
 *                          after every score of block b−1, MXU order)
 *   item (b, 0)'s mask     waits for V_b's load (so also for its scores);
 *                          item (b, h>0)'s mask for its scores
 *   P·V                    waits for its ReLU (V_b is loaded: item (b, 0)'s
 *                          P·V came first)
 *   the head's store       waits for its P·V; every store of block b−1 is
 *                          ahead of V_b+1's load in the DMA, so block b+1's
 *                          P·V (after item (b+1, 0)'s mask) writes the output
 *                          buffer only after block b−1's rows have left it.
 * Plan: K 0-3, V 4-7, Q blocks 8/9, output blocks 10/11, P 12-13 and 14-15. */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU

#define SL_K SP(0)
#define SL_V SP(4)
#define SL_KV_BYTES (4 * SP_REGION)
#define SL_Q(i) SP(8 + (i))
#define SL_O(i) SP(10 + (i))
#define SL_P(i) SP(12 + 2 * (i))
#define SL_P_BYTES (2 * SP_REGION)

/* Query rows per block: the largest multiple of TILE whose Q rows (and
 * output rows) fit a region and whose P block against all ctx keys fits
 * SL_P_BYTES; 0 if not even one row group does. By additions (RV32I has no
 * multiplier); *bytes: the block's Q bytes. */
static uint32_t query_block(uint32_t d, uint32_t ctx, uint32_t *bytes) {
  uint32_t qb = 0, q_bytes = TILE * (d / 2), p_bytes = TILE * (ctx / 2), qs = q_bytes;
  for (uint32_t ps = p_bytes; qb + TILE <= ctx && qs <= SP_REGION && ps <= SL_P_BYTES; qs += q_bytes, ps += p_bytes) qb += TILE;
  *bytes = qs - q_bytes;
  return qb;
}

int attention_long_fits(uint32_t d, uint32_t rows) {
  uint32_t ctx = (rows + (TILE - 1)) & ~(TILE - 1u), kv = 0, bytes;
  for (uint32_t r = 0; r < ctx && kv <= SL_KV_BYTES; r += TILE) kv += TILE * (d / 2);
  return (k_variant & VARIANT_LONG_CONTEXT) && (k_variant & VARIANT_TOKENS) && SP_KIB == 64 && kv <= SL_KV_BYTES && query_block(d, ctx, &bytes) >= TILE;
}

/* One query block's geometry. */
struct long_block {
  uint32_t q0, at, rows, groups, g_first; /* first row, its byte offset (q0 · d/2), rows, row groups, the first one's global index */
  uint32_t prow;                          /* P row bytes: the block's keys / 2 */
  uint32_t qa, oc;                        /* its Q and output buffers */
};

/* Block b's geometry (qb rows a block, the last one what is left). */
static void long_block_at(struct long_block *k, uint32_t b, uint32_t q0, uint32_t at, uint32_t qb, uint32_t rows) {
  k->q0 = q0;
  k->at = at;
  k->rows = rows - q0 < qb ? rows - q0 : qb;
  k->groups = (k->rows + (TILE - 1)) >> TILE_LOG2;
  k->g_first = q0 >> TILE_LOG2;
  k->prow = ((q0 + k->rows + (TILE - 1)) & ~(TILE - 1u)) / 2;
  k->qa = SL_Q(b & 1);
  k->oc = SL_O(b & 1);
}

/* Q_b's and K_b's loads; returns K_b's ticket. */
static uint32_t long_load_qk(const struct attn_args *a, const struct long_block *k) {
  uint32_t rs = a->d / 2;
  k_issued(DMA, dma_load(a->q + k->at, k->qa, k->rows, rs, rs, rs));
  return k_issued(DMA, dma_load(a->k_cache + k->at, SL_K + k->at, k->rows, rs, rs, rs));
}

/* A run of MATMULs pushed back to back: the run's token (if any) is staged
 * once (ARG5 keeps it; every later command of the run meets it already),
 * then each command is its two address words and PUSH, and tpu_pushed
 * counts the run at its end. tpu_push's token check, its count and
 * k_issued's variant test are what make a 56-clock score tile cost the CPU
 * ~107 clocks; this costs ~40 (attention_long_fits asks for TOKENS: nothing
 * is waited for per command). */
static void burst_begin(void) {
  uint32_t token = tpu_next_token[MXU];
  if (token != tpu_staged_token[MXU]) {
    tpu_stage(MXU, (TPU_UNIT_ARG5 - TPU_UNIT_ARG0) / 4u, token);
    tpu_staged_token[MXU] = token;
  }
  tpu_next_token[MXU] = TPU_NO_TOKEN;
  tpu_memory_barrier();
}
#define BURST_PUSH(ab, ck, flags)                                          \
  do {                                                                    \
    tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, (ab));                              \
    tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, (ck));                              \
    TPU_UREG(tpu_unit_base(MXU), TPU_UNIT_PUSH) = TPU_PUSH_VALUE(TPU_MXU_MATMUL, (flags)); \
  } while (0)
static uint32_t burst_end(uint32_t pushed) { return tpu_pushed[MXU] += pushed; }

/* Item (b, h)'s scores into P buffer pbuf: row group g against key tiles 0..G. */
static uint32_t long_scores(const struct attn_args *a, const struct long_block *k, uint32_t col, uint32_t pbuf, uint32_t dh) {
  uint32_t rs = a->d / 2, q_group = rs << TILE_LOG2, p_group = k->prow << TILE_LOG2, pushed = 0;
  tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(rs) | TPU_MXU_B_STRIDE(rs));
  tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(k->prow) | TPU_MXU_SHIFT(a->shift_s));
  burst_begin();
  uint32_t qa = k->qa + col, pc = pbuf | TPU_MXU_K(dh), b_step = TPU_MXU_B_ADDR(q_group);
  for (uint32_t g = 0, tiles = k->g_first + 1; g < k->groups; g++, tiles++, qa += q_group, pc += p_group) {
    uint32_t ab = qa | TPU_MXU_B_ADDR(SL_K + col), ck = pc, c_end = pc + (tiles << (TILE_LOG2 - 1)); /* tiles · TILE_ROW4 */
    for (; ck != c_end; ab += b_step, ck += TILE_ROW4) BURST_PUSH(ab, ck, TPU_MXU_FLAG_TRANSPOSE_B);
    pushed += tiles;
  }
  return burst_end(pushed);
}

/* Item (b, h)'s mask + ReLU over its P block, P·V into the block's output
 * rows, and the store of the head's columns. */
static void long_pv(const struct attn_args *a, const struct long_block *k, uint32_t col, uint32_t pbuf, uint32_t dh) {
  uint32_t rs = a->d / 2, p_group = k->prow << TILE_LOG2, o_group = rs << TILE_LOG2, pushed = 0, per_group = dh >> TILE_LOG2;
  struct vpu_op v = {
    .a = pbuf, .c = pbuf, .a_stride = k->prow, .c_stride = k->prow, .rows = k->rows, .cols = 2 * k->prow,
    .param = vpu_mask_offsets(k->q0, 0),
  };
  k_issued(VPU, vpu_causal_mask(&v));
  v.param = 0;
  k_need(MXU, VPU, k_issued(VPU, vpu_relu(&v)));
  tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(k->prow) | TPU_MXU_B_STRIDE(rs));
  tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(rs) | TPU_MXU_SHIFT(a->shift_o));
  burst_begin();
  /* Row group G needs keys 0 .. 8·G + 7: K grows by a tile a group. */
  uint32_t pa = pbuf | TPU_MXU_B_ADDR(SL_V + col), oc = (k->oc + col) | TPU_MXU_K(k->g_first << TILE_LOG2), b_step = TPU_MXU_B_ADDR(TILE_ROW4);
  for (uint32_t g = 0; g < k->groups; g++, pa += p_group, pushed += per_group) {
    oc += TPU_MXU_K(TILE);
    uint32_t ab = pa, ck = oc, c_end = oc + (per_group << (TILE_LOG2 - 1));
    for (; ck != c_end; ab += b_step, ck += TILE_ROW4) BURST_PUSH(ab, ck, 0);
    oc += o_group;
  }
  uint32_t last = burst_end(pushed);
  k_need(DMA, MXU, last);
  k_issued(DMA, dma_store(a->out + k->at + col, k->oc + col, k->rows, dh / 2, rs, rs));
}

/* The head width d / heads, by additions (attention.c's head_width). */
static uint32_t long_head_width(const struct attn_args *a) {
  uint32_t dh = TILE;
  for (uint32_t sum = TILE * a->heads, step = sum; sum < a->d; sum += step) dh += TILE;
  return dh;
}

void attention_long(const struct attn_args *a) {
  uint32_t rs = a->d / 2, dh = long_head_width(a), hb = dh / 2, rows = a->rows, block_bytes;
  uint32_t qb = query_block(a->d, (rows + (TILE - 1)) & ~(TILE - 1u), &block_bytes);
  struct long_block cur, prev;
  long_block_at(&cur, 0, 0, 0, qb, rows);
  uint32_t kq_loaded = long_load_qk(a, &cur), v_loaded = 0, scores = 0, i = 0, prev_col = 0, prev_first = 0;
  for (uint32_t b = 0, q0 = 0, at = 0; q0 < rows; b++, q0 += qb, at += block_bytes) {
    long_block_at(&cur, b, q0, at, qb, rows);
    for (uint32_t h = 0, col = 0; h < a->heads; h++, col += hb, i++) {
      if (h == 0) k_need(MXU, DMA, kq_loaded);
      uint32_t next = long_scores(a, &cur, col, SL_P(i & 1), dh);
      if (h == 0) {
        k_need(DMA, MXU, next);
        v_loaded = k_issued(DMA, dma_load(a->v_cache + at, SL_V + at, cur.rows, rs, rs, rs));
        if (q0 + qb < rows) {
          struct long_block n;
          long_block_at(&n, b + 1, q0 + qb, at + block_bytes, qb, rows);
          kq_loaded = long_load_qk(a, &n);
        }
      }
      if (i) {
        /* Item i−1: a block's first waits for its V (loaded after its scores), the others for their scores. */
        if (prev_first) k_need(VPU, DMA, v_loaded);
        else k_need(VPU, MXU, scores);
        long_pv(a, &prev, prev_col, SL_P((i - 1) & 1), dh);
      }
      prev = cur;
      prev_col = col;
      prev_first = h == 0;
      scores = next;
    }
  }
  if (prev_first) k_need(VPU, DMA, v_loaded);
  else k_need(VPU, MXU, scores);
  long_pv(a, &prev, prev_col, SL_P((i - 1) & 1), dh);
}
