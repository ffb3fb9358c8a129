/* kernels.h: the transformer's TPU kernels, built on tpu.h.
 *
 * Every tensor argument is an SRAM offset (from SRAM_BASE) with a row stride
 * in bytes; int4 tensors are row-major, two values per byte. The kernels
 * stream tiles through the scratchpad; the plan of its 16 regions is below.
 *
 * The variant (model_format.h VARIANT_*) chooses how:
 *   0              base: every command is waited for as soon as it is pushed
 *   DOUBLE_BUFFER  the next B tile loads while the MXU works on this one
 *   FUSED          ReLU, residual add + hardtanh and mask + ReLU run on each
 *                  output tile in the scratchpad, before it is written back
 *   FLASH          FlashAttention: scores never leave the scratchpad
 *   TOKENS         dependencies are wait tokens: the CPU never polls inside
 *                  a kernel, it only pushes commands
 *   LEAN           matmul staging words computed once per call
 *   PANEL          decode: one-row matmuls through matmul_panel (panel.c)
 *   HEADS          decode: one-query attention with the heads pipelined
 *   STREAM         prefill: weight matmuls through matmul_stream (panel.c)
 *   BLOCK_ATTN     prefill: whole-block attention with the heads pipelined
 *   CHAIN          the next weight matmul's first chunks load ahead of this
 *                  one's last C store (decode and prefill)
 *   FFN_ON_CHIP    prefill: the FFN's rows stay in the scratchpad
 *                  (matmul_stream_ffn, stream_ffn.c)
 *   LONG_CONTEXT   prefill of a prompt longer than 64 rows: the stream and
 *                  FFN-on-chip matmuls block by block of 64 rows, attention
 *                  by query blocks (attention_long, long.c)
 *   SEQUENCER      decode on the sequencer what-if: the weight matmuls of
 *                  the first step recorded into the sequencer's list memory,
 *                  replayed by RUN in every later step (sequencer.c)
 * Every variant computes the same bytes (the golden model, model/golden.ts). */
#ifndef KERNELS_H
#define KERNELS_H

#include <stdint.h>
#include "tpu.h"
#include "model_format.h"
#include "kernel_constants.h" /* chunk and buffer constants, shared with the predictor */

/* The MXU tile edge D (tpu.h TPU_MXU_DIM) and the bytes of one tile row:
 * D int4 values, or D int32 partial sums. */
#define TILE TPU_MXU_DIM
#define TILE_ROW4 (TILE / 2)
#define TILE_ROW32 (4 * TILE)
#if TILE == 8
#define TILE_LOG2 3
#elif TILE == 16
#define TILE_LOG2 4
#else
#error "TPU_MXU_DIM must be 8 or 16"
#endif

/* Scratchpad plan. The platform as built has sixteen 4 KiB regions (64 KiB);
 * -DSP_KIB=32 builds the plan for half of it (eight regions: the
 * scratchpad-size what-if, build/fw/model-spad32.elf and mmbench-spad32.elf). */
#ifndef SP_KIB
#define SP_KIB 64
#endif
#define SP_REGION 4096u
#define SP(r) ((r) * SP_REGION)
#if SP_KIB == 64
/* Matmul: A block in regions 0-7, B tiles in 8/9, C tiles in 10/11,
 * residual tiles in 12/13. Elementwise passes reuse 0/1 and 8/9. */
#define SP_A SP(0)
#define SP_A_BYTES (8 * SP_REGION)
#define SP_B(i) SP(8 + (i))
#define SP_C(i) SP(10 + (i))
#define SP_R(i) SP(12 + (i))
#define SP_EW2(i) SP(8 + (i))
/* FlashAttention: Q block 0, K block 1-2, V block 3-4, int32 O accumulator
 * 5-8, P tiles 10/11, int4 O 12. */
