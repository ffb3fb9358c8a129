/* tpu_vpu: every VPU op on 2-D strided blocks, against a C reference.
 *
 * The CPU builds four scratchpad images in BRAM (int4 A and B, 16 x 32
 * elements with row strides 20 and 24 bytes; int32 A and B, 8 x 12 with
 * strides 56 and 64 bytes; the gaps between rows hold random junk), copies
 * them to SRAM and DMAs them into regions 0, 1, 4 and 5. The int4 images
 * start with a 16 x 16 block where A(i, j) = i - 8 and B(i, j) = j - 8, so ADD
 * sees all 256 pairs and every unary op every value; the int32 images hold
 * the rounding and saturation edges of REQUANT and the wrap-around of ADD32.
 *
 * Each case prefills its output block (region 2 for int4, region 3 for int32)
 * with a sentinel, runs one VPU command, stores the block back and compares
 * every element with the reference, which reads the BRAM images at the same
 * addresses the VPU reads; bytes outside the written elements (row gaps)
 * must still hold the sentinel. Cases cover sub-blocks at byte offsets,
 * column counts that are not a multiple of the 8 lanes, single rows, and
 * the parameter edges (HARDTANH 0, 3, 7, 8; REQUANT 0, 1, 4, 15, 31;
 * CAUSAL_MASK offsets on and off the diagonal). */
#include "tpu_test.h"

enum {
	E_ID = 1, E_ADD, E_RELU, E_HARDTANH, E_MASK, E_REQUANT, E_ADD32, E_COPY, E_GAP, E_ERROR, E_DONE,
};

/* Scratchpad images: base, rows, stride (bytes). */
#define SP_A4   0x0000u
#define A4_STR  20u
#define SP_B4   0x1000u
#define B4_STR  24u
#define SP_C4   0x2000u
#define SP_C32  0x3000u
#define SP_A32  0x4000u
#define A32_STR 56u
#define SP_B32  0x5000u
#define B32_STR 64u
#define R4      16u     /* int4 image rows, 32 elements each */
#define R32     8u      /* int32 image rows, 12 elements each */
#define SENT    0xC3u

static uint8_t img_a4[R4 * A4_STR] __attribute__((aligned(4)));
static uint8_t img_b4[R4 * B4_STR] __attribute__((aligned(4)));
static uint8_t img_a32[R32 * A32_STR] __attribute__((aligned(4)));
static uint8_t img_b32[R32 * B32_STR] __attribute__((aligned(4)));
static uint8_t out[512] __attribute__((aligned(4)));

static uint8_t s_a4[sizeof img_a4] SRAM_BSS;
static uint8_t s_b4[sizeof img_b4] SRAM_BSS;
static uint8_t s_a32[sizeof img_a32] SRAM_BSS;
static uint8_t s_b32[sizeof img_b32] SRAM_BSS;
static uint8_t s_sent[512] SRAM_BSS;
static uint8_t s_out[512] SRAM_BSS;

/* The BRAM byte that mirrors scratchpad address `addr`. */
static const uint8_t *mirror(uint32_t addr)
{
	switch (addr >> 12) {
	case SP_A4 >> 12: return &img_a4[addr - SP_A4];
	case SP_B4 >> 12: return &img_b4[addr - SP_B4];
	case SP_A32 >> 12: return &img_a32[addr - SP_A32];
	default: return &img_b32[addr - SP_B32];
	}
}

static void wr32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

static int in4(uint32_t base, unsigned stride, unsigned i, unsigned j) { return tt_get4(mirror(base + i * stride), j); }
static int32_t in32(uint32_t base, unsigned stride, unsigned i, unsigned j) { return tt_rd32(mirror(base + i * stride + 4 * j)); }

struct vcase {
	const char *name;
	uint8_t op;
	uint8_t code;
	uint16_t a, b, a_stride, b_stride, c_stride, rows, cols;
	uint32_t param;
};

static unsigned cases_run;

