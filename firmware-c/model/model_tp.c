/* model_tp: the int4 transformer sharded over the boards of a ring
 * (Megatron-style tensor parallelism; run with `picotpu run --boards N`).
 *
 * Every board runs this ELF on the same model blob (SRAM offset 0, as for
 * model.elf) and reads its place on the ring from LINK.BOARD. Board b of N
 * owns heads [b·H/N, (b+1)·H/N), i.e. columns C_b = [b·d/N, (b+1)·d/N) of
 * Wq, Wk, Wv and of the K/V caches (it writes only those columns of the
 * blob's caches), and FFN columns F_b = [b·dFF/N, (b+1)·dFF/N) of W1. Per
 * layer and row block:
 *   q, k, v = R(x · W[:, C_b])            column-parallel, local
 *   att     = its heads' attention         local
 *   P       = att · Wo[C_b, :]   (int32)   row-parallel: a partial sum
 *   x       = hardtanh(sat4(x + R(Σ_b P))) allreduce_residual (collective.c)
 *   h       = ReLU(R(x · W1[:, F_b]))      column-parallel, local
 *   P       = h · W2[F_b, :]     (int32)
 *   x       = hardtanh(sat4(x + R(Σ_b P)))
 * Embedding and the output head are replicated: every board computes the
 * logits and picks the token, so decode needs no broadcast. The golden
 * model of exactly this is model/tensor-parallel.ts. The compute kernels are
 * the tiled ones (matmul, attention, elementwise) with the header's variant
 * bits DOUBLE_BUFFER … LEAN; the int32 partials never leave the scratchpad.
 * SRAM: as model.elf's blob; nothing beyond BLOB_END. */
#include "picotpu.h"
#include "kernels.h"

#define MAX_LAYERS 16
#define MAX_SEQ_LIMIT 1024
#define TILED_BITS (VARIANT_DOUBLE_BUFFER | VARIANT_FUSED | VARIANT_FLASH | VARIANT_TOKENS | VARIANT_LEAN)

#define SRAM_WORD(off) (*(volatile uint32_t *)(SRAM_BASE + (off)))
#define SRAM_BYTE(off) (*(volatile uint8_t *)(SRAM_BASE + (off)))

struct layer {
  uint32_t wq, wk, wv, wo, w1, w2, k_cache, v_cache;
  uint32_t sq, sk, sv, ss, so, sa, s1, s2, bound1, bound2;
};

static struct {
  uint32_t d, d_ff, heads, layers, vocab, max_seq;
  uint32_t prompt_len, decode_steps, variant, stop_token;
  uint32_t tok_emb, pos_emb, w_out, prompt, out_tokens, logits;
  uint32_t x, q, att, hidden, scores, scores_stride;
  /* This board's shard: columns c0.. (cw wide) of the heads, f0.. (fw wide) of the FFN. */
  uint32_t c0, cw, f0, fw, my_heads, block;
} M;
static struct layer L[MAX_LAYERS];
static uint8_t tokens[MAX_SEQ_LIMIT + 1];

static uint32_t hdr(uint32_t off) { return SRAM_WORD(off); }
static int mult_tile(uint32_t n) { return n >= TILE && (n & (TILE - 1)) == 0; }