#define SP_FQ SP(0)
#define SP_FK SP(1)
#define SP_FV SP(3)
#define SP_FKV_REGIONS 2u
#define SP_FO32 SP(5)
#define SP_FO32_REGIONS 4u
#define SP_FP(i) SP(10 + (i))
#define SP_FO4 SP(12)
#elif SP_KIB == 32
/* Matmul: A block in regions 0-1, B tiles 2/3, C tiles 4/5, residual 6/7;
 * elementwise passes 0/1 and 2/3. FlashAttention: Q 0, K 1, V 2, int32 O
 * 3-4, P tiles 5/6, int4 O 7. */
#define SP_A SP(0)
#define SP_A_BYTES (2 * SP_REGION)
#define SP_B(i) SP(2 + (i))
#define SP_C(i) SP(4 + (i))
#define SP_R(i) SP(6 + (i))
#define SP_EW2(i) SP(2 + (i))
#define SP_FQ SP(0)
#define SP_FK SP(1)
#define SP_FV SP(2)
#define SP_FKV_REGIONS 1u
#define SP_FO32 SP(3)
#define SP_FO32_REGIONS 2u
#define SP_FP(i) SP(5 + (i))
#define SP_FO4 SP(7)
#else
#error "SP_KIB must be 64 or 32"
#endif

/* The variant in force (set by kernels_begin). */
extern uint32_t k_variant;

static inline void kernels_begin(uint32_t variant) { k_variant = variant; }

/* A command was pushed: the base variant waits for it at once. */
static inline uint32_t k_issued(unsigned unit, uint32_t ticket) {
  if (!(k_variant & (VARIANT_DOUBLE_BUFFER | VARIANT_TOKENS))) tpu_wait(unit, ticket);
  return ticket;
}

/* The next command of `unit` needs `on` to have finished `ticket` commands:
 * a wait token (TOKENS) or a poll. A unit's own commands are in order, and
 * ticket 0 is nothing. A command holds one token; needing a second unit
 * polls the first. The base variant has waited for everything already. */
void k_need_slow(unsigned unit, unsigned on, uint32_t ticket);
static inline void k_need(unsigned unit, unsigned on, uint32_t ticket) {
  if (!(k_variant & (VARIANT_DOUBLE_BUFFER | VARIANT_TOKENS)) || unit == on || ticket == 0) return;
  k_need_slow(unit, on, ticket);
}

/* Whether a kernel over `rows` rows fuses its epilogue into the output
 * tiles. Fusion saves a pass over SRAM, but costs VPU commands per tile; for
 * a single decode row the separate pass (a few commands) is cheaper. */
static inline int k_fuses(uint32_t rows) { return (k_variant & VARIANT_FUSED) && rows >= TILE; }

/* Kernels start with the scratchpad free: every MXU and VPU command pushed
 * so far has finished before this kernel's DMA overwrites their operands.
 * (SRAM needs no such care: all SRAM traffic goes through the in-order DMA.) */
void k_barrier(void);

/* ---- matmul ---- */
enum { MM_TRANSPOSE = 1, MM_OUT_INT32 = 2, MM_CAUSAL = 4 };
enum { EPI_NONE, EPI_RELU, EPI_RESIDUAL, EPI_MASK_RELU };

struct mm_args {
  uint32_t a, a_stride;     /* A [m, k] */
  uint32_t b, b_stride;     /* B [k, n], or Bt [n, k] with MM_TRANSPOSE */
  uint32_t c, c_stride;     /* C [m, n]: int4, or int32 with MM_OUT_INT32 */
  uint32_t m, k, n;         /* k and n multiples of TILE */
  uint32_t shift;           /* requantization of int4 output */
  uint32_t flags;           /* MM_* */
  uint32_t epi;             /* EPI_*, applied per tile when the variant is FUSED */
  uint32_t res, res_stride; /* EPI_RESIDUAL: C = hardtanh(sat4(C + res), bound) */
  uint32_t bound;
  /* MM_CAUSAL: A's rows are queries at positions row0.. and the columns of
   * C (scores, MM_TRANSPOSE) or the inner dimension (P·V) are keys: tiles
   * and inner columns wholly after the last query of a row group are not
   * computed (a causal mask zeroes them). */
  uint32_t row0;
};

/* C = epilogue(R(A·B)): A blocks of TILE·S rows, S fitted to the scratchpad;
 * B tiles of TILE columns; C tiles TILE × TILE. */