static void run_case(const struct vcase *t)
{
	const int wide_in = t->op == TPU_VPU_ADD32 || t->op == TPU_VPU_REQUANT;
	const int wide_out = t->op == TPU_VPU_ADD32;
	const uint16_t c = wide_out ? SP_C32 : SP_C4;
	const unsigned out_row = wide_out ? 4u * t->cols : t->cols / 2u;
	const unsigned area = t->rows * t->c_stride;

	/* prefill the output block, run the op, store the block */
	dma_load(tpu_sram_offset(s_sent), c, 1, (uint16_t)area, area, area);
	struct vpu_op v = {
		.a = t->a, .b = t->b, .c = c, .a_stride = t->a_stride, .b_stride = t->b_stride, .c_stride = t->c_stride,
		.rows = t->rows, .cols = t->cols, .param = t->param,
	};
	tpu_after(TPU_UNIT_VPU, TPU_UNIT_DMA, tpu_pushed[TPU_UNIT_DMA]);
	uint32_t vt = vpu_run(t->op, &v);
	tpu_wait(TPU_UNIT_VPU, vt);
	dma_store(tpu_sram_offset(s_out), c, 1, (uint16_t)area, area, area);
	tpu_drain(TPU_UNIT_DMA);
	tt_from_sram(out, s_out, (area + 3) & ~3u);
	cases_run++;

	for (unsigned i = 0; i < t->rows; i++) {
		const uint8_t *row = &out[i * t->c_stride];
		for (unsigned j = 0; j < t->cols; j++) {
			int32_t want, got;
			if (wide_in) {
				int32_t x = in32(t->a, t->a_stride, i, j);
				if (t->op == TPU_VPU_ADD32)
					want = (int32_t)((uint32_t)x + (uint32_t)in32(t->b, t->b_stride, i, j));
				else
					want = tt_requant(x, t->param);
			} else {
				int x = in4(t->a, t->a_stride, i, j);
				int p = (int)t->param;
				switch (t->op) {
				case TPU_VPU_ADD: want = tt_sat4(x + in4(t->b, t->b_stride, i, j)); break;
				case TPU_VPU_RELU: want = x < 0 ? 0 : x; break;
				case TPU_VPU_HARDTANH: want = tt_sat4(x < -p ? -p : x > p ? p : x); break;
				case TPU_VPU_CAUSAL_MASK:
					want = TPU_VPU_COL_OFF_GET(t->param) + j > TPU_VPU_ROW_OFF_GET(t->param) + i ? -8 : x;
					break;
				default: want = x; break; /* COPY */
				}
			}
			got = wide_out ? tt_rd32(&row[4 * j]) : tt_get4(row, j);
			TT_CHECK(got == want, t->code, "%s (%u x %u, param 0x%lx) C[%u][%u] = %ld, want %ld", t->name, t->rows,
				 t->cols, t->param, i, j, (long)got, (long)want);
		}
		for (unsigned g = out_row; g < t->c_stride; g++)
			TT_CHECK(row[g] == SENT, E_GAP, "%s row %u gap byte %u = 0x%02x (sentinel 0x%02x)", t->name, i, g,
				 row[g], SENT);
	}
}

/* Values REQUANT and ADD32 must get right at the edges. */
static const int32_t edges32[] = {
	0, 1, -1, 2, -2, 3, -3, 7, 8, -8, -9, 15, 16, -16, -17, 119, 120, -120, -136, -137, 135, 136,
	0x7FFFFFFF, (int32_t)0x80000000, 0x40000000, -0x40000000, 0x3FFFFFFF, 1 << 14, (1 << 14) - 1, -(1 << 14),
	-(1 << 14) - 1, 3 << 14, -(3 << 14), 0x7FFFFFF0, (int32_t)0x80000010, 1 << 30, -(1 << 30) - 1,
};

#define ADD4(nm, a, b, sa, sb, sc, r, c) { nm, TPU_VPU_ADD, E_ADD, a, b, sa, sb, sc, r, c, 0 }
#define UN4(nm, op, code, a, sa, sc, r, c, p) { nm, op, code, a, SP_B4, sa, B4_STR, sc, r, c, p }

