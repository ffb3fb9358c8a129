/* tpu_matmul: MXU matmuls against a C reference computed on the CPU.
 *
 * The CPU fills SRAM with seeded random int4 matrices (A 16x256, B 256x16,
 * Bt 16x256, small 8x8 A8/B8 with saturating rows), DMAs them into the
 * scratchpad with strides that differ from the SRAM ones, runs the matmuls
 * below as 8x8 tiles taken out of the larger matrices (strided operands),
 * stores every result back to SRAM with the DMA and compares it with the
 * reference:
 *   plain     C = A.B, K = 256, OUT_INT32, the four 8x8 tiles of 16x16
 *   int4      the same with int4 output at shifts 0, 3, 6, 8, 11
 *   chain     K split 8 + 56 + 128 + 64, chained through int32 with
 *             ACCUMULATE (ping-pong, then in place), last chunk also int4
 *   transpose C = A.Bt^T over k in [64, 192), OUT_INT32 and int4 shift 5
 *   acc+tr    C = C_plain + A.Bt^T (ACCUMULATE with TRANSPOSE_B)
 *   K = 8     A8.B8, OUT_INT32 into a strided C prefilled with a sentinel
 *             (the gaps must survive), and int4 at shifts 0 and 7
 *
 * Scratchpad regions: 0 A, 1 B, 2 plain int32 C, 3 and 6 chain partials,
 * 4 Bt, 5 int4 outputs, 7 chain int4, 8 transpose outputs, 9 A8, 10 B8,
 * 11 K=8 outputs. */
#include "tpu_test.h"

#define K 256
#define ROWB (K / 2)          /* bytes per row of A and Bt */

/* Exit codes, one per failure kind. */
enum {
	E_ID = 1, E_PLAIN32, E_INT4, E_CHAIN32, E_CHAIN4, E_TR32, E_TR4, E_ACCTR,
	E_K8_32, E_K8_4, E_SENTINEL, E_ERROR, E_DONE,
};

/* Scratchpad layout. */
#define SP_A      0x0000u     /* A 16 x 128 B, stride 136 */
#define SP_A_STR  136u
#define SP_B      0x1000u     /* B 256 x 8 B, stride 12 */
#define SP_B_STR  12u
#define SP_C32    0x2000u     /* 16 x 16 int32, stride 64 */
#define SP_P0     0x3000u     /* chain partials, 16 x 16 int32, stride 64 */
#define SP_BT     0x4000u     /* Bt 16 x 128 B, stride 128 */
#define SP_Q      0x5000u     /* int4 outputs: NSHIFT x (16 x 8 B) */
#define SP_P1     0x6000u
#define SP_CH4    0x7000u     /* chain int4 16 x 8 B */
#define SP_T32    0x8000u     /* transpose int32 16x16, then acc+tr at +0x400, int4 at +0x800 */
#define SP_A8     0x9000u
#define SP_B8     0xA000u
#define SP_K8     0xB000u     /* K=8 int32 8 x 48 B (sentinel gaps), int4 at +0x400, +0x420 */
#define K8_STR    48u

static const unsigned shifts[] = { 0, 3, 6, 8, 11 };
#define NSHIFT TT_ARRAY_LEN(shifts)

/* SRAM: inputs and outputs. */
static uint8_t s_a[16 * ROWB] SRAM_BSS;
static uint8_t s_b[K * 8] SRAM_BSS;
static uint8_t s_bt[16 * ROWB] SRAM_BSS;
static uint8_t s_a8[8 * 4] SRAM_BSS;
static uint8_t s_b8[8 * 4] SRAM_BSS;
static uint8_t s_sentinel[8 * K8_STR] SRAM_BSS;
static uint8_t s_c32[16 * 64] SRAM_BSS;
static uint8_t s_q[NSHIFT][16 * 8] SRAM_BSS;
static uint8_t s_ch32[16 * 64] SRAM_BSS;
static uint8_t s_ch4[16 * 8] SRAM_BSS;
static uint8_t s_t32[16 * 64] SRAM_BSS;
static uint8_t s_at32[16 * 64] SRAM_BSS;
static uint8_t s_t4[16 * 8] SRAM_BSS;
static uint8_t s_k8_32[8 * K8_STR] SRAM_BSS;
static uint8_t s_k8_4[2][8 * 4] SRAM_BSS;