static const char *read_header(void) {
  if (hdr(MODEL_H_MAGIC) != MODEL_MAGIC) return "bad magic";
  if (hdr(MODEL_H_VERSION) != MODEL_VERSION) return "unknown version";
  M.d = hdr(MODEL_H_D); M.d_ff = hdr(MODEL_H_D_FF); M.heads = hdr(MODEL_H_HEADS);
  M.layers = hdr(MODEL_H_LAYERS); M.vocab = hdr(MODEL_H_VOCAB); M.max_seq = hdr(MODEL_H_MAX_SEQ);
  M.prompt_len = hdr(MODEL_H_PROMPT_LEN); M.decode_steps = hdr(MODEL_H_DECODE_STEPS);
  M.variant = hdr(MODEL_H_VARIANT) & TILED_BITS; M.stop_token = hdr(MODEL_H_STOP_TOKEN);
  M.tok_emb = hdr(MODEL_H_TOK_EMB); M.pos_emb = hdr(MODEL_H_POS_EMB); M.w_out = hdr(MODEL_H_W_OUT);
  M.prompt = hdr(MODEL_H_PROMPT); M.out_tokens = hdr(MODEL_H_OUT_TOKENS); M.logits = hdr(MODEL_H_LOGITS);
  M.x = hdr(MODEL_H_X); M.q = hdr(MODEL_H_Q); M.att = hdr(MODEL_H_ATT);
  M.hidden = hdr(MODEL_H_HIDDEN); M.scores = hdr(MODEL_H_SCORES);
  M.scores_stride = ((M.max_seq + 7) & ~7u) / 2;
  if (!mult_tile(M.d) || !mult_tile(M.d_ff) || !mult_tile(M.vocab) || M.d > 256 || M.d_ff > 1024) return "bad dimensions (model_tp: d up to 256)";
  if (M.heads == 0 || M.d % M.heads || !mult_tile(M.d / M.heads)) return "bad head count";
  if (M.layers == 0 || M.layers > MAX_LAYERS) return "bad layer count";
  if (M.max_seq == 0 || M.max_seq > MAX_SEQ_LIMIT) return "bad max_seq";
  if (M.prompt_len == 0 || M.prompt_len + M.decode_steps > M.max_seq) return "bad job length";
  if (hdr(MODEL_H_BATCH) > 1) return "model_tp runs one sequence (BATCH 1)";
  uint32_t table = hdr(MODEL_H_LAYER_TABLE);
  for (uint32_t l = 0; l < M.layers; l++) {
    uint32_t r = table + l * MODEL_LAYER_RECORD_BYTES;
    struct layer *y = &L[l];
    y->wq = hdr(r + MODEL_L_WQ); y->wk = hdr(r + MODEL_L_WK); y->wv = hdr(r + MODEL_L_WV);
    y->wo = hdr(r + MODEL_L_WO); y->w1 = hdr(r + MODEL_L_W1); y->w2 = hdr(r + MODEL_L_W2);
    y->k_cache = hdr(r + MODEL_L_K_CACHE); y->v_cache = hdr(r + MODEL_L_V_CACHE);
    uint32_t s = hdr(r + MODEL_L_SHIFTS_QKVS);
    y->sq = s & 0xff; y->sk = (s >> 8) & 0xff; y->sv = (s >> 16) & 0xff; y->ss = s >> 24;
    s = hdr(r + MODEL_L_SHIFTS_OAF);
    y->so = s & 0xff; y->sa = (s >> 8) & 0xff; y->s1 = (s >> 16) & 0xff; y->s2 = s >> 24;
    s = hdr(r + MODEL_L_BOUNDS);
    y->bound1 = s & 0xff; y->bound2 = (s >> 8) & 0xff;
  }
  return 0;
}

/* This board's shard; 0 if the model splits over the ring. */
static const char *shard(void) {
  uint32_t b = ring_board(), n = ring_boards();
  if (n == 0 || M.heads % n || M.d_ff % n) return "the heads or d_ff do not split over the boards";
  M.cw = M.d / n; M.fw = M.d_ff / n; M.my_heads = M.heads / n;
  if (!mult_tile(M.fw)) return "d_ff / boards is not a multiple of the MXU tile";
  M.c0 = b * M.cw; M.f0 = b * M.fw;
  if (M.block == 0) return "d too wide for the AllReduce blocks";
  return 0;
}

/* C[rows, n] = R(A · W[:, col0 .. col0+n)) with an epilogue. */
static void column_parallel(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t w_stride,
                            uint32_t n, uint32_t c, uint32_t c_stride, uint32_t shift, uint32_t epi) {
  struct mm_args m = {
    .a = a, .a_stride = a_stride, .b = w, .b_stride = w_stride, .c = c, .c_stride = c_stride,
    .m = rows, .k = k, .n = n, .shift = shift, .epi = epi,
  };
  matmul(&m);
}

/* x rows row0.. += the AllReduce of (A rows · W), A [rows, k] (this board's
 * k columns), W this board's k rows of a [·, d] weight; block by block. */
static void row_parallel_residual(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w,
                                  uint32_t shift, uint32_t bound) {
  uint32_t rs = M.d / 2, x = M.x, a_block = 0, x_block = 0;
  for (uint32_t i = 0; i < M.block; i++) { a_block += a_stride; x_block += rs; }
  for (uint32_t r = 0; r < rows; r += M.block, a += a_block, x += x_block) {
    uint32_t n = rows - r < M.block ? rows - r : M.block;
    partial_matmul(a, a_stride, n, k, w, rs);
    allreduce_residual(x, n, shift, bound);
  }
}

