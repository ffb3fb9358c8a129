/* link_errors: the link's bad input, one case per build of the run (the case
 * is the first console input byte on every board, as with tt_start):
 *   'd'  every board SENDs to board BOARD.COUNT, which does not exist:
 *        BAD_DEST on every board, the SEND dropped;
 *   'o'  every board SENDs two blocks to slot 0 of the next board, which
 *        releases nothing: the second landing is an OVERRUN there;
 *   'h'  every board but board 0 SENDs, and every board waits for a
 *        message: board 1 never gets one and waits until --max-cycles.
 * The program prints ERROR and exits 0: the test reads the run's report. */
#include "tpu_test.h"

#define ROW_BYTES 16u

int main(void)
{
	int mode = getchar();
	unsigned me = link_board(), n = link_boards();
	if (mode == 'd') {
		link_send(0x0, 1, ROW_BYTES, ROW_BYTES, 0x0, ROW_BYTES, n);
	} else if (mode == 'o') {
		link_send(0x0, 1, ROW_BYTES, ROW_BYTES, 0x0, ROW_BYTES, (me + 1u) % n);
		link_send(0x100, 1, ROW_BYTES, ROW_BYTES, 0x10, ROW_BYTES, (me + 1u) % n);
		link_wait_rx(2);
	} else if (mode == 'h') {
		if (me != 0) link_send(0x0, 1, ROW_BYTES, ROW_BYTES, 0x0, ROW_BYTES, (me + 1u) % n);
		link_wait_rx(1);
	}
	link_wait_sent();
	uint32_t e = tpu_error();
	printf("board %u: ERROR code %lu unit %lu serial %lu\n", me, TPU_REG_ERROR_CODE_GET(e), TPU_REG_ERROR_UNIT_GET(e), TPU_REG_ERROR_SERIAL_GET(e));
	return 0;
}
