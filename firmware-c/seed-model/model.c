/* The int4 transformer on the seed board (--board seed; docs/seed-board.md for
 * the command plane, docs/model-format.md for the blob, docs/addition.md for
 * running it). Reads the model blob the host put at SRAM offset 0 (header,
 * layer records and prompt come into the scratchpad by DMA and are read
 * through the window), runs the prefill and the decode steps on the MXU, VPU
 * and DMA, and writes OUT_TOKENS, LOGITS, the K/V caches, GENERATED and
 * STATUS back to the SRAM by DMA spills (the CPU cannot reach the SRAM).
 * The numbers are model/golden-seed.ts's, for every variant.
 *
 * Variant bits (the header's VARIANT, the same bit values as picotpu's):
 *   1 DOUBLE_BUFFER  weight panels load into one of two buffers while the MXU
 *                    works on the other
 *   2 FUSED          the residual add rides on the MXU's accumulate (C = X),
 *                    a hardtanh bound of 7 is one DYT over x afterwards
 *   4 FLASH          attention row block by row block: only the key blocks up
 *                    to the block's last query are scored, P·V over just those
 *                    keys (one MM per output tile: the seed has no int32 path),
 *                    scores of the next block on the MXU while the VPU masks
 *                    this one
 *   8 CHAINED        the decode steps in chained.c: every weight streamed
 *                    through a ring of panel buffers across matmuls,
 *                    attention and steps (called from prefill_done())
 *  16 PIPELINED      the prefill in chained.c: weights through a ring, K and V
 *                    in place, the next head's mask beside this one's P·V
 * Other bits are ignored. A prompt the resident plan cannot hold (T = 256 at
 * d = 128) runs the streamed prefill below, for a job without decode steps. */
#include "model.h"

/* Every one set by load_header before use: kept out of .bss (NOINIT, model.h), whose clearing at start-up the run's clocks count. */
static NOINIT Layer layer[MAX_LAYERS];
static NOINIT uint32_t D, DFF, HEADS, DH, LAYERS, VOCAB, VARIANT;
static NOINIT uint32_t TOK_EMB, POS_EMB, W_OUT_T, OUT_TOKENS, LOGITS;
static NOINIT uint32_t STREAMED, X_SRAM; /* the streamed prefill (below), and the SRAM rows it keeps X in */
/* The prompt's bytes, read where load_header's DMA put them (through the window: no copy). */
#define PROMPT ((const uint8_t *)(SEED_SPAD_BASE + SP_PROMPT))

/* ---- primitives ---- */

static uint32_t hdr(uint32_t off) { return SEED_SPAD_WORD(SP_HDR + off); }

static void fill(uint32_t spad, uint32_t sram, uint32_t elems, uint32_t rows)
{
    seed_dma_move(0, spad, sram, elems, rows, 0, 0);
}

static void spill(uint32_t spad, uint32_t sram, uint32_t elems, uint32_t rows)
{
    seed_dma_move(1, spad, sram, elems, rows, 0, 0);
}

/* Waits until `unit` has at most `left` commands not retired. */
static void wait_until(uint32_t unit, int32_t left)
{
    while (seed_tpu_pending(unit) > left) {}
}

/* A VPU op over `count` elements (a multiple of 8), in chunks vlen can carry. */
static void vpu_ew(uint32_t op, uint32_t dst, uint32_t s0, uint32_t s1, uint32_t count, uint32_t n)
{
    while (count) {
        uint32_t c = count > VPU_CHUNK ? VPU_CHUNK : count;
        seed_vpu_op(op, dst, s0, s1, c, 1, n);
        dst += c >> 1; s0 += c >> 1; s1 += c >> 1;
        count -= c;
    }
}

/* One word to the SRAM through the scratchpad (bytes 1 or 4). */
static void put_sram(uint32_t sram, uint32_t value, uint32_t bytes)
{
    wait_until(SEED_UNIT_DMA, 0);
    SEED_SPAD_WORD(SP_WORD) = value;
    spill(SP_WORD, sram, bytes << 1, 1);
    wait_until(SEED_UNIT_DMA, 0);
}

