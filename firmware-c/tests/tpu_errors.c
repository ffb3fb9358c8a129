/* tpu_errors: malformed commands of every kind, one at a time.
 *
 * Each case pushes one bad command, waits for the unit's DONE to count it
 * (a dropped command counts as done), and checks ERROR = {code, unit, serial
 * = the unit's ISSUED count before the push}, the STATUS error bit of that
 * unit only, then clears ERROR and checks it reads 0 and the bit is gone.
 * Kinds: unknown opcode or flag (each unit), out-of-range scratchpad and SRAM
 * addresses (each unit), misaligned MXU operands and strides, misaligned
 * int32 VPU operands, zero sizes (rows, row bytes, K, cols), K not a multiple
 * of 8, odd int4 VPU columns, out-of-range VPU parameters, and two read
 * operands in one region (MXU A/B, MXU A/Cin, VPU A/B). Commands that end
 * exactly at the end of the scratchpad or SRAM are valid and must run.
 * Two bad commands in a row: the first error stays in ERROR, both units
 * have their error bit, one clear resets all. Finally one valid command per
 * unit runs and the results of a DMA round trip are intact. */
#include "tpu_test.h"

/* Exit codes: a wrong ERROR code exits with 1 + the expected TPU_ERR_* code. */
enum {
	E_ID = 1,
	E_UNIT = 10, E_SERIAL, E_STATUS, E_CLEAR, E_DONE, E_VALID, E_FIRST, E_DATA, E_NOERR,
};

static uint8_t s_buf[64] SRAM_BSS;
static uint8_t s_back[64] SRAM_BSS;
static uint32_t buf_w[16], back_w[16];
static unsigned cases;

static const char *const names[] = {
	"none", "BAD_OPCODE", "RANGE", "MISALIGNED", "ZERO_SIZE", "BAD_K", "ODD_COLS", "PARAM", "SAME_REGION",
	"PORT_CONFLICT",
};

/* Waits for `ticket` on `unit`, checks the recorded error and clears it. */
static void expect(const char *what, unsigned unit, uint32_t ticket, uint32_t code)
{
	tpu_wait(unit, ticket);
	uint32_t e = tpu_error();
	cases++;
	TT_CHECK(TPU_REG_ERROR_CODE_GET(e) == code, (int)(1 + code), "%s: ERROR code %lu, want %lu (%s); ERROR = 0x%08lx",
		 what, TPU_REG_ERROR_CODE_GET(e), code, names[code], e);
	TT_CHECK(TPU_REG_ERROR_UNIT_GET(e) == unit, E_UNIT, "%s: ERROR unit %lu, want %u", what, TPU_REG_ERROR_UNIT_GET(e),
		 unit);
	TT_CHECK(TPU_REG_ERROR_SERIAL_GET(e) == ticket - 1, E_SERIAL, "%s: ERROR serial %lu, want %lu", what,
		 TPU_REG_ERROR_SERIAL_GET(e), ticket - 1);
	for (unsigned u = TPU_UNIT_DMA; u <= TPU_UNIT_VPU; u++)
		TT_CHECK(TPU_UNIT_STATUS_ERROR_GET(tpu_status(u)) == (u == unit), E_STATUS,
			 "%s: unit %u STATUS = 0x%08lx, error bit want %d", what, u, tpu_status(u), u == unit);
	TT_CHECK(tpu_done(unit) == tpu_issued(unit) && tpu_issued(unit) == ticket, E_DONE,
		 "%s: ISSUED %lu DONE %lu, want %lu", what, tpu_issued(unit), tpu_done(unit), ticket);
	tpu_error_clear();
	TT_CHECK(tpu_error() == 0, E_CLEAR, "%s: ERROR = 0x%08lx after clearing", what, tpu_error());
	TT_CHECK(!TPU_UNIT_STATUS_ERROR_GET(tpu_status(unit)), E_CLEAR, "%s: STATUS error bit still set after clearing",
		 what);
}

/* A command that must run without an error. */
static void expect_ok(const char *what, unsigned unit, uint32_t ticket)
{
	tpu_wait(unit, ticket);
	uint32_t e = tpu_error();
	TT_CHECK(e == 0, E_VALID, "%s: valid command gave ERROR 0x%08lx (code %lu %s)", what, e, TPU_REG_ERROR_CODE_GET(e),
		 names[TPU_REG_ERROR_CODE_GET(e) < 10 ? TPU_REG_ERROR_CODE_GET(e) : 0]);
	if (e)
		tpu_error_clear();
}

