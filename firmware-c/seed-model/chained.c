/* The seed board's transformer, CHAINED decode (variant bit 8): the decode
 * steps after model.c's prefill, with every weight of every layer streamed
 * through one ring of panel buffers (docs/seed-board.md for the board's rules,
 * model/seed-analytic.ts mirrors this file loop for loop). */
#include "model.h"

/* This file's state is set before use (set_job, chained_fits, chained_start): NOINIT (model.h). */
/* The decode's last functions and the pipelined prefill's each in a section of
 * their own, the prefill's last (seed/link.ld): the decode's code keeps its
 * addresses whatever the prefill's code becomes, and so its clocks (which
 * 32-bit instructions straddle a word, which calls the linker shortens).
 * The 113 c.nops ahead of the decode's functions stand where the prefill's
 * score loop stood before it moved to the end. */
#define DECODE_TEXT __attribute__((section(".text_decode")))
#define DECODE_RUN_TEXT __attribute__((section(".text_decode_run"))) /* a section apart, as it was: the linker shortens its calls as before */
#define PREFILL_TEXT __attribute__((section(".text_prefill")))
__asm__(".section .text_decode,\"ax\",@progbits\n\t.fill 113, 2, 0x0001\n\t.previous");
/* This file's code starts 2 bytes past a word (seed/link.ld puts this section first). */
__asm__(".section .text.chained_pad,\"ax\",@progbits\n\t.p2align 2\n\t.fill 1, 2, 0x0001\n\t.previous");

static NOINIT uint32_t D, DFF, HEADS, DH, LAYERS, VOCAB, VARIANT;
static NOINIT uint32_t TOK_EMB, POS_EMB, W_OUT_T, OUT_TOKENS, LOGITS;
static NOINIT const Layer *layer;

static void set_job(const SeedJob *j)
{
    D = j->d; DFF = j->dff; HEADS = j->heads; DH = j->dh; LAYERS = j->layers; VOCAB = j->vocab; VARIANT = j->variant;
    TOK_EMB = j->tok_emb; POS_EMB = j->pos_emb; W_OUT_T = j->w_out_t; OUT_TOKENS = j->out_tokens; LOGITS = j->logits;
    layer = j->layer;
}

/* Out of line, as the decode has always called it (the decode's code, and so its clocks, stay as they were). */
__attribute__((noinline)) static void fill(uint32_t spad, uint32_t sram, uint32_t elems, uint32_t rows)
{
    seed_dma_move(0, spad, sram, elems, rows, 0, 0);
}

