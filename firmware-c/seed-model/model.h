/* What the seed board's transformer (model.c) shares with its chained decode
 * (chained.c): the scratchpad plan, the variant bits, the job's dimensions and
 * layer records, and the command primitives. */
#ifndef SEED_MODEL_H
#define SEED_MODEL_H
#include <stdint.h>
#include "tpu_seed.h"
#include "model_format.h"

/* Scratchpad plan: 16 banks of 4 KB. A and B of every MM sit in different
 * banks (the RTL never grants B otherwise). */
#define SP_X      0x0000u /* int4 [rows][d]: activations; bank 0 */
#define SP_Q      0x1000u /* queries; bank 1 */
#define SP_ATT    0x2000u /* attention output; V rows of this forward; token rows at the embedding; bank 2 */
#define SP_TMP    0x3000u /* projection output; K rows of this forward; position rows at the embedding; bank 3 */
#define SP_K      0x4000u /* int4 [T][d]: this layer's keys; banks 4-5 */
#define SP_V      0x6000u /* values; banks 6-7 */
#define SP_S      0x8000u /* int4 [rows][Tp]: one head's scores P; bank 8 */
#define SP_MASK   0x9000u /* int4 [rows][Tp]: the causal mask, 0 or -8; bank 9 */
#define SP_HID    0xA000u /* int4 [rows][d_ff]: the FFN's hidden rows; banks 10-13 */
#define SP_PANEL0 0xE000u /* a weight panel [K][8] (or W_OUT_T at the logits); bank 14 */
#define SP_HDR    0xF000u /* the blob header (128 B); bank 15 */
#define SP_LAYERS 0xF080u /* the layer records, up to MAX_LAYERS */
#define SP_PROMPT 0xF480u /* the prompt bytes, up to MAX_PROMPT */
#define SP_LOGIT  0xF580u /* int32 [vocab]: the DOT results */
#define SP_WORD   0xF680u /* one word on its way to the SRAM */
#define SP_PANEL1 0xF800u /* the second weight panel (DOUBLE_BUFFER); bank 15 */

#define BANK       4096u
#define PANEL1_MAX 2048u
#define MAX_LAYERS 16u
#define MAX_PROMPT 256u
#define MAX_VOCAB  64u
#define VPU_CHUNK  1016u /* vlen is 10 bits; a multiple of 8 keeps every chunk word-aligned */

#define V_DOUBLE_BUFFER 1u
#define V_FUSED         2u
#define V_FLASH         4u
#define V_CHAINED       8u
#define V_PIPELINED     16u

/* State set before use: out of .bss, whose clearing at start-up would count in every run's clocks (seed/link.ld). */
#define NOINIT __attribute__((section(".noinit")))

enum { STATUS_DONE = 1, STATUS_BAD_HEADER = 2 };

typedef struct {
    uint32_t wq, wk, wv, wo, w1, w2, kc, vc;
    uint8_t sq, sk, sv, ss, so, sa, sf1, sf2, b1, b2;
} Layer;


/* One 4-word command (the store to word 3 commits it). Forced inline, with
 * the MM below: gcc -Os otherwise calls the header's inline helpers, and a
 * call per MM costs more CPU clocks than the MM's own issue. */
static inline __attribute__((always_inline)) void push(uint32_t unit, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3)
{
    volatile uint32_t *port = (volatile uint32_t *)(SEED_TPU_BASE + (unit << 4));
    port[0] = w0;
    port[1] = w1;
    port[2] = w2;
    port[3] = w3;
}

/* MXU MM with m0 = 1 and shift n: C = clip4(R(A·B)) (+ C when acc). */
static inline __attribute__((always_inline)) void mm(uint32_t acc, uint32_t transpose, uint32_t c, uint32_t a, uint32_t b, uint32_t n)
{
    push(SEED_UNIT_MXU, SEED_MXU_MM | SEED_MXU_MM_ACC(acc) | SEED_MXU_MM_TRANSPOSE(transpose) | SEED_MXU_MM_C_ADDR(c),
         SEED_MXU_MM_A_ADDR(a) | SEED_MXU_MM_B_ADDR(b), SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(n), 0);
}

/* The job's dimensions and records, as model.c read them from the header. */
typedef struct {
    uint32_t d, dff, heads, dh, layers, vocab, variant;
    uint32_t tok_emb, pos_emb, w_out_t, out_tokens, logits;
    const Layer *layer;
} SeedJob;

/* chained.c: when its plan fits the job, the decode steps after the
 * prefill's token (in SP_WORD), GENERATED, STATUS and the end of the run
 * (never returns); else it returns and model.c decodes. */
void chained_run(const SeedJob *job);
/* chained.c: the prefill of t prompt tokens (tok[]) through the weight stream (PIPELINED); the logits into SP_LOGIT. */
void prefill_pipelined(const SeedJob *job, uint32_t t, const uint8_t *tok);

#endif
