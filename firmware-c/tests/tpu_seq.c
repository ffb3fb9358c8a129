/* tpu_seq: a command list run by the sequencer (run with --set sequencer=1;
 * docs/hardware.md §5.11).
 *
 * Y = relu(requant(A.B + bias, 5)) for A 8x128, B 128x32, bias 8x32 int32 —
 * tpu_tokens' pipeline — but the CPU pushes none of its commands: it writes
 * them once as a list of 24 entries in the SRAM (three LOADs; per 8x8 tile a
 * MATMUL, ADD32, REQUANT, RELU and STORE; a final WAIT on the last STORE),
 * loads the list into the scratchpad with one DMA command and pushes one RUN.
 * Every token in the list is relative, so the same list, run a second time
 * after other commands, is still right; the WAIT makes the RUN end only when
 * the last tile is stored, so the CPU waits for the whole list on SEQ's DONE.
 * Then a list with a bad entry (index 1): ERROR = BAD_ENTRY, unit 4, SERIAL 1,
 * and its entry 0 pushed, entry 1 not. */
#include "tpu_test.h"
#include "seq.h"

enum { E_ID = 1, E_RESULT, E_RESULT2, E_ERROR, E_ISSUED, E_SEQDONE, E_BAD_ENTRY, E_BAD_ISSUED };

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
#define SP_LIST 0xE000u   /* region 14: the lists */
#define SP_BAD  0xE400u

#define ENTRIES (3 + 5 * NT + 1)

static uint32_t a_w[8 * KK / 8], b_w[KK * NCOL / 8], bias_w[8 * NCOL];
static uint32_t y_w[NT * 8];
static uint8_t s_a[sizeof a_w] SRAM_BSS;
static uint8_t s_b[sizeof b_w] SRAM_BSS;
static uint8_t s_bias[sizeof bias_w] SRAM_BSS;
static uint8_t s_y[NT][8 * 4] SRAM_BSS;   /* one packed 8x8 int4 tile per j */
static uint32_t s_list[ENTRIES * 8] SRAM_BSS;
static uint32_t s_bad[2 * 8] SRAM_BSS;

static volatile uint32_t *entry(volatile uint32_t *list, unsigned i) { return list + 8 * i; }

static void dma_args(uint32_t *w, uint32_t sram, uint32_t spad, uint32_t rows, uint32_t row_bytes, uint32_t stride) {
	w[0] = TPU_DMA_SRAM_ADDR(sram);
	w[1] = TPU_DMA_SPAD_ADDR(spad) | TPU_DMA_ROWS(rows);
	w[2] = TPU_DMA_ROW_BYTES(row_bytes) | TPU_DMA_SPAD_STRIDE(row_bytes);
	w[3] = TPU_DMA_SRAM_STRIDE(stride);
	w[4] = 0;
}

static void vpu_args(uint32_t *w, uint32_t a, uint32_t b, uint32_t c, uint32_t as, uint32_t bs, uint32_t cs, uint32_t param) {
	w[0] = TPU_VPU_A_ADDR(a) | TPU_VPU_B_ADDR(b);
	w[1] = TPU_VPU_C_ADDR(c) | TPU_VPU_ROWS(8);
	w[2] = TPU_VPU_A_STRIDE(as) | TPU_VPU_B_STRIDE(bs);
	w[3] = TPU_VPU_C_STRIDE(cs) | TPU_VPU_COLS(8);
	w[4] = param;
}