/* ---- kernels ---- */

/* The row blocks' MMs of one weight panel: the command words advance by a
 * constant per row block, so the issue loop is four stores and two adds (the
 * CPU's issue rate bounds short MMs). */
static inline __attribute__((always_inline)) void panel_mms(uint32_t a, uint32_t a_stride, uint32_t blocks, uint32_t panel, uint32_t c, uint32_t c_stride,
                      uint32_t shift, uint32_t acc)
{
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_ACC(acc) | SEED_MXU_MM_C_ADDR(c);
    uint32_t w1 = SEED_MXU_MM_A_ADDR(a) | SEED_MXU_MM_B_ADDR(panel);
    uint32_t w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(shift);
    uint32_t dw0 = SEED_MXU_MM_C_ADDR(8 * c_stride), dw1 = SEED_MXU_MM_A_ADDR(8 * a_stride);
    for (uint32_t i = 0; i < blocks; i++, w0 += dw0, w1 += dw1) push(SEED_UNIT_MXU, w0, w1, w2, 0);
}

/* One 8-column panel of W (k rows of 4 bytes, n/2 bytes apart in the SRAM) into `panel`, dense. */
static inline __attribute__((always_inline)) void fill_panel(uint32_t panel, uint32_t w, uint32_t j, uint32_t k, uint32_t n)
{
    seed_dma_move(0, panel, w + j * 4, 8, k, n >> 1, 0);
}

/* C[rows][n] = R(A[rows][k] · W[k][n], shift) (accumulate: C = clip4(that + C)),
 * W row-major in the SRAM, streamed as 8-column panels. Base: load a panel,
 * wait, its MMs, wait. DOUBLE_BUFFER: two panel buffers, and the next panel's
 * load is queued behind this one's before waiting, so the DMA never idles for
 * the CPU (decode is bound by the weight stream). */
static void matmul(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t n,
                   uint32_t shift, uint32_t c, uint32_t c_stride, uint32_t acc)
{
    uint32_t panels = n >> 3, blocks = rows >> 3;
    seed_mxu_geom(a_stride, 4, c_stride, k);
    fill_panel(SP_PANEL0, w, 0, k, n);
    if (!(VARIANT & V_DOUBLE_BUFFER)) {
        for (uint32_t j = 0; j < panels; j++) {
            if (j) {
                wait_until(SEED_UNIT_MXU, 0);
                fill_panel(SP_PANEL0, w, j, k, n);
            }
            wait_until(SEED_UNIT_DMA, 0);
            panel_mms(a, a_stride, blocks, SP_PANEL0, c + j * 4, c_stride, shift, acc);
        }
    } else {
        for (uint32_t j = 0; j < panels; j++) {
            uint32_t more = j + 1 < panels;
            if (more) {
                /* Panel j+1's buffer was read by panel j-1's MMs: they must be done. */
                wait_until(SEED_UNIT_MXU, 0);
                fill_panel((j & 1) ? SP_PANEL0 : SP_PANEL1, w, j + 1, k, n);
            }
            wait_until(SEED_UNIT_DMA, (int32_t)more); /* panel j is in */
            panel_mms(a, a_stride, blocks, (j & 1) ? SP_PANEL1 : SP_PANEL0, c + j * 4, c_stride, shift, acc);
        }
    }
    wait_until(SEED_UNIT_MXU, 0);
}

/* x = hardtanh(x + t) for bound 8 (ADD) or 7 (DYT), over `count` elements. */
static void residual(uint32_t t, uint32_t count, uint32_t bound)
{
    vpu_ew(bound == 7 ? SEED_VOP_DYT : SEED_VOP_ADD, SP_X, SP_X, t, count, 0);
    wait_until(SEED_UNIT_VPU, 0);
}

