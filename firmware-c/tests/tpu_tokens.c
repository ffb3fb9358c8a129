/* tpu_tokens: a DMA -> MXU -> VPU -> DMA pipeline ordered only by wait tokens.
 *
 * Y = relu(requant(A.B + bias, 5)) for A 8x128, B 128x32, bias 8x32 int32,
 * as four 8x8 output tiles. The CPU pushes everything without polling:
 *   DMA   LOAD A, LOAD B, LOAD bias
 *   per tile j:
 *     MXU   matmul (OUT_INT32)           after DMA  DONE >= 3
 *     VPU   ADD32 bias, REQUANT, RELU    the first after MXU DONE >= j+1
 *     DMA   STORE the int4 tile          after VPU  DONE >= 3(j+1)
 * and waits once, for the last STORE. Without the tokens the MXU would read
 * the scratchpad before the LOADs and the STOREs would write stale tiles, so
 * the results prove the ordering; DEP_WAIT (inside a PERF_CTRL window) must
 * be > 0, ERROR must stay 0, and right after the pushes the last STORE must
 * not have finished yet (the CPU really did not wait). */
#include "tpu_test.h"

enum { E_ID = 1, E_RESULT, E_DEPWAIT, E_ERROR, E_DONE, E_CPU_WAITED };

#define KK      128u
#define NCOL    32u
#define NT      (NCOL / 8)
#define SHIFT   5u
#define SP_A    0x0000u   /* 8 x 64 B */
#define SP_B    0x1000u   /* 128 x 16 B */
#define SP_C32  0x2000u   /* 8 x 32 int32, stride 128 */
#define SP_BIAS 0x3000u   /* 8 x 32 int32, stride 128 */
#define SP_S32  0x4000u   /* C + bias, stride 128 */
#define SP_Q    0x5000u   /* requantized, int4 8 x 32, stride 16 */
#define SP_Y    0x6000u   /* relu, stride 16 */

static uint32_t a_w[8 * KK / 8], b_w[KK * NCOL / 8], bias_w[8 * NCOL];
static uint32_t y_w[NT * 8];
static uint8_t s_a[sizeof a_w] SRAM_BSS;
static uint8_t s_b[sizeof b_w] SRAM_BSS;
static uint8_t s_bias[sizeof bias_w] SRAM_BSS;
static uint8_t s_y[NT][8 * 4] SRAM_BSS;   /* one packed 8x8 int4 tile per j */