/* BRAM: unpacked operands for the reference (A pre-shifted into the high
 * nibble of the product table index), the references and a read-back buffer. */
static uint8_t a_rows[16][K];
static uint8_t b_cols[16][K];
static uint8_t bt_rows[16][K];
static uint8_t a8_rows[8][8];
static uint8_t b8_cols[8][8];
static int32_t ref[16][16];     /* A.B over K */
static int32_t ref_t[16][16];   /* A.Bt^T over k in [64, 192) */
static int32_t ref8[8][8];
static uint8_t buf[16 * 64];
static uint32_t gen[16 * ROWB / 4];

static int32_t dot(const uint8_t *ash, const uint8_t *b, unsigned n)
{
	int32_t s = 0;
	for (unsigned k = 0; k < n; k++)
		s += tt_mul[ash[k] | b[k]];
	return s;
}

/* Random words into SRAM; returns them in gen[] for unpacking. */
static void fill_random(volatile uint8_t *dst, unsigned bytes)
{
	for (unsigned i = 0; i < bytes / 4; i++)
		gen[i] = tt_rand();
	tt_to_sram(dst, gen, bytes);
}

static uint8_t nibble(const uint32_t *words, unsigned i) { return (uint8_t)((words[i >> 3] >> ((i & 7) * 4)) & 15u); }

static uint32_t mxu_count;

static void mm(uint16_t a, uint16_t a_stride, uint16_t b, uint16_t b_stride, uint16_t c, uint16_t c_stride,
	       uint16_t cin, uint16_t k, uint8_t shift, uint8_t flags)
{
	struct mxu_op op = {
		.a = a, .b = b, .c = c, .cin = cin,
		.a_stride = a_stride, .b_stride = b_stride, .c_stride = c_stride, .cin_stride = 64,
		.k = k, .shift = shift, .flags = flags,
	};
	mxu_matmul(&op);
	mxu_count++;
}

/* A tile: rows ti*8.., k from k0. B tile: columns tj*8.., rows from k0. */
static uint16_t a_tile(unsigned ti, unsigned k0) { return (uint16_t)(SP_A + ti * 8 * SP_A_STR + k0 / 2); }
static uint16_t b_tile(unsigned tj, unsigned k0) { return (uint16_t)(SP_B + k0 * SP_B_STR + tj * 4); }
static uint16_t bt_tile(unsigned tj, unsigned k0) { return (uint16_t)(SP_BT + tj * 8 * ROWB + k0 / 2); }
static uint16_t c32_tile(uint16_t base, unsigned ti, unsigned tj) { return (uint16_t)(base + ti * 8 * 64 + tj * 32); }
static uint16_t c4_tile(uint16_t base, unsigned ti, unsigned tj) { return (uint16_t)(base + ti * 8 * 8 + tj * 4); }

/* Stores a 16x16 int32 result (stride 64) and compares it with want (+ want2). */
static void check32(const char *what, int code, volatile uint8_t *s, int32_t (*want)[16], int32_t (*want2)[16])
{
	tt_from_sram(buf, s, 16 * 64);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			int32_t w = want[i][j] + (want2 ? want2[i][j] : 0);
			int32_t got = tt_rd32(&buf[i * 64 + j * 4]);
			TT_CHECK(got == w, code, "%s C[%u][%u] = %ld, want %ld", what, i, j, (long)got, (long)w);
		}
}

