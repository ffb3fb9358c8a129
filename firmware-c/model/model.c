/* model: the int4 transformer on the TPU (docs/model-format.md).
 *
 * Everything it needs is in the model blob at SRAM offset 0: dimensions,
 * the job (prompt, decode steps, kernel variant) and the offset of every
 * tensor and buffer, so one ELF serves every configuration. It runs prefill
 * and then the decode steps with a KV cache in SRAM, each phase in its own
 * PERF_CTRL window, and writes the tokens and logits back to the blob.
 * With BATCH = B > 1 it prefills B sequences one by one and then decodes
 * them together, each weight matmul over the B rows at once (run_batch). */
#include "picotpu.h"
#include "kernels.h"

#define MAX_LAYERS 16
#define MAX_SEQ_LIMIT 1024
#define MAX_BATCH 64

#define SRAM_WORD(off) (*(volatile uint32_t *)(SRAM_BASE + (off)))
#define SRAM_BYTE(off) (*(volatile uint8_t *)(SRAM_BASE + (off)))

struct layer {
  uint32_t wq, wk, wv, wo, w1, w2, k_cache, v_cache;
  uint32_t sq, sk, sv, ss, so, sa, s1, s2, bound1, bound2;
};

static struct {
  uint32_t d, d_ff, heads, layers, vocab, max_seq;
  uint32_t prompt_len, decode_steps, variant, stop_token, batch;
  uint32_t tok_emb, pos_emb, w_out, prompt, out_tokens, logits;
  uint32_t x, q, att, tmp, hidden, scores, scores_stride;
} M;
static struct layer L[MAX_LAYERS];
static uint8_t tokens[MAX_SEQ_LIMIT + 1];

static uint32_t hdr(uint32_t off) { return SRAM_WORD(off); }

/* The kernels tile every dimension by the MXU's tile edge (kernels.h TILE). */
static int mult_tile(uint32_t n) { return n >= TILE && (n & (TILE - 1)) == 0; }

/* Reads the header into BRAM; 0 if it is usable. */
static const char *read_header(void) {
  if (hdr(MODEL_H_MAGIC) != MODEL_MAGIC) return "bad magic";
  if (hdr(MODEL_H_VERSION) != MODEL_VERSION) return "unknown version";
  M.d = hdr(MODEL_H_D); M.d_ff = hdr(MODEL_H_D_FF); M.heads = hdr(MODEL_H_HEADS);
  M.layers = hdr(MODEL_H_LAYERS); M.vocab = hdr(MODEL_H_VOCAB); M.max_seq = hdr(MODEL_H_MAX_SEQ);
  M.prompt_len = hdr(MODEL_H_PROMPT_LEN); M.decode_steps = hdr(MODEL_H_DECODE_STEPS);
  M.variant = hdr(MODEL_H_VARIANT); M.stop_token = hdr(MODEL_H_STOP_TOKEN);
  M.batch = hdr(MODEL_H_BATCH); if (M.batch == 0) M.batch = 1;
  M.tok_emb = hdr(MODEL_H_TOK_EMB); M.pos_emb = hdr(MODEL_H_POS_EMB); M.w_out = hdr(MODEL_H_W_OUT);
  M.prompt = hdr(MODEL_H_PROMPT); M.out_tokens = hdr(MODEL_H_OUT_TOKENS); M.logits = hdr(MODEL_H_LOGITS);
  M.x = hdr(MODEL_H_X); M.q = hdr(MODEL_H_Q); M.att = hdr(MODEL_H_ATT); M.tmp = hdr(MODEL_H_TMP);
  M.hidden = hdr(MODEL_H_HIDDEN); M.scores = hdr(MODEL_H_SCORES);
  M.scores_stride = ((M.max_seq + 7) & ~7u) / 2;
  /* What the kernels' scratchpad plan can hold (docs/model-format.md). */
  if (!mult_tile(M.d) || !mult_tile(M.d_ff) || !mult_tile(M.vocab) || M.d > 1024 || M.d_ff > 1024) return "bad dimensions";
  if (M.heads == 0 || M.d % M.heads || !mult_tile(M.d / M.heads)) return "bad head count";
  if (M.layers == 0 || M.layers > MAX_LAYERS) return "bad layer count";
  if (M.max_seq == 0 || M.max_seq > MAX_SEQ_LIMIT) return "bad max_seq";
#if TILE != 8
  /* A wider tile: the TPU must have it, and a score row (max_seq rounded up
   * to 8 columns in the blob's layout) must hold whole tiles. */
  if (TPU_REG_CONFIG_ARRAY_DIM_GET(tpu_config()) != TILE) return "built for a 16x16 MXU; the TPU's CONFIG.ARRAY_DIM differs (run with --set mxuDim=16)";
  if (M.max_seq % TILE) return "bad max_seq (not a multiple of the MXU tile)";
#endif
  if (M.prompt_len == 0 || M.prompt_len + M.decode_steps > M.max_seq) return "bad job length";
  if (M.batch > 1 && (M.batch > MAX_BATCH || !hdr(MODEL_H_SEQ_GENERATED))) return "bad batch";
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

/* out = x·W (rows × d_in) with an epilogue when the variant fuses it;
 * otherwise the epilogue is a pass of its own over the result. */
static void projection(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t n,
                       uint32_t c, uint32_t c_stride, uint32_t shift) {
  struct mm_args m = {
    .a = a, .a_stride = a_stride, .b = w, .b_stride = n / 2, .c = c, .c_stride = c_stride,
    .m = rows, .k = k, .n = n, .shift = shift,
  };
  matmul(&m);
}

/* x = hardtanh(sat4(x + a·W), bound): fused into the matmul's tiles, or
 * through TMP and a residual pass. */
static void residual_projection(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w,
                                uint32_t shift, uint32_t bound) {
  uint32_t rs = M.d / 2;
  if (k_fuses(rows)) {
    struct mm_args m = {
      .a = a, .a_stride = a_stride, .b = w, .b_stride = rs, .c = M.x, .c_stride = rs,
      .m = rows, .k = k, .n = M.d, .shift = shift, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = bound,
    };
    matmul(&m);
  } else {
    projection(a, a_stride, rows, k, w, M.d, M.tmp, rs, shift);
    residual_pass(M.x, M.tmp, rs, rows, M.d, bound);
  }
}

/* One layer: the Q, K, V projections, Wo, W1 and W2 over `rows` rows of X,
 * and attention for `seqs` sequences of `attn_rows` queries at positions
 * row0... The caches hold position p of sequence s at cache0 + p·pos_stride
 * + s·d/2; the new K and V rows (at row0) are written `new_stride` apart.
 *   single job:                 rows = attn_rows, 1 sequence, both strides d/2
 *   batched prefill of seq. s:  P rows, 1 sequence, cache0 = s·d/2, both strides B·d/2
 *   batched decode step:        B rows, B sequences of one query, pos_stride B·d/2, new rows d/2 apart
 * Inlined with constants, so the single job's code is what it was before batches. */
static inline __attribute__((always_inline)) void layer_body(const struct layer *y, uint32_t rows, uint32_t seqs,
                                                             uint32_t attn_rows, uint32_t row0, uint32_t cache0,
                                                             uint32_t pos_stride, uint32_t new_stride) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2;
  projection(M.x, rs, rows, M.d, y->wq, M.d, M.q, rs, y->sq);
  projection(M.x, rs, rows, M.d, y->wk, M.d, y->k_cache + cache0 + row0 * pos_stride, new_stride, y->sk);
  projection(M.x, rs, rows, M.d, y->wv, M.d, y->v_cache + cache0 + row0 * pos_stride, new_stride, y->sv);
  for (uint32_t s = 0, off = 0; s < seqs; s++, off += rs) {
    struct attn_args at = {
      .q = M.q + off, .k_cache = y->k_cache + cache0 + off, .v_cache = y->v_cache + cache0 + off, .out = M.att + off,
      .scores = M.scores, .scores_stride = M.scores_stride, .rows = attn_rows, .row0 = row0,
      /* kv_stride 0 (the kernel's own d/2) for plain caches keeps the single job's code as it was. */
      .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so, .kv_stride = pos_stride == rs ? 0 : pos_stride,
    };
    attention(&at);
  }
  residual_projection(M.att, rs, rows, M.d, y->wo, y->sa, y->bound1);
  struct mm_args f1 = {
    .a = M.x, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs,
    .m = rows, .k = M.d, .n = M.d_ff, .shift = y->s1, .epi = EPI_RELU,
  };
  matmul(&f1);
  if (!k_fuses(rows)) relu_pass(M.hidden, fs, rows, M.d_ff);
  residual_projection(M.hidden, fs, rows, M.d_ff, y->w2, y->s2, y->bound2);
}