/* x = hardtanh(x + R(a · W)): the projection, then the residual. */
static void project_residual(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t shift, uint32_t bound)
{
    uint32_t rowb = D >> 1;
    if (VARIANT & V_FUSED) {
        /* C = clip4(R(a·W) + x) on the MXU; DYT(x, x) with n = 1 is clip(x, -7, 7). */
        matmul(a, a_stride, rows, k, w, D, shift, SP_X, rowb, 1);
        if (bound == 7) {
            vpu_ew(SEED_VOP_DYT, SP_X, SP_X, SP_X, rows * D, 1);
            wait_until(SEED_UNIT_VPU, 0);
        }
    } else {
        matmul(a, a_stride, rows, k, w, D, shift, SP_TMP, rowb, 0);
        residual(SP_TMP, rows * D, bound);
    }
}

/* The causal mask of rows pos0.. against keys 0..tp-1: -8 where the key is later. */
static void build_mask(uint32_t pos0, uint32_t rows, uint32_t tp)
{
    uint32_t sb = tp >> 1;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t last = pos0 + r; /* the last key row r may see */
        for (uint32_t u = 0; u < tp; u += 8) {
            uint32_t word = 0;
            for (uint32_t i = 0; i < 8; i++)
                if (u + i > last) word |= 8u << (4 * i);
            SEED_SPAD_WORD(SP_MASK + r * sb + (u >> 1)) = word;
        }
    }
}

/* Standard attention for head h: every row block's scores against every key
 * block, mask and ReLU over the whole S, then ATT = R(P · V) over t keys. */
static void attend_rows(uint32_t h, uint32_t blocks, uint32_t kb, uint32_t t, uint32_t tp, const Layer *L)
{
    uint32_t rowb = D >> 1, sb = tp >> 1, hoff = h * (DH >> 1);
    seed_mxu_geom(rowb, rowb, sb, DH);
    for (uint32_t i = 0; i < blocks; i++)
        for (uint32_t j = 0; j < kb; j++)
            mm(0, 1, SP_S + i * 8 * sb + j * 4, SP_Q + i * 8 * rowb + hoff, SP_K + j * 8 * rowb + hoff, L->ss);
    wait_until(SEED_UNIT_MXU, 0);
    uint32_t count = blocks * 8 * tp;
    vpu_ew(SEED_VOP_ADD, SP_S, SP_S, SP_MASK, count, 0);
    vpu_ew(SEED_VOP_RELU, SP_S, SP_S, 0, count, 0);
    wait_until(SEED_UNIT_VPU, 0);
    seed_mxu_geom(sb, rowb, rowb, t);
    for (uint32_t i = 0; i < blocks; i++)
        for (uint32_t c = 0; c < (DH >> 3); c++)
            mm(0, 0, SP_ATT + i * 8 * rowb + hoff + c * 4, SP_S + i * 8 * sb, SP_V + hoff + c * 4, L->so);
    wait_until(SEED_UNIT_MXU, 0);
}

/* Keys row block i of rows from pos0 may see, of t. */
static uint32_t keys_of(uint32_t pos0, uint32_t i, uint32_t t)
{
    uint32_t keys = pos0 + 8 * i + 8;
    return keys > t ? t : keys;
}

/* Scores of row block i (its key blocks only) into `strip`. */
static void flash_scores(uint32_t h, uint32_t i, uint32_t kb, uint32_t strip, uint32_t tp, const Layer *L)
{
    uint32_t rowb = D >> 1, hoff = h * (DH >> 1);
    seed_mxu_geom(rowb, rowb, tp >> 1, DH);
    for (uint32_t j = 0; j < kb; j++)
        mm(0, 1, strip + j * 4, SP_Q + i * 8 * rowb + hoff, SP_K + j * 8 * rowb + hoff, L->ss);
}

/* FlashAttention's pipeline for head h: row block by row block, two score
 * strips (banks 8 and 10, the hidden rows' first bank, free during attention):
 * the MXU scores block i+1 while the VPU masks block i, and P·V of block i
 * runs while the VPU masks block i+1. The units never share a bank. */
