/* Ring collectives over the LINK unit (docs/hardware.md §5.12) for the
 * tensor-parallel model (model/model_tp.c): the row-parallel matmul that
 * leaves an int32 partial in the scratchpad, and the AllReduce of that
 * partial fused with the residual, done the cheap exact way:
 *   reduce-scatter the int32 partials round the ring (N − 1 steps: send a
 *   running chunk to the next board, VPU ADD32 the chunk that arrived from
 *   the previous one straight from the mailbox into the own partial),
 *   requantize + residual + hardtanh the one chunk this board now holds the
 *   full sum of (elementwise: a chunk's result needs only its own sum),
 *   all-gather the int4 result (N − 1 steps, 8× fewer bytes than int32).
 * Chunk c is columns [c·d/N, (c+1)·d/N); board b sums chunk (b+1) mod N.
 *
 * Mailbox buffers. The link has no flow control: a SEND lands whenever it
 * lands, and a landing on a slot still full is an OVERRUN. Every board
 * sends and receives the same sequence of messages, so board b's k-th SEND
 * is board b+1's k-th arrival, and message k goes to buffer k mod N of the
 * mailbox (N buffers of ⌊32/N⌋ slots). Why that never overwrites unread data:
 * a board pushes its SEND k only after its arrival k−1 has landed and been
 * consumed and released (reduce-scatter: the ADD32 read it before the sum
 * is sent on; all-gather: a VPU COPY takes it out of the mailbox, the slots
 * are released, and the copy is what is forwarded). So b's SEND k comes
 * after b−1 pushed SEND k−1, after b−2 pushed SEND k−2, …, after b−(N−1) =
 * b+1 pushed SEND k−N+1, which b+1 did only after releasing its arrival
 * k−N: the buffer k mod N that b's message k lands in is free. With parity
 * (two buffers) the same chain proves it only for N = 2: for N > 2, b may
 * run up to N − 1 messages ahead of b+1 (b+1 slow), and message k would land
 * on message k−2, unread. Hence N buffers, which for N = 2 is parity.
 *
 * Scratchpad plan (the low 56 KiB: the top 8 KiB is the mailbox): the int32
 * partial of a row block in regions 0-1 (AR_P), its A rows in 5, B tiles in
 * 6, the x chunk in 2, the requantized chunk in 3, the gathered int4 rows in
 * 4. Every step waits for its command (the collectives are latency-bound
 * round trips; the CPU waits on the link anyway). */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU
#define LINK TPU_UNIT_LINK

#define AR_P SP(0)
#define AR_X SP(2)
#define AR_Y SP(3)
#define AR_G SP(4)
#define AR_A SP(5)
#define AR_B SP(6)
#define MAILBOX_SLOTS 32u
#define SLOT_BYTES 256u

static struct {
  uint32_t me, n, next;      /* this board, boards on the ring, the board it sends to */
  uint32_t d, cw;            /* width of x and of one chunk (d / n) */
  uint32_t buf_slots;        /* mailbox slots per buffer: ⌊32 / n⌋ */
  uint32_t buf_bytes;
  uint32_t send_buf, recv_buf; /* buffer of the next message sent / expected */
  uint32_t received;         /* messages consumed */
  uint32_t off32[8], off4[8]; /* byte offset of chunk c in an int32 row / an int4 row */
  uint32_t rows;             /* ring_row_block */
} R;

static void wait_unit(unsigned unit, uint32_t ticket) { tpu_wait(unit, ticket); }

uint32_t ring_begin(uint32_t d) {
  R.me = link_board();
  R.n = link_boards();
  R.next = R.me + 1 == R.n ? 0 : R.me + 1;
  R.d = d;
  uint32_t cw = 0, q = 0;
  while (q + R.n <= d) { q += R.n; cw++; } /* d / n by subtraction (RV32I has no divider) */
  R.cw = cw;
  uint32_t slots = 0;
  while ((slots + 1) * R.n <= MAILBOX_SLOTS) slots++;
  R.buf_slots = slots;
  R.buf_bytes = slots * SLOT_BYTES;
  for (uint32_t c = 0, o32 = 0, o4 = 0; c < R.n && c < 8; c++, o32 += 4 * cw, o4 += cw / 2) { R.off32[c] = o32; R.off4[c] = o4; }
  /* Rows per block: an int32 chunk of the block fills at most one mailbox
   * buffer, and the block's int32 rows (in whole 8-row groups) AR_P's two regions. */
  uint32_t rows = 0;
  while ((rows + 1) * 4 * cw <= R.buf_bytes && (rows + 1) * 4 * d <= 2 * SP_REGION) rows++;
  if (R.n == 1) { rows = 0; while ((rows + 1) * 4 * d <= 2 * SP_REGION) rows++; }
  R.rows = rows & ~(TILE - 1u);
  return R.rows;
}

uint32_t ring_board(void) { return R.me; }
uint32_t ring_boards(void) { return R.n; }

/* c mod n for c < 2n (RV32I has no divider). */
static uint32_t mod_n(uint32_t c) { return c >= R.n ? c - R.n : c; }