static void spill(uint32_t spad, uint32_t sram, uint32_t elems, uint32_t rows)
{
    seed_dma_move(1, spad, sram, elems, rows, 0, 0);
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

/* A decode step computes one row: its MMs are short and its time is the weight
 * stream (6·d² bytes a layer at one byte a clock). So every weight matrix of
 * every layer, then the output head, is one stream of chunks (several panels
 * [K][8] side by side, one DMA fill each) into a ring of slots in banks 10-14.
 * A producer (pump) queues the next chunk whenever its slot's MMs have retired
 * and the DMA queue has room; the consumer (the forward pass) waits only for
 * the chunk it needs, and pumps while it waits, so the DMA streams across
 * matmuls, attention, the residuals and the step boundary. Each layer's old
 * K/V rows are filled ahead in the same stream (the new row is copied in by
 * the VPU and spilled from a staging row), and attention needs no mask (a
 * decode row sees every key) and only row 0's ReLU. */
#define DS_Q    0x1000u /* bank 1: the query row block, then the scores of one head */
#define DS_S    0x1400u
#define DS_ATT  0x2000u /* bank 2: V's new row, then the attention output; the token row at the embedding */
#define DS_TMP  0x3000u /* bank 3: K's new row; the projection output (not FUSED); the position row */
#define DS_HID  0x3200u /*         the FFN's hidden row block */
#define DS_K    0x4000u /* banks 4-5: this layer's keys */
#define DS_V    0x6000u /* banks 6-7: values */
#define RING    0x8000u /* banks 8-14: the weight ring */
#define RING_BYTES 0x7000u
#define DS_STG  0xF800u /* bank 15: each layer's new K and V row, read by the spills */
#define STG_BYTES 2048u
#define MAX_SLOTS 14u
#define DMA_AHEAD 7u    /* the producer leaves the DMA queue room for the consumer's moves */

#define MMIO_ISSUED(u)  SEED_MMIO(SEED_REG_ISSUED(u))
#define MMIO_RETIRED(u) SEED_MMIO(SEED_REG_RETIRED(u))
/* Command `idx` (an issued count) of `unit` has retired. */
#define RETIRED_BY(u, idx) ((int32_t)(MMIO_RETIRED(u) - (idx)) >= 0)

enum { G_DD, G_DF, G_FD, G_OUT, GEOMS };
static NOINIT uint32_t SLOT, NSLOT, PLEN, LAST_STEP;
static NOINIT uint32_t g_k[GEOMS], g_per[GEOMS], g_chunks[GEOMS], g_units[GEOMS];
/* per slot: the DMA fill's issued count, and the unit and issued count of its last reader */
static NOINIT uint32_t slot_dma[MAX_SLOTS], slot_unit[MAX_SLOTS], slot_idx[MAX_SLOTS], slot_addr[MAX_SLOTS];
/* 1: the stream fills each layer's old K/V rows (decode); 0: weights only (the pipelined prefill) */
static NOINIT uint32_t KV_ON;
/* producer: the next item of the stream (step, layer, matrix 0-5 or the head at layer LAYERS, chunk) */
static NOINIT uint32_t p_step, p_layer, p_mat, p_chunk, p_kv_done, p_chunks, p_slot, p_ok, p_g;
static NOINIT uint32_t nx_w0, nx_w1, nx_w2, nx_w3;
/* consumer */
static NOINIT uint32_t c_step, c_chunks, c_slot;
static NOINIT uint32_t kv_items, kv_fill_idx, attn_count, attn_end_idx, logit_spill_idx, word_spill_idx;

static uint32_t udiv(uint32_t a, uint32_t b)
{
    uint32_t q = 0;
    while (a >= b) { a -= b; q++; }
    return q;
}

/* Chunks of a weight [k][units·8] (units = panels) or of the head (units = rows of d). */
static void geom_of(uint32_t g, uint32_t k, uint32_t units, uint32_t unit_bytes)
{
    uint32_t per = udiv(SLOT, unit_bytes);
    if (per > units) per = units;
    g_k[g] = k; g_per[g] = per; g_units[g] = units; g_chunks[g] = udiv(units + per - 1, per);
}

/* Whether the chained plan fits these shapes (else the step runs the plain path). */
static uint32_t chained_fits(uint32_t max_seq)
{
    uint32_t widest = (D > DFF ? D : DFF) * 4;
    SLOT = widest <= 4096u ? 4096u : 0; /* big chunks: the consumer's work a chunk stays under the fill's */
    if (!SLOT || DFF * 4 > BANK - (DS_HID - DS_TMP) || HEADS * ((max_seq + 7) & ~7u) * 4 > BANK - (DS_S - DS_Q) || D * 4 > DS_S - DS_Q
        || D * 4 > DS_HID - DS_TMP || LAYERS * D > STG_BYTES) return 0;
    NSLOT = udiv(RING_BYTES, SLOT);
    for (uint32_t i = 0; i < NSLOT; i++) slot_addr[i] = RING + i * SLOT;
    geom_of(G_DD, D, D >> 3, 4 * D);
    geom_of(G_DF, D, DFF >> 3, 4 * D);
    geom_of(G_FD, DFF, D >> 3, 4 * DFF);
    geom_of(G_OUT, D, VOCAB, D >> 1);
    return 1;
}

static uint32_t mat_geom(uint32_t m) { return m < 4 ? G_DD : m == 4 ? G_DF : G_FD; }

static uint32_t mat_addr(const Layer *L, uint32_t m)
{
    return m == 0 ? L->wq : m == 1 ? L->wk : m == 2 ? L->wv : m == 3 ? L->wo : m == 4 ? L->w1 : L->w2;
}

/* At a K/V fill whose previous attention has not been issued yet. */
static uint32_t p_kv_gated(void)
{
    return p_layer < LAYERS && !p_kv_done && attn_count < kv_items;
}

/* The DMA command of the chunk at the producer's position (its slot aside). */
static void next_words(void)
{
    uint32_t g, w;
    if (p_layer < LAYERS) {
        g = mat_geom(p_mat);
        w = mat_addr(&layer[p_layer], p_mat);
    } else {
        g = G_OUT;
        w = W_OUT_T;
    }
    uint32_t per = g_per[g], first = p_chunk * per, units = g_units[g] - first;
    if (units > per) units = per;
    p_g = g;
    nx_w0 = SEED_DMA_MOVE;
    if (g == G_OUT) {
        nx_w1 = SEED_DMA_MOVE_SRAM_ADDR(w + first * (D >> 1));
        nx_w2 = SEED_DMA_MOVE_LEN(D) | SEED_DMA_MOVE_ROWS(units);
        nx_w3 = 0;
    } else {
        nx_w1 = SEED_DMA_MOVE_SRAM_ADDR(w + first * 4);
        nx_w2 = SEED_DMA_MOVE_LEN(8 * units) | SEED_DMA_MOVE_ROWS(g_k[g]);
        nx_w3 = SEED_DMA_MOVE_SRAM_STRIDE((g == G_DF ? DFF : D) >> 1) | SEED_DMA_MOVE_SPAD_STRIDE(4 * per);
    }
    p_ok = 1;
}

/* The producer's position moves past the chunk just queued. */
static void advance(void)
{
    if (++p_chunk == g_chunks[p_g]) {
        p_chunk = 0;
        if (p_layer == LAYERS) { p_layer = 0; p_step++; }
        else if (++p_mat == 6) { p_mat = 0; p_layer++; }
    }
    if (p_layer < LAYERS && p_mat == 0 && p_chunk == 0 && (KV_ON || p_layer == 0)) { p_kv_done = 0; p_ok = 0; }
    else next_words();
}

/* The stream's slow items: a layer's K/V fill (the old rows of its caches;
 * the buffers are free once the last attention retired), and the stop at the
 * end of the job or one step ahead of the consumer. */
static void pump_kv(void)
{
    if (p_step > LAST_STEP || p_step > c_step + 1) return;
    if (!KV_ON) { next_words(); return; } /* a step's start without K/V fills */
    if (SEED_MMIO(SEED_REG_LEVEL(SEED_UNIT_DMA)) > DMA_AHEAD) return;
    if (attn_count < kv_items || !RETIRED_BY(SEED_UNIT_MXU, attn_end_idx)) return;
    const Layer *L = &layer[p_layer];
    uint32_t old = PLEN + p_step - 1;
    fill(DS_K, L->kc, D, old);
    fill(DS_V, L->vc, D, old);
    kv_fill_idx = MMIO_ISSUED(SEED_UNIT_DMA);
    kv_items++;
    p_kv_done = 1;
    next_words();
}

/* Queues the stream's next item if it can go now (called from every wait and
 * after every chunk's MMs; the common case is a few loads). */
static inline __attribute__((always_inline)) void pump(void)
{
    if (!p_ok) { pump_kv(); return; }
    if (p_chunks - c_chunks >= NSLOT || SEED_MMIO(SEED_REG_LEVEL(SEED_UNIT_DMA)) > DMA_AHEAD) return;
    uint32_t s = p_slot;
    if (!RETIRED_BY(slot_unit[s], slot_idx[s])) return;
    push(SEED_UNIT_DMA, nx_w0 | SEED_DMA_MOVE_SPAD_ADDR(slot_addr[s]), nx_w1, nx_w2, nx_w3);
    slot_dma[s] = MMIO_ISSUED(SEED_UNIT_DMA);
    slot_idx[s] = 0;
    p_chunks++;
    p_slot = s + 1 == NSLOT ? 0 : s + 1;
    advance();
}

/* Waits, pumping the stream, until command `idx` of `unit` has retired. */
static void wait_for(uint32_t unit, uint32_t idx)
{
    while (!RETIRED_BY(unit, idx)) pump();
}

static void wait_all(uint32_t unit) { wait_for(unit, MMIO_ISSUED(unit)); }

/* The consumer's next chunk, once it is in: its scratchpad address. */
static uint32_t chunk_in(void)
{
    while (p_chunks == c_chunks) pump();
    wait_for(SEED_UNIT_DMA, slot_dma[c_slot]);
    return slot_addr[c_slot];
}

/* The chunk's readers are issued (on `unit`): its slot is free once they retire. */
static void chunk_used(uint32_t unit)
{
    slot_unit[c_slot] = unit;
    slot_idx[c_slot] = MMIO_ISSUED(unit);
    c_chunks++;
    c_slot = c_slot + 1 == NSLOT ? 0 : c_slot + 1;
}

/* The prefill's V cache spill waits until the ring is full ahead, so the MXU
 * has two chunks of work queued while the DMA spills (a spill does not hold
 * up the chunks behind it for long); K's went out during attention, once the
 * last head's scores had read K (pf_attention). pf_vc, 0 when none waits. */
static NOINIT uint32_t pf_vc, pf_rows;

static inline __attribute__((always_inline)) void defer_spills(void)
{
    if (!pf_vc || p_chunks - c_chunks < NSLOT - 1) return;
    if (!RETIRED_BY(SEED_UNIT_MXU, attn_end_idx)) return; /* P·V still reads V */
    spill(SP_V, pf_vc, D, pf_rows);
    pf_vc = 0;
}

/* The spill now, if the ring never filled ahead (before the next layer writes V). */
static void flush_spills(void)
{
    if (!pf_vc) return;
    wait_for(SEED_UNIT_MXU, attn_end_idx);
    spill(SP_V, pf_vc, D, pf_rows);
    pf_vc = 0;
    wait_all(SEED_UNIT_DMA); /* the next layer's chunks may be queued ahead of it: V is read before it is written */
}

/* C[8·blocks][n] = R(A · W) (accumulate: C = clip4(that + C)) from the ring:
 * each panel's MMs, one a row block. */
static void ring_matmul(uint32_t g, uint32_t blocks, uint32_t a, uint32_t a_stride, uint32_t c, uint32_t c_stride, uint32_t shift, uint32_t acc)
{
    uint32_t per = g_per[g], panels = g_units[g];
    seed_mxu_geom(a_stride, 4 * per, c_stride, g_k[g]);
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_ACC(acc) | SEED_MXU_MM_C_ADDR(c), w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(shift);
    uint32_t dw0 = SEED_MXU_MM_C_ADDR(8 * c_stride), dw1 = SEED_MXU_MM_A_ADDR(8 * a_stride);
    for (uint32_t j = 0; j < panels;) {
        uint32_t w1 = SEED_MXU_MM_A_ADDR(a) | SEED_MXU_MM_B_ADDR(chunk_in());
        for (uint32_t p = 0; p < per && j < panels; p++, j++, w0 += SEED_MXU_MM_C_ADDR(4), w1 += SEED_MXU_MM_B_ADDR(4)) {
            uint32_t v0 = w0, v1 = w1;
            for (uint32_t i = 0; i < blocks; i++, v0 += dw0, v1 += dw1) push(SEED_UNIT_MXU, v0, v1, w2, 0);
            if (blocks > 1) { pump(); defer_spills(); } /* a prefill panel is long: refill slots as soon as they free */
        }
        chunk_used(SEED_UNIT_MXU);
        if (blocks == 1) pump(); /* the chunks may all be in: the stream must not wait for the next wait */
    }
}

/* One row block of C from the ring (the decode step). */
static void chained_matmul(uint32_t g, uint32_t a, uint32_t a_stride, uint32_t c, uint32_t c_stride, uint32_t shift, uint32_t acc)
{
    ring_matmul(g, 1, a, a_stride, c, c_stride, shift, acc);
}

/* x = hardtanh(x + t) for bound 8 (ADD) or 7 (DYT), one row. */
DECODE_TEXT static void chained_residual(uint32_t g, uint32_t a, uint32_t a_stride, uint32_t shift, uint32_t bound)
{
    uint32_t rowb = D >> 1;
    if (VARIANT & V_FUSED) {
        chained_matmul(g, a, a_stride, SP_X, rowb, shift, 1);
        if (bound != 7) return;
        wait_all(SEED_UNIT_MXU);
        seed_vpu_op(SEED_VOP_DYT, SP_X, SP_X, SP_X, D, 1, 1);
    } else {
        chained_matmul(g, a, a_stride, DS_TMP, rowb, shift, 0);
        wait_all(SEED_UNIT_MXU);
        seed_vpu_op(bound == 7 ? SEED_VOP_DYT : SEED_VOP_ADD, SP_X, SP_X, DS_TMP, D, 1, 0);
    }
    wait_all(SEED_UNIT_VPU);
}

/* One row's copy (REQUANT with m0 1, n 0 is the identity). */
static void copy_row(uint32_t dst, uint32_t src)
{
    seed_vpu_op(SEED_VOP_REQUANT, dst, src, 0, D, 1, 0);
}

/* Attention of the row at pos0 over keys 0..t-1, every head at once: the
 * scores of all heads side by side in S ([8][heads][tp]: row 0 of every head
 * is one run, so one ReLU), then every head's P·V. Three waits a layer, not
 * three a head: the CPU issues attention slower than the units run it. */
static void chained_attention(uint32_t t, const Layer *L)
{
    uint32_t rowb = D >> 1, tp = (t + 7) & ~7u, sb = tp >> 1, srow = HEADS * sb, kb = tp >> 3;
    uint32_t w2s = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(L->ss), w2o = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(L->so);
    pump();
    seed_mxu_geom(rowb, rowb, srow, DH);
    for (uint32_t h = 0; h < HEADS; h++) {
        uint32_t hoff = h * (DH >> 1);
        uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_TRANSPOSE(1) | SEED_MXU_MM_C_ADDR(DS_S + h * sb);
        uint32_t w1 = SEED_MXU_MM_A_ADDR(DS_Q + hoff) | SEED_MXU_MM_B_ADDR(DS_K + hoff);
        for (uint32_t j = 0; j < kb; j++, w0 += SEED_MXU_MM_C_ADDR(4), w1 += SEED_MXU_MM_B_ADDR(8 * rowb))
            push(SEED_UNIT_MXU, w0, w1, w2s, 0);
        pump();
    }
    wait_all(SEED_UNIT_MXU);
    vpu_ew(SEED_VOP_RELU, DS_S, DS_S, 0, HEADS * tp, 0);
    wait_all(SEED_UNIT_VPU);
    seed_mxu_geom(srow, rowb, rowb, t);
    for (uint32_t h = 0; h < HEADS; h++) {
        uint32_t hoff = h * (DH >> 1);
        uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_C_ADDR(DS_ATT + hoff);
        uint32_t w1 = SEED_MXU_MM_A_ADDR(DS_S + h * sb) | SEED_MXU_MM_B_ADDR(DS_V + hoff);
        for (uint32_t c = 0; c < (DH >> 3); c++, w0 += SEED_MXU_MM_C_ADDR(4), w1 += SEED_MXU_MM_B_ADDR(4))
            push(SEED_UNIT_MXU, w0, w1, w2o, 0);
    }
    attn_end_idx = MMIO_ISSUED(SEED_UNIT_MXU);
    attn_count++;
}

/* Decode step `step` (position pos0, token tok) through every layer; logits into SP_LOGIT. */
static void forward_chained(uint32_t step, uint32_t pos0, uint32_t tok)
{
    uint32_t rowb = D >> 1, t = pos0 + 1;
    c_step = step;
    pump();
    fill(DS_ATT, TOK_EMB + tok * rowb, D, 1);
    fill(DS_TMP, POS_EMB + pos0 * rowb, D, 1);
    wait_all(SEED_UNIT_DMA);
    seed_vpu_op(SEED_VOP_ADD, SP_X, DS_ATT, DS_TMP, D, 1, 0);
    wait_all(SEED_UNIT_VPU);
    for (uint32_t l = 0; l < LAYERS; l++) {
        const Layer *L = &layer[l];
        uint32_t stg = DS_STG + l * D;
        chained_matmul(G_DD, SP_X, rowb, DS_Q, rowb, L->sq, 0);
        chained_matmul(G_DD, SP_X, rowb, DS_TMP, rowb, L->sk, 0);
        chained_matmul(G_DD, SP_X, rowb, DS_ATT, rowb, L->sv, 0);
        wait_all(SEED_UNIT_MXU);
        wait_for(SEED_UNIT_DMA, kv_fill_idx); /* the old rows are in before the new one is written */
        copy_row(DS_K + pos0 * rowb, DS_TMP);
        copy_row(stg, DS_TMP);
        copy_row(DS_V + pos0 * rowb, DS_ATT);
        copy_row(stg + rowb, DS_ATT);
        wait_all(SEED_UNIT_VPU);
        spill(stg, L->kc + pos0 * rowb, D, 1);
        spill(stg + rowb, L->vc + pos0 * rowb, D, 1);
        chained_attention(t, L);
        chained_residual(G_DD, DS_ATT, rowb, L->sa, L->b1);
        chained_matmul(G_DF, SP_X, rowb, DS_HID, DFF >> 1, L->sf1, 0);
        wait_all(SEED_UNIT_MXU);
        vpu_ew(SEED_VOP_RELU, DS_HID, DS_HID, 0, DFF, 0);
        wait_all(SEED_UNIT_VPU);
        chained_residual(G_FD, DS_HID, DFF >> 1, L->sf2, L->b2);
    }
    wait_all(SEED_UNIT_MXU);
    wait_for(SEED_UNIT_DMA, logit_spill_idx); /* the last step's logits are out */
    for (uint32_t j = 0; j < VOCAB;) {
        uint32_t b = chunk_in();
        for (uint32_t r = 0; r < g_per[G_OUT] && j < VOCAB; r++, j++)
            seed_vpu_op(SEED_VOP_DOT, SP_LOGIT + 4 * j, SP_X, b + r * rowb, D, 1, 0);
        chunk_used(SEED_UNIT_VPU);
        pump();
    }
    wait_all(SEED_UNIT_VPU);
}

/* emit() without draining the DMA: the weight stream runs on. */
static uint32_t emit_chained(uint32_t step)
{
    uint32_t best = 0;
    int32_t max = (int32_t)SEED_SPAD_WORD(SP_LOGIT);
    for (uint32_t j = 1; j < VOCAB; j++) {
        int32_t v = (int32_t)SEED_SPAD_WORD(SP_LOGIT + 4 * j);
        if (v > max) { max = v; best = j; }
    }
    spill(SP_LOGIT, LOGITS + step * VOCAB * 4, VOCAB * 8, 1);
    logit_spill_idx = MMIO_ISSUED(SEED_UNIT_DMA);
    wait_for(SEED_UNIT_DMA, word_spill_idx);
    SEED_SPAD_WORD(SP_WORD) = best;
    spill(SP_WORD, OUT_TOKENS + step, 2, 1);
    word_spill_idx = MMIO_ISSUED(SEED_UNIT_DMA);
    return best;
}

/* Before the decode steps: the stream starts at step 1, layer 0. */
static void chained_start(uint32_t plen, uint32_t steps)
{
    PLEN = plen; LAST_STEP = steps;
    p_step = 1; p_layer = p_mat = p_chunk = p_kv_done = p_chunks = p_slot = p_ok = 0;
    KV_ON = 1;
    c_step = 1; c_chunks = c_slot = 0;
    for (uint32_t s = 0; s < MAX_SLOTS; s++) slot_dma[s] = slot_unit[s] = slot_idx[s] = 0;
    kv_items = attn_count = 0;
    attn_end_idx = MMIO_ISSUED(SEED_UNIT_MXU);
    logit_spill_idx = word_spill_idx = MMIO_ISSUED(SEED_UNIT_DMA);
}

/* A stop token ended the decode early: the prefetch of the next step is
 * completed to a fixed point (the ring full, or a K/V fill that waits for an
 * attention), so the DMA's work does not depend on timing. */
static void chained_stop(void)
{
    while (p_step <= LAST_STEP && p_step <= c_step + 1 && p_chunks - c_chunks < NSLOT && !p_kv_gated()) pump();
}

/* One word to the SRAM (bytes 1 or 4), after everything queued. */
static void put_word(uint32_t sram, uint32_t value, uint32_t bytes)
{
    wait_all(SEED_UNIT_DMA);
    SEED_SPAD_WORD(SP_WORD) = value;
    spill(SP_WORD, sram, bytes << 1, 1);
    wait_all(SEED_UNIT_DMA);
}

DECODE_RUN_TEXT void chained_run(const SeedJob *job)
{
    set_job(job);
    if (!chained_fits(SEED_SPAD_WORD(SP_HDR + MODEL_H_MAX_SEQ))) return;
    uint32_t plen = SEED_SPAD_WORD(SP_HDR + MODEL_H_PROMPT_LEN), steps = SEED_SPAD_WORD(SP_HDR + MODEL_H_DECODE_STEPS);
    uint32_t stop = SEED_SPAD_WORD(SP_HDR + MODEL_H_STOP_TOKEN), tok = SEED_SPAD_WORD(SP_WORD), generated = 1;
    chained_start(plen, steps);
    for (uint32_t i = 1; i <= steps && tok != stop; i++) {
        forward_chained(i, plen + i - 1, tok);
        tok = emit_chained(i);
        generated++;
    }
    if (generated > 1 && generated <= steps) chained_stop();
    put_word(MODEL_H_GENERATED, generated, 4);
    put_word(MODEL_H_STATUS, STATUS_DONE, 4);
    SEED_MMIO(SEED_REG_DONE) = 0; /* as main's return 0 */
    for (;;) {}
}

/* ---- PIPELINED (variant bit 16): the prefill through the same stream ----
 *
 * The prefill is bound by the MXU, so the aim is an MXU that never waits:
 * every weight through a ring of three 2 KB slots (banks 14-15; the next
 * matmul's chunks come in while this one runs, and its MMs queue without a
 * wait between panels), K and V written where attention reads them (no
 * spill-and-fill before attention; K's cache spill goes out during the last
 * P·Vs, V's while the output projection or the FFN runs), the causal mask
 * built a word at a time, and attention head by head with two score buffers:
 * the MXU runs the next heads' scores and this head's P·V while the VPU masks
 * the next head. Where the MXU waits for the VPU (the residuals, the FFN's
 * ReLU) the CPU polls without pumping and the next matmul's GEOM and first
 * chunk are ready before the wait. FLASH keeps its meaning: each row block scores only its key blocks
 * up to its last query, and P·V runs over just those keys; its scores are
 * packed to those keys, so the VPU's mask and ReLU cover only them. Attention
 * is issue-bound on this CPU (a command is four 9-clock stores): its MMs go
 * out three stores each from locals, the rq word left staged. */
#define PF_S2 0xA000u /* the second score buffer: the FFN's first bank, free during attention */

/* The staging words are shared by every unit and kept after a commit
 * (cpu_subsys.sv writes them only on a store to words 0-2), so a run of MMs
 * with one rq word stores it once (stage_w2) and then three words an MM
 * (mm_go: C, A|B and the commit): the CPU issues a short MM in fewer clocks
 * than the MXU runs it. Any other push (a GEOM, a DMA or VPU command) in
 * between overwrites word 2: stage it again after one. */
#define MXU_PORT ((volatile uint32_t *)SEED_TPU_BASE)

static inline __attribute__((always_inline)) void stage_w2(uint32_t w2) { MXU_PORT[2] = w2; }

/* n MMs, the command words advancing by dw0 and dw1 (locals only: the loop
 * is three stores, two adds and a branch). */
static inline __attribute__((always_inline)) void mm_run(uint32_t w0, uint32_t w1, uint32_t dw0, uint32_t dw1, uint32_t n)
{
    volatile uint32_t *port = MXU_PORT;
    for (uint32_t end = w0 + n * dw0; w0 != end; w0 += dw0, w1 += dw1) {
        port[0] = w0;
        port[1] = w1;
        port[3] = 0;
    }
}

/* GEOM inline (a call spills the caller's registers), then the MMs' rq word staged again. */
static inline __attribute__((always_inline)) void geom_w2(uint32_t a_stride, uint32_t b_stride, uint32_t c_stride, uint32_t len, uint32_t w2)
{
    push(SEED_UNIT_MXU, SEED_MXU_GEOM | SEED_MXU_GEOM_A_STRIDE(a_stride), SEED_MXU_GEOM_B_STRIDE(b_stride) | SEED_MXU_GEOM_C_STRIDE(c_stride),
         SEED_MXU_GEOM_LEN(len), 0);
    stage_w2(w2);
}

/* vpu_ew inline for n = 0 (a call and its chunk arithmetic cost more than the VPU's queue can hide between the heads). */
static inline __attribute__((always_inline)) void pf_vpu_ew_m0(uint32_t op, uint32_t dst, uint32_t s0, uint32_t s1, uint32_t count, uint32_t m0)
{
    uint32_t w0 = SEED_VPU_OP | SEED_VPU_OP_OP(op) | SEED_VPU_OP_DST(dst), w1 = SEED_VPU_OP_SRC0(s0) | SEED_VPU_OP_SRC1(s1);
    uint32_t step = (VPU_CHUNK >> 1) * 0x10001u; /* dst (w0) and both sources (w1) advance a chunk's bytes */
    for (; count > VPU_CHUNK; count -= VPU_CHUNK, w0 += (VPU_CHUNK >> 1) << 16, w1 += step)
        push(SEED_UNIT_VPU, w0, w1, SEED_VPU_OP_VLEN(VPU_CHUNK) | SEED_VPU_OP_M0(m0), 0);
    push(SEED_UNIT_VPU, w0, w1, SEED_VPU_OP_VLEN(count) | SEED_VPU_OP_M0(m0), 0);
}

#define pf_vpu_ew(op, dst, s0, s1, count) pf_vpu_ew_m0(op, dst, s0, s1, count, 1)

/* The causal mask of rows 0..rp-1 over tp keys, a word (8 keys) a store. */
PREFILL_TEXT static void fast_mask(uint32_t rp, uint32_t tp)
{
    uint32_t sb = tp >> 1, words = tp >> 3;
    for (uint32_t r = 0; r < rp; r++) {
        uint32_t row = SP_MASK + r * sb, w = (r + 1) >> 3;
        for (uint32_t u = 0; u < w; u++) SEED_SPAD_WORD(row + 4 * u) = 0;
        if (w < words) {
            int32_t d = (int32_t)r - (int32_t)(8 * w); /* the last visible key in word w, or -1 */
            SEED_SPAD_WORD(row + 4 * w) = d < 0 ? 0x88888888u : 0x88888888u << (4 * (d + 1));
            for (uint32_t u = w + 1; u < words; u++) SEED_SPAD_WORD(row + 4 * u) = 0x88888888u;
        }
    }
}

/* FLASH keeps each row block's scores packed: row block i holds only its
 * i + 1 key blocks, rows 4(i+1) bytes apart, at byte 16 i (i+1) of the
 * buffer, so one head's scores are one run of 32 b (b+1) elements for b row
 * blocks and the mask's ADD and the ReLU cover just the keys a row block
 * sees (not every key). The mask in the same layout: 0 left of the
 * diagonal word, the diagonal word's keys past the row -8. */
PREFILL_TEXT static uint32_t packed_at(uint32_t i) { return 16u * i * (i + 1); }

PREFILL_TEXT static void packed_mask(uint32_t blocks)
{
    /* Every word but the diagonal ones is 0: the VPU zeroes the mask first (REQUANT with m0 = 0 writes 0), the CPU writes the diagonal. */
    for (uint32_t i = 0; i < blocks; i++) {
        uint32_t at = SP_MASK + packed_at(i) + 4 * i, stride = 4 * (i + 1), word = 0x88888888u;
        for (uint32_t r = 0; r < 7; r++, at += stride) SEED_SPAD_WORD(at) = word <<= 4; /* row r: its keys past r */
    }
}

/* Head h's scores of every row block into buffer s (FLASH: packed, one GEOM a row block); returns the MXU's issued count after them.
 * Every command word advances by a constant from block to block: locals, no multiplies, no loads. */
PREFILL_TEXT static uint32_t pf_scores(uint32_t h, uint32_t blocks, uint32_t tp, uint32_t s, const Layer *L)
{
    volatile uint32_t *port = MXU_PORT;
    uint32_t rowb = D >> 1, sb = tp >> 1, hoff = h * (DH >> 1), w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(L->ss);
    uint32_t flash = VARIANT & V_FLASH, kb = tp >> 3;
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_TRANSPOSE(1) | SEED_MXU_MM_C_ADDR(s);
    uint32_t w1 = SEED_MXU_MM_A_ADDR(SP_Q + hoff) | SEED_MXU_MM_B_ADDR(SP_K + hoff);
    uint32_t dk = SEED_MXU_MM_B_ADDR(8 * rowb), dq = SEED_MXU_MM_A_ADDR(8 * rowb);
    /* FLASH: block i's C stride 4(i+1), its C base 16 i (i+1) bytes in; else one stride sb, blocks 8 sb apart. */
    uint32_t g0 = SEED_MXU_GEOM | SEED_MXU_GEOM_A_STRIDE(rowb), g1 = SEED_MXU_GEOM_B_STRIDE(rowb) | SEED_MXU_GEOM_C_STRIDE(flash ? 4 : sb);
    uint32_t g2 = SEED_MXU_GEOM_LEN(DH), dc = SEED_MXU_MM_C_ADDR(flash ? 32 : 8 * sb);
    if (!flash) { port[0] = g0; port[1] = g1; port[2] = g2; port[3] = 0; port[2] = w2; }
    for (uint32_t i = 0; i < blocks; i++, w1 += dq) {
        if (flash) {
            kb = i + 1;
            port[0] = g0; port[1] = g1; port[2] = g2; port[3] = 0; port[2] = w2;
            g1 += SEED_MXU_GEOM_C_STRIDE(4);
        }
        mm_run(w0, w1, SEED_MXU_MM_C_ADDR(4), dk, kb);
        w0 += dc;
        if (flash) dc += SEED_MXU_MM_C_ADDR(32);
    }
    return MMIO_ISSUED(SEED_UNIT_MXU);
}

/* Head h's P·V from buffer s into ATT: one GEOM for all row blocks (standard), one a block (FLASH, packed: A stride 4(i+1), K the block's keys). */
PREFILL_TEXT static inline __attribute__((always_inline)) void pf_pv(uint32_t h, uint32_t blocks, uint32_t t, uint32_t tp, uint32_t s, const Layer *L)
{
    volatile uint32_t *port = MXU_PORT;
    uint32_t rowb = D >> 1, sb = tp >> 1, hoff = h * (DH >> 1), w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(L->so);
    uint32_t flash = VARIANT & V_FLASH, tiles = DH >> 3;
    uint32_t g0 = SEED_MXU_GEOM | SEED_MXU_GEOM_A_STRIDE(flash ? 4 : sb), g1 = SEED_MXU_GEOM_B_STRIDE(rowb) | SEED_MXU_GEOM_C_STRIDE(rowb);
    uint32_t keys = flash ? 8 : t, da = SEED_MXU_MM_A_ADDR(flash ? 32 : 8 * sb);
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_C_ADDR(SP_ATT + hoff), w1 = SEED_MXU_MM_A_ADDR(s) | SEED_MXU_MM_B_ADDR(SP_V + hoff);
    if (!flash) { port[0] = g0; port[1] = g1; port[2] = SEED_MXU_GEOM_LEN(t); port[3] = 0; port[2] = w2; }
    for (uint32_t i = 0; i < blocks; i++) {
        if (flash) {
            port[0] = g0; port[1] = g1; port[2] = SEED_MXU_GEOM_LEN(keys < t ? keys : t); port[3] = 0; port[2] = w2;
            g0 += SEED_MXU_GEOM_A_STRIDE(4);
            keys += 8;
        }
        mm_run(w0, w1, SEED_MXU_MM_C_ADDR(4), SEED_MXU_MM_B_ADDR(4), tiles);
        w0 += SEED_MXU_MM_C_ADDR(8 * rowb);
        w1 += da;
        if (flash) da += SEED_MXU_MM_A_ADDR(32);
    }
}

/* Polls until command `idx` of `unit` has retired, without pumping: where one
 * unit hands over to another, the next unit's commands go out the moment it
 * can take them (a pump that queues a chunk costs more clocks than the poll). */
PREFILL_TEXT static inline __attribute__((always_inline)) void pf_wait(uint32_t unit, uint32_t idx)
{
    while (!RETIRED_BY(unit, idx)) {}
}

/* Head h's mask (ADD) and ReLU over buffer s: returns the VPU's issued count after them. */
PREFILL_TEXT static uint32_t pf_mask(uint32_t s, uint32_t count)
{
    pf_vpu_ew(SEED_VOP_ADD, s, s, SP_MASK, count);
    pf_vpu_ew(SEED_VOP_RELU, s, s, 0, count);
    return MMIO_ISSUED(SEED_UNIT_VPU);
}

/* Attention of rows 0..t-1, head by head, two score buffers. The MXU runs
 * S0, S1, PV0, S2, PV1, ... (S: a head's scores, PV its P·V) while the VPU
 * masks head h+1 behind PV(h) and S(h+2): the MXU waits for no mask but the
 * first and the last. Head h+1's mask is queued once its scores are done:
 * after PV(h) is pushed (the CPU stalls on the MXU's full queue while it
 * pushes), or before PV(h) at the last pair, where no S(h+2) follows to cover
 * the mask. */
PREFILL_TEXT static void pf_attention(uint32_t blocks, uint32_t t, const Layer *L)
{
    uint32_t tp = (t + 7) & ~7u, count = (VARIANT & V_FLASH) ? 32 * blocks * (blocks + 1) : blocks * 8 * tp;
    uint32_t done = pf_scores(0, blocks, tp, SP_S, L);
    pf_wait(SEED_UNIT_MXU, done);
    if (HEADS == 1) spill(SP_K, L->kc, D, t);
    uint32_t masked = pf_mask(SP_S, count), next_masked = masked;
    if (HEADS > 1) done = pf_scores(1, blocks, tp, PF_S2, L);
    for (uint32_t h = 0; h < HEADS; h++) {
        uint32_t s = (h & 1) ? PF_S2 : SP_S, more = h + 2 < HEADS;
        if (h + 1 < HEADS && !more) {
            wait_for(SEED_UNIT_MXU, done);
            spill(SP_K, L->kc, D, t); /* the last scores have read K: its rows go to the cache while P·V runs */
            next_masked = pf_mask((h & 1) ? SP_S : PF_S2, count);
        }
        pf_wait(SEED_UNIT_VPU, masked);
        pf_pv(h, blocks, t, tp, s, L);
        if (more) {
            wait_for(SEED_UNIT_MXU, done);
            next_masked = pf_mask((h & 1) ? SP_S : PF_S2, count);
            done = pf_scores(h + 2, blocks, tp, s, L);
        }
        masked = next_masked;
    }
    attn_end_idx = MMIO_ISSUED(SEED_UNIT_MXU);
}

/* One pump, out of line: the prefill's matmuls and VPU passes share its code (the firmware RAM is 16 KB). */
PREFILL_TEXT static __attribute__((noinline)) void pf_pump(void)
{
    pump();
}

/* ring_matmul for the prefill: the GEOM and the first chunk first, then a
 * wait for the VPU's command `vpu_idx` (the pass that wrote A), then the MMs. */
PREFILL_TEXT static void pf_matmul(uint32_t g, uint32_t blocks, uint32_t a, uint32_t a_stride, uint32_t c, uint32_t c_stride, uint32_t shift, uint32_t acc,
                                   uint32_t vpu_idx)
{
    uint32_t per = g_per[g], panels = g_units[g];
    seed_mxu_geom(a_stride, 4 * per, c_stride, g_k[g]);
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_ACC(acc) | SEED_MXU_MM_C_ADDR(c), w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(shift);
    uint32_t dw0 = SEED_MXU_MM_C_ADDR(8 * c_stride), dw1 = SEED_MXU_MM_A_ADDR(8 * a_stride);
    uint32_t w1 = SEED_MXU_MM_A_ADDR(a) | SEED_MXU_MM_B_ADDR(chunk_in());
    pf_wait(SEED_UNIT_VPU, vpu_idx);
    for (uint32_t j = 0; j < panels;) {
        for (uint32_t p = 0; p < per && j < panels; p++, j++, w0 += SEED_MXU_MM_C_ADDR(4), w1 += SEED_MXU_MM_B_ADDR(4)) {
            uint32_t v0 = w0, v1 = w1;
            for (uint32_t i = 0; i < blocks; i++, v0 += dw0, v1 += dw1) push(SEED_UNIT_MXU, v0, v1, w2, 0);
            pf_pump();
            defer_spills();
        }
        chunk_used(SEED_UNIT_MXU);
        if (j < panels) w1 = SEED_MXU_MM_A_ADDR(a) | SEED_MXU_MM_B_ADDR(chunk_in());
    }
}

/* A VPU pass (vpu_ew with rq word rq) once the MXU's work is done: the first
 * pieces the VPU's queue takes at once, then a pump (the ring's freed slot
 * refills while the VPU works; not after a pass of one piece, which the next
 * matmul would wait for), then the rest. Returns the VPU's issued count. */
PREFILL_TEXT static uint32_t pf_vpu_pass(uint32_t op, uint32_t dst, uint32_t s0, uint32_t s1, uint32_t count, uint32_t rq)
{
    uint32_t w0 = SEED_VPU_OP | SEED_VPU_OP_OP(op) | SEED_VPU_OP_DST(dst), w1 = SEED_VPU_OP_SRC0(s0) | SEED_VPU_OP_SRC1(s1);
    uint32_t step = (VPU_CHUNK >> 1) * 0x10001u, n = 0;
    pf_wait(SEED_UNIT_MXU, MMIO_ISSUED(SEED_UNIT_MXU));
    for (;;) {
        uint32_t c = count > VPU_CHUNK ? VPU_CHUNK : count;
        push(SEED_UNIT_VPU, w0, w1, SEED_VPU_OP_VLEN(c) | rq, 0);
        count -= c;
        if (++n == 7 || (!count && n > 1 && n < 7)) pf_pump(); /* a one-piece pass is over before a pump would be */
        if (!count) break;
        w0 += (VPU_CHUNK >> 1) << 16;
        w1 += step;
    }
    return MMIO_ISSUED(SEED_UNIT_VPU);
}

#define RQ(n) (SEED_VPU_OP_M0(1) | SEED_VPU_OP_N(n))

PREFILL_TEXT void prefill_pipelined(const SeedJob *job, uint32_t t, const uint8_t *tok)
{
    set_job(job);
    uint32_t rowb = D >> 1, blocks = (t + 7) >> 3, tp = (t + 7) & ~7u;
    fill(SP_TMP, POS_EMB, D, t); /* the embedding's position rows first: one long fill while the CPU sets the stream up */
    /* The stream: one step (0) of weights, no K/V fills, three slots. */
    SLOT = 2048u; NSLOT = 3;
    slot_addr[0] = SP_PANEL0; slot_addr[1] = SP_PANEL0 + 0x800u; slot_addr[2] = SP_PANEL1;
    geom_of(G_DD, D, D >> 3, 4 * D);
    geom_of(G_DF, D, DFF >> 3, 4 * D);
    geom_of(G_FD, DFF, D >> 3, 4 * DFF);
    geom_of(G_OUT, D, VOCAB, D >> 1);
    LAST_STEP = 0; KV_ON = 0;
    p_step = p_layer = p_mat = p_chunk = p_kv_done = p_chunks = p_slot = p_ok = 0;
    c_step = c_chunks = c_slot = 0;
    for (uint32_t s = 0; s < 3; s++) slot_dma[s] = slot_unit[s] = slot_idx[s] = 0;
    pf_vc = 0;
    pf_pump(); /* the stream's first position (its first chunk goes out behind the token rows) */
    /* Then the token rows (three stores each: their LEN|ROWS word stays
     * staged), the VPU's ADD of both once they are in, the causal mask built
     * while the VPU adds and the weight stream started. */
    uint32_t zeroed = 0;
    if (VARIANT & V_FLASH) {
        pf_vpu_ew_m0(SEED_VOP_REQUANT, SP_MASK, SP_MASK, 0, 32 * blocks * (blocks + 1), 0);
        zeroed = MMIO_ISSUED(SEED_UNIT_VPU);
    }
    {
        volatile uint32_t *port = (volatile uint32_t *)(SEED_TPU_BASE + (SEED_UNIT_DMA << 4));
        uint32_t w0 = SEED_DMA_MOVE | SEED_DMA_MOVE_SPAD_ADDR(SP_ATT), base = TOK_EMB;
        port[2] = SEED_DMA_MOVE_LEN(D) | SEED_DMA_MOVE_ROWS(1);
        for (const uint8_t *p = tok, *end = tok + t; p != end; p++, w0 += SEED_DMA_MOVE_SPAD_ADDR(rowb)) {
            port[0] = w0;
            port[1] = SEED_DMA_MOVE_SRAM_ADDR(base + *p * rowb);
            port[3] = 0;
        }
    }
    wait_for(SEED_UNIT_DMA, MMIO_ISSUED(SEED_UNIT_DMA));
    pf_vpu_ew(SEED_VOP_ADD, SP_X, SP_ATT, SP_TMP, t * D);
    pf_pump(); /* the first chunk */
    if (VARIANT & V_FLASH) {
        wait_for(SEED_UNIT_VPU, zeroed);
        packed_mask(blocks);
    } else {
        fast_mask(blocks * 8, tp);
    }
    /* The ring's other chunks go out from the first matmul's panels (a pump here would hold up its first MM). */
    uint32_t vpu = MMIO_ISSUED(SEED_UNIT_VPU); /* the VPU pass the next matmul reads (here the embedding's ADD) */
    uint32_t fused = (VARIANT & V_FUSED) != 0, oc = fused ? SP_X : SP_TMP;
    for (uint32_t l = 0; l < LAYERS; l++) {
        const Layer *L = &layer[l];
        pf_matmul(G_DD, blocks, SP_X, rowb, SP_Q, rowb, L->sq, 0, vpu);
        flush_spills();
        ring_matmul(G_DD, blocks, SP_X, rowb, SP_K, rowb, L->sk, 0);
        ring_matmul(G_DD, blocks, SP_X, rowb, SP_V, rowb, L->sv, 0);
        pf_attention(blocks, t, L);
        /* V's rows go out to the cache during the output projection or the FFN (defer_spills): nothing
         * reads V until the next layer writes it, and its chunks come in behind the spill. */
        pf_vc = L->vc; pf_rows = t;
        ring_matmul(G_DD, blocks, SP_ATT, rowb, oc, rowb, L->sa, fused);
        /* From here on a row's result depends on that row alone: after the last layer's attention the VPU's
         * passes cover only the last row (its logits are the prefill's; the MXU's row blocks stay whole).
         * A residual is x = hardtanh(x + t): ADD for bound 8, DYT for 7; FUSED, the MXU added and DYT(x, x)
         * with n = 1 clips x to 7. */
        uint32_t last = l + 1 == LAYERS, x0 = last ? t - 1 : 0, rows = last ? 1 : blocks * 8, x = SP_X + x0 * rowb;
        uint32_t tmp = SP_TMP + x0 * rowb, hid = SP_HID + x0 * (DFF >> 1);
        if (!fused) vpu = pf_vpu_pass(L->b1 == 7 ? SEED_VOP_DYT : SEED_VOP_ADD, x, x, tmp, rows * D, RQ(0));
        else if (L->b1 == 7) vpu = pf_vpu_pass(SEED_VOP_DYT, x, x, x, rows * D, RQ(1));
        pf_matmul(G_DF, blocks, SP_X, rowb, SP_HID, DFF >> 1, L->sf1, 0, vpu);
        vpu = pf_vpu_pass(SEED_VOP_RELU, hid, hid, 0, rows * DFF, RQ(0));
        pf_matmul(G_FD, blocks, SP_HID, DFF >> 1, oc, rowb, L->sf2, fused, vpu);
        if (!fused) vpu = pf_vpu_pass(L->b2 == 7 ? SEED_VOP_DYT : SEED_VOP_ADD, x, x, tmp, rows * D, RQ(0));
        else if (L->b2 == 7) vpu = pf_vpu_pass(SEED_VOP_DYT, x, x, x, rows * D, RQ(1));
    }
    wait_all(SEED_UNIT_MXU);
    flush_spills();
    for (uint32_t j = 0; j < VOCAB;) {
        uint32_t b = chunk_in();
        for (uint32_t r = 0; r < g_per[G_OUT] && j < VOCAB; r++, j++)
            seed_vpu_op(SEED_VOP_DOT, SP_LOGIT + 4 * j, SP_X + (t - 1) * rowb, b + r * rowb, D, 1, 0);
        chunk_used(SEED_UNIT_VPU);
    }
    wait_all(SEED_UNIT_VPU);
}