/* ---- Batched decode (BATCH > 1) ----
 * The K/V caches interleave the sequences position by position
 * ([position][sequence][d/2]): the B new rows of a decode step are one
 * block the K and V projections write at once, and sequence s reads its own
 * keys at stride B·d/2. Prefill runs each sequence alone; every decode step
 * runs all B rows through each weight matmul together (each weight tile is
 * loaded once for the batch) and attention per sequence. A sequence that has
 * produced the stop token stays in the batch (the schedule does not change)
 * but records no more tokens; decoding ends when every sequence has stopped. */

/* Prefill of sequence s: its prompt at rows 0..P-1, caches at stride B·d/2. */
static void batch_prefill(uint32_t s, const uint8_t *toks) {
  uint32_t rs = M.d / 2, kvs = M.batch * rs, P = M.prompt_len;
  embed(M.x, toks, P, 0, M.tok_emb, M.pos_emb, M.d);
  for (uint32_t l = 0; l < M.layers; l++) layer_body(&L[l], P, 1, P, 0, s * rs, kvs, kvs);
}

/* One decode step at position pos for all B sequences: X holds B rows. */
static void batch_decode_layers(uint32_t pos) {
  uint32_t rs = M.d / 2, B = M.batch, kvs = B * rs;
  for (uint32_t l = 0; l < M.layers; l++) layer_body(&L[l], B, B, 1, pos, 0, kvs, rs);
}

/* Logits of `rows` rows of X (row r: sequence first + r) for `step`; argmaxes into out[]. */
static void batch_head(uint32_t a_row, uint32_t first, uint32_t rows, uint32_t step, uint8_t *out) {
  uint32_t rs = M.d / 2, seq_stride = (M.decode_steps + 1) * M.vocab * 4;
  uint32_t c = M.logits + first * seq_stride + step * M.vocab * 4;
  struct mm_args m = {
    .a = M.x + a_row * rs, .a_stride = rs, .b = M.w_out, .b_stride = M.vocab / 2, .c = c, .c_stride = seq_stride,
    .m = rows, .k = M.d, .n = M.vocab, .flags = MM_OUT_INT32,
  };
  matmul(&m);
  tpu_drain(TPU_UNIT_DMA);
  for (uint32_t r = 0; r < rows; r++, c += seq_stride) {
    uint32_t best = 0;
    int32_t best_v = (int32_t)SRAM_WORD(c);
    for (uint32_t i = 1; i < M.vocab; i++) {
      int32_t v = (int32_t)SRAM_WORD(c + 4 * i);
      if (v > best_v) { best_v = v; best = i; }
    }
    out[r] = (uint8_t)best;
  }
}

/* Batched job: B prefills, then the batched decode steps; returns GENERATED
 * (1 + the decode steps run) and writes the per-sequence counts to
 * SEQ_GENERATED. It keeps its state in the prompt buffer tokens[], free once
 * the prefills are done, and in SEQ_GENERATED itself, so that a single job
 * (which never comes here) runs with the same BRAM image as before batches. */
