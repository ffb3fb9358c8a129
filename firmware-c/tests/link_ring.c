/* link_ring: the board-to-board link without the transformer (docs/hardware.md
 * §5.12). Run on N boards (`picotpu run --boards N`): every board loads a
 * 4 × 48-byte block of its own pattern into the scratchpad (rows 64 bytes
 * apart), SENDs it to the next board's mailbox at offset 0x100 (rows 64 bytes
 * apart: all in slot 1), waits for its own RX_COUNT to reach 1, and checks
 *   - BOARD: its index below the count,
 *   - RX_FULL: exactly slot 1 set, and clear after the release,
 *   - the bytes that landed: the previous board's pattern, row by row,
 *   - LINK DONE 1, no TPU error anywhere.
 * With one board the link is a loopback and the board receives its own block.
 * Exit 0 when every check passes, else the first failed check's code. */
#include "tpu_test.h"

enum { E_BOARD = 1, E_RX_FULL, E_DATA, E_RELEASE, E_ERROR };

#define ROWS        4u
#define ROW_BYTES   48u
#define SPAD_SRC    0x1000u
#define SPAD_STRIDE 64u
#define DST         0x100u   /* mailbox offset: slot 1 of 256-byte slots */
#define DST_STRIDE  64u
#define SLOT_BITS   (1u << 1)

static uint8_t s_out[ROWS * ROW_BYTES] SRAM_BSS;
static uint8_t s_in[ROWS * ROW_BYTES] SRAM_BSS;

static uint8_t pattern(unsigned board, unsigned i) { return (uint8_t)(board * 37u + i * 5u + 1u); }

int main(void)
{
	tt_start();
	unsigned me = link_board(), n = link_boards();
	TT_CHECK(n >= 1 && me < n, E_BOARD, "BOARD: index %u of %u", me, n);
	volatile uint8_t *out = s_out, *in = s_in;
	for (unsigned i = 0; i < ROWS * ROW_BYTES; i++) out[i] = pattern(me, i);
	tt_barrier();
	uint32_t loaded = dma_load(tpu_sram_offset(s_out), SPAD_SRC, ROWS, ROW_BYTES, ROW_BYTES, SPAD_STRIDE);
	link_after(TPU_UNIT_DMA, loaded); /* the SEND starts when the block is in the scratchpad */
	link_send(SPAD_SRC, ROWS, ROW_BYTES, SPAD_STRIDE, DST, DST_STRIDE, (me + 1u) % n);
	link_after(0, 0);
	link_wait_rx(1);
	uint32_t full = link_rx_full();
	TT_CHECK(full == SLOT_BITS, E_RX_FULL, "RX_FULL = 0x%08lx after one landing, want 0x%08x", full, SLOT_BITS);
	dma_store(tpu_sram_offset(s_in), TPU_LINK_MAILBOX_BASE + DST, ROWS, ROW_BYTES, ROW_BYTES, DST_STRIDE);
	tpu_drain(TPU_UNIT_DMA);
	tt_barrier();
	unsigned from = (me + n - 1u) % n, bad = 0;
	for (unsigned i = 0; i < ROWS * ROW_BYTES; i++) bad += in[i] != pattern(from, i);
	TT_CHECK(bad == 0, E_DATA, "%u of %u bytes from board %u differ", bad, ROWS * ROW_BYTES, from);
	link_release(SLOT_BITS);
	TT_CHECK(link_rx_full() == 0, E_RELEASE, "RX_FULL = 0x%08lx after the release", link_rx_full());
	link_wait_sent();
	tt_expect_no_error(E_ERROR, "after the ring");
	TT_CHECK(!TPU_UNIT_STATUS_ERROR_GET(tpu_status(TPU_UNIT_LINK)), E_ERROR, "LINK STATUS has the error bit");
	printf("board %u of %u: %u bytes from board %u, RX_COUNT %lu\n", me, n, ROWS * ROW_BYTES, from, link_rx_count());
	return tt_finish("link_ring", "one block around the ring");
}