/* One layer over `rows` positions from row0 (prefill: 0; decode: the new token's position). */
static void layer_forward(const struct layer *y, uint32_t rows, uint32_t row0) {
  uint32_t rs = M.d / 2, qs = M.cw / 2, hs = M.fw / 2, col = M.c0 / 2, row_off = row0 * rs;
  column_parallel(M.x, rs, rows, M.d, y->wq + col, rs, M.cw, M.q, qs, y->sq, EPI_NONE);
  column_parallel(M.x, rs, rows, M.d, y->wk + col, rs, M.cw, y->k_cache + row_off + col, rs, y->sk, EPI_NONE);
  column_parallel(M.x, rs, rows, M.d, y->wv + col, rs, M.cw, y->v_cache + row_off + col, rs, y->sv, EPI_NONE);
  struct attn_args at = {
    .q = M.q, .k_cache = y->k_cache + col, .v_cache = y->v_cache + col, .out = M.att,
    .scores = M.scores, .scores_stride = M.scores_stride, .rows = rows, .row0 = row0,
    .d = M.cw, .heads = M.my_heads, .shift_s = y->ss, .shift_o = y->so, .kv_stride = rs,
  };
  attention(&at);
  row_parallel_residual(M.att, qs, rows, M.cw, y->wo + M.c0 * rs, y->sa, y->bound1);
  column_parallel(M.x, rs, rows, M.d, y->w1 + M.f0 / 2, M.d_ff / 2, M.fw, M.hidden, hs, y->s1, EPI_RELU);
  if (!k_fuses(rows)) relu_pass(M.hidden, hs, rows, M.fw);
  row_parallel_residual(M.hidden, hs, rows, M.fw, y->w2 + M.f0 * rs, y->s2, y->bound2);
}

/* Logits of activation row `row` into LOGITS[step] (every board: replicated); the argmax. */
static uint32_t head(uint32_t row, uint32_t step) {
  uint32_t rs = M.d / 2, out = M.logits + step * M.vocab * 4;
  struct mm_args m = {
    .a = M.x + row * rs, .a_stride = rs, .b = M.w_out, .b_stride = M.vocab / 2, .c = out, .c_stride = M.vocab * 4,
    .m = 1, .k = M.d, .n = M.vocab, .flags = MM_OUT_INT32,
  };
  matmul(&m);
  tpu_drain(TPU_UNIT_DMA); /* the logits are in SRAM */
  uint32_t best = 0;
  int32_t best_v = (int32_t)SRAM_WORD(out);
  for (uint32_t i = 1; i < M.vocab; i++) {
    int32_t v = (int32_t)SRAM_WORD(out + 4 * i);
    if (v > best_v) { best_v = v; best = i; }
  }
  return best;
}

static uint32_t forward(const uint8_t *toks, uint32_t rows, uint32_t row0, uint32_t step) {
  embed(M.x, toks, rows, row0, M.tok_emb, M.pos_emb, M.d);
  for (uint32_t l = 0; l < M.layers; l++) layer_forward(&L[l], rows, row0);
  return head(rows - 1, step);
}

static int finish(uint32_t produced) {
  SRAM_WORD(MODEL_H_GENERATED) = produced;
  uint32_t err = tpu_error();
  SRAM_WORD(MODEL_H_STATUS) = err ? 3 : 1;
  if (err) {
    printf("model_tp: TPU error 0x%lx\n", (unsigned long)err);
    return 3;
  }
  return 0;
}

int main(void) {
  const char *bad = read_header();
  if (!bad) { M.block = ring_begin(M.d); bad = shard(); }
  if (bad) {
    SRAM_WORD(MODEL_H_STATUS) = 2;
    printf("model_tp: %s\n", bad);
    return 2;
  }
  kernels_begin(M.variant);
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);
  tpu_perf_start();
  uint32_t tok = forward(tokens, M.prompt_len, 0, 0), produced = 1;
  tokens[M.prompt_len] = (uint8_t)tok;
  tpu_perf_stop();
  if (M.decode_steps && tok != M.stop_token) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps; i++) {
      uint8_t in = (uint8_t)tok;
      tok = forward(&in, 1, M.prompt_len + i - 1, i);
      tokens[M.prompt_len + i] = (uint8_t)tok;
      produced++;
      if (tok == M.stop_token) break;
    }
    tpu_perf_stop();
  }
  for (uint32_t i = 0; i < produced; i++) SRAM_BYTE(M.out_tokens + i) = tokens[M.prompt_len + i];
  return finish(produced);
}