static const struct vcase cases[] = {
	/* all 256 pairs, C with a 4-byte gap per row */
	ADD4("ADD 16x16", SP_A4, SP_B4, A4_STR, B4_STR, 12, 16, 16),
	/* random halves, whole 32 columns */
	ADD4("ADD 16x32", SP_A4, SP_B4, A4_STR, B4_STR, 16, 16, 32),
	/* sub-blocks at byte offsets, 22 columns (not a multiple of 8) */
	ADD4("ADD sub", SP_A4 + 3 * A4_STR + 5, SP_B4 + 2 * B4_STR + 3, A4_STR, B4_STR, 13, 10, 22),
	ADD4("ADD 1x2", SP_A4 + 15 * A4_STR + 7, SP_B4 + 7, A4_STR, B4_STR, 4, 1, 2),
	UN4("RELU", TPU_VPU_RELU, E_RELU, SP_A4, A4_STR, 18, 16, 32, 0),
	UN4("RELU sub", TPU_VPU_RELU, E_RELU, SP_A4 + A4_STR + 1, A4_STR, 9, 15, 14, 0),
	UN4("HARDTANH 0", TPU_VPU_HARDTANH, E_HARDTANH, SP_A4, A4_STR, 16, 16, 32, 0),
	UN4("HARDTANH 3", TPU_VPU_HARDTANH, E_HARDTANH, SP_A4, A4_STR, 17, 16, 32, 3),
	UN4("HARDTANH 7", TPU_VPU_HARDTANH, E_HARDTANH, SP_A4, A4_STR, 16, 16, 16, 7),
	UN4("HARDTANH 8", TPU_VPU_HARDTANH, E_HARDTANH, SP_A4, A4_STR, 16, 16, 32, 8),
	UN4("MASK 0,0", TPU_VPU_CAUSAL_MASK, E_MASK, SP_A4, A4_STR, 16, 16, 32, 0),
	UN4("MASK 8,0", TPU_VPU_CAUSAL_MASK, E_MASK, SP_A4, A4_STR, 16, 16, 32, TPU_VPU_ROW_OFF(8)),
	UN4("MASK 0,8", TPU_VPU_CAUSAL_MASK, E_MASK, SP_A4, A4_STR, 16, 16, 32, TPU_VPU_COL_OFF(8)),
	UN4("MASK 5,13", TPU_VPU_CAUSAL_MASK, E_MASK, SP_A4 + A4_STR + 2, A4_STR, 15, 12, 28,
	    TPU_VPU_ROW_OFF(5) | TPU_VPU_COL_OFF(13)),
	UN4("MASK 40,16", TPU_VPU_CAUSAL_MASK, E_MASK, SP_A4, A4_STR, 16, 16, 32, TPU_VPU_ROW_OFF(40) | TPU_VPU_COL_OFF(16)),
	UN4("COPY", TPU_VPU_COPY, E_COPY, SP_A4, A4_STR, 20, 16, 32, 0),
	UN4("COPY 10 cols", TPU_VPU_COPY, E_COPY, SP_A4 + 4 * A4_STR + 6, A4_STR, 7, 11, 10, 0),
	/* int32 inputs; A32 has 12 elements per row */
	UN4("REQUANT 0", TPU_VPU_REQUANT, E_REQUANT, SP_A32, A32_STR, 8, R32, 12, 0),
	UN4("REQUANT 1", TPU_VPU_REQUANT, E_REQUANT, SP_A32, A32_STR, 8, R32, 12, 1),
	UN4("REQUANT 4", TPU_VPU_REQUANT, E_REQUANT, SP_A32, A32_STR, 7, R32, 12, 4),
	UN4("REQUANT 15", TPU_VPU_REQUANT, E_REQUANT, SP_A32, A32_STR, 8, R32, 12, 15),
	UN4("REQUANT 31", TPU_VPU_REQUANT, E_REQUANT, SP_A32, A32_STR, 8, R32, 12, 31),
	UN4("REQUANT sub", TPU_VPU_REQUANT, E_REQUANT, SP_A32 + A32_STR + 8, A32_STR, 5, 6, 10, 12),
	{ "ADD32", TPU_VPU_ADD32, E_ADD32, SP_A32, SP_B32, A32_STR, B32_STR, 52, R32, 12, 0 },
	{ "ADD32 sub", TPU_VPU_ADD32, E_ADD32, SP_A32 + A32_STR + 4, SP_B32 + 2 * B32_STR + 12, A32_STR, B32_STR, 28, 5, 7, 0 },
};