/* Stages a DMA command without pushing it. */
static void dma_stage(uint32_t sram, uint32_t spad, uint32_t rows, uint32_t row_bytes, uint32_t sram_stride,
		      uint32_t spad_stride)
{
	tpu_stage(TPU_UNIT_DMA, TPU_DMA_SRAM_ADDR_ARG, TPU_DMA_SRAM_ADDR(sram));
	tpu_stage(TPU_UNIT_DMA, TPU_DMA_SPAD_ADDR_ARG, TPU_DMA_SPAD_ADDR(spad) | TPU_DMA_ROWS(rows));
	tpu_stage(TPU_UNIT_DMA, TPU_DMA_ROW_BYTES_ARG, TPU_DMA_ROW_BYTES(row_bytes) | TPU_DMA_SPAD_STRIDE(spad_stride));
	tpu_stage(TPU_UNIT_DMA, TPU_DMA_SRAM_STRIDE_ARG, TPU_DMA_SRAM_STRIDE(sram_stride));
}

/* A valid 8x8, K=8 int32 matmul: A region 0, B region 1, C region 2, Cin region 3. */
static struct mxu_op mxu_base(void)
{
	struct mxu_op m = {
		.a = 0x0000, .b = 0x1000, .c = 0x2000, .cin = 0x3000, .a_stride = 4, .b_stride = 4, .c_stride = 32,
		.cin_stride = 32, .k = 8, .shift = 0, .flags = TPU_MXU_FLAG_OUT_INT32,
	};
	return m;
}

/* A valid 8x16 int4 VPU block: A region 4, B region 5, C region 6. */
static struct vpu_op vpu_base(void)
{
	struct vpu_op v = {
		.a = 0x4000, .b = 0x5000, .c = 0x6000, .a_stride = 8, .b_stride = 8, .c_stride = 8, .rows = 8, .cols = 16,
		.param = 0,
	};
	return v;
}

#define SRAM_END 0x80000u

