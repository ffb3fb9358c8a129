/* One int4 matmul on the write-up's board (--board seed), for the sweep's
 * roofline (study/sweep/seed-matmul.ts writes the header and reads C back):
 * C[M][N] = clip4(R(A[M][K] · B[K][N], SHIFT)), A, B and C row-major in the
 * SRAM at the header's addresses, tiled as the transformer firmware tiles its
 * projections (seed-model/model.c matmul): A by row blocks into the
 * scratchpad, B streamed as 8-column panels [K][8] (two panel buffers with
 * VARIANT bit 1, double buffering), each block's C spilled after it.
 * DONE gets 0, or 1 for a shape it refuses. */
#include <stdint.h>
#include "../include/seed/tpu_seed.h"

#define SP_A   0x0000u /* A's row block: banks 0-7 */
#define SP_C   0x8000u /* C's row block: banks 8-11 */
#define SP_P0  0xC000u /* weight panel 0: bank 12 */
#define SP_P1  0xD000u /* weight panel 1: bank 13 */
#define SP_HDR 0xF000u /* the header: bank 15 */
#define A_ROOM 0x8000u
#define C_ROOM 0x4000u
#define P_ROOM 0x1000u

/* The header's words (study/sweep/seed-matmul.ts SEED_MMBENCH_HEADER). */
enum { H_M, H_K, H_N, H_VARIANT, H_A, H_B, H_C, H_SHIFT, H_WORDS };

static inline __attribute__((always_inline)) void push(uint32_t unit, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3)
{
    volatile uint32_t *port = (volatile uint32_t *)(SEED_TPU_BASE + (unit << 4));
    port[0] = w0;
    port[1] = w1;
    port[2] = w2;
    port[3] = w3;
}

static void wait_until(uint32_t unit, int32_t left)
{
    while (seed_tpu_pending(unit) > left) {}
}

/* One 8-column panel j of B (k rows, n/2 bytes apart in the SRAM) into `panel`, dense. */
static void fill_panel(uint32_t panel, uint32_t b, uint32_t j, uint32_t k, uint32_t n)
{
    seed_dma_move(0, panel, b + (j << 2), 8, k, n >> 1, 0);
}

/* The row blocks' MMs of one panel (as model.c's panel_mms: four stores and two adds an MM). */
static inline __attribute__((always_inline)) void panel_mms(uint32_t blocks, uint32_t panel, uint32_t c, uint32_t a_step, uint32_t c_step, uint32_t shift)
{
    uint32_t w0 = SEED_MXU_MM | SEED_MXU_MM_C_ADDR(c);
    uint32_t w1 = SEED_MXU_MM_A_ADDR(SP_A) | SEED_MXU_MM_B_ADDR(panel);
    uint32_t w2 = SEED_MXU_MM_M0(1) | SEED_MXU_MM_N(shift);
    uint32_t dw0 = SEED_MXU_MM_C_ADDR(c_step), dw1 = SEED_MXU_MM_A_ADDR(a_step);
    for (uint32_t i = 0; i < blocks; i++, w0 += dw0, w1 += dw1) push(SEED_UNIT_MXU, w0, w1, w2, 0);
}

int main(void)
{
    seed_dma_move(0, SP_HDR, 0, H_WORDS * 8, 1, 0, 0);
    wait_until(SEED_UNIT_DMA, 0);
    uint32_t m = SEED_SPAD_WORD(SP_HDR + 4 * H_M), k = SEED_SPAD_WORD(SP_HDR + 4 * H_K), n = SEED_SPAD_WORD(SP_HDR + 4 * H_N);
    uint32_t variant = SEED_SPAD_WORD(SP_HDR + 4 * H_VARIANT), a = SEED_SPAD_WORD(SP_HDR + 4 * H_A);
    uint32_t b = SEED_SPAD_WORD(SP_HDR + 4 * H_B), c = SEED_SPAD_WORD(SP_HDR + 4 * H_C), shift = SEED_SPAD_WORD(SP_HDR + 4 * H_SHIFT);
    if (!m || !k || !n || ((m | k | n) & 7u) || (k << 2) > P_ROOM || shift > 15) return 1;
    uint32_t arow = k >> 1, crow = n >> 1, a8 = arow << 3, c8 = crow << 3;
    /* Rows a block: the most whole 8-row groups whose A and C fit their rooms (no multiply on this core). */
    uint32_t rb = 0, ab = 0, cb = 0;
    while (rb < m && ab + a8 <= A_ROOM && cb + c8 <= C_ROOM) { rb += 8; ab += a8; cb += c8; }
    if (!rb) return 1;
    uint32_t panels = n >> 3;
    for (uint32_t r0 = 0; r0 < m; r0 += rb, a += ab, c += cb) {
        uint32_t rows = m - r0 < rb ? m - r0 : rb, blocks = rows >> 3;
        seed_mxu_geom(arow, 4, crow, k);
        seed_dma_move(0, SP_A, a, k, rows, 0, 0);
        fill_panel(SP_P0, b, 0, k, n);
        for (uint32_t j = 0; j < panels; j++) {
            uint32_t panel = SP_P0;
            if (!(variant & 1u)) {
                if (j) {
                    wait_until(SEED_UNIT_MXU, 0);
                    fill_panel(SP_P0, b, j, k, n);
                }
                wait_until(SEED_UNIT_DMA, 0);
            } else {
                uint32_t more = j + 1 < panels;
                if (more) {
                    /* Panel j+1's buffer was read by panel j-1's MMs: they must be done. */
                    wait_until(SEED_UNIT_MXU, 0);
                    fill_panel((j & 1) ? SP_P0 : SP_P1, b, j + 1, k, n);
                }
                wait_until(SEED_UNIT_DMA, (int32_t)more);
                panel = (j & 1) ? SP_P1 : SP_P0;
            }
            panel_mms(blocks, panel, SP_C + (j << 2), a8, c8, shift);
        }
        wait_until(SEED_UNIT_MXU, 0);
        seed_dma_move(1, SP_C, c, n, rows, 0, 0);
    }
    wait_until(SEED_UNIT_DMA, 0);
    return 0;
}