static uint32_t run_batch(void) {
  uint32_t B = M.batch, P = M.prompt_len, rs = M.d / 2, steps1 = M.decode_steps + 1, live = 0, run = 0;
  uint32_t counts = hdr(MODEL_H_SEQ_GENERATED);
  uint8_t *next = tokens, *alive = tokens + MAX_BATCH; /* each sequence's next input token; 1 while it runs */
  tpu_perf_start();
  for (uint32_t s = 0, at = M.prompt, out = M.out_tokens; s < B; s++, at += P, out += steps1) {
    uint8_t tok;
    for (uint32_t i = 0; i < P; i++) tokens[i] = SRAM_BYTE(at + i);
    batch_prefill(s, tokens);
    batch_head(P - 1, s, 1, 0, &tok);
    SRAM_BYTE(out) = tok;
  }
  tpu_perf_stop();
  for (uint32_t s = 0, out = M.out_tokens; s < B; s++, out += steps1) {
    next[s] = SRAM_BYTE(out);
    alive[s] = next[s] != M.stop_token;
    live += alive[s];
    SRAM_WORD(counts + 4 * s) = 1;
  }
  if (M.decode_steps && live) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps && live; i++) {
      uint32_t pos = P + i - 1;
      for (uint32_t s = 0, x = M.x; s < B; s++, x += rs) embed(x, &next[s], 1, pos, M.tok_emb, M.pos_emb, M.d);
      batch_decode_layers(pos);
      batch_head(0, 0, B, i, next);
      for (uint32_t s = 0, out = M.out_tokens + i, c = counts; s < B; s++, out += steps1, c += 4) {
        if (!alive[s]) continue;
        SRAM_BYTE(out) = next[s];
        SRAM_WORD(c) = i + 1;
        if (next[s] == M.stop_token) { alive[s] = 0; live--; }
      }
      run = i;
    }
    tpu_perf_stop();
  }
  return 1 + run;
}

/* One layer over `rows` positions starting at row0 (prefill: 0; decode: the
 * position of the one new token). */
static void layer_forward(const struct layer *y, uint32_t rows, uint32_t row0) {
  uint32_t rs = M.d / 2;
  layer_body(y, rows, 1, rows, row0, 0, rs, rs);
}

/* Logits of activation row `row` into LOGITS[step]; returns the argmax. */
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

/* ---- VARIANT_PANEL: single-job decode through matmul_panel ----
 * A decode step has one row: each weight matmul streams its weights in
 * panels with the epilogue fused on the row (kernels/panel.c), so the
 * residual and ReLU passes over SRAM disappear and Q, K and V share one A
 * load. Prefill is forward() as in the other variants. Taken only when every
 * weight matmul fits the panel plan (decodes_by_panels, decided before the
 * first PERF_CTRL window); otherwise decode is forward() too. */
static int decodes_by_panels(void) {
  struct mm_args q = { .m = 1, .k = M.d, .n = M.d }, up = { .m = 1, .k = M.d, .n = M.d_ff }, down = { .m = 1, .k = M.d_ff, .n = M.d };
  return matmul_panel_fits(&q) && matmul_panel_fits(&up) && matmul_panel_fits(&down);
}

/* Decode attention by attention_decode (set by main_panel). */
static uint32_t heads_pipelined;

/* The weights a matmul_panel call after this one reads: what CHAIN loads
 * ahead (B, its stride and shape). */
static struct mm_args weights(uint32_t b, uint32_t k, uint32_t n) {
  struct mm_args w = { .b = b, .b_stride = n / 2, .m = 1, .k = k, .n = n };
  return w;
}

/* `after`: the weights of the matmul_panel call that follows this layer
 * (the next layer's Wq or the output head). */
static void panel_layer(const struct layer *y, uint32_t pos, uint32_t row_off, const struct mm_args *after) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2;
  struct mm_args wk = weights(y->wk, M.d, M.d), wv = weights(y->wv, M.d, M.d), w1 = weights(y->w1, M.d, M.d_ff), w2 = weights(y->w2, M.d_ff, M.d);
  struct mm_args m = {
    .a = M.x, .a_stride = rs, .b = y->wq, .b_stride = rs, .c = M.q, .c_stride = rs, .m = 1, .k = M.d, .n = M.d, .shift = y->sq,
  };
  matmul_panel(&m, 0, &wk);
  m.b = y->wk; m.c = y->k_cache + row_off; m.shift = y->sk;
  matmul_panel(&m, 1, &wv);
  m.b = y->wv; m.c = y->v_cache + row_off; m.shift = y->sv;
  matmul_panel(&m, 1, 0);
  struct attn_args at = {
    .q = M.q, .k_cache = y->k_cache, .v_cache = y->v_cache, .out = M.att, .scores = M.scores, .scores_stride = M.scores_stride,
    .rows = 1, .row0 = pos, .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so,
  };
  struct mm_args wo = weights(y->wo, M.d, M.d);
  if (heads_pipelined) attention_decode(&at, &wo);
  else attention(&at);
  struct mm_args o = {
    .a = M.att, .a_stride = rs, .b = y->wo, .b_stride = rs, .c = M.x, .c_stride = rs, .m = 1, .k = M.d, .n = M.d,
    .shift = y->sa, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound1,
  };
  matmul_panel(&o, 0, &w1);
  struct mm_args f1 = {
    .a = M.x, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs, .m = 1, .k = M.d, .n = M.d_ff,
    .shift = y->s1, .epi = EPI_RELU,
  };
  matmul_panel(&f1, 0, &w2);
  struct mm_args f2 = {
    .a = M.hidden, .a_stride = fs, .b = y->w2, .b_stride = rs, .c = M.x, .c_stride = rs, .m = 1, .k = M.d_ff, .n = M.d,
    .shift = y->s2, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound2,
  };
  matmul_panel(&f2, 0, after);
}

