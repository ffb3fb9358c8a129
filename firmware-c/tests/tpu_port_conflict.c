/* tpu_port_conflict: two port conflicts on purpose, and what must follow.
 *
 * Case 1 (write port): a long DMA LOAD writes region 3; while it runs, the
 * CPU pushes MXU command #0 whose C is in region 3, then MXU command #1 (a
 * valid matmul into region 2). #0 must be dropped at its start: ERROR =
 * {PORT_CONFLICT, unit MXU, serial 0}, MXU STATUS error bit set (and no
 * other unit's), DONE counts the dropped command, #1 runs and is right, the
 * DMA was still busy, and region 3 holds exactly what the LOAD wrote.
 * Writing ERROR clears it (reads 0) and the STATUS bit.
 *
 * Case 2 (read port): a long DMA STORE reads region 5 while VPU command #0
 * (COPY from region 5) is pushed: dropped likewise ({PORT_CONFLICT, VPU, 0});
 * VPU command #1 (COPY from region 7) runs and is right.
 *
 * Under `picotpu run --strict` the machine stops at the first conflict
 * (exit 163); test/firmware-tpu.test.ts checks that report. */
#include "tpu_test.h"

enum {
	E_ID = 1, E_CODE, E_UNIT, E_SERIAL, E_STATUS, E_DONE, E_CLEAR, E_RESULT, E_UNTOUCHED, E_NOT_RUNNING,
	E_SETUP,
};

#define KK     64u
#define SP_A   0x0000u   /* A 8 x 32 B */
#define SP_B   0x1000u   /* B 64 x 4 B */
#define SP_C   0x2000u   /* C of MXU #1, int32 8 x 32 B */
#define SP_BIG 0x3000u   /* the long LOAD's target */
#define SP_V   0x5000u   /* the long STORE's source, and VPU #0's A */
#define SP_VC  0x6000u   /* VPU outputs */
#define SP_VA  0x7000u   /* VPU #1's A */
#define BIG    2048u

static uint8_t s_a[8 * KK / 2] SRAM_BSS;
static uint8_t s_b[KK * 4] SRAM_BSS;
static uint8_t s_big[BIG] SRAM_BSS;
static uint8_t s_c[8 * 32] SRAM_BSS;
static uint8_t s_big_back[BIG] SRAM_BSS;
static uint8_t s_va[64] SRAM_BSS;
static uint8_t s_vc[64] SRAM_BSS;
static uint8_t s_vdump[BIG] SRAM_BSS;

static uint32_t a_w[8 * KK / 8], b_w[KK * 4 / 4], big_w[BIG / 4], va_w[16];
static uint32_t buf_w[BIG / 4];
#define buf ((const uint8_t *)buf_w)

/* Checks ERROR against {PORT_CONFLICT, unit, serial} and the STATUS error bits. */
static void expect_conflict(const char *what, unsigned unit, uint32_t serial)
{
	uint32_t e = tpu_error();
	TT_CHECK(TPU_REG_ERROR_CODE_GET(e) == TPU_ERR_PORT_CONFLICT, E_CODE, "%s: ERROR code %lu (0x%08lx), want %lu", what,
		 TPU_REG_ERROR_CODE_GET(e), e, (uint32_t)TPU_ERR_PORT_CONFLICT);
	TT_CHECK(TPU_REG_ERROR_UNIT_GET(e) == unit, E_UNIT, "%s: ERROR unit %lu, want %u", what, TPU_REG_ERROR_UNIT_GET(e),
		 unit);
	TT_CHECK(TPU_REG_ERROR_SERIAL_GET(e) == serial, E_SERIAL, "%s: ERROR serial %lu, want %lu", what,
		 TPU_REG_ERROR_SERIAL_GET(e), serial);
	for (unsigned u = TPU_UNIT_DMA; u <= TPU_UNIT_VPU; u++) {
		uint32_t st = tpu_status(u);
		TT_CHECK(TPU_UNIT_STATUS_ERROR_GET(st) == (u == unit), E_STATUS, "%s: unit %u STATUS 0x%08lx, error bit want %d",
			 what, u, st, u == unit);
	}
	tpu_error_clear();
	TT_CHECK(tpu_error() == 0, E_CLEAR, "%s: ERROR = 0x%08lx after clearing", what, tpu_error());
	TT_CHECK(!TPU_UNIT_STATUS_ERROR_GET(tpu_status(unit)), E_CLEAR, "%s: STATUS error bit still set after clearing", what);
}