void matmul(const struct mm_args *a);

/* VARIANT_PANEL, M ≤ TILE: B streamed in panels of several tiles per DMA
 * command, C kept in the scratchpad, the epilogue (p->epi: EPI_NONE,
 * EPI_RELU or EPI_RESIDUAL) run once on the whole row block, C stored once.
 * keep_a: A is the one the previous matmul_panel call loaded. next (with
 * VARIANT_CHAIN): the matmul_panel call that follows this one with no other
 * kernel between; its first B chunk loads ahead of this call's C store. Whether a
 * matmul can take this path (the variant, its shape, the scratchpad plan): */
int matmul_panel_fits(const struct mm_args *p);
void matmul_panel(const struct mm_args *p, uint32_t keep_a, const struct mm_args *next);
/* CHAIN: the first chunk of `next` (the matmul_panel call after the running
 * kernel, which must keep off scratchpad regions 8 and up) loads now. */
void matmul_panel_ahead(const struct mm_args *next);
/* VARIANT_STREAM, M ≤ 64 (prefill): the panel scheme over every row group,
 * each chunk's C columns (epilogue applied) stored behind the next chunk's
 * load. next (VARIANT_CHAIN): as for matmul_panel, the matmul_stream call
 * that follows with no other kernel between. */
int matmul_stream_fits(const struct mm_args *p);
/* matmul_stream_ffn's opts (stream_ffn.c): STREAM_KEEP_A, A is already in the scratchpad (the
 * call before loaded it); FFN_ON_CHIP (VARIANT_FFN_ON_CHIP, model.c's FFN):
 * STREAM_UP, W1: A into the residual region, C left in the A block at the
 * row stride n/2, ReLU'd once after the last MATMUL, never stored;
 * STREAM_DOWN, W2: A is that block and the residual rows are W1's A. */
#define STREAM_KEEP_A 1u
#define STREAM_UP 2u
#define STREAM_DOWN 4u
/* FFN_ON_CHIP's Wo: its output rows (residual epilogue) written over the
 * residual's region, row-major, and not stored; W1 then takes
 * STREAM_UP | STREAM_KEEP_A. */
#define STREAM_RES_OUT 8u
int matmul_stream_up_fits(const struct mm_args *p);
void matmul_stream(const struct mm_args *p, uint32_t keep_a, const struct mm_args *next);
void matmul_stream_ffn(const struct mm_args *p, uint32_t opts, const struct mm_args *next);
/* FFN_ON_CHIP: the CHAIN state for the matmul_stream call after matmul_stream_ffn's last. */
void stream_chain_set(uint32_t ring, uint32_t prefetched);
/* LONG_CONTEXT: the FFN of several 64-row blocks one after another; after a
 * block's W2 (STREAM_DOWN, its next the following block's Wo), the CHAIN
 * state goes back from panel.c (stream_chain_take) to stream_ffn.c. */
void stream_chain_take(uint32_t *ring, uint32_t *prefetched);
void stream_ffn_chain_resume(void);

/* ---- elementwise passes over SRAM tensors (unfused kernels) ---- */
/* x = hardtanh(sat4(x + t), bound), rows × cols int4, both with stride. */
void residual_pass(uint32_t x, uint32_t t, uint32_t stride, uint32_t rows, uint32_t cols, uint32_t bound);
void relu_pass(uint32_t x, uint32_t stride, uint32_t rows, uint32_t cols);
/* Scores rows at query positions row0..: causal mask, then ReLU. */
void mask_relu_pass(uint32_t s, uint32_t stride, uint32_t rows, uint32_t cols, uint32_t row0);
/* x[r] = sat4(tok_emb[tokens[r]] + pos_emb[pos0 + r]), rows of d int4. */
void embed(uint32_t x, const uint8_t *tokens, uint32_t rows, uint32_t pos0, uint32_t tok_emb, uint32_t pos_emb, uint32_t d);

