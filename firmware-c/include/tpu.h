/* tpu.h: the firmware's view of the TPU, as small inline calls (after
 * Gemmini's header). Offsets, fields and opcodes come from tpu_regs.h, which
 * is generated from the one register table (periph/regs.ts).
 *
 * Every command call returns its ticket: the value the unit's DONE register
 * reaches when the command has finished. Wait for it with tpu_wait(), or hand
 * it to another unit's next command as a wait token with tpu_after().
 *
 * Staging registers keep their values: tpu_push() writes ARG5 (the wait
 * token) only when it differs from the one staged; the command calls below
 * write ARG0..ARG4 on every command. */
#ifndef TPU_H
#define TPU_H

#include <stdint.h>
#include "platform.h"
#include "tpu_regs.h"

#define TPU_REG(off) MMIO32(TPU_BASE + (off))
#define TPU_UREG(unit_base, off) MMIO32(TPU_BASE + (unit_base) + (off))

/* Commands pushed so far per unit (index TPU_UNIT_*), kept in BRAM so that
 * issuing a command costs no MMIO read. Defined in runtime/tpu.c. */
extern uint32_t tpu_pushed[4];
/* The wait token to attach to the next command of each unit (0: none), and
 * the one its ARG5 holds now. */
extern uint32_t tpu_next_token[4];
extern uint32_t tpu_staged_token[4];

static inline uint32_t tpu_unit_base(unsigned unit) { return (uint32_t)unit << 8; }

/* ---- global registers ---- */

static inline uint32_t tpu_id(void) { return TPU_REG(TPU_REG_ID); }
static inline uint32_t tpu_config(void) { return TPU_REG(TPU_REG_CONFIG); }
/* Zero the counters and start counting / freeze them. */
static inline void tpu_perf_start(void) { TPU_REG(TPU_REG_PERF_CTRL) = 1; }
static inline void tpu_perf_stop(void) { TPU_REG(TPU_REG_PERF_CTRL) = 0; }
static inline uint32_t tpu_counter(uint32_t reg) { return TPU_REG(reg); }
/* First error since cleared (0: none); see TPU_REG_ERROR_* for its fields. */
static inline uint32_t tpu_error(void) { return TPU_REG(TPU_REG_ERROR); }
static inline void tpu_error_clear(void) { TPU_REG(TPU_REG_ERROR) = ~0u; }

/* ---- unit registers ---- */

static inline uint32_t tpu_status(unsigned unit) { return TPU_UREG(tpu_unit_base(unit), TPU_UNIT_STATUS); }
static inline uint32_t tpu_done(unsigned unit) { return TPU_UREG(tpu_unit_base(unit), TPU_UNIT_DONE); }
static inline uint32_t tpu_issued(unsigned unit) { return TPU_UREG(tpu_unit_base(unit), TPU_UNIT_ISSUED); }

/* Tells the compiler that memory may have changed behind its back (a DMA
 * wrote SRAM) or must be up to date before a command reads it. */
static inline void tpu_memory_barrier(void) { __asm__ volatile("" ::: "memory"); }

/* Poll until the unit's DONE count has reached `ticket`. */
static inline void tpu_wait(unsigned unit, uint32_t ticket) {
  while ((int32_t)(tpu_done(unit) - ticket) < 0) { }
  tpu_memory_barrier(); /* results written by the unit are read after this */
}
/* Wait until everything pushed to the unit so far has finished. */
static inline void tpu_drain(unsigned unit) { tpu_wait(unit, tpu_pushed[unit]); }
static inline void tpu_drain_all(void) {
  tpu_drain(TPU_UNIT_DMA); tpu_drain(TPU_UNIT_MXU); tpu_drain(TPU_UNIT_VPU);
}

/* The next command of `unit` will not start before `on_unit` has finished
 * `ticket` commands (a wait token: the CPU does not poll). */
static inline void tpu_after(unsigned unit, unsigned on_unit, uint32_t ticket) {
  tpu_next_token[unit] = TPU_TOKEN(on_unit, ticket);
}

