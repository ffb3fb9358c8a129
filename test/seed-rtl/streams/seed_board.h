/* seed_board.h — a deliberately minimal, hand-written view of the seed board's
 * MMIO (im-afan/transformer-tpu-int4's cpu_subsys.sv / cmd_*.sv, as described in
 * docs/seed-board.md), used only by the RTL stream fixtures in this folder.
 * It is NOT the board's official header: that one is generated from the seed
 * board's register/command table (periph/seed). Written from the documented
 * layout; no code of the seed's is in it. */
#ifndef SEED_BOARD_H
#define SEED_BOARD_H

#include <stdint.h>

#define SEED_MMIO 0x80000000u /* a[31:28] == 8: command ports, status, done */
#define SEED_SPAD 0x90000000u /* a[31:28] == 9: the 64 KiB scratchpad, 32-bit words */

#define SEED_U_MXU 0u
#define SEED_U_VPU 1u
#define SEED_U_DMA 2u

#define SEED_REG(off) (*(volatile uint32_t *)(SEED_MMIO + (off)))
#define SEED_PORT(u, w) SEED_REG(0x10u * (u) + 4u * (w)) /* word 3 commits */
#define SEED_ISSUED(u) SEED_REG(0x40u + 0x10u * (u))
#define SEED_RETIRED(u) SEED_REG(0x44u + 0x10u * (u))
#define SEED_LEVEL(u) SEED_REG(0x48u + 0x10u * (u))
#define SEED_IDLE SEED_REG(0x70u) /* read: {1, dma, vpu, mxu} idle bits; write: done */
#define SEED_SPAD32(a) (*(volatile uint32_t *)(SEED_SPAD + (a)))

/* requant word {n, m0}: out = clip4((x*m0 + 2^(n-1)) >> n) */
#define SEED_RQ(m0, n) ((((uint32_t)(n) & 0xfu) << 12) | ((uint32_t)(m0) & 0xfffu))

/* command words (cmd_dma.sv / cmd_mxu.sv / cmd_vpu.sv field layout) */
#define SEED_DMA_W0(dir, spad) (0x01u | ((uint32_t)(dir) << 8) | ((uint32_t)(spad) << 16))
#define SEED_DMA_W2(len, rows) ((uint32_t)(len) | ((uint32_t)(rows) << 16))
#define SEED_DMA_W3(sram_stride, spad_stride) ((uint32_t)(sram_stride) | ((uint32_t)(spad_stride) << 16))
#define SEED_GEOM_W0(a_stride) (0x01u | ((uint32_t)(a_stride) << 16))
#define SEED_GEOM_W1(b_stride, c_stride) ((uint32_t)(b_stride) | ((uint32_t)(c_stride) << 16))
#define SEED_MM_W0(acc, tr, c) (0x02u | ((uint32_t)(acc) << 8) | ((uint32_t)(tr) << 9) | ((uint32_t)(c) << 16))
#define SEED_AB(a, b) ((uint32_t)(a) | ((uint32_t)(b) << 16))
#define SEED_VPU_W0(op, dst) (0x01u | ((uint32_t)(op) << 8) | ((uint32_t)(dst) << 16))
#define SEED_VPU_W2(vlen, rq) ((uint32_t)(vlen) | ((uint32_t)(rq) << 16))

#define SEED_V_DOT 0u
#define SEED_V_ADD 1u
#define SEED_V_RELU 3u
#define SEED_V_REQUANT 10u
#define SEED_V_DYT 16u
#define SEED_V_ARGMAX 18u /* vpu.sv @eedda377 only */

/* always_inline: the seed links no libgcc, and straight-line pushes keep the
 * stream's CPU timing independent of gcc's inlining choices. */
__attribute__((always_inline)) static inline void seed_push(uint32_t u, uint32_t w0, uint32_t w1,
                                                             uint32_t w2, uint32_t w3) {
  SEED_PORT(u, 0) = w0;
  SEED_PORT(u, 1) = w1;
  SEED_PORT(u, 2) = w2;
  SEED_PORT(u, 3) = w3;
}

/* Poll issued - retired (signed, the counters free-run) until the unit drains. */
__attribute__((always_inline)) static inline void seed_wait(uint32_t u) {
  uint32_t issued = SEED_ISSUED(u);
  while ((int32_t)(issued - SEED_RETIRED(u)) > 0) {
  }
}

__attribute__((always_inline)) static inline void seed_wait_all(void) {
  while ((SEED_IDLE & 7u) != 7u) {
  }
}

#endif