/* The pipeline's list: 3 LOADs, NT x (MATMUL, ADD32, REQUANT, RELU, STORE), WAIT. */
static void build_list(void) {
	uint32_t w[5];
	unsigned n = 0;
	dma_args(w, tpu_sram_offset(s_a), SP_A, 8, KK / 2, KK / 2);
	seq_entry(entry(s_list, n++), TPU_UNIT_DMA, TPU_DMA_LOAD, 0, w, 0, 0);
	dma_args(w, tpu_sram_offset(s_b), SP_B, KK, NCOL / 2, NCOL / 2);
	seq_entry(entry(s_list, n++), TPU_UNIT_DMA, TPU_DMA_LOAD, 0, w, 0, 0);
	dma_args(w, tpu_sram_offset(s_bias), SP_BIAS, 8, NCOL * 4, NCOL * 4);
	seq_entry(entry(s_list, n++), TPU_UNIT_DMA, TPU_DMA_LOAD, 0, w, 0, 0);
	for (unsigned j = 0; j < NT; j++) {
		w[0] = TPU_MXU_A_ADDR(SP_A) | TPU_MXU_B_ADDR(SP_B + 4 * j);
		w[1] = TPU_MXU_C_ADDR(SP_C32 + 32 * j) | TPU_MXU_K(KK);
		w[2] = TPU_MXU_A_STRIDE(KK / 2) | TPU_MXU_B_STRIDE(NCOL / 2);
		w[3] = TPU_MXU_C_STRIDE(NCOL * 4);
		w[4] = 0;
		seq_entry(entry(s_list, n++), TPU_UNIT_MXU, TPU_MXU_MATMUL, TPU_MXU_FLAG_OUT_INT32, w, SEQ_REL(TPU_UNIT_DMA, 3), 1);
		vpu_args(w, SP_C32 + 32 * j, SP_BIAS + 32 * j, SP_S32 + 32 * j, NCOL * 4, NCOL * 4, NCOL * 4, 0);
		seq_entry(entry(s_list, n++), TPU_UNIT_VPU, TPU_VPU_ADD32, 0, w, SEQ_REL(TPU_UNIT_MXU, j + 1), 1);
		vpu_args(w, SP_S32 + 32 * j, 0, SP_Q + 4 * j, NCOL * 4, 0, NCOL / 2, SHIFT);
		seq_entry(entry(s_list, n++), TPU_UNIT_VPU, TPU_VPU_REQUANT, 0, w, 0, 0);
		vpu_args(w, SP_Q + 4 * j, 0, SP_Y + 4 * j, NCOL / 2, 0, NCOL / 2, 0);
		seq_entry(entry(s_list, n++), TPU_UNIT_VPU, TPU_VPU_RELU, 0, w, 0, 0);
		dma_args(w, tpu_sram_offset(s_y[j]), SP_Y + 4 * j, 8, 4, 4);
		w[2] = TPU_DMA_ROW_BYTES(4) | TPU_DMA_SPAD_STRIDE(NCOL / 2);
		seq_entry(entry(s_list, n++), TPU_UNIT_DMA, TPU_DMA_STORE, 0, w, SEQ_REL(TPU_UNIT_VPU, 3 * (j + 1)), 1);
	}
	seq_entry(entry(s_list, n++), 0, TPU_SEQ_ENTRY_WAIT, 0, 0, SEQ_REL(TPU_UNIT_DMA, 3 + NT), 1);
	tt_barrier();
}

/* The CPU's reference of tile j, compared with what the TPU stored. */
static void check_result(int code, const char *which) {
	tt_from_sram(y_w, s_y, sizeof y_w);
	const uint8_t *y = (const uint8_t *)y_w;
	const uint8_t *a = (const uint8_t *)a_w, *b = (const uint8_t *)b_w;
	unsigned bad = 0;
	for (unsigned i = 0; i < 8; i++) {
		for (unsigned c = 0; c < NCOL; c++) {
			int32_t acc = (int32_t)bias_w[i * NCOL + c];
			for (unsigned k = 0; k < KK; k++)
				acc += tt_mul[(((unsigned)tt_get4(a, i * KK + k) & 15u) << 4) | ((unsigned)tt_get4(b, k * NCOL + c) & 15u)];
			int want = tt_requant(acc, SHIFT);
			if (want < 0) want = 0;
			unsigned j = c / 8;
			if (tt_get4(y + 32 * j, i * 8 + c % 8) != want) bad++;
		}
	}
	TT_CHECK(bad == 0, code, "%s: %u of %u results differ", which, bad, 8 * NCOL);
}

