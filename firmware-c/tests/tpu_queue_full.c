/* tpu_queue_full: more DMA commands than the queue holds, pushed back to back.
 *
 * Twelve 16 x 32-byte LOADs (each ~514 clocks) go into scratchpad regions
 * 0..11 (row stride 36), then, without waiting, twelve STOREs bring them back
 * to a second SRAM buffer. The queue holds 8 commands besides the running
 * one, so the 10th, 11th and 12th PUSH of each burst must stall the CPU until
 * a command ends. Inside a PERF_CTRL window the test checks that
 *   - pushing the 12 LOADs took longer than three whole commands (rdcycle),
 *   - right after the last PUSH the DMA is busy with a full queue (STATUS),
 *   - STALL > 0 in each burst, and it accounts for all the extra push time,
 *   - DMA_BUSY covers all 24 commands, and no other unit was busy,
 * that the counters freeze after tpu_perf_stop, and that every byte came
 * back unchanged. */
#include "tpu_test.h"

enum { E_ID = 1, E_QUEUED, E_PUSH_TIME, E_STALL, E_BUSY, E_FREEZE, E_DATA, E_ERROR, E_DONE, E_CONFIG };

#define NCMD   12u
#define ROWS   16u
#define ROWB   32u
#define BLOCK  (ROWS * ROWB)   /* 512 bytes */
#define SPSTR  36u

static uint32_t srcw[NCMD * BLOCK / 4];
static uint32_t backw[NCMD * BLOCK / 4];
#define src ((const uint8_t *)srcw)
#define back ((const uint8_t *)backw)
static uint8_t s_src[NCMD * BLOCK] SRAM_BSS;
static uint8_t s_dst[NCMD * BLOCK] SRAM_BSS;