/* ---- VARIANT_STREAM: prefill's weight matmuls through matmul_stream ---- */
static int prefills_by_streams(void) {
  uint32_t P = M.prompt_len;
  struct mm_args q = { .m = P, .k = M.d, .n = M.d, .epi = EPI_RESIDUAL }, up = { .m = P, .k = M.d, .n = M.d_ff, .epi = EPI_RELU },
                 down = { .m = P, .k = M.d_ff, .n = M.d, .epi = EPI_RESIDUAL };
  return matmul_stream_fits(&q) && matmul_stream_fits(&up) && matmul_stream_fits(&down);
}

/* FFN_ON_CHIP: prefills_by_streams (copied, so that its one caller stays
 * main_panel) and W1, as stream_layer_ffn calls it, keeping its A and its
 * whole C block in the scratchpad. */
static int ffn_on_chip_fits(void) {
  uint32_t P = M.prompt_len;
  struct mm_args q = { .m = P, .k = M.d, .n = M.d, .epi = EPI_RESIDUAL }, up = { .m = P, .k = M.d, .n = M.d_ff, .epi = EPI_RELU },
                 down = { .m = P, .k = M.d_ff, .n = M.d, .epi = EPI_RESIDUAL };
  return matmul_stream_fits(&q) && matmul_stream_fits(&up) && matmul_stream_fits(&down) && matmul_stream_up_fits(&up);
}

/* Prefill attention by attention_block (set by main_panel). */
static uint32_t block_attention;

/* `after`: the next layer's Wq (chained), or 0. */
static void stream_layer(const struct layer *y, uint32_t rows, const struct mm_args *after) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2;
  struct mm_args wk = weights(y->wk, M.d, M.d), wv = weights(y->wv, M.d, M.d), w1 = weights(y->w1, M.d, M.d_ff), w2 = weights(y->w2, M.d_ff, M.d);
  struct mm_args m = {
    .a = M.x, .a_stride = rs, .b = y->wq, .b_stride = rs, .c = M.q, .c_stride = rs, .m = rows, .k = M.d, .n = M.d, .shift = y->sq,
  };
  matmul_stream(&m, 0, &wk);
  m.b = y->wk; m.c = y->k_cache; m.shift = y->sk;
  matmul_stream(&m, 1, &wv);
  m.b = y->wv; m.c = y->v_cache; m.shift = y->sv;
  matmul_stream(&m, 1, 0);
  struct attn_args at = {
    .q = M.q, .k_cache = y->k_cache, .v_cache = y->v_cache, .out = M.att, .scores = M.scores, .scores_stride = M.scores_stride,
    .rows = rows, .row0 = 0, .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so,
  };
  if (block_attention) attention_block(&at);
  else attention(&at);
  struct mm_args o = {
    .a = M.att, .a_stride = rs, .b = y->wo, .b_stride = rs, .c = M.x, .c_stride = rs, .m = rows, .k = M.d, .n = M.d,
    .shift = y->sa, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound1,
  };
  matmul_stream(&o, 0, &w1);
  struct mm_args f1 = {
    .a = M.x, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs, .m = rows, .k = M.d, .n = M.d_ff,
    .shift = y->s1, .epi = EPI_RELU,
  };
  matmul_stream(&f1, 0, &w2);
  struct mm_args f2 = {
    .a = M.hidden, .a_stride = fs, .b = y->w2, .b_stride = rs, .c = M.x, .c_stride = rs, .m = rows, .k = M.d_ff, .n = M.d,
    .shift = y->s2, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound2,
  };
  matmul_stream(&f2, 0, after);
}

/* FFN_ON_CHIP: stream_layer with Wo's output rows (W1's A, W2's residual)
 * and the hidden rows kept in the scratchpad (kernels/stream_ffn.c); M.x is
 * written by W2 only, M.hidden not at all. Its own function so that
 * stream_layer's code is what it was. */
static void stream_layer_ffn(const struct layer *y, uint32_t rows, const struct mm_args *after) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2;
  struct mm_args wk = weights(y->wk, M.d, M.d), wv = weights(y->wv, M.d, M.d), w1 = weights(y->w1, M.d, M.d_ff), w2 = weights(y->w2, M.d_ff, M.d);
  struct mm_args m = {
    .a = M.x, .a_stride = rs, .b = y->wq, .b_stride = rs, .c = M.q, .c_stride = rs, .m = rows, .k = M.d, .n = M.d, .shift = y->sq,
  };
  matmul_stream(&m, 0, &wk);
  m.b = y->wk; m.c = y->k_cache; m.shift = y->sk;
  matmul_stream(&m, 1, &wv);
  m.b = y->wv; m.c = y->v_cache; m.shift = y->sv;
  matmul_stream(&m, 1, 0);
  struct attn_args at = {
    .q = M.q, .k_cache = y->k_cache, .v_cache = y->v_cache, .out = M.att, .scores = M.scores, .scores_stride = M.scores_stride,
    .rows = rows, .row0 = 0, .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so,
  };
  if (block_attention) attention_block(&at);
  else attention(&at);
  struct mm_args o = {
    .a = M.att, .a_stride = rs, .b = y->wo, .b_stride = rs, .c = M.x, .c_stride = rs, .m = rows, .k = M.d, .n = M.d,
    .shift = y->sa, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound1,
  };
  matmul_stream_ffn(&o, STREAM_RES_OUT, &w1);
  struct mm_args f1 = {
    .a = M.x, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs, .m = rows, .k = M.d, .n = M.d_ff,
    .shift = y->s1, .epi = EPI_RELU,
  };
  matmul_stream_ffn(&f1, STREAM_UP | STREAM_KEEP_A, &w2);
  struct mm_args f2 = {
    .a = M.hidden, .a_stride = fs, .b = y->w2, .b_stride = rs, .c = M.x, .c_stride = rs, .m = rows, .k = M.d_ff, .n = M.d,
    .shift = y->s2, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound2,
  };
  matmul_stream_ffn(&f2, STREAM_DOWN, after);
}