int main(void)
{
	tt_start();
	tt_seed(0xE220u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());
	TT_CHECK(tpu_error() == 0, E_NOERR, "ERROR = 0x%08lx at start", tpu_error());
	const uint32_t sb = tpu_sram_offset(s_buf);
	struct mxu_op m;
	struct vpu_op v;

	/* ---- DMA ---- */
	expect("DMA opcode 3", TPU_UNIT_DMA, dma_2d(3u, sb, 0, 1, 16, 16, 16), TPU_ERR_BAD_OPCODE);
	expect("DMA opcode 0", TPU_UNIT_DMA, dma_2d(0u, sb, 0, 1, 16, 16, 16), TPU_ERR_BAD_OPCODE);
	dma_stage(sb, 0, 1, 16, 16, 16);
	expect("DMA LOAD flag 0x01", TPU_UNIT_DMA, tpu_push(TPU_UNIT_DMA, TPU_DMA_LOAD, 0x01), TPU_ERR_BAD_OPCODE);
	expect("DMA 0 rows", TPU_UNIT_DMA, dma_load(sb, 0, 0, 16, 16, 16), TPU_ERR_ZERO_SIZE);
	expect("DMA 0 row bytes", TPU_UNIT_DMA, dma_store(sb, 0, 4, 0, 16, 16), TPU_ERR_ZERO_SIZE);
	expect("DMA spad past the end", TPU_UNIT_DMA, dma_load(sb, 0xFF00, 2, 0x100, 0x100, 0x100), TPU_ERR_RANGE);
	expect("DMA spad stride past the end", TPU_UNIT_DMA, dma_store(sb, 0xF000, 3, 16, 16, 0x1000), TPU_ERR_RANGE);
	expect("DMA SRAM past the end", TPU_UNIT_DMA, dma_load(SRAM_END - 16, 0, 1, 32, 32, 32), TPU_ERR_RANGE);
	expect("DMA SRAM offset 0x80000", TPU_UNIT_DMA, dma_store(SRAM_END, 0, 1, 1, 1, 1), TPU_ERR_RANGE);
	expect("DMA SRAM stride past the end", TPU_UNIT_DMA, dma_load(SRAM_END - 0x100, 0, 2, 16, 0x100, 16),
	       TPU_ERR_RANGE);
	expect("DMA SRAM CPU address", TPU_UNIT_DMA, dma_load(0x40000000u + sb, 0, 1, 16, 16, 16), TPU_ERR_RANGE);
	/* exactly to the end: valid */
	expect_ok("DMA LOAD to the last spad byte", TPU_UNIT_DMA, dma_load(sb, 0xFFF0, 1, 16, 16, 16));
	expect_ok("DMA LOAD from the last SRAM byte", TPU_UNIT_DMA, dma_load(SRAM_END - 16, 0x7000, 1, 16, 16, 16));

	/* ---- MXU ---- */
	m = mxu_base();
	expect("MXU opcode 2", TPU_UNIT_MXU, (mxu_matmul(&m), tpu_push(TPU_UNIT_MXU, 2u, TPU_MXU_FLAG_OUT_INT32)),
	       TPU_ERR_BAD_OPCODE);
	/* (the valid matmul before it ran without an error: ERROR holds the bad one) */
	m.flags = TPU_MXU_FLAG_OUT_INT32 | 0x08;
	expect("MXU flag 0x08", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_BAD_OPCODE);
	m = mxu_base();
	m.k = 0;
	expect("MXU K 0", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_ZERO_SIZE);
	m.k = 12;
	expect("MXU K 12", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_BAD_K);
	m.k = 260;
	expect("MXU K 260", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_BAD_K);
	m = mxu_base();
	m.a = 0x0002;
	expect("MXU A misaligned", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_MISALIGNED);
	m = mxu_base();
	m.b_stride = 6;
	expect("MXU B stride 6", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_MISALIGNED);
	m = mxu_base();
	m.c = 0x2001;
	expect("MXU C misaligned", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_MISALIGNED);
	m = mxu_base();
	m.flags |= TPU_MXU_FLAG_ACCUMULATE;
	m.cin_stride = 34;
	expect("MXU Cin stride 34", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_MISALIGNED);
	m = mxu_base();
	m.a = 0xFF00;
	m.k = 256;
	m.a_stride = 128;
	expect("MXU A past the end", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_RANGE);
	m = mxu_base();
	m.c = 0xFF00; /* 8 int32 rows of 32 bytes = 256 bytes: ends exactly at 0x10000 */
	expect_ok("MXU C to the last byte", TPU_UNIT_MXU, mxu_matmul(&m));
	m.c = 0xFF04;
	expect("MXU C past the end", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_RANGE);
	m = mxu_base();
	m.b = 0x0800; /* A and B in region 0 */
	expect("MXU A, B in region 0", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_SAME_REGION);
	m = mxu_base();
	m.flags |= TPU_MXU_FLAG_ACCUMULATE;
	m.cin = 0x1800; /* Cin with B in region 1 */
	expect("MXU B, Cin in region 1", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_SAME_REGION);
	m = mxu_base();
	m.a = 0x0FF0; /* A's rows straddle regions 0 and 1, B is in region 1 */
	m.a_stride = 4;
	expect("MXU A straddling into B's region", TPU_UNIT_MXU, mxu_matmul(&m), TPU_ERR_SAME_REGION);
	m = mxu_base();
	m.c = 0x0100; /* C (written) in A's region: allowed */
	expect_ok("MXU C in A's region", TPU_UNIT_MXU, mxu_matmul(&m));

	/* ---- VPU ---- */
	v = vpu_base();
	expect("VPU opcode 0", TPU_UNIT_VPU, vpu_run(0u, &v), TPU_ERR_BAD_OPCODE);
	expect("VPU opcode 8", TPU_UNIT_VPU, vpu_run(8u, &v), TPU_ERR_BAD_OPCODE);
	expect("VPU COPY flag 0x01", TPU_UNIT_VPU, tpu_push(TPU_UNIT_VPU, TPU_VPU_COPY, 0x01), TPU_ERR_BAD_OPCODE);
	v.cols = 5;
	expect("VPU ADD 5 cols", TPU_UNIT_VPU, vpu_add(&v), TPU_ERR_ODD_COLS);
	v.cols = 3;
	expect("VPU REQUANT 3 cols", TPU_UNIT_VPU, vpu_requant(&v), TPU_ERR_ODD_COLS);
	v.cols = 7;
	expect("VPU COPY 7 cols", TPU_UNIT_VPU, vpu_copy(&v), TPU_ERR_ODD_COLS);
	v = vpu_base();
	v.cols = 0;
	expect("VPU 0 cols", TPU_UNIT_VPU, vpu_relu(&v), TPU_ERR_ZERO_SIZE);
	v = vpu_base();
	v.rows = 0;
	expect("VPU 0 rows", TPU_UNIT_VPU, vpu_add(&v), TPU_ERR_ZERO_SIZE);
	v = vpu_base();
	v.param = 9;
	expect("VPU HARDTANH 9", TPU_UNIT_VPU, vpu_hardtanh(&v), TPU_ERR_PARAM);
	v.param = 32;
	v.a_stride = 64;
	expect("VPU REQUANT shift 32", TPU_UNIT_VPU, vpu_requant(&v), TPU_ERR_PARAM);
	v = vpu_base();
	v.a = 0x4002;
	v.a_stride = 64;
	v.b_stride = 64;
	v.c_stride = 64;
	expect("VPU ADD32 A misaligned", TPU_UNIT_VPU, vpu_add32(&v), TPU_ERR_MISALIGNED);
	v.a = 0x4000;
	v.c_stride = 66;
	expect("VPU ADD32 C stride 66", TPU_UNIT_VPU, vpu_add32(&v), TPU_ERR_MISALIGNED);
	v = vpu_base();
	v.a_stride = 62;
	expect("VPU REQUANT A stride 62", TPU_UNIT_VPU, vpu_requant(&v), TPU_ERR_MISALIGNED);
	v = vpu_base();
	v.b = 0x4800; /* A and B in region 4 */
	expect("VPU ADD A, B in region 4", TPU_UNIT_VPU, vpu_add(&v), TPU_ERR_SAME_REGION);
	expect_ok("VPU COPY reads only A", TPU_UNIT_VPU, vpu_copy(&v));
	v = vpu_base();
	v.c = 0xFFE0; /* 2 rows of 16 bytes, stride 16: ends exactly at 0x10000 */
	v.a_stride = 16;
	v.c_stride = 16;
	v.rows = 2;
	v.cols = 32;
	expect_ok("VPU COPY to the last byte", TPU_UNIT_VPU, vpu_copy(&v));
	v.c = 0xFFE2;
	expect("VPU COPY past the end", TPU_UNIT_VPU, vpu_copy(&v), TPU_ERR_RANGE);
	v = vpu_base();
	v.a = 0xF000;
	v.a_stride = 0x400;
	v.rows = 5;
	expect("VPU A stride past the end", TPU_UNIT_VPU, vpu_relu(&v), TPU_ERR_RANGE);

	/* ---- two bad commands: the first error stays ---- */
	m = mxu_base();
	m.k = 4;
	uint32_t tm = mxu_matmul(&m);
	tpu_wait(TPU_UNIT_MXU, tm);
	v = vpu_base();
	v.cols = 9;
	uint32_t tv = vpu_add(&v);
	tpu_wait(TPU_UNIT_VPU, tv);
	uint32_t e = tpu_error();
	TT_CHECK(TPU_REG_ERROR_CODE_GET(e) == TPU_ERR_BAD_K && TPU_REG_ERROR_UNIT_GET(e) == TPU_UNIT_MXU &&
			 TPU_REG_ERROR_SERIAL_GET(e) == tm - 1,
		 E_FIRST, "two errors: ERROR = 0x%08lx, want the MXU's BAD_K (serial %lu)", e, tm - 1);
	TT_CHECK(TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_MXU)) && TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_VPU)) &&
			 !TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_DMA)),
		 E_FIRST, "two errors: STATUS error bits DMA %lu MXU %lu VPU %lu, want 0 1 1",
		 TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_DMA)), TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_MXU)),
		 TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_VPU)));
	tpu_error_clear();
	tt_expect_no_error(E_CLEAR, "after clearing two errors");

	/* ---- still working: a DMA round trip through a VPU COPY ---- */
	for (unsigned n = 0; n < 16; n++)
		buf_w[n] = tt_rand();
	tt_to_sram(s_buf, buf_w, sizeof buf_w);
	uint32_t t = dma_load(sb, 0x4000, 8, 8, 8, 8);
	v = vpu_base();
	tpu_after(TPU_UNIT_VPU, TPU_UNIT_DMA, t);
	t = vpu_copy(&v);
	tpu_after(TPU_UNIT_DMA, TPU_UNIT_VPU, t);
	t = dma_store(tpu_sram_offset(s_back), 0x6000, 8, 8, 8, 8);
	tpu_wait(TPU_UNIT_DMA, t);
	tt_from_sram(back_w, s_back, sizeof back_w);
	unsigned diff = 0;
	for (unsigned n = 0; n < 16; n++)
		diff += back_w[n] != buf_w[n];
	TT_CHECK(diff == 0, E_DATA, "round trip after the errors: %u words differ", diff);
	tt_expect_no_error(E_NOERR, "end");
	tpu_drain_all();
	for (unsigned u = TPU_UNIT_DMA; u <= TPU_UNIT_VPU; u++)
		TT_CHECK(tpu_done(u) == tpu_issued(u) && tpu_issued(u) == tpu_pushed[u], E_DONE,
			 "unit %u: ISSUED %lu DONE %lu pushed %lu", u, tpu_issued(u), tpu_done(u), tpu_pushed[u]);

	printf("tpu_errors: %u malformed commands, each dropped with its code; DMA %lu MXU %lu VPU %lu commands\n", cases,
	       tpu_pushed[TPU_UNIT_DMA], tpu_pushed[TPU_UNIT_MXU], tpu_pushed[TPU_UNIT_VPU]);
	return tt_finish("tpu_errors", "BAD_OPCODE RANGE MISALIGNED ZERO_SIZE BAD_K ODD_COLS PARAM SAME_REGION");
}