int main(void)
{
	tt_start();
	tt_seed(0x5EED0002u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());

	/* int4 images: junk everywhere, then the exhaustive 16 x 16 block */
	for (unsigned n = 0; n < sizeof img_a4; n++)
		img_a4[n] = (uint8_t)tt_rand();
	for (unsigned n = 0; n < sizeof img_b4; n++)
		img_b4[n] = (uint8_t)tt_rand();
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			tt_set4(&img_a4[i * A4_STR], j, (int)i - 8);
			tt_set4(&img_b4[i * B4_STR], j, (int)j - 8);
		}
	/* int32 images: random magnitudes, then the edges (A) and wrap pairs (B) */
	for (unsigned n = 0; n < sizeof img_a32; n += 4) {
		uint32_t r = tt_rand();
		wr32(&img_a32[n], (int32_t)r >> (tt_rand() & 31));
	}
	for (unsigned n = 0; n < sizeof img_b32; n += 4)
		wr32(&img_b32[n], (int32_t)tt_rand());
	for (unsigned e = 0; e < TT_ARRAY_LEN(edges32); e++)
		wr32(&img_a32[(e / 12) * A32_STR + (e % 12) * 4], edges32[e]);
	/* row 1 of B pairs with row 1 of A so that every sum but 0 + x wraps */
	for (unsigned j = 0; j < 12; j++)
		wr32(&img_b32[1 * B32_STR + 4 * j], in32(SP_A32, A32_STR, 1, j) >= 0 ? 0x7FFFFFFF : (int32_t)0x80000000);
	wr32(&img_a32[2 * A32_STR], 0x7FFFFFFF);
	wr32(&img_b32[2 * B32_STR], 1);
	wr32(&img_a32[2 * A32_STR + 4], (int32_t)0x80000000);
	wr32(&img_b32[2 * B32_STR + 4], -1);

	tt_to_sram(s_a4, img_a4, sizeof img_a4);
	tt_to_sram(s_b4, img_b4, sizeof img_b4);
	tt_to_sram(s_a32, img_a32, sizeof img_a32);
	tt_to_sram(s_b32, img_b32, sizeof img_b32);
	tt_fill_sram(s_sent, SENT * 0x01010101u, sizeof s_sent);
	dma_load(tpu_sram_offset(s_a4), SP_A4, R4, A4_STR, A4_STR, A4_STR);
	dma_load(tpu_sram_offset(s_b4), SP_B4, R4, B4_STR, B4_STR, B4_STR);
	dma_load(tpu_sram_offset(s_a32), SP_A32, R32, A32_STR, A32_STR, A32_STR);
	dma_load(tpu_sram_offset(s_b32), SP_B32, R32, B32_STR, B32_STR, B32_STR);
	tpu_drain(TPU_UNIT_DMA);

	for (unsigned k = 0; k < TT_ARRAY_LEN(cases); k++)
		run_case(&cases[k]);

	tt_expect_no_error(E_ERROR, "end");
	TT_CHECK(tpu_done(TPU_UNIT_VPU) == cases_run && tpu_issued(TPU_UNIT_VPU) == cases_run, E_DONE,
		 "VPU ISSUED %lu DONE %lu, ran %u", tpu_issued(TPU_UNIT_VPU), tpu_done(TPU_UNIT_VPU), cases_run);
	printf("tpu_vpu: %u VPU commands, %lu DMA commands\n", cases_run, tpu_pushed[TPU_UNIT_DMA]);
	return tt_finish("tpu_vpu", "ADD RELU HARDTANH CAUSAL_MASK REQUANT ADD32 COPY, strided, saturation edges");
}