/* ---- VARIANT_LONG_CONTEXT: prompts longer than the stream kernels' 64 rows ----
 * Every weight matmul is row-wise, so the prefill runs them block by block of
 * LONG_BLOCK_ROWS rows with the kernels of FFN_ON_CHIP (Q, K, V by
 * matmul_stream, A loaded once a block; Wo, W1, W2 by matmul_stream_ffn, the
 * block's FFN rows in the scratchpad), each call chained to the next, and
 * attention over the whole prompt by attention_long (kernels/long.c). A
 * prompt of one block runs FFN_ON_CHIP's calls with attention_long in place
 * of attention_block. LONG_BLOCK_ROWS is in kernel_constants.h, shared with
 * the predictor. */

static int long_prefill_fits(void) {
  uint32_t R = LONG_BLOCK_ROWS;
  struct mm_args q = { .m = R, .k = M.d, .n = M.d, .epi = EPI_RESIDUAL }, up = { .m = R, .k = M.d, .n = M.d_ff, .epi = EPI_RELU },
                 down = { .m = R, .k = M.d_ff, .n = M.d, .epi = EPI_RESIDUAL };
  return matmul_stream_fits(&q) && matmul_stream_fits(&up) && matmul_stream_fits(&down) && matmul_stream_up_fits(&up)
    && attention_long_fits(M.d, M.prompt_len);
}

/* `after`: the next layer's Wq (chained), or 0. */
static void stream_layer_long(const struct layer *y, uint32_t rows, const struct mm_args *after) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2, block_bytes = LONG_BLOCK_ROWS * (M.d / 2);
  struct mm_args wq = weights(y->wq, M.d, M.d), wk = weights(y->wk, M.d, M.d), wv = weights(y->wv, M.d, M.d),
                 wo = weights(y->wo, M.d, M.d), w1 = weights(y->w1, M.d, M.d_ff), w2 = weights(y->w2, M.d_ff, M.d);
  for (uint32_t r0 = 0, off = 0; r0 < rows; r0 += LONG_BLOCK_ROWS, off += block_bytes) {
    uint32_t mb = rows - r0 < LONG_BLOCK_ROWS ? rows - r0 : LONG_BLOCK_ROWS;
    struct mm_args m = {
      .a = M.x + off, .a_stride = rs, .b = y->wq, .b_stride = rs, .c = M.q + off, .c_stride = rs, .m = mb, .k = M.d, .n = M.d, .shift = y->sq,
    };
    matmul_stream(&m, 0, &wk);
    m.b = y->wk; m.c = y->k_cache + off; m.shift = y->sk;
    matmul_stream(&m, 1, &wv);
    m.b = y->wv; m.c = y->v_cache + off; m.shift = y->sv;
    matmul_stream(&m, 1, r0 + mb < rows ? &wq : 0);
  }
  struct attn_args at = {
    .q = M.q, .k_cache = y->k_cache, .v_cache = y->v_cache, .out = M.att, .scores = M.scores, .scores_stride = M.scores_stride,
    .rows = rows, .row0 = 0, .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so,
  };
  attention_long(&at);
  for (uint32_t r0 = 0, off = 0; r0 < rows; r0 += LONG_BLOCK_ROWS, off += block_bytes) {
    uint32_t mb = rows - r0 < LONG_BLOCK_ROWS ? rows - r0 : LONG_BLOCK_ROWS, more = r0 + mb < rows;
    struct mm_args o = {
      .a = M.att + off, .a_stride = rs, .b = y->wo, .b_stride = rs, .c = M.x + off, .c_stride = rs, .m = mb, .k = M.d, .n = M.d,
      .shift = y->sa, .epi = EPI_RESIDUAL, .res = M.x + off, .res_stride = rs, .bound = y->bound1,
    };
    matmul_stream_ffn(&o, STREAM_RES_OUT, &w1);
    struct mm_args f1 = {
      .a = M.x + off, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs, .m = mb, .k = M.d, .n = M.d_ff,
      .shift = y->s1, .epi = EPI_RELU,
    };
    matmul_stream_ffn(&f1, STREAM_UP | STREAM_KEEP_A, &w2);
    struct mm_args f2 = {
      .a = M.hidden, .a_stride = fs, .b = y->w2, .b_stride = rs, .c = M.x + off, .c_stride = rs, .m = mb, .k = M.d_ff, .n = M.d,
      .shift = y->s2, .epi = EPI_RESIDUAL, .res = M.x + off, .res_stride = rs, .bound = y->bound2,
    };
    matmul_stream_ffn(&f2, STREAM_DOWN, more ? &wo : after);
    if (more) stream_ffn_chain_resume();
  }
}

/* Logits of activation row `row` into LOGITS[step] by matmul_panel when it
 * fits (the tiled kernel otherwise); returns the argmax. */
static uint32_t panel_head(uint32_t row, uint32_t step) {
  uint32_t out = M.logits + step * M.vocab * 4;
  struct mm_args m = {
    .a = M.x + row * (M.d / 2), .a_stride = M.d / 2, .b = M.w_out, .b_stride = M.vocab / 2, .c = out, .c_stride = M.vocab * 4,
    .m = 1, .k = M.d, .n = M.vocab, .flags = MM_OUT_INT32,
  };
  if (matmul_panel_fits(&m)) matmul_panel(&m, 0, 0);
  else matmul(&m);
  tpu_drain(TPU_UNIT_DMA); /* the logits are in SRAM */
  uint32_t best = 0;
  int32_t best_v = (int32_t)SRAM_WORD(out);
  for (uint32_t i = 1; i < M.vocab; i++) {
    int32_t v = (int32_t)SRAM_WORD(out + 4 * i);
    if (v > best_v) { best_v = v; best = i; }
  }
  return best;
}