static void attention_flash(uint32_t h, uint32_t pos0, uint32_t blocks, uint32_t t, uint32_t tp, const Layer *L)
{
    uint32_t rowb = D >> 1, sb = tp >> 1, hoff = h * (DH >> 1), pv = 1 + (DH >> 3);
    flash_scores(h, 0, (keys_of(pos0, 0, t) + 7) >> 3, SP_S, tp, L);
    for (uint32_t i = 0; i < blocks; i++) {
        uint32_t strip = (i & 1) ? SP_HID : SP_S, keys = keys_of(pos0, i, t);
        /* Block i's scores are done once at most the previous block's P·V is left. */
        wait_until(SEED_UNIT_MXU, i ? (int32_t)pv : 0);
        vpu_ew(SEED_VOP_ADD, strip, strip, SP_MASK + i * 8 * sb, 8 * tp, 0);
        vpu_ew(SEED_VOP_RELU, strip, strip, 0, 8 * tp, 0);
        if (i + 1 < blocks) flash_scores(h, i + 1, (keys_of(pos0, i + 1, t) + 7) >> 3, (i & 1) ? SP_S : SP_HID, tp, L);
        wait_until(SEED_UNIT_VPU, 0);
        seed_mxu_geom(sb, rowb, rowb, keys);
        for (uint32_t c = 0; c < (DH >> 3); c++)
            mm(0, 0, SP_ATT + i * 8 * rowb + hoff + c * 4, strip, SP_V + hoff + c * 4, L->so);
    }
    wait_until(SEED_UNIT_MXU, 0);
}

/* ReLU attention of rows pos0..pos0+rows-1 (padded to `blocks` blocks of 8) over keys 0..t-1. */
static void attention(uint32_t pos0, uint32_t blocks, uint32_t t, const Layer *L)
{
    uint32_t tp = (t + 7) & ~7u;
    for (uint32_t h = 0; h < HEADS; h++) {
        /* One row block (a decode step): both paths push the same commands; the standard one has less to compute. */
        if ((VARIANT & V_FLASH) && blocks > 1) attention_flash(h, pos0, blocks, t, tp, L);
        else attend_rows(h, blocks, tp >> 3, t, tp, L);
    }
}

/* Positions pos0..pos0+rows-1 (tokens tok[]) through every layer; the last row's
 * logits into SP_LOGIT. */
static void forward(uint32_t pos0, uint32_t rows, const uint8_t *tok)
{
    uint32_t rowb = D >> 1, blocks = (rows + 7) >> 3, rp = blocks * 8, t = pos0 + rows;
    /* Embedding: token rows and position rows in, one ADD. */
    for (uint32_t r = 0; r < rows; r++) fill(SP_ATT + r * rowb, TOK_EMB + tok[r] * rowb, D, 1);
    fill(SP_TMP, POS_EMB + pos0 * rowb, D, rows);
    build_mask(pos0, rp, (t + 7) & ~7u);
    wait_until(SEED_UNIT_DMA, 0);
    vpu_ew(SEED_VOP_ADD, SP_X, SP_ATT, SP_TMP, rows * D, 0);
    wait_until(SEED_UNIT_VPU, 0);
    for (uint32_t l = 0; l < LAYERS; l++) {
        const Layer *L = &layer[l];
        matmul(SP_X, rowb, rp, D, L->wq, D, L->sq, SP_Q, rowb, 0);
        matmul(SP_X, rowb, rp, D, L->wk, D, L->sk, SP_TMP, rowb, 0);
        spill(SP_TMP, L->kc + pos0 * rowb, D, rows);
        matmul(SP_X, rowb, rp, D, L->wv, D, L->sv, SP_ATT, rowb, 0);
        spill(SP_ATT, L->vc + pos0 * rowb, D, rows);
        fill(SP_K, L->kc, D, t);
        fill(SP_V, L->vc, D, t);
        wait_until(SEED_UNIT_DMA, 0);
        attention(pos0, blocks, t, L);
        project_residual(SP_ATT, rowb, rp, D, L->wo, L->sa, L->b1);
        matmul(SP_X, rowb, rp, D, L->w1, DFF, L->sf1, SP_HID, DFF >> 1, 0);
        vpu_ew(SEED_VOP_RELU, SP_HID, SP_HID, 0, rp * DFF, 0);
        wait_until(SEED_UNIT_VPU, 0);
        project_residual(SP_HID, DFF >> 1, rp, DFF, L->w2, L->sf2, L->b2);
    }
    fill(SP_PANEL0, W_OUT_T, D, VOCAB);
    wait_until(SEED_UNIT_DMA, 0);
    for (uint32_t j = 0; j < VOCAB; j++)
        seed_vpu_op(SEED_VOP_DOT, SP_LOGIT + 4 * j, SP_X + (rows - 1) * rowb, SP_PANEL0 + j * rowb, D, 1, 0);
    wait_until(SEED_UNIT_VPU, 0);
}