static inline void tpu_stage(unsigned unit, unsigned arg, uint32_t value) {
  TPU_UREG(tpu_unit_base(unit), TPU_UNIT_ARG0 + 4u * arg) = value;
}

/* Pushes the staged command; returns its ticket. Writes ARG5 only when the
 * token changes (staging registers keep their values). */
static inline uint32_t tpu_push(unsigned unit, uint32_t opcode, uint32_t flags) {
  uint32_t token = tpu_next_token[unit];
  if (token != tpu_staged_token[unit]) {
    tpu_stage(unit, (TPU_UNIT_ARG5 - TPU_UNIT_ARG0) / 4u, token);
    tpu_staged_token[unit] = token;
  }
  tpu_next_token[unit] = TPU_NO_TOKEN;
  tpu_memory_barrier(); /* the CPU's SRAM writes happen before the command */
  TPU_UREG(tpu_unit_base(unit), TPU_UNIT_PUSH) = TPU_PUSH_VALUE(opcode, flags);
  return ++tpu_pushed[unit];
}

/* ---- DMA ---- */

/* SRAM offsets are from SRAM_BASE (not CPU addresses). */
static inline uint32_t tpu_sram_offset(const volatile void *cpu_addr) {
  return (uint32_t)(uintptr_t)cpu_addr - SRAM_BASE;
}

static inline uint32_t dma_2d(uint32_t op, uint32_t sram_off, uint32_t spad, uint32_t rows, uint32_t row_bytes,
                              uint32_t sram_stride, uint32_t spad_stride) {
  tpu_stage(TPU_UNIT_DMA, TPU_DMA_SRAM_ADDR_ARG, TPU_DMA_SRAM_ADDR(sram_off));
  tpu_stage(TPU_UNIT_DMA, TPU_DMA_SPAD_ADDR_ARG, TPU_DMA_SPAD_ADDR(spad) | TPU_DMA_ROWS(rows));
  tpu_stage(TPU_UNIT_DMA, TPU_DMA_ROW_BYTES_ARG, TPU_DMA_ROW_BYTES(row_bytes) | TPU_DMA_SPAD_STRIDE(spad_stride));
  tpu_stage(TPU_UNIT_DMA, TPU_DMA_SRAM_STRIDE_ARG, TPU_DMA_SRAM_STRIDE(sram_stride));
  return tpu_push(TPU_UNIT_DMA, op, 0);
}

/* SRAM → scratchpad: rows × row_bytes, each side with its own row stride. */
static inline uint32_t dma_load(uint32_t sram_off, uint32_t spad, uint32_t rows, uint32_t row_bytes,
                                uint32_t sram_stride, uint32_t spad_stride) {
  return dma_2d(TPU_DMA_LOAD, sram_off, spad, rows, row_bytes, sram_stride, spad_stride);
}

/* Scratchpad → SRAM. */
static inline uint32_t dma_store(uint32_t sram_off, uint32_t spad, uint32_t rows, uint32_t row_bytes,
                                 uint32_t sram_stride, uint32_t spad_stride) {
  return dma_2d(TPU_DMA_STORE, sram_off, spad, rows, row_bytes, sram_stride, spad_stride);
}

/* ---- MXU ---- */

/* The MXU's array dimension D the firmware is built for: 8 as built;
 * -DTPU_MXU_DIM=16 builds for the 16×16 what-if (docs/hardware.md §5.5).
 * A MATMUL computes a D×D tile; K is a multiple of D; operand addresses and
 * strides are multiples of D/2 bytes. */
#ifndef TPU_MXU_DIM
#define TPU_MXU_DIM 8
#endif

struct mxu_op {
  uint16_t a, b, c, cin;            /* scratchpad addresses */
  uint16_t a_stride, b_stride, c_stride, cin_stride;
  uint16_t k;                       /* a multiple of TPU_MXU_DIM (≥ TPU_MXU_DIM) */
  uint8_t shift;                    /* requantization shift for int4 output */
  uint8_t flags;                    /* TPU_MXU_FLAG_* */
};