static __attribute__((noinline)) uint32_t stream_forward(void) {
  embed(M.x, tokens, M.prompt_len, 0, M.tok_emb, M.pos_emb, M.d);
  for (uint32_t l = 0; l < M.layers; l++) {
    struct mm_args wq = weights(l + 1 < M.layers ? L[l + 1].wq : 0, M.d, M.d);
    stream_layer(&L[l], M.prompt_len, l + 1 < M.layers ? &wq : 0);
  }
  return panel_head(M.prompt_len - 1, 0);
}

static __attribute__((noinline)) uint32_t stream_forward_ffn(void) {
  embed(M.x, tokens, M.prompt_len, 0, M.tok_emb, M.pos_emb, M.d);
  for (uint32_t l = 0; l < M.layers; l++) {
    struct mm_args wq = weights(l + 1 < M.layers ? L[l + 1].wq : 0, M.d, M.d);
    stream_layer_ffn(&L[l], M.prompt_len, l + 1 < M.layers ? &wq : 0);
  }
  return panel_head(M.prompt_len - 1, 0);
}

static __attribute__((noinline)) uint32_t stream_forward_long(void) {
  embed(M.x, tokens, M.prompt_len, 0, M.tok_emb, M.pos_emb, M.d);
  for (uint32_t l = 0; l < M.layers; l++) {
    struct mm_args wq = weights(l + 1 < M.layers ? L[l + 1].wq : 0, M.d, M.d);
    stream_layer_long(&L[l], M.prompt_len, l + 1 < M.layers ? &wq : 0);
  }
  return panel_head(M.prompt_len - 1, 0);
}

static __attribute__((noinline)) uint32_t panel_forward(uint8_t tok, uint32_t pos, uint32_t step) {
  embed(M.x, &tok, 1, pos, M.tok_emb, M.pos_emb, M.d);
  uint32_t row_off = pos * (M.d / 2);
  struct mm_args head = weights(M.w_out, M.d, M.vocab);
  head.flags = MM_OUT_INT32;
  for (uint32_t l = 0; l < M.layers; l++) {
    struct mm_args wq = weights(l + 1 < M.layers ? L[l + 1].wq : 0, M.d, M.d);
    /* The head takes matmul_panel only when it fits (panel_head). */
    const struct mm_args *after = l + 1 < M.layers ? &wq : matmul_panel_fits(&head) ? &head : 0;
    panel_layer(&L[l], pos, row_off, after);
  }
  return panel_head(0, step);
}

/* ---- VARIANT_SEQUENCER: panel decode with its weight matmuls replayed ----
 * List l (0 ≤ l ≤ layers) holds the weight matmuls between two attentions:
 * list 0 layer 0's Q, K and V; list l the previous layer's Wo, W1 and W2
 * and layer l's Q, K and V; the last list the last layer's Wo, W1, W2 and
 * the head. The first decode step runs panel_layer's calls with RECORD on;
 * every later step replays the lists, patching the three addresses that
 * move with the position (K's and V's cache rows, the logits row). Attention
 * stays CPU-issued: its commands change with the position. */
struct seq_state {
  struct seq_book book;
  struct seq_list lists[MAX_LAYERS + 1];
  /* Entries of the K and V cache-row stores in list l, of the logits store in the last. */
  uint32_t k_store[MAX_LAYERS], v_store[MAX_LAYERS], head_store, recorded;
};

/* Layer y's Q, K and V matmuls (panel_layer's first half), recording where K's and V's stores are. */
static void seq_qkv(struct seq_state *st, const struct layer *y, uint32_t l, uint32_t row_off) {
  uint32_t rs = M.d / 2;
  struct mm_args wk = weights(y->wk, M.d, M.d), wv = weights(y->wv, M.d, M.d);
  struct mm_args m = { .a = M.x, .a_stride = rs, .b = y->wq, .b_stride = rs, .c = M.q, .c_stride = rs, .m = 1, .k = M.d, .n = M.d, .shift = y->sq };
  matmul_panel(&m, 0, &wk);
  m.b = y->wk; m.c = y->k_cache + row_off; m.shift = y->sk;
  matmul_panel(&m, 1, &wv);
  st->k_store[l] = seq_recorded_last(&st->lists[l]);
  m.b = y->wv; m.c = y->v_cache + row_off; m.shift = y->sv;
  matmul_panel(&m, 1, 0);
  st->v_store[l] = seq_recorded_last(&st->lists[l]);
}

/* Layer y's Wo, W1 and W2 matmuls (panel_layer's second half). */
static void seq_ffn(const struct layer *y, const struct mm_args *after) {
  uint32_t rs = M.d / 2, fs = M.d_ff / 2;
  struct mm_args w1 = weights(y->w1, M.d, M.d_ff), w2 = weights(y->w2, M.d_ff, M.d);
  struct mm_args o = {
    .a = M.att, .a_stride = rs, .b = y->wo, .b_stride = rs, .c = M.x, .c_stride = rs, .m = 1, .k = M.d, .n = M.d,
    .shift = y->sa, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound1,
  };
  matmul_panel(&o, 0, &w1);
  struct mm_args f1 = { .a = M.x, .a_stride = rs, .b = y->w1, .b_stride = fs, .c = M.hidden, .c_stride = fs, .m = 1, .k = M.d, .n = M.d_ff, .shift = y->s1, .epi = EPI_RELU };
  matmul_panel(&f1, 0, &w2);
  struct mm_args f2 = {
    .a = M.hidden, .a_stride = fs, .b = y->w2, .b_stride = rs, .c = M.x, .c_stride = rs, .m = 1, .k = M.d_ff, .n = M.d,
    .shift = y->s2, .epi = EPI_RESIDUAL, .res = M.x, .res_stride = rs, .bound = y->bound2,
  };
  matmul_panel(&f2, 0, after);
}