/* Compares a 16x16 int4 result (stride 8) with requant(want, shift). */
static void check4(const char *what, int code, volatile uint8_t *s, int32_t (*want)[16], unsigned shift)
{
	tt_from_sram(buf, s, 16 * 8);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			int w = tt_requant(want[i][j], shift);
			int got = tt_get4(&buf[i * 8], j);
			TT_CHECK(got == w, code, "%s shift %u C[%u][%u] = %d, want %d (x = %ld)", what, shift, i, j, got, w,
				 (long)want[i][j]);
		}
}

int main(void)
{
	tt_start();
	tt_init_mul();
	tt_seed(0xC0FFEE01u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());

	/* ---- inputs ---- */
	fill_random(s_a, sizeof s_a);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned k = 0; k < K; k++)
			a_rows[i][k] = (uint8_t)(nibble(gen, i * K + k) << 4);
	fill_random(s_b, sizeof s_b);          /* row k: 16 elements (8 bytes) */
	for (unsigned k = 0; k < K; k++)
		for (unsigned j = 0; j < 16; j++)
			b_cols[j][k] = nibble(gen, k * 16 + j);
	fill_random(s_bt, sizeof s_bt);
	for (unsigned j = 0; j < 16; j++)
		for (unsigned k = 0; k < K; k++)
			bt_rows[j][k] = nibble(gen, j * K + k);
	/* A8: row 0 all -8, row 1 all 7, the rest random; B8: column 0 all -8,
	 * column 1 alternating 7/-8, the rest random. */
	uint8_t a8[32], b8[32];
	for (unsigned i = 0; i < 8; i++)
		for (unsigned k = 0; k < 8; k++) {
			int v = i == 0 ? -8 : i == 1 ? 7 : tt_rand4();
			tt_set4(a8, i * 8 + k, v);
			a8_rows[i][k] = (uint8_t)(((unsigned)v & 15u) << 4);
		}
	for (unsigned k = 0; k < 8; k++)
		for (unsigned j = 0; j < 8; j++) {
			int v = j == 0 ? -8 : j == 1 ? ((k & 1) ? -8 : 7) : tt_rand4();
			tt_set4(b8, k * 8 + j, v);
			b8_cols[j][k] = (uint8_t)((unsigned)v & 15u);
		}
	tt_to_sram(s_a8, a8, 32);
	tt_to_sram(s_b8, b8, 32);
	tt_fill_sram(s_sentinel, 0xA55A5AA5u, sizeof s_sentinel);

	/* ---- DMA in (SRAM strides differ from the scratchpad's) ---- */
	dma_load(tpu_sram_offset(s_a), SP_A, 16, ROWB, ROWB, SP_A_STR);
	dma_load(tpu_sram_offset(s_b), SP_B, K, 8, 8, SP_B_STR);
	dma_load(tpu_sram_offset(s_bt), SP_BT, 16, ROWB, ROWB, ROWB);
	dma_load(tpu_sram_offset(s_a8), SP_A8, 8, 4, 4, 4);
	dma_load(tpu_sram_offset(s_b8), SP_B8, 8, 4, 4, 4);
	dma_load(tpu_sram_offset(s_sentinel), SP_K8, 8, K8_STR, K8_STR, K8_STR);

	/* ---- references, while the DMA runs ---- */
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			ref[i][j] = dot(a_rows[i], b_cols[j], K);
			ref_t[i][j] = dot(a_rows[i] + 64, bt_rows[j] + 64, 128);
		}
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++)
			ref8[i][j] = dot(a8_rows[i], b8_cols[j], 8);

	tpu_drain(TPU_UNIT_DMA);

	/* ---- matmuls ---- */
	const uint8_t I32 = TPU_MXU_FLAG_OUT_INT32, ACC = TPU_MXU_FLAG_ACCUMULATE, TR = TPU_MXU_FLAG_TRANSPOSE_B;
	for (unsigned ti = 0; ti < 2; ti++)
		for (unsigned tj = 0; tj < 2; tj++) {
			uint16_t a = a_tile(ti, 0), b = b_tile(tj, 0);
			/* plain, int32 */
			mm(a, SP_A_STR, b, SP_B_STR, c32_tile(SP_C32, ti, tj), 64, 0, K, 0, I32);
			/* int4 at several shifts */
			for (unsigned s = 0; s < NSHIFT; s++)
				mm(a, SP_A_STR, b, SP_B_STR, c4_tile((uint16_t)(SP_Q + s * 128), ti, tj), 8, 0, K, (uint8_t)shifts[s], 0);
			/* chain: [0,8) -> P0; [8,64) P0 -> P1; [64,192) P1 -> P1 (in place); [192,256) P1 -> P0 and int4 */
			uint16_t p0 = c32_tile(SP_P0, ti, tj), p1 = c32_tile(SP_P1, ti, tj);
			mm(a_tile(ti, 0), SP_A_STR, b_tile(tj, 0), SP_B_STR, p0, 64, 0, 8, 0, I32);
			mm(a_tile(ti, 8), SP_A_STR, b_tile(tj, 8), SP_B_STR, p1, 64, p0, 56, 0, I32 | ACC);
			mm(a_tile(ti, 64), SP_A_STR, b_tile(tj, 64), SP_B_STR, p1, 64, p1, 128, 0, I32 | ACC);
			mm(a_tile(ti, 192), SP_A_STR, b_tile(tj, 192), SP_B_STR, p0, 64, p1, 64, 0, I32 | ACC);
			mm(a_tile(ti, 192), SP_A_STR, b_tile(tj, 192), SP_B_STR, c4_tile(SP_CH4, ti, tj), 8, p1, 64, 6, ACC);
			/* transpose: A.Bt^T over [64, 192) */
			uint16_t at = a_tile(ti, 64), bt = bt_tile(tj, 64);
			mm(at, SP_A_STR, bt, ROWB, c32_tile(SP_T32, ti, tj), 64, 0, 128, 0, I32 | TR);
			mm(at, SP_A_STR, bt, ROWB, c4_tile(SP_T32 + 0x800, ti, tj), 8, 0, 128, 5, TR);
			/* accumulate + transpose: Cin = the plain tile (region 2) */
			mm(at, SP_A_STR, bt, ROWB, c32_tile(SP_T32 + 0x400, ti, tj), 64, c32_tile(SP_C32, ti, tj), 128, 0,
			   I32 | TR | ACC);
		}
	/* K = 8 */
	mm(SP_A8, 4, SP_B8, 4, SP_K8, K8_STR, 0, 8, 0, I32);
	mm(SP_A8, 4, SP_B8, 4, SP_K8 + 0x400, 4, 0, 8, 0, 0);
	mm(SP_A8, 4, SP_B8, 4, SP_K8 + 0x420, 4, 0, 8, 7, 0);
	tpu_drain(TPU_UNIT_MXU);

	/* ---- DMA out ---- */
	dma_store(tpu_sram_offset(s_c32), SP_C32, 16, 64, 64, 64);
	for (unsigned s = 0; s < NSHIFT; s++)
		dma_store(tpu_sram_offset(s_q[s]), (uint16_t)(SP_Q + s * 128), 16, 8, 8, 8);
	dma_store(tpu_sram_offset(s_ch32), SP_P0, 16, 64, 64, 64);
	dma_store(tpu_sram_offset(s_ch4), SP_CH4, 16, 8, 8, 8);
	dma_store(tpu_sram_offset(s_t32), SP_T32, 16, 64, 64, 64);
	dma_store(tpu_sram_offset(s_at32), SP_T32 + 0x400, 16, 64, 64, 64);
	dma_store(tpu_sram_offset(s_t4), SP_T32 + 0x800, 16, 8, 8, 8);
	/* K=8 int32 with its sentinel gaps, as 8 rows of 48 bytes packed in SRAM */
	dma_store(tpu_sram_offset(s_k8_32), SP_K8, 8, K8_STR, K8_STR, K8_STR);
	dma_store(tpu_sram_offset(s_k8_4[0]), SP_K8 + 0x400, 8, 4, 4, 4);
	dma_store(tpu_sram_offset(s_k8_4[1]), SP_K8 + 0x420, 8, 4, 4, 4);
	tpu_drain(TPU_UNIT_DMA);

	/* ---- compare ---- */
	check32("plain", E_PLAIN32, s_c32, ref, 0);
	for (unsigned s = 0; s < NSHIFT; s++)
		check4("int4", E_INT4, s_q[s], ref, shifts[s]);
	check32("chain", E_CHAIN32, s_ch32, ref, 0);
	check4("chain", E_CHAIN4, s_ch4, ref, 6);
	check32("transpose", E_TR32, s_t32, ref_t, 0);
	check4("transpose", E_TR4, s_t4, ref_t, 5);
	check32("acc+transpose", E_ACCTR, s_at32, ref, ref_t);

	tt_from_sram(buf, s_k8_32, 8 * K8_STR);
	for (unsigned i = 0; i < 8; i++) {
		for (unsigned j = 0; j < 8; j++) {
			int32_t got = tt_rd32(&buf[i * K8_STR + j * 4]);
			TT_CHECK(got == ref8[i][j], E_K8_32, "K=8 C[%u][%u] = %ld, want %ld", i, j, (long)got, (long)ref8[i][j]);
		}
		for (unsigned g = 32; g < K8_STR; g++)
			TT_CHECK(buf[i * K8_STR + g] == (uint8_t)(0xA55A5AA5u >> ((g & 3) * 8)), E_SENTINEL,
				 "K=8 row %u gap byte %u = 0x%02x overwritten", i, g, buf[i * K8_STR + g]);
	}
	for (unsigned v = 0; v < 2; v++) {
		unsigned shift = v ? 7 : 0;
		tt_from_sram(buf, s_k8_4[v], 32);
		for (unsigned i = 0; i < 8; i++)
			for (unsigned j = 0; j < 8; j++) {
				int w = tt_requant(ref8[i][j], shift);
				int got = tt_get4(&buf[i * 4], j);
				TT_CHECK(got == w, E_K8_4, "K=8 shift %u C[%u][%u] = %d, want %d (x = %ld)", shift, i, j, got, w,
					 (long)ref8[i][j]);
			}
	}
	/* the saturating rows really saturated */
	TT_CHECK(ref8[0][0] == 512 && ref8[1][0] == -448 && ref8[1][1] == -28, E_K8_32, "K=8 edge reference %ld %ld %ld",
		 (long)ref8[0][0], (long)ref8[1][0], (long)ref8[1][1]);

	tt_expect_no_error(E_ERROR, "end");
	TT_CHECK(tpu_done(TPU_UNIT_MXU) == mxu_count && tpu_issued(TPU_UNIT_MXU) == mxu_count, E_DONE,
		 "MXU ISSUED %lu DONE %lu, pushed %lu", tpu_issued(TPU_UNIT_MXU), tpu_done(TPU_UNIT_MXU), mxu_count);
	TT_CHECK(tpu_done(TPU_UNIT_DMA) == tpu_pushed[TPU_UNIT_DMA], E_DONE, "DMA DONE %lu, pushed %lu",
		 tpu_done(TPU_UNIT_DMA), tpu_pushed[TPU_UNIT_DMA]);

	printf("tpu_matmul: %lu matmuls, %lu DMA commands, C[0][0] = %ld\n", mxu_count, tpu_pushed[TPU_UNIT_DMA],
	       (long)ref[0][0]);
	return tt_finish("tpu_matmul", "plain, int4 shifts, accumulate chain, transpose, K=8, strided tiles");
}