int main(void)
{
	tt_start();
	tt_init_mul();
	tt_seed(0x5E0u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());

	for (unsigned n = 0; n < TT_ARRAY_LEN(a_w); n++) a_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(b_w); n++) b_w[n] = tt_rand();
	for (unsigned n = 0; n < TT_ARRAY_LEN(bias_w); n++) bias_w[n] = (uint32_t)((int32_t)tt_rand() >> 22); /* +-512 */
	tt_to_sram(s_a, a_w, sizeof a_w);
	tt_to_sram(s_b, b_w, sizeof b_w);
	tt_to_sram(s_bias, bias_w, sizeof bias_w);
	tt_fill_sram(s_y, 0x5A5A5A5Au, sizeof s_y);
	build_list();

	/* Run 1: the list's one LOAD, then RUN after it. */
	tpu_perf_start();
	uint32_t list_loaded = dma_load(tpu_sram_offset(s_list), SP_LIST, 1, ENTRIES * TPU_SEQ_ENTRY_BYTES,
					ENTRIES * TPU_SEQ_ENTRY_BYTES, ENTRIES * TPU_SEQ_ENTRY_BYTES);
	seq_run(SP_LIST, ENTRIES, list_loaded);
	seq_wait(1);
	tpu_perf_stop();
	check_result(E_RESULT, "first run");
	tt_expect_no_error(E_ERROR, "after the first run");

	/* Run 2: the same list, already in the scratchpad, after 1 + 3 + NT more DMA commands. */
	tt_fill_sram(s_y, 0xA5A5A5A5u, sizeof s_y);
	seq_run(SP_LIST, ENTRIES, 0);
	seq_wait(2);
	check_result(E_RESULT2, "second run");
	seq_sync_pushed();
	TT_CHECK(tpu_pushed[TPU_UNIT_DMA] == 1 + 2 * (3 + NT) && tpu_pushed[TPU_UNIT_MXU] == 2 * NT && tpu_pushed[TPU_UNIT_VPU] == 6 * NT,
		 E_ISSUED, "ISSUED DMA %lu MXU %lu VPU %lu", tpu_pushed[TPU_UNIT_DMA], tpu_pushed[TPU_UNIT_MXU], tpu_pushed[TPU_UNIT_VPU]);
	TT_CHECK(seq_done() == 2, E_SEQDONE, "SEQ DONE = %lu", seq_done());

	/* A list whose entry 1 is for unit 0 but no WAIT: BAD_ENTRY, SERIAL 1; entry 0 (a RELU) is pushed. */
	uint32_t w[5];
	vpu_args(w, SP_Q, 0, SP_Y, NCOL / 2, 0, NCOL / 2, 0);
	seq_entry(entry(s_bad, 0), TPU_UNIT_VPU, TPU_VPU_RELU, 0, w, 0, 0);
	seq_entry(entry(s_bad, 1), 0, 7, 0, w, 0, 0);
	tt_barrier();
	uint32_t bad_loaded = dma_load(tpu_sram_offset(s_bad), SP_BAD, 1, sizeof s_bad, sizeof s_bad, sizeof s_bad);
	seq_run(SP_BAD, 2, bad_loaded);
	seq_wait(3);
	uint32_t e = tpu_error();
	TT_CHECK(TPU_REG_ERROR_CODE_GET(e) == TPU_ERR_BAD_ENTRY && TPU_REG_ERROR_UNIT_GET(e) == TPU_UNIT_SEQ && TPU_REG_ERROR_SERIAL_GET(e) == 1,
		 E_BAD_ENTRY, "ERROR = 0x%08lx", e);
	TT_CHECK(tpu_issued(TPU_UNIT_VPU) == 6 * NT + 1, E_BAD_ISSUED, "VPU ISSUED %lu after the bad list", tpu_issued(TPU_UNIT_VPU));
	tpu_error_clear();
	tpu_drain(TPU_UNIT_DMA);
	return tt_finish("tpu_seq", "a 24-entry list run twice by the sequencer, and a bad entry");
}