/* C[D,D] = (ACCUMULATE ? Cin : 0) + A[D,K]·B[K,D], D = TPU_MXU_DIM (or A·Btᵀ
 * from Bt[D,K] with TRANSPOSE_B); Cin is int32, D rows. */
static inline uint32_t mxu_matmul(const struct mxu_op *m) {
  tpu_stage(TPU_UNIT_MXU, TPU_MXU_A_ADDR_ARG, TPU_MXU_A_ADDR(m->a) | TPU_MXU_B_ADDR(m->b));
  tpu_stage(TPU_UNIT_MXU, TPU_MXU_C_ADDR_ARG, TPU_MXU_C_ADDR(m->c) | TPU_MXU_K(m->k));
  tpu_stage(TPU_UNIT_MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(m->a_stride) | TPU_MXU_B_STRIDE(m->b_stride));
  tpu_stage(TPU_UNIT_MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(m->c_stride) | TPU_MXU_SHIFT(m->shift));
  if (m->flags & TPU_MXU_FLAG_ACCUMULATE)
    tpu_stage(TPU_UNIT_MXU, TPU_MXU_CIN_ADDR_ARG, TPU_MXU_CIN_ADDR(m->cin) | TPU_MXU_CIN_STRIDE(m->cin_stride));
  return tpu_push(TPU_UNIT_MXU, TPU_MXU_MATMUL, m->flags);
}

/* ---- VPU ---- */

struct vpu_op {
  uint16_t a, b, c;                 /* scratchpad addresses */
  uint16_t a_stride, b_stride, c_stride;
  uint16_t rows, cols;              /* cols in elements */
  uint32_t param;                   /* HARDTANH bound, REQUANT shift, CAUSAL_MASK offsets */
};

static inline uint32_t vpu_run(uint32_t opcode, const struct vpu_op *v) {
  tpu_stage(TPU_UNIT_VPU, TPU_VPU_A_ADDR_ARG, TPU_VPU_A_ADDR(v->a) | TPU_VPU_B_ADDR(v->b));
  tpu_stage(TPU_UNIT_VPU, TPU_VPU_C_ADDR_ARG, TPU_VPU_C_ADDR(v->c) | TPU_VPU_ROWS(v->rows));
  tpu_stage(TPU_UNIT_VPU, TPU_VPU_A_STRIDE_ARG, TPU_VPU_A_STRIDE(v->a_stride) | TPU_VPU_B_STRIDE(v->b_stride));
  tpu_stage(TPU_UNIT_VPU, TPU_VPU_C_STRIDE_ARG, TPU_VPU_C_STRIDE(v->c_stride) | TPU_VPU_COLS(v->cols));
  tpu_stage(TPU_UNIT_VPU, TPU_VPU_PARAM_ARG, v->param);
  return tpu_push(TPU_UNIT_VPU, opcode, 0);
}

static inline uint32_t vpu_add(const struct vpu_op *v) { return vpu_run(TPU_VPU_ADD, v); }
static inline uint32_t vpu_relu(const struct vpu_op *v) { return vpu_run(TPU_VPU_RELU, v); }
static inline uint32_t vpu_hardtanh(const struct vpu_op *v) { return vpu_run(TPU_VPU_HARDTANH, v); }
static inline uint32_t vpu_causal_mask(const struct vpu_op *v) { return vpu_run(TPU_VPU_CAUSAL_MASK, v); }
static inline uint32_t vpu_requant(const struct vpu_op *v) { return vpu_run(TPU_VPU_REQUANT, v); }
static inline uint32_t vpu_add32(const struct vpu_op *v) { return vpu_run(TPU_VPU_ADD32, v); }
static inline uint32_t vpu_copy(const struct vpu_op *v) { return vpu_run(TPU_VPU_COPY, v); }