/* ---- the streamed prefill: prompts too long for the resident plan ----
 *
 * When X, the scores or the FFN rows of the whole prompt do not fit the
 * scratchpad (T = 256 at d = 128), the prefill runs in chunks of ST_ROWS rows
 * with X kept in the SRAM (the blob's X buffer) and K, V resident for all T
 * rows: first every chunk's K and V rows (spilled to the caches as they go),
 * then chunk by chunk the queries, attention row block by row block (one
 * 8-row strip of scores at a time: standard attention scores every key block
 * and masks; FLASH scores only the key blocks up to the block's last query),
 * the output projection and the FFN. The causal mask of a row block is one
 * strip, moved along the diagonal a word a row per block. */
#define ST_ROWS 32u     /* rows a chunk: X, Q, ATT, TMP chunks in banks 0-3 */
#define ST_K    0x4000u /* int4 [T][d]: banks 4-7 */
#define ST_V    0x8000u /* banks 8-11 */
#define ST_S    0xC000u /* int4 [8][Tp]: one row block's scores; bank 12 */
#define ST_HID  0xC000u /* int4 [ST_ROWS][d_ff]: the chunk's hidden rows, after its attention; banks 12-13 */
#define ST_MASK 0xE800u /* int4 [8][Tp]: the row block's causal mask; bank 14, beside PANEL0 */
#define ST_MASK_MAX 0x800u

/* Mask word w (keys 8w..8w+7) of row r of row block i: 0 left of the diagonal, -8 right of it. */
static uint32_t mask_word(uint32_t w, uint32_t i, uint32_t r)
{
    if (w < i) return 0;
    if (w > i) return 0x88888888u;
    return r == 7 ? 0 : 0x88888888u << (4 * (r + 1));
}

/* The mask strip of row block i: whole for block 0, else the two words that move. */
static void mask_strip(uint32_t i, uint32_t tp)
{
    uint32_t sb = tp >> 1;
    for (uint32_t r = 0; r < 8; r++) {
        uint32_t row = ST_MASK + r * sb;
        if (!i) {
            for (uint32_t w = 0; w < (tp >> 3); w++) SEED_SPAD_WORD(row + 4 * w) = mask_word(w, 0, r);
        } else {
            SEED_SPAD_WORD(row + 4 * (i - 1)) = 0;
            SEED_SPAD_WORD(row + 4 * i) = mask_word(i, i, r);
        }
    }
}

/* Attention of row block b of the chunk (global row block i) against keys 0..t-1, every head. */
static void streamed_attention(uint32_t b, uint32_t i, uint32_t t, uint32_t tp, const Layer *L)
{
    uint32_t rowb = D >> 1, sb = tp >> 1, keys = t, kb = tp >> 3;
    if (VARIANT & V_FLASH) {
        keys = 8 * i + 8 < t ? 8 * i + 8 : t;
        kb = (keys + 7) >> 3;
    }
    for (uint32_t h = 0; h < HEADS; h++) {
        uint32_t hoff = h * (DH >> 1);
        seed_mxu_geom(rowb, rowb, sb, DH);
        for (uint32_t j = 0; j < kb; j++)
            mm(0, 1, ST_S + j * 4, SP_Q + b * 8 * rowb + hoff, ST_K + j * 8 * rowb + hoff, L->ss);
        wait_until(SEED_UNIT_MXU, 0);
        vpu_ew(SEED_VOP_ADD, ST_S, ST_S, ST_MASK, 8 * tp, 0);
        vpu_ew(SEED_VOP_RELU, ST_S, ST_S, 0, 8 * tp, 0);
        wait_until(SEED_UNIT_VPU, 0);
        seed_mxu_geom(sb, rowb, rowb, keys);
        for (uint32_t c = 0; c < (DH >> 3); c++)
            mm(0, 0, SP_ATT + b * 8 * rowb + hoff + c * 4, ST_S, ST_V + hoff + c * 4, L->so);
    }
}