int main(void)
{
	tt_start();
	tt_seed(0x0DDBA11u);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());
	const uint32_t cfg = tpu_config(), depth = TPU_REG_CONFIG_QUEUE_DEPTH_GET(cfg);
	TT_CHECK(depth == 8 && TPU_REG_CONFIG_ARRAY_DIM_GET(cfg) == 8 && TPU_REG_CONFIG_SPAD_KIB_GET(cfg) == 64 &&
			 TPU_REG_CONFIG_REGION_KIB_GET(cfg) == 4,
		 E_CONFIG, "CONFIG = 0x%08lx, want array 8, queue 8, 64 KiB in 4 KiB regions", cfg);

	for (unsigned n = 0; n < TT_ARRAY_LEN(srcw); n++)
		srcw[n] = tt_rand();
	tt_to_sram(s_src, srcw, sizeof srcw);
	tt_fill_sram(s_dst, 0xDEADBEEFu, sizeof s_dst);

	tpu_perf_start();
	uint32_t t0 = rdcycle();
	for (unsigned n = 0; n < NCMD; n++)
		dma_load(tpu_sram_offset(&s_src[n * BLOCK]), (uint16_t)(n * 0x1000u), ROWS, ROWB, ROWB, SPSTR);
	uint32_t t1 = rdcycle();
	uint32_t st = tpu_status(TPU_UNIT_DMA);
	uint32_t stall_loads = tpu_counter(TPU_REG_STALL);
	for (unsigned n = 0; n < NCMD; n++)
		dma_store(tpu_sram_offset(&s_dst[n * BLOCK]), (uint16_t)(n * 0x1000u), ROWS, ROWB, ROWB, SPSTR);
	uint32_t st2 = tpu_status(TPU_UNIT_DMA);
	tpu_drain(TPU_UNIT_DMA);
	tpu_perf_stop();

	const uint32_t stall = tpu_counter(TPU_REG_STALL);
	const uint32_t cycles = tpu_counter(TPU_REG_CYCLES_LO);
	const uint32_t dma_busy = tpu_counter(TPU_REG_DMA_BUSY);
	const uint32_t mxu_busy = tpu_counter(TPU_REG_MXU_BUSY), vpu_busy = tpu_counter(TPU_REG_VPU_BUSY);
	const uint32_t idle = tpu_counter(TPU_REG_IDLE), overlap = tpu_counter(TPU_REG_OVERLAP);

	/* the last PUSH of each burst was accepted the clock a slot freed */
	TT_CHECK(TPU_UNIT_STATUS_QUEUED_GET(st) == depth && TPU_UNIT_STATUS_BUSY_GET(st), E_QUEUED,
		 "STATUS after the LOAD burst = 0x%08lx, want busy with %lu queued", st, depth);
	TT_CHECK(TPU_UNIT_STATUS_QUEUED_GET(st2) == depth && TPU_UNIT_STATUS_BUSY_GET(st2), E_QUEUED,
		 "STATUS after the STORE burst = 0x%08lx, want busy with %lu queued", st2, depth);
	/* pushes 10..12 each waited for a command to end */
	TT_CHECK(t1 - t0 > 3 * BLOCK, E_PUSH_TIME, "12 LOAD pushes took %lu clocks, want > %u", t1 - t0, 3 * BLOCK);
	TT_CHECK(stall > 0, E_STALL, "STALL = %lu, want > 0", stall);
	TT_CHECK(stall_loads > 0 && stall - stall_loads > 0, E_STALL, "STALL of the LOADs %lu, of the STOREs %lu, want > 0",
		 stall_loads, stall - stall_loads);
	/* what pushing took beyond STALL is the plain cost of 12 pushes */
	TT_CHECK(t1 - t0 - stall_loads < NCMD * 128, E_STALL, "12 LOAD pushes took %lu clocks of which STALL %lu",
		 t1 - t0, stall_loads);
	TT_CHECK(stall < cycles, E_STALL, "STALL %lu >= window %lu", stall, cycles);
	TT_CHECK(dma_busy >= NCMD * 3 * BLOCK && dma_busy <= NCMD * (3 * BLOCK + 64), E_BUSY,
		 "DMA_BUSY = %lu, want %u + setup", dma_busy, NCMD * 3 * BLOCK);
	TT_CHECK(mxu_busy == 0 && vpu_busy == 0 && overlap == 0, E_BUSY, "MXU %lu VPU %lu OVERLAP %lu busy, want 0",
		 mxu_busy, vpu_busy, overlap);
	TT_CHECK(dma_busy + idle == cycles, E_BUSY, "DMA_BUSY %lu + IDLE %lu != CYCLES %lu", dma_busy, idle, cycles);

	/* frozen: more work after the stop changes nothing */
	dma_load(tpu_sram_offset(s_src), 0, ROWS, ROWB, ROWB, SPSTR);
	tpu_drain(TPU_UNIT_DMA);
	TT_CHECK(tpu_counter(TPU_REG_STALL) == stall && tpu_counter(TPU_REG_CYCLES_LO) == cycles &&
			 tpu_counter(TPU_REG_DMA_BUSY) == dma_busy,
		 E_FREEZE, "counters moved after tpu_perf_stop");

	tt_from_sram(backw, s_dst, sizeof backw);
	unsigned bad = 0;
	for (unsigned n = 0; n < sizeof srcw; n++)
		if (back[n] != src[n]) {
			if (bad < 4)
				TT_FAIL(E_DATA, "byte %u (block %u) = 0x%02x, want 0x%02x", n, n / BLOCK, back[n], src[n]);
			bad++;
		}
	TT_CHECK(bad == 0, E_DATA, "%u bytes differ", bad);

	tt_expect_no_error(E_ERROR, "end");
	TT_CHECK(tpu_done(TPU_UNIT_DMA) == 2 * NCMD + 1 && tpu_issued(TPU_UNIT_DMA) == 2 * NCMD + 1, E_DONE,
		 "DMA ISSUED %lu DONE %lu, want %u", tpu_issued(TPU_UNIT_DMA), tpu_done(TPU_UNIT_DMA), 2 * NCMD + 1);

	printf("tpu_queue_full: %u + %u DMA commands, pushing the loads took %lu clocks, STALL %lu (loads %lu), "
	       "DMA_BUSY %lu of %lu\n",
	       NCMD, NCMD, t1 - t0, stall, stall_loads, dma_busy, cycles);
	return tt_finish("tpu_queue_full", "producer stalled on full DMA queue, data intact");
}