static __attribute__((noinline)) uint32_t seq_forward(struct seq_state *st, uint8_t tok, uint32_t pos, uint32_t step) {
  uint32_t record = !st->recorded, row_off = pos * (M.d / 2), out = M.logits + step * M.vocab * 4, n = M.layers;
  embed(M.x, &tok, 1, pos, M.tok_emb, M.pos_emb, M.d);
  if (record) seq_record_begin(&st->book, &st->lists[0]);
  for (uint32_t l = 0; l < n; l++) {
    const struct layer *y = &L[l];
    if (record) {
      seq_qkv(st, y, l, row_off);
      seq_record_end(&st->book, &st->lists[l]);
    } else {
      seq_patch(&st->lists[l], st->k_store[l], TPU_DMA_SRAM_ADDR_ARG, TPU_DMA_SRAM_ADDR(y->k_cache + row_off));
      seq_patch(&st->lists[l], st->v_store[l], TPU_DMA_SRAM_ADDR_ARG, TPU_DMA_SRAM_ADDR(y->v_cache + row_off));
      seq_replay(&st->book, &st->lists[l]);
    }
    struct attn_args at = {
      .q = M.q, .k_cache = y->k_cache, .v_cache = y->v_cache, .out = M.att, .scores = M.scores, .scores_stride = M.scores_stride,
      .rows = 1, .row0 = pos, .d = M.d, .heads = M.heads, .shift_s = y->ss, .shift_o = y->so,
    };
    struct mm_args wo = weights(y->wo, M.d, M.d);
    attention_decode(&at, &wo);
    if (record) {
      struct mm_args next = l + 1 < n ? weights(L[l + 1].wq, M.d, M.d) : weights(M.w_out, M.d, M.vocab);
      if (l + 1 == n) next.flags = MM_OUT_INT32;
      seq_record_begin(&st->book, &st->lists[l + 1]);
      seq_ffn(y, &next);
    }
  }
  if (record) {
    struct mm_args m = {
      .a = M.x, .a_stride = M.d / 2, .b = M.w_out, .b_stride = M.vocab / 2, .c = out, .c_stride = M.vocab * 4,
      .m = 1, .k = M.d, .n = M.vocab, .flags = MM_OUT_INT32,
    };
    matmul_panel(&m, 0, 0);
    st->head_store = seq_recorded_last(&st->lists[n]);
    seq_record_end(&st->book, &st->lists[n]);
    st->recorded = 1;
  } else {
    seq_patch(&st->lists[n], st->head_store, TPU_DMA_SRAM_ADDR_ARG, TPU_DMA_SRAM_ADDR(out));
    seq_replay(&st->book, &st->lists[n]);
  }
  tpu_drain(TPU_UNIT_DMA); /* the logits are in SRAM */
  uint32_t best = 0;
  int32_t best_v = (int32_t)SRAM_WORD(out);
  for (uint32_t i = 1; i < M.vocab; i++) {
    int32_t v = (int32_t)SRAM_WORD(out + 4 * i);
    if (v > best_v) { best_v = v; best = i; }
  }
  return best;
}

/* GENERATED and STATUS: the end of a run. Inlined into main, so that the
 * single job's code is what it was before batches. */
static inline __attribute__((always_inline)) int finish(uint32_t produced) {
  SRAM_WORD(MODEL_H_GENERATED) = produced;
  uint32_t err = tpu_error();
  SRAM_WORD(MODEL_H_STATUS) = err ? 3 : 1;
  if (err) {
    printf("model: TPU error 0x%lx\n", (unsigned long)err);
    return 3;
  }
  return 0;
}

/* The single job with panel decode steps: main's flow, its own function so
 * that main's code is what it was before PANEL. */
static __attribute__((noinline)) int main_panel(void) {
  uint32_t panels = decodes_by_panels();
  heads_pipelined = attention_decode_fits(M.d, M.max_seq);
  uint32_t streams = prefills_by_streams();
  block_attention = attention_block_fits(M.d, M.prompt_len);
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);
  tpu_perf_start();
  uint32_t tok = streams ? stream_forward() : forward(tokens, M.prompt_len, 0, 0);
  tokens[M.prompt_len] = (uint8_t)tok;
  uint32_t produced = 1;
  tpu_perf_stop();
  if (M.decode_steps && tok != M.stop_token) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps; i++) {
      uint8_t in = (uint8_t)tok;
      tok = panels ? panel_forward(in, M.prompt_len + i - 1, i) : forward(&in, 1, M.prompt_len + i - 1, i);
      tokens[M.prompt_len + i] = (uint8_t)tok;
      produced++;
      if (tok == M.stop_token) break;
    }
    tpu_perf_stop();
  }
  for (uint32_t i = 0; i < produced; i++) SRAM_BYTE(M.out_tokens + i) = tokens[M.prompt_len + i];
  return finish(produced);
}

/* FFN_ON_CHIP's single job (its prefill streams, the FFN on chip): main_panel
 * with stream_forward_ffn, its own function so that main_panel's code is what
 * it was. */