/* The prefill of t prompt tokens (tok[]) in chunks; the last row's logits into SP_LOGIT. */
static void forward_streamed(uint32_t t, const uint8_t *tok)
{
    uint32_t rowb = D >> 1, tp = (t + 7) & ~7u, last = 0;
    for (uint32_t l = 0; l < LAYERS; l++) {
        const Layer *L = &layer[l];
        for (uint32_t r0 = 0; r0 < t; r0 += ST_ROWS) {
            uint32_t n = t - r0 < ST_ROWS ? t - r0 : ST_ROWS, bp = (n + 7) & ~7u;
            if (!l) {
                for (uint32_t r = 0; r < n; r++) fill(SP_ATT + r * rowb, TOK_EMB + tok[r0 + r] * rowb, D, 1);
                fill(SP_TMP, POS_EMB + r0 * rowb, D, n);
                wait_until(SEED_UNIT_DMA, 0);
                vpu_ew(SEED_VOP_ADD, SP_X, SP_ATT, SP_TMP, n * D, 0);
                wait_until(SEED_UNIT_VPU, 0);
                spill(SP_X, X_SRAM + r0 * rowb, D, n);
            } else {
                fill(SP_X, X_SRAM + r0 * rowb, D, n);
                wait_until(SEED_UNIT_DMA, 0);
            }
            matmul(SP_X, rowb, bp, D, L->wk, D, L->sk, ST_K + r0 * rowb, rowb, 0);
            spill(ST_K + r0 * rowb, L->kc + r0 * rowb, D, n);
            matmul(SP_X, rowb, bp, D, L->wv, D, L->sv, ST_V + r0 * rowb, rowb, 0);
            spill(ST_V + r0 * rowb, L->vc + r0 * rowb, D, n);
        }
        for (uint32_t r0 = 0; r0 < t; r0 += ST_ROWS) {
            uint32_t n = t - r0 < ST_ROWS ? t - r0 : ST_ROWS, bp = (n + 7) & ~7u;
            fill(SP_X, X_SRAM + r0 * rowb, D, n);
            wait_until(SEED_UNIT_DMA, 0); /* and the caches' spills are out before attention reads K and V */
            matmul(SP_X, rowb, bp, D, L->wq, D, L->sq, SP_Q, rowb, 0);
            for (uint32_t b = 0; b < (bp >> 3); b++) {
                mask_strip((r0 >> 3) + b, tp);
                streamed_attention(b, (r0 >> 3) + b, t, tp, L);
            }
            wait_until(SEED_UNIT_MXU, 0);
            project_residual(SP_ATT, rowb, bp, D, L->wo, L->sa, L->b1);
            matmul(SP_X, rowb, bp, D, L->w1, DFF, L->sf1, ST_HID, DFF >> 1, 0);
            vpu_ew(SEED_VOP_RELU, ST_HID, ST_HID, 0, bp * DFF, 0);
            wait_until(SEED_UNIT_VPU, 0);
            project_residual(ST_HID, DFF >> 1, bp, DFF, L->w2, L->sf2, L->b2);
            if (l + 1 < LAYERS) spill(SP_X, X_SRAM + r0 * rowb, D, n);
            last = n;
        }
    }
    fill(SP_PANEL0, W_OUT_T, D, VOCAB);
    wait_until(SEED_UNIT_DMA, 0);
    for (uint32_t j = 0; j < VOCAB; j++)
        seed_vpu_op(SEED_VOP_DOT, SP_LOGIT + 4 * j, SP_X + (last - 1) * rowb, SP_PANEL0 + j * rowb, D, 1, 0);
    wait_until(SEED_UNIT_VPU, 0);
}