/* CAUSAL_MASK's parameter: the tile's first global row and column. */
static inline uint32_t vpu_mask_offsets(uint32_t row_off, uint32_t col_off) {
  return TPU_VPU_ROW_OFF(row_off) | TPU_VPU_COL_OFF(col_off);
}

/* ---- LINK (docs/hardware.md §5.12; only with the link option, --boards N) ---- */

/* Scratchpad address of mailbox offset 0: the top 8 KiB (linkMailboxKiB as
 * built) belong to the link; units read it, only the link writes it. */
#define TPU_LINK_MAILBOX_BASE 0xE000u

/* SENDs pushed so far, kept in BRAM like tpu_pushed (runtime/tpu.c). */
extern uint32_t tpu_link_pushed;

#define TPU_LREG(off) TPU_UREG(TPU_LINK_BASE, off)

static inline uint32_t link_board(void) { return TPU_LINK_BOARD_INDEX_GET(TPU_LREG(TPU_LINK_BOARD)); }
static inline uint32_t link_boards(void) { return TPU_LINK_BOARD_COUNT_GET(TPU_LREG(TPU_LINK_BOARD)); }
/* Bit s: mailbox slot s holds a message not yet released. */
static inline uint32_t link_rx_full(void) { return TPU_LREG(TPU_LINK_RX_FULL); }
/* Releases the slots whose bits are set (W1C): the next message may land there. */
static inline void link_release(uint32_t slots) { TPU_LREG(TPU_LINK_RX_FULL) = slots; }
static inline uint32_t link_rx_count(void) { return TPU_LREG(TPU_LINK_RX_COUNT); }

/* 2-D send of rows × row_bytes from the scratchpad (rows spad_stride apart)
 * to board dst_board's mailbox at offset dst (rows dst_stride apart); the
 * next board on the ring is the only one wired. Its wait token is the one
 * link_after() staged (ARG5 keeps its value). Returns the LINK ticket: the
 * LINK DONE count once this SEND has left (tpu_wait(TPU_UNIT_LINK, t)). */
static inline uint32_t link_send(uint32_t spad, uint32_t rows, uint32_t row_bytes, uint32_t spad_stride,
                                 uint32_t dst, uint32_t dst_stride, uint32_t dst_board) {
  TPU_LREG(TPU_UNIT_ARG0) = TPU_LINK_SPAD_ADDR(spad) | TPU_LINK_ROWS(rows);
  TPU_LREG(TPU_UNIT_ARG1) = TPU_LINK_ROW_BYTES(row_bytes) | TPU_LINK_SPAD_STRIDE(spad_stride);
  TPU_LREG(TPU_UNIT_ARG2) = TPU_LINK_DST_ADDR(dst) | TPU_LINK_DST_STRIDE(dst_stride);
  TPU_LREG(TPU_UNIT_ARG3) = TPU_LINK_DST_BOARD(dst_board);
  tpu_memory_barrier();
  TPU_LREG(TPU_UNIT_PUSH) = TPU_PUSH_VALUE(TPU_LINK_SEND, 0);
  return ++tpu_link_pushed;
}

/* The next SEND waits until `on_unit` (DMA, MXU or VPU) has finished `ticket`
 * commands: stages the LINK block's ARG5, which keeps its value, so call
 * link_after(0, 0) to send without a token again. */
static inline void link_after(unsigned on_unit, uint32_t ticket) {
  TPU_LREG(TPU_UNIT_ARG5) = on_unit ? TPU_TOKEN(on_unit, ticket) : TPU_NO_TOKEN;
}

/* Spin until RX_COUNT has reached count (messages landed in this board's mailbox). */
static inline void link_wait_rx(uint32_t count) {
  while ((int32_t)(link_rx_count() - count) < 0) { }
  tpu_memory_barrier(); /* the mailbox is read after this */
}

/* Spin until every SEND pushed so far has left this board (LINK DONE). */
static inline void link_wait_sent(void) { tpu_wait(TPU_UNIT_LINK, tpu_link_pushed); }

#endif /* TPU_H */
