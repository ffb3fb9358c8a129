/* tpu_deadlock: wait-token deadlocks, which the emulator must stop with a
 * "TPU deadlock" line and status 163 (docs/hardware.md §5.3), and a late
 * push that looks like one for a while but is not.
 *
 * The first input byte picks the scenario:
 *   'b'  beyond: DMA LOAD (1024 bytes), then an MXU MATMUL after DMA DONE 2,
 *        a ticket never issued; the CPU polls MXU DONE. Deadlocked from the
 *        clock after the LOAD ends.
 *   'c'  cycle: MXU MATMUL after VPU DONE 1, VPU COPY after MXU DONE 1 (and a
 *        second VPU command queued behind it); the CPU polls MXU DONE.
 *        Deadlocked from the clock after the VPU push.
 *   'f'  full: nine MXU MATMULs after DMA DONE 1, DMA never pushed: the ninth
 *        PUSH reaches a full queue that can never drain.
 *   else late (the default, and what the test suite runs to pass): an MXU
 *        MATMUL after DMA DONE 1; the CPU computes for a while, reads MXU DONE
 *        once (it is 0), computes again, then pushes the DMA LOAD and waits:
 *        a program that looks once and then pushes is not stopped. Exits 0.
 * The deadlocking scenarios never get to their summary line. */
#include "tpu_test.h"

#define SP_A 0x0000u   /* 8 x 4 B, K = 8 */
#define SP_B 0x1000u   /* 8 x 4 B */
#define SP_C 0x2000u   /* 8 x 32 B int32 */
#define SP_V 0x3000u   /* VPU destination */

static uint8_t s_in[8 * 128] SRAM_BSS;

static void push_load(void)
{
	dma_load(tpu_sram_offset(s_in), SP_A, 8, 128, 128, 128);
}

static uint32_t push_matmul(void)
{
	struct mxu_op m = {
		.a = SP_A, .b = SP_B, .c = SP_C, .a_stride = 4, .b_stride = 4, .c_stride = 32, .k = 8,
		.flags = TPU_MXU_FLAG_OUT_INT32,
	};
	return mxu_matmul(&m);
}

static uint32_t push_copy(void)
{
	struct vpu_op v = {
		.a = SP_C, .c = SP_V, .a_stride = 32, .c_stride = 32, .rows = 8, .cols = 8,
	};
	return vpu_copy(&v);
}

/* CPU work that touches no TPU register. */
static void spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++) { }
}

int main(void)
{
	int mode = getchar();
	switch (mode) {
	case 'b':
		push_load();
		tpu_after(TPU_UNIT_MXU, TPU_UNIT_DMA, 2);
		tpu_wait(TPU_UNIT_MXU, push_matmul());
		break;
	case 'c': {
		tpu_after(TPU_UNIT_MXU, TPU_UNIT_VPU, 1);
		uint32_t t = push_matmul();
		tpu_after(TPU_UNIT_VPU, TPU_UNIT_MXU, 1);
		push_copy();
		push_copy();
		tpu_wait(TPU_UNIT_MXU, t);
		break;
	}
	case 'f':
		for (unsigned i = 0; i < 9; i++) {
			tpu_after(TPU_UNIT_MXU, TPU_UNIT_DMA, 1);
			push_matmul();
		}
		break;
	default:
		break;
	}
	if (mode == 'b' || mode == 'c' || mode == 'f') {
		printf("tpu_deadlock: FAIL: scenario '%c' was not stopped\n", mode);
		return 1;
	}

	tpu_after(TPU_UNIT_MXU, TPU_UNIT_DMA, 1);
	uint32_t t = push_matmul();
	spin(2000);
	uint32_t early = tpu_done(TPU_UNIT_MXU);
	spin(2000);
	push_load();
	tpu_wait(TPU_UNIT_MXU, t);
	TT_CHECK(early == 0, 1, "MXU DONE was %lu before the DMA was pushed", early);
	TT_CHECK(tpu_done(TPU_UNIT_MXU) == 1, 2, "MXU DONE %lu", tpu_done(TPU_UNIT_MXU));
	tt_expect_no_error(3, "end");
	return tt_finish("tpu_deadlock", "a late push after one read is not a deadlock");
}