/* The first index of the largest logit; the logits go to LOGITS row `step`, the token to OUT_TOKENS. */
static uint32_t emit(uint32_t step)
{
    uint32_t best = 0;
    int32_t max = (int32_t)SEED_SPAD_WORD(SP_LOGIT);
    for (uint32_t j = 1; j < VOCAB; j++) {
        int32_t v = (int32_t)SEED_SPAD_WORD(SP_LOGIT + 4 * j);
        if (v > max) { max = v; best = j; }
    }
    spill(SP_LOGIT, LOGITS + step * VOCAB * 4, VOCAB * 8, 1);
    put_sram(OUT_TOKENS + step, best, 1);
    return best;
}

/* ---- the job ---- */

static uint32_t fits(uint32_t bytes, uint32_t room) { return bytes <= room; }

/* The job for chained.c. */
static inline __attribute__((always_inline)) void job_of(SeedJob *j)
{
    j->d = D; j->dff = DFF; j->heads = HEADS; j->dh = DH; j->layers = LAYERS; j->vocab = VOCAB; j->variant = VARIANT;
    j->tok_emb = TOK_EMB; j->pos_emb = POS_EMB; j->w_out_t = W_OUT_T; j->out_tokens = OUT_TOKENS; j->logits = LOGITS;
    j->layer = layer;
}

/* Reads and checks the header and the layer records; 0 if the seed cannot run it. */
static uint32_t load_header(uint32_t *plen, uint32_t *steps, uint32_t *stop)
{
    fill(SP_HDR, 0, 256, 1);
    wait_until(SEED_UNIT_DMA, 0);
    if (hdr(MODEL_H_MAGIC) != MODEL_MAGIC || hdr(MODEL_H_VERSION) != MODEL_VERSION) return 0;
    D = hdr(MODEL_H_D); DFF = hdr(MODEL_H_D_FF); HEADS = hdr(MODEL_H_HEADS); LAYERS = hdr(MODEL_H_LAYERS);
    VOCAB = hdr(MODEL_H_VOCAB); VARIANT = hdr(MODEL_H_VARIANT);
    uint32_t max_seq = hdr(MODEL_H_MAX_SEQ);
    *plen = hdr(MODEL_H_PROMPT_LEN); *steps = hdr(MODEL_H_DECODE_STEPS); *stop = hdr(MODEL_H_STOP_TOKEN);
    TOK_EMB = hdr(MODEL_H_TOK_EMB); POS_EMB = hdr(MODEL_H_POS_EMB); W_OUT_T = hdr(MODEL_H_W_OUT_T);
    OUT_TOKENS = hdr(MODEL_H_OUT_TOKENS); LOGITS = hdr(MODEL_H_LOGITS);
    DH = 0; /* D / HEADS without a divide instruction: the largest DH < 1024 with DH·HEADS <= D, a bit at a time */
    for (uint32_t bit = 512; HEADS && bit; bit >>= 1)
        if ((DH | bit) * HEADS <= D) DH |= bit;
    uint32_t rp = (*plen + 7) & ~7u, tp = (max_seq + 7) & ~7u;
    if (!D || !HEADS || DH * HEADS != D || (D | DFF | DH | VOCAB) & 7u || !LAYERS || LAYERS > MAX_LAYERS) return 0;
    if (hdr(MODEL_H_BATCH) > 1 || !W_OUT_T || !*plen || *plen > MAX_PROMPT || *plen + *steps > max_seq) return 0;
    uint32_t resident = fits(rp * D / 2, BANK) && fits(max_seq * D / 2, 2 * BANK) && fits(rp * tp / 2, BANK) && fits(rp * DFF / 2, 4 * BANK);
    /* Else the streamed prefill, for a job without decode steps. */
    X_SRAM = hdr(MODEL_H_X);
    STREAMED = !resident && !*steps && X_SRAM && fits(ST_ROWS * D / 2, BANK) && fits(rp * D / 2, 4 * BANK) && fits(rp * 4, ST_MASK_MAX)
        && fits(ST_ROWS * DFF / 2, 2 * BANK);
    if ((!resident && !STREAMED) || !fits(D * 4, PANEL1_MAX) || !fits(DFF * 4, PANEL1_MAX)
        || !fits(VOCAB * D / 2, BANK) || VOCAB > MAX_VOCAB) return 0;
    fill(SP_LAYERS, hdr(MODEL_H_LAYER_TABLE), LAYERS * 128, 1);
    fill(SP_PROMPT, hdr(MODEL_H_PROMPT), *plen * 2, 1);
    wait_until(SEED_UNIT_DMA, 0);
    for (uint32_t l = 0; l < LAYERS; l++) {
        uint32_t r = SP_LAYERS + l * 64;
        Layer *L = &layer[l];
        L->wq = SEED_SPAD_WORD(r + MODEL_L_WQ); L->wk = SEED_SPAD_WORD(r + MODEL_L_WK);
        L->wv = SEED_SPAD_WORD(r + MODEL_L_WV); L->wo = SEED_SPAD_WORD(r + MODEL_L_WO);
        L->w1 = SEED_SPAD_WORD(r + MODEL_L_W1); L->w2 = SEED_SPAD_WORD(r + MODEL_L_W2);
        L->kc = SEED_SPAD_WORD(r + MODEL_L_K_CACHE); L->vc = SEED_SPAD_WORD(r + MODEL_L_V_CACHE);
        uint32_t a = SEED_SPAD_WORD(r + MODEL_L_SHIFTS_QKVS), b = SEED_SPAD_WORD(r + MODEL_L_SHIFTS_OAF);
        uint32_t bounds = SEED_SPAD_WORD(r + MODEL_L_BOUNDS);
        L->sq = a; L->sk = a >> 8; L->sv = a >> 16; L->ss = a >> 24;
        L->so = b; L->sa = b >> 8; L->sf1 = b >> 16; L->sf2 = b >> 24;
        L->b1 = bounds; L->b2 = bounds >> 8;
        if ((a | b) & 0xF0F0F0F0u) return 0; /* a shift beyond the seed's 4 bits */
        if ((L->b1 != 7 && L->b1 != 8) || (L->b2 != 7 && L->b2 != 8)) return 0;
    }
    return 1;
}