int main(void)
{
	tt_start();
	tt_init_mul();
	tt_seed(0xB16B00B5u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());

	for (unsigned n = 0; n < TT_ARRAY_LEN(a_w); n++) a_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(b_w); n++) b_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(big_w); n++) big_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(va_w); n++) va_w[n] = tt_rand();
	tt_to_sram(s_a, a_w, sizeof a_w);
	tt_to_sram(s_b, b_w, sizeof b_w);
	tt_to_sram(s_big, big_w, sizeof big_w);
	tt_to_sram(s_va, va_w, sizeof va_w);

	/* operands in place, no error yet */
	dma_load(tpu_sram_offset(s_a), SP_A, 8, KK / 2, KK / 2, KK / 2);
	dma_load(tpu_sram_offset(s_b), SP_B, KK, 4, 4, 4);
	dma_load(tpu_sram_offset(s_va), SP_VA, 8, 8, 8, 8);
	dma_load(tpu_sram_offset(s_big), SP_V, 16, BIG / 16, BIG / 16, BIG / 16);
	tpu_drain(TPU_UNIT_DMA);
	tt_expect_no_error(E_SETUP, "setup");

	/* ---- case 1: MXU C in the region a running LOAD writes ---- */
	dma_load(tpu_sram_offset(s_big), SP_BIG, 16, BIG / 16, BIG / 16, BIG / 16);
	struct mxu_op bad = {
		.a = SP_A, .b = SP_B, .c = SP_BIG + 0x200, .a_stride = KK / 2, .b_stride = 4, .c_stride = 32,
		.k = KK, .flags = TPU_MXU_FLAG_OUT_INT32,
	};
	struct mxu_op good = bad;
	good.c = SP_C;
	mxu_matmul(&bad);                 /* serial 0: dropped */
	uint32_t t = mxu_matmul(&good);   /* serial 1 */
	tpu_wait(TPU_UNIT_MXU, t);
	uint32_t dma_st = tpu_status(TPU_UNIT_DMA);
	TT_CHECK(TPU_UNIT_STATUS_BUSY_GET(dma_st), E_NOT_RUNNING, "the long LOAD had already ended (STATUS 0x%08lx)", dma_st);
	TT_CHECK(tpu_issued(TPU_UNIT_MXU) == 2 && tpu_done(TPU_UNIT_MXU) == 2, E_DONE, "MXU ISSUED %lu DONE %lu, want 2 2",
		 tpu_issued(TPU_UNIT_MXU), tpu_done(TPU_UNIT_MXU));
	expect_conflict("MXU vs DMA LOAD", TPU_UNIT_MXU, 0);

	/* the next command's result, and region 3 as the LOAD left it */
	tpu_drain(TPU_UNIT_DMA);
	dma_store(tpu_sram_offset(s_c), SP_C, 8, 32, 32, 32);
	dma_store(tpu_sram_offset(s_big_back), SP_BIG, 1, BIG, BIG, BIG);
	tpu_drain(TPU_UNIT_DMA);
	tt_from_sram(buf_w, s_c, 8 * 32);
	const uint8_t *a = (const uint8_t *)a_w, *b = (const uint8_t *)b_w;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++) {
			int32_t want = 0;
			for (unsigned k = 0; k < KK; k++) {
				unsigned an = (unsigned)tt_get4(&a[i * KK / 2], k) & 15u, bn = (unsigned)tt_get4(&b[k * 4], j) & 15u;
				want += tt_mul[(an << 4) | bn];
			}
			int32_t got = tt_rd32(&buf[i * 32 + j * 4]);
			TT_CHECK(got == want, E_RESULT, "MXU #1 C[%u][%u] = %ld, want %ld", i, j, (long)got, (long)want);
		}
	tt_from_sram(buf_w, s_big_back, BIG);
	unsigned changed = 0;
	for (unsigned n = 0; n < BIG / 4; n++)
		changed += buf_w[n] != big_w[n];
	TT_CHECK(changed == 0, E_UNTOUCHED, "%u words of region 3 differ from what the LOAD wrote", changed);

	/* ---- case 2: VPU reads the region a running STORE reads ---- */
	dma_store(tpu_sram_offset(s_vdump), SP_V, 16, BIG / 16, BIG / 16, BIG / 16);
	struct vpu_op vbad = { .a = SP_V, .b = SP_B, .c = SP_VC, .a_stride = 8, .b_stride = 8, .c_stride = 8, .rows = 8, .cols = 16 };
	struct vpu_op vgood = vbad;
	vgood.a = SP_VA;
	vpu_copy(&vbad);                  /* serial 0: dropped */
	t = vpu_copy(&vgood);             /* serial 1 */
	tpu_wait(TPU_UNIT_VPU, t);
	dma_st = tpu_status(TPU_UNIT_DMA);
	TT_CHECK(TPU_UNIT_STATUS_BUSY_GET(dma_st), E_NOT_RUNNING, "the long STORE had already ended (STATUS 0x%08lx)", dma_st);
	TT_CHECK(tpu_issued(TPU_UNIT_VPU) == 2 && tpu_done(TPU_UNIT_VPU) == 2, E_DONE, "VPU ISSUED %lu DONE %lu, want 2 2",
		 tpu_issued(TPU_UNIT_VPU), tpu_done(TPU_UNIT_VPU));
	expect_conflict("VPU vs DMA STORE", TPU_UNIT_VPU, 0);
	tpu_drain(TPU_UNIT_DMA);
	dma_store(tpu_sram_offset(s_vc), SP_VC, 8, 8, 8, 8);
	tpu_drain(TPU_UNIT_DMA);
	tt_from_sram(buf_w, s_vc, 64);
	unsigned vbadw = 0;
	for (unsigned n = 0; n < 16; n++)
		vbadw += buf_w[n] != va_w[n];
	TT_CHECK(vbadw == 0, E_RESULT, "VPU #1 COPY: %u words differ", vbadw);

	tt_expect_no_error(E_CLEAR, "end");
	printf("tpu_port_conflict: MXU #0 and VPU #0 dropped on port conflicts, #1 of each ran\n");
	return tt_finish("tpu_port_conflict", "write-port and read-port conflicts, ERROR fields, STATUS, DONE, clear");
}