static __attribute__((noinline)) int main_ffn(void) {
  uint32_t panels = decodes_by_panels();
  heads_pipelined = attention_decode_fits(M.d, M.max_seq);
  uint32_t streams = 1; /* main asked prefills_by_streams and ffn_on_chip_fits */
  block_attention = attention_block_fits(M.d, M.prompt_len);
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);
  tpu_perf_start();
  uint32_t tok = streams ? stream_forward_ffn() : forward(tokens, M.prompt_len, 0, 0);
  tokens[M.prompt_len] = (uint8_t)tok;
  uint32_t produced = 1;
  tpu_perf_stop();
  if (M.decode_steps && tok != M.stop_token) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps; i++) {
      uint8_t in = (uint8_t)tok;
      tok = panels ? panel_forward(in, M.prompt_len + i - 1, i) : forward(&in, 1, M.prompt_len + i - 1, i);
      tokens[M.prompt_len + i] = (uint8_t)tok;
      produced++;
      if (tok == M.stop_token) break;
    }
    tpu_perf_stop();
  }
  for (uint32_t i = 0; i < produced; i++) SRAM_BYTE(M.out_tokens + i) = tokens[M.prompt_len + i];
  return finish(produced);
}

/* LONG_CONTEXT's single job: main_ffn with stream_forward_long. (The
 * decode loop is main_ffn's and main_panel's; sharing one copy among the
 * three moved the older variants' windows by 3 to 36 clocks, so it is not.) */
static __attribute__((noinline)) int main_long(void) {
  uint32_t panels = decodes_by_panels();
  heads_pipelined = attention_decode_fits(M.d, M.max_seq);
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);
  tpu_perf_start();
  uint32_t tok = stream_forward_long();
  tokens[M.prompt_len] = (uint8_t)tok;
  uint32_t produced = 1;
  tpu_perf_stop();
  if (M.decode_steps && tok != M.stop_token) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps; i++) {
      uint8_t in = (uint8_t)tok;
      tok = panels ? panel_forward(in, M.prompt_len + i - 1, i) : forward(&in, 1, M.prompt_len + i - 1, i);
      tokens[M.prompt_len + i] = (uint8_t)tok;
      produced++;
      if (tok == M.stop_token) break;
    }
    tpu_perf_stop();
  }
  for (uint32_t i = 0; i < produced; i++) SRAM_BYTE(M.out_tokens + i) = tokens[M.prompt_len + i];
  return finish(produced);
}

/* SEQUENCER's single job: the prefill main_panel_or_ffn would run (its
 * streamed flows), then decode steps by seq_forward; a function of its own,
 * calling only noinline functions, so that the other flows' code is what it
 * was (a new call site of forward() changed GCC's inlining, and their clocks). */
static __attribute__((noinline)) int main_seq(uint32_t long_ctx) {
  uint32_t ffn = !long_ctx && (M.variant & VARIANT_FFN_ON_CHIP) && ffn_on_chip_fits();
  if (!long_ctx) block_attention = attention_block_fits(M.d, M.prompt_len);
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);
  tpu_perf_start();
  uint32_t tok = long_ctx ? stream_forward_long() : ffn ? stream_forward_ffn() : stream_forward();
  tokens[M.prompt_len] = (uint8_t)tok;
  uint32_t produced = 1;
  tpu_perf_stop();
  struct seq_state st; /* on the stack: see struct seq_book */
  st.book.top = st.book.runs = st.recorded = 0;
  if (M.decode_steps && tok != M.stop_token) {
    tpu_perf_start();
    for (uint32_t i = 1; i <= M.decode_steps; i++) {
      tok = seq_forward(&st, (uint8_t)tok, M.prompt_len + i - 1, i);
      tokens[M.prompt_len + i] = (uint8_t)tok;
      produced++;
      if (tok == M.stop_token) break;
    }
    tpu_perf_stop();
  }
  for (uint32_t i = 0; i < produced; i++) SRAM_BYTE(M.out_tokens + i) = tokens[M.prompt_len + i];
  return finish(produced);
}

/* Whether main_seq takes the job: its prefill streams and every decode
 * matmul (the head's too) fits matmul_panel, attention attention_decode. */
static __attribute__((noinline)) int seq_fits(void) {
  struct mm_args head = { .m = 1, .k = M.d, .n = M.vocab, .flags = MM_OUT_INT32 };
  heads_pipelined = attention_decode_fits(M.d, M.max_seq);
  return (M.variant & VARIANT_CHAIN) && heads_pipelined && decodes_by_panels() && matmul_panel_fits(&head) && prefills_by_streams();
}

/* PANEL's single job: LONG_CONTEXT's flow when its kernels hold the prompt,
 * FFN_ON_CHIP's when the prefill streams with the FFN on chip, main_panel's
 * otherwise; a function of its own so that main's code and
 * main_panel's are what they were. */
static __attribute__((noinline)) int main_panel_or_ffn(void) {
  if ((M.variant & VARIANT_SEQUENCER) && seq_fits()) return main_seq((M.variant & VARIANT_LONG_CONTEXT) && long_prefill_fits());
  if ((M.variant & VARIANT_LONG_CONTEXT) && long_prefill_fits()) return main_long();
  if ((M.variant & VARIANT_FFN_ON_CHIP) && ffn_on_chip_fits()) return main_ffn();
  return main_panel();
}

/* A batched job, kept out of main so that a single job's code is what it was. */
static __attribute__((noinline)) int main_batch(void) { return finish(run_batch()); }

int main(void) {
  const char *bad = read_header();
  if (bad) {
    SRAM_WORD(MODEL_H_STATUS) = 2;
    printf("model: %s\n", bad);
    return 2;
  }
  kernels_begin(M.variant);
  if (M.batch > 1) return main_batch();
  if (M.variant & VARIANT_PANEL) return main_panel_or_ffn();
  for (uint32_t i = 0; i < M.prompt_len; i++) tokens[i] = SRAM_BYTE(M.prompt + i);

  tpu_perf_start();
  uint32_t produced = 0;
  uint32_t tok = forward(tokens, M.prompt_len, 0, 0);
  tokens[M.prompt_len] = (uint8_t)tok;
  produced = 1;
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
