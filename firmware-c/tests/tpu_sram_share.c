/* tpu_sram_share: the CPU and the DMA on the one 8-bit SRAM bus.
 *
 * The CPU reads 256 words from one SRAM buffer and writes 256 words to
 * another, once with the TPU idle and once while a 4 KiB DMA LOAD and a
 * 4 KiB DMA STORE (other buffers) run. The arbitration gives the CPU fixed
 * priority, so
 *   - the CPU's loop takes exactly as many clocks both times (rdcycle),
 *   - the DMA loses at least the clocks the CPU held the bus: DMA_BUSY in the
 *     PERF_CTRL window exceeds the DMA's own byte clocks by at least
 *     256 x 4 (word reads) + 256 x 8 (word writes) bus clocks,
 * and every byte on both sides is right. The fast models must match the
 * reference models clock for clock here too (test/firmware-tpu.test.ts). */
#include "tpu_test.h"

enum { E_ID = 1, E_CPU_TIME, E_DMA_TIME, E_CPU_DATA, E_DMA_DATA, E_ERROR };

#define NW    256u
#define BIG   4096u

static uint32_t cpu_in_w[NW];
static uint32_t big_w[BIG / 4], back_w[BIG / 4];
static uint32_t s_cpu_in[NW] SRAM_BSS;
static uint32_t s_cpu_out[NW] SRAM_BSS;
static uint8_t s_src[BIG] SRAM_BSS;
static uint8_t s_dst[BIG] SRAM_BSS;

/* The measured loop: one SRAM word read and one SRAM word write per step. */
static __attribute__((noinline)) uint32_t cpu_loop(uint32_t salt)
{
	volatile uint32_t *in = s_cpu_in, *out = s_cpu_out;
	uint32_t sum = 0;
	for (unsigned i = 0; i < NW; i++) {
		uint32_t v = in[i];
		sum += v;
		out[i] = v ^ salt;
	}
	return sum;
}

int main(void)
{
	tt_start();
	tt_seed(0x5AA5F00Du);
	TT_CHECK(tpu_id() == TPU_ID_VALUE, E_ID, "ID = 0x%08lx", tpu_id());
	uint32_t want_sum = 0;
	for (unsigned i = 0; i < NW; i++) {
		cpu_in_w[i] = tt_rand();
		want_sum += cpu_in_w[i];
	}
	for (unsigned i = 0; i < BIG / 4; i++)
		big_w[i] = tt_rand();
	tt_to_sram(s_cpu_in, cpu_in_w, sizeof cpu_in_w);
	tt_to_sram(s_src, big_w, sizeof big_w);

	/* quiet */
	uint32_t t0 = rdcycle();
	uint32_t sum_quiet = cpu_loop(0x11111111u);
	uint32_t t_quiet = rdcycle() - t0;

	/* with the DMA moving 4 KiB in and 4 KiB out */
	tpu_perf_start();
	dma_load(tpu_sram_offset(s_src), 0x0000, 1, BIG, BIG, BIG);
	dma_store(tpu_sram_offset(s_dst), 0x0000, 1, BIG, BIG, BIG);
	t0 = rdcycle();
	uint32_t sum_busy = cpu_loop(0x22222222u);
	uint32_t t_busy = rdcycle() - t0;
	uint32_t dma_running = TPU_UNIT_STATUS_BUSY_GET(tpu_status(TPU_UNIT_DMA));
	tpu_drain(TPU_UNIT_DMA);
	tpu_perf_stop();
	uint32_t dma_busy = tpu_counter(TPU_REG_DMA_BUSY);

	const uint32_t dma_bytes_clocks = BIG * 1 + BIG * 2;
	const uint32_t cpu_bus_clocks = NW * 4 * 1 + NW * 4 * 2;
	TT_CHECK(t_busy == t_quiet, E_CPU_TIME, "CPU loop took %lu clocks with the DMA running, %lu without", t_busy, t_quiet);
	TT_CHECK(dma_running, E_DMA_TIME, "the DMA had finished before the CPU loop did");
	TT_CHECK(dma_busy >= dma_bytes_clocks + cpu_bus_clocks && dma_busy <= dma_bytes_clocks + 2 * cpu_bus_clocks + 64,
		 E_DMA_TIME, "DMA_BUSY %lu, want %lu + the CPU's %lu bus clocks (+ setup, + unfillable clocks)", dma_busy,
		 dma_bytes_clocks, cpu_bus_clocks);

	TT_CHECK(sum_quiet == want_sum && sum_busy == want_sum, E_CPU_DATA, "CPU sums 0x%08lx 0x%08lx, want 0x%08lx",
		 sum_quiet, sum_busy, want_sum);
	unsigned bad = 0;
	for (unsigned i = 0; i < NW; i++)
		bad += s_cpu_out[i] != (cpu_in_w[i] ^ 0x22222222u);
	TT_CHECK(bad == 0, E_CPU_DATA, "%u CPU-written words wrong", bad);
	tt_from_sram(back_w, s_dst, sizeof back_w);
	bad = 0;
	for (unsigned i = 0; i < BIG / 4; i++)
		bad += back_w[i] != big_w[i];
	TT_CHECK(bad == 0, E_DMA_DATA, "%u DMA round-trip words wrong", bad);
	tt_expect_no_error(E_ERROR, "end");

	printf("tpu_sram_share: CPU loop %lu clocks quiet and %lu beside the DMA; DMA_BUSY %lu (bytes %lu, CPU bus %lu)\n",
	       t_quiet, t_busy, dma_busy, dma_bytes_clocks, cpu_bus_clocks);
	return tt_finish("tpu_sram_share", "CPU priority on the SRAM bus, DMA delayed, data intact");
}