/* ---- attention ---- */
struct attn_args {
  uint32_t q, k_cache, v_cache, out;  /* [rows, d] int4, row stride d/2; caches from position 0 */
  uint32_t scores, scores_stride;     /* standard attention's P buffer */
  uint32_t rows, row0;                /* queries at positions row0 .. row0+rows-1 */
  uint32_t d, heads;
  uint32_t shift_s, shift_o;
  uint32_t kv_stride;                 /* bytes from one cache row to the next (0: d/2; batched decode interleaves sequences) */
};
/* out = R(relu(causal(R(q·kᵀ, shift_s))) · v, shift_o), head by head. */
void attention(const struct attn_args *a);
/* VARIANT_HEADS, one query (decode, single job, kv_stride 0): every head's
 * keys in one load, the heads pipelined through MXU and VPU, one output
 * store; next (CHAIN): the matmul_panel call that follows. Whether it holds caches of up to max_keys positions of width d: */
int attention_decode_fits(uint32_t d, uint32_t max_keys);
void attention_decode(const struct attn_args *a, const struct mm_args *next);
/* VARIANT_BLOCK_ATTN, a prompt's queries at positions 0..rows−1 (prefill,
 * single job): Q, K and V whole, the heads pipelined, one output store. */
int attention_block_fits(uint32_t d, uint32_t rows);
void attention_block(const struct attn_args *a);
/* VARIANT_LONG_CONTEXT, a prompt longer than attention_block holds (queries
 * at positions 0..rows−1, single job; kernels/long.c): K and V whole in four
 * regions each, the queries in blocks of up to 64 rows, the (block, head)
 * items pipelined, each head's output columns stored as soon as they are done. */
int attention_long_fits(uint32_t d, uint32_t rows);
void attention_long(const struct attn_args *a);

/* ---- the command sequencer's lists (VARIANT_SEQUENCER, sequencer.c) ---- */
/* A list in the sequencer's list memory: where it starts, its entries and
 * the commands it pushes to each unit (DMA, MXU, VPU). */
struct seq_list {
  uint32_t addr, count, pushed[3];
};
/* The list memory's next free byte and the RUN commands pushed so far. (The
 * callers keep it on their stack: new static data would move the others'
 * and change which accesses the linker relaxes to gp, and so every other
 * variant's instructions.) */
struct seq_book {
  uint32_t top, runs;
};
/* Starts recording list l at the next free list-memory address: the
 * commands pushed from now on run as usual and are captured. */
void seq_record_begin(struct seq_book *b, struct seq_list *l);
/* The index in the list being recorded of the command pushed last. */
uint32_t seq_recorded_last(const struct seq_list *l);
/* Stops recording list l. */
void seq_record_end(struct seq_book *b, struct seq_list *l);
/* Rewrites word `word` of entry `entry` of list l (an address that changes from step to step). */
void seq_patch(const struct seq_list *l, uint32_t entry, uint32_t word, uint32_t value);
/* Runs list l and waits until the sequencer has pushed all of it (so that
 * the CPU's next commands queue behind it); tpu_pushed[] counts its commands. */
void seq_replay(struct seq_book *b, const struct seq_list *l);

/* ---- ring collectives over the LINK (collective.c; tensor-parallel model_tp.c) ---- */
/* Reads the board's place on the ring (LINK.BOARD) and sets up the chunks of
 * width d/N and the mailbox buffers; returns the rows per AllReduce block
 * (a multiple of TILE: one int32 chunk of the block fits a mailbox buffer). */
uint32_t ring_begin(uint32_t d);
uint32_t ring_board(void);
uint32_t ring_boards(void);
/* The int32 partial P[rows, d] = A[rows, k] · W[k, d] (A and W in SRAM, W's
 * rows w_stride apart) into the scratchpad, for allreduce_residual; rows ≤ the block. */
void partial_matmul(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t w_stride);
/* x[rows, d] (SRAM) = hardtanh(sat4(x + R(Σ_boards P, shift)), bound): ring
 * reduce-scatter of P, requant + residual of this board's chunk, all-gather int4. */
void allreduce_residual(uint32_t x, uint32_t rows, uint32_t shift, uint32_t bound);

#endif /* KERNELS_H */