static uint32_t send_chunk(uint32_t spad, uint32_t rows, uint32_t row_bytes, uint32_t stride) {
  uint32_t t = link_send(spad, rows, row_bytes, stride, R.send_buf * R.buf_bytes, row_bytes, R.next);
  R.send_buf = R.send_buf + 1 == R.n ? 0 : R.send_buf + 1;
  return t;
}

/* Waits for the next arrival; its scratchpad address. */
static uint32_t arrival(void) {
  link_wait_rx(R.received + 1);
  return TPU_LINK_MAILBOX_BASE + R.recv_buf * R.buf_bytes;
}

/* The arrival has been read: its slots may take the message after next. */
static void release(void) {
  link_release(((1u << R.buf_slots) - 1u) << (R.recv_buf * R.buf_slots));
  R.received++;
  R.recv_buf = R.recv_buf + 1 == R.n ? 0 : R.recv_buf + 1;
}

void partial_matmul(uint32_t a, uint32_t a_stride, uint32_t rows, uint32_t k, uint32_t w, uint32_t w_stride) {
  uint32_t n = R.d, arow = k / 2, crow = 4 * n, a_group = arow << TILE_LOG2, c_group = crow << TILE_LOG2;
  tpu_drain_all();
  wait_unit(DMA, dma_load(a, AR_A, rows, arow, a_stride, arow));
  struct mxu_op m = { .b = AR_B, .a_stride = arow, .b_stride = TILE_ROW4, .c_stride = crow, .k = k, .flags = TPU_MXU_FLAG_OUT_INT32 };
  for (uint32_t col = 0, c = AR_P; col < n / 2; col += TILE_ROW4, c += TILE_ROW32) {
    wait_unit(DMA, dma_load(w + col, AR_B, k, TILE_ROW4, w_stride, TILE_ROW4));
    m.a = AR_A;
    m.c = c;
    for (uint32_t r = 0; r < rows; r += TILE, m.a += a_group, m.c += c_group) wait_unit(MXU, mxu_matmul(&m));
  }
}

/* Reduce-scatter of AR_P's `rows` rows: afterwards chunk (me+1) mod n of AR_P holds the sum over the boards. */
static void reduce_scatter(uint32_t rows) {
  uint32_t cb = 4 * R.cw;
  for (uint32_t s = 0; s + 1 < R.n; s++) {
    uint32_t send = mod_n(R.me + R.n - s), recv = mod_n(R.me + R.n - s - 1);
    uint32_t t = send_chunk(AR_P + R.off32[send], rows, cb, 4 * R.d);
    uint32_t box = arrival();
    wait_unit(LINK, t); /* the SEND holds AR_P's read ports, which the ADD32 needs */
    struct vpu_op v = { .a = box, .b = AR_P + R.off32[recv], .c = AR_P + R.off32[recv], .a_stride = cb, .b_stride = 4 * R.d,
                        .c_stride = 4 * R.d, .rows = rows, .cols = R.cw };
    wait_unit(VPU, vpu_add32(&v));
    release();
  }
}

/* All-gather of the int4 chunk (me+1) mod n of AR_G's rows to every board. */
static void all_gather(uint32_t rows) {
  uint32_t cb = R.cw / 2, rs = R.d / 2;
  for (uint32_t s = 0; s + 1 < R.n; s++) {
    uint32_t send = mod_n(mod_n(R.me + 1) + R.n - s), recv = mod_n(R.me + R.n - s);
    send_chunk(AR_G + R.off4[send], rows, cb, rs);
    uint32_t box = arrival();
    struct vpu_op v = { .a = box, .c = AR_G + R.off4[recv], .a_stride = cb, .c_stride = rs, .rows = rows, .cols = R.cw };
    wait_unit(VPU, vpu_copy(&v));
    release();
  }
}

void allreduce_residual(uint32_t x, uint32_t rows, uint32_t shift, uint32_t bound) {
  uint32_t own = mod_n(R.me + 1), cb = R.cw / 2, rs = R.d / 2;
  if (R.n > 1) reduce_scatter(rows);
  wait_unit(DMA, dma_load(x + R.off4[own], AR_X, rows, cb, rs, cb));
  struct vpu_op v = { .a = AR_P + R.off32[own], .c = AR_Y, .a_stride = 4 * R.d, .c_stride = cb, .rows = rows, .cols = R.cw, .param = shift };
  wait_unit(VPU, vpu_requant(&v));
  struct vpu_op add = { .a = AR_X, .b = AR_Y, .c = AR_G + R.off4[own], .a_stride = cb, .b_stride = cb, .c_stride = rs, .rows = rows, .cols = R.cw };
  wait_unit(VPU, vpu_add(&add));
  struct vpu_op ht = { .a = AR_G + R.off4[own], .c = AR_G + R.off4[own], .a_stride = rs, .c_stride = rs, .rows = rows, .cols = R.cw, .param = bound };
  wait_unit(VPU, vpu_hardtanh(&ht));
  if (R.n > 1) all_gather(rows);
  if (R.n > 1) link_wait_sent(); /* the SENDs have read AR_G and AR_P */
  wait_unit(DMA, dma_store(x, AR_G, rows, rs, rs, rs));
}