/* Called once the prefill's token and logits are out: the host may read the
 * seed's counters here (an observer on this address) to split prefill from decode. */
__attribute__((noinline)) void prefill_done(uint32_t steps)
{
    __asm__ volatile("");
    if ((VARIANT & V_CHAINED) && steps) { /* no decode steps: main ends the run, without the chained plan's set-up */
        /* The decode steps and the end of the run, when chained.c's plan fits. */
        SeedJob j;
        job_of(&j);
        chained_run(&j);
        __asm__ volatile("c.nop"); /* 2 bytes: main keeps its old word alignment */
    }
}

int main(void)
{
    uint32_t plen, steps, stop;
    if (!load_header(&plen, &steps, &stop)) {
        put_sram(MODEL_H_STATUS, STATUS_BAD_HEADER, 4);
        return STATUS_BAD_HEADER;
    }
    if (STREAMED) {
        forward_streamed(plen, PROMPT);
    } else if (VARIANT & V_PIPELINED) {
        SeedJob j;
        job_of(&j);
        prefill_pipelined(&j, plen, PROMPT);
    } else {
        forward(0, plen, PROMPT);
    }
    uint8_t tok = emit(0);
    prefill_done(steps);
    uint32_t generated = 1;
    for (uint32_t i = 1; i <= steps && tok != stop; i++) {
        forward(plen + i - 1, 1, &tok);
        tok = emit(i);
        generated++;
    }
    put_sram(MODEL_H_GENERATED, generated, 4);
    put_sram(MODEL_H_STATUS, STATUS_DONE, 4);
    return 0;
}