int main(void)
{
	tt_start();
	tt_init_mul();
	tt_seed(0x70CE2u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());

	for (unsigned n = 0; n < TT_ARRAY_LEN(a_w); n++) a_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(b_w); n++) b_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(bias_w); n++) bias_w[n] = (uint32_t)((int32_t)tt_rand() >> 22); /* +-512 */
	tt_to_sram(s_a, a_w, sizeof a_w);
	tt_to_sram(s_b, b_w, sizeof b_w);
	tt_to_sram(s_bias, bias_w, sizeof bias_w);
	tt_fill_sram(s_y, 0x5A5A5A5Au, sizeof s_y);

	tpu_perf_start();
	dma_load(tpu_sram_offset(s_a), SP_A, 8, KK / 2, KK / 2, KK / 2);
	dma_load(tpu_sram_offset(s_b), SP_B, KK, NCOL / 2, NCOL / 2, NCOL / 2);
	uint32_t loads = dma_load(tpu_sram_offset(s_bias), SP_BIAS, 8, NCOL * 4, NCOL * 4, NCOL * 4);
	uint32_t last = 0;
	for (unsigned j = 0; j < NT; j++) {
		struct mxu_op m = {
			.a = SP_A, .b = (uint16_t)(SP_B + 4 * j), .c = (uint16_t)(SP_C32 + 32 * j),
			.a_stride = KK / 2, .b_stride = NCOL / 2, .c_stride = NCOL * 4, .k = KK, .flags = TPU_MXU_FLAG_OUT_INT32,
		};
		tpu_after(TPU_UNIT_MXU, TPU_UNIT_DMA, loads);
		uint32_t mt = mxu_matmul(&m);

		struct vpu_op v = {
			.a = (uint16_t)(SP_C32 + 32 * j), .b = (uint16_t)(SP_BIAS + 32 * j), .c = (uint16_t)(SP_S32 + 32 * j),
			.a_stride = NCOL * 4, .b_stride = NCOL * 4, .c_stride = NCOL * 4, .rows = 8, .cols = 8,
		};
		tpu_after(TPU_UNIT_VPU, TPU_UNIT_MXU, mt);
		vpu_add32(&v);
		v.a = v.c;
		v.a_stride = NCOL * 4;
		v.c = (uint16_t)(SP_Q + 4 * j);
		v.c_stride = NCOL / 2;
		v.param = SHIFT;
		vpu_requant(&v);
		v.a = v.c;
		v.a_stride = NCOL / 2;
		v.c = (uint16_t)(SP_Y + 4 * j);
		v.param = 0;
		uint32_t vt = vpu_relu(&v);

		tpu_after(TPU_UNIT_DMA, TPU_UNIT_VPU, vt);
		last = dma_store(tpu_sram_offset(s_y[j]), (uint16_t)(SP_Y + 4 * j), 8, 4, 4, NCOL / 2);
	}
	uint32_t done_now = tpu_done(TPU_UNIT_DMA);
	tpu_wait(TPU_UNIT_DMA, last);
	tpu_perf_stop();
	uint32_t dep = tpu_counter(TPU_REG_DEP_WAIT), overlap = tpu_counter(TPU_REG_OVERLAP);
	uint32_t cycles = tpu_counter(TPU_REG_CYCLES_LO);

	TT_CHECK(done_now < last, E_CPU_WAITED, "DMA DONE was already %lu of %lu right after the pushes", done_now, last);
	TT_CHECK(dep > 0, E_DEPWAIT, "DEP_WAIT = %lu, want > 0", dep);
	TT_CHECK(dep <= cycles, E_DEPWAIT, "DEP_WAIT %lu > window %lu", dep, cycles);

	/* reference */
	tt_from_sram(y_w, s_y, sizeof y_w);
	const uint8_t *a = (const uint8_t *)a_w, *b = (const uint8_t *)b_w, *y = (const uint8_t *)y_w;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned c = 0; c < NCOL; c++) {
			int32_t x = (int32_t)bias_w[i * NCOL + c];
			for (unsigned k = 0; k < KK; k++) {
				unsigned an = (unsigned)tt_get4(&a[i * KK / 2], k) & 15u;
				unsigned bn = (unsigned)tt_get4(&b[k * NCOL / 2], c) & 15u;
				x += tt_mul[(an << 4) | bn];
			}
			int want = tt_requant(x, SHIFT);
			if (want < 0)
				want = 0;
			int got = tt_get4(&y[(c / 8) * 32 + i * 4], c % 8);
			TT_CHECK(got == want, E_RESULT, "Y[%u][%u] = %d, want %d (x = %ld)", i, c, got, want, (long)x);
		}

	tt_expect_no_error(E_ERROR, "end");
	TT_CHECK(tpu_done(TPU_UNIT_MXU) == NT && tpu_done(TPU_UNIT_VPU) == 3 * NT && tpu_done(TPU_UNIT_DMA) == 3 + NT, E_DONE,
		 "DONE MXU %lu VPU %lu DMA %lu", tpu_done(TPU_UNIT_MXU), tpu_done(TPU_UNIT_VPU), tpu_done(TPU_UNIT_DMA));
	printf("tpu_tokens: %u tiles, one CPU wait; window %lu clocks, DEP_WAIT %lu, OVERLAP %lu\n", NT, cycles, dep, overlap);
	return tt_finish("tpu_tokens", "DMA -> MXU -> VPU -> DMA ordered by wait tokens only");
}
