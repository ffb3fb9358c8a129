/* The decode-shaped matmul (VARIANT_PANEL, kernels.h matmul_panel).
 *
 * With one row group (M ≤ TILE) a matmul is bound by loading its weights:
 * every B byte is used once by one MATMUL of K + 24 clocks per 4K bytes. The
 * tiled kernel (matmul.c) pays per 8-column tile a B load, a C store and
 * some 340 RV32I instructions of bookkeeping, about three times the DMA's
 * 514 clocks. Here B streams as panels of several tiles per DMA command
 * into a ring of scratchpad regions, the MXU writes every C tile into one
 * C row block in the scratchpad, the epilogue (ReLU or residual add +
 * hardtanh) runs once over the whole row block and C is stored once: per
 * tile the CPU only stages two words and pushes.
 *
 * Every dependency is one wait token (or, without TOKENS, one poll):
 *   chunk load into ring buffer b  after the MXU has read b's previous chunk
 *   MATMULs of a chunk             after its load (which follows the A and R
 *                                  loads in the DMA's order)
 *   epilogue                       after the last MATMUL
 *   C store                        after the epilogue (or the last MATMUL)
 * Nothing waits on an earlier kernel: every kernel ends with a DMA store that
 * follows all of its MXU and VPU work, and the DMA is in order. */
#include "kernels.h"

#define DMA TPU_UNIT_DMA
#define MXU TPU_UNIT_MXU
#define VPU TPU_UNIT_VPU

/* Scratchpad plan: A rows, the C row block, the residual rows, then a ring of
 * one-region B buffers. */
#define SP_PA SP(0)
#define SP_PC SP(1)
#define SP_PR SP(2)
#define SP_PB0 SP(3)
#define PANEL_BUFFERS (SP_KIB * 1024u / SP_REGION - 3u)
/* PANEL_AHEAD_BUFFER (matmul_panel_ahead's buffer: region 8, clear of
 * attention_decode's 0-7) and PANEL_CHUNK_BYTES (bytes of B per DMA command,
 * at most) are in kernel_constants.h, shared with the predictor. */

int matmul_panel_fits(const struct mm_args *p) {
  uint32_t crow = (p->flags & MM_OUT_INT32) ? 4 * p->n : p->n / 2;
  return (k_variant & VARIANT_PANEL) && p->m <= TILE && !(p->flags & (MM_TRANSPOSE | MM_CAUSAL))
    && TILE * crow <= SP_REGION && TILE * (p->k / 2) <= SP_REGION && p->k * TILE_ROW4 <= SP_REGION;
}

static uint32_t dma_rows(uint32_t op, uint32_t sram, uint32_t spad, uint32_t rows, uint32_t row_bytes,
                         uint32_t sram_stride, uint32_t spad_stride) {
  return k_issued(DMA, dma_2d(op, sram, spad, rows, row_bytes, sram_stride, spad_stride));
}

/* CHAIN: the ring buffer where the next call starts, and whether that call's
 * first chunk is already loaded (by the call before it). */
static uint32_t ring_start, chunk0_loaded;

/* Tiles per chunk of a K-deep B: the largest power of two within
 * PANEL_CHUNK_BYTES (by shifts: RV32I has no multiplier, a multiply is a
 * ~80-clock libgcc call). */
static uint32_t panel_chunk(uint32_t k) {
  uint32_t chunk = 1;
  for (uint32_t bytes = k * TILE_ROW4; 2 * bytes <= PANEL_CHUNK_BYTES; bytes <<= 1) chunk <<= 1;
  return chunk;
}

/* Loads the first chunk of `next` into ring buffer buf (clear of every
 * region another kernel's running commands use), for the matmul_panel call
 * that follows. */
static void panel_load_ahead(const struct mm_args *next, uint32_t buf) {
  uint32_t next_chunk = panel_chunk(next->k), next_tiles = next->n / TILE, nt = next_tiles < next_chunk ? next_tiles : next_chunk;
  k_issued(DMA, dma_2d(TPU_DMA_LOAD, next->b, SP_PB0 + (buf << 12), next->k, nt * TILE_ROW4, next->b_stride, next_chunk * TILE_ROW4));
  ring_start = buf;
  chunk0_loaded = 1;
}

void matmul_panel_ahead(const struct mm_args *next) {
  if (k_variant & VARIANT_CHAIN) panel_load_ahead(next, PANEL_AHEAD_BUFFER);
}

void matmul_panel(const struct mm_args *p, uint32_t keep_a, const struct mm_args *next) {
  uint32_t out32 = p->flags & MM_OUT_INT32;
  uint32_t arow = p->k / 2, crow = out32 ? 4 * p->n : p->n / 2, ctile = out32 ? TILE_ROW32 : TILE_ROW4;
  uint32_t chunk = panel_chunk(p->k), epi = p->epi, prefetched = chunk0_loaded;
  chunk0_loaded = 0;
  /* MXU ticket of the last MATMUL that read each ring buffer; an entry is
   * read only after this call has written it (on the stack, not in .bss, so
   * that the other programs' data layout is what it was). */
  uint32_t buffer_read[PANEL_BUFFERS];
  if (!keep_a) dma_rows(TPU_DMA_LOAD, p->a, SP_PA, p->m, arow, p->a_stride, arow);
  if (epi == EPI_RESIDUAL) dma_rows(TPU_DMA_LOAD, p->res, SP_PR, p->m, p->n / 2, p->res_stride, p->n / 2);

  uint32_t chunk_row = chunk * TILE_ROW4, tiles = p->n / TILE;
  /* The MATMULs' strides hold for the whole call. */
  tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, TPU_MXU_A_STRIDE(arow) | TPU_MXU_B_STRIDE(chunk_row));
  tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, TPU_MXU_C_STRIDE(crow) | TPU_MXU_SHIFT(p->shift));
  uint32_t m_flags = out32 ? TPU_MXU_FLAG_OUT_INT32 : 0;
  uint32_t sram = p->b, c_arg = SP_PC | TPU_MXU_K(p->k), last = 0;
  uint32_t buf = ring_start, spad = SP_PB0 + (ring_start << 12), rows_arg = TPU_DMA_ROWS(p->k);
  tpu_stage(DMA, TPU_DMA_ROW_BYTES_ARG, TPU_DMA_ROW_BYTES(chunk_row) | TPU_DMA_SPAD_STRIDE(chunk_row));
  tpu_stage(DMA, TPU_DMA_SRAM_STRIDE_ARG, TPU_DMA_SRAM_STRIDE(p->b_stride));
  uint32_t count = 0;
  for (uint32_t i = 0, j = 0; j < tiles; i++) {
    uint32_t nt = tiles - j < chunk ? tiles - j : chunk;
    uint32_t loaded;
    if (i == 0 && prefetched) {
      /* Loaded ahead of the previous call's C store: waiting for the DMA's
       * latest command (A, the residual, or that store) covers it and keeps
       * the MXU off the C rows until the store has read them. */
      loaded = tpu_pushed[DMA];
    } else {
      if (i >= PANEL_BUFFERS) k_need(DMA, MXU, buffer_read[buf]);
      if (nt != chunk) tpu_stage(DMA, TPU_DMA_ROW_BYTES_ARG, TPU_DMA_ROW_BYTES(nt * TILE_ROW4) | TPU_DMA_SPAD_STRIDE(chunk_row));
      tpu_stage(DMA, TPU_DMA_SRAM_ADDR_ARG, sram);
      tpu_stage(DMA, TPU_DMA_SPAD_ADDR_ARG, spad | rows_arg);
      loaded = k_issued(DMA, tpu_push(DMA, TPU_DMA_LOAD, 0));
    }
    sram += chunk_row;
    k_need(MXU, DMA, loaded);
    uint32_t ab = SP_PA | TPU_MXU_B_ADDR(spad);
    for (uint32_t t = 0; t < nt; t++, j++) {
      tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
      tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, c_arg);
      last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, m_flags));
      ab += TPU_MXU_B_ADDR(TILE_ROW4);
      c_arg += ctile;
      /* Keeps GCC from computing the loop's final values with a multiply. */
      __asm__("" : "+r"(c_arg), "+r"(j));
    }
    buffer_read[buf] = last;
    if (++buf == PANEL_BUFFERS) { buf = 0; spad = SP_PB0; }
    else spad += SP_REGION;
    count++;
  }

  uint32_t done = last, on = MXU;
  if (epi != EPI_NONE) {
    struct vpu_op v = {
      .a = SP_PC, .b = SP_PR, .c = SP_PC, .a_stride = crow, .b_stride = p->n / 2, .c_stride = crow,
      .rows = p->m, .cols = p->n, .param = 0,
    };
    k_need(VPU, MXU, last);
    if (epi == EPI_RESIDUAL) {
      k_issued(VPU, vpu_add(&v));
      v.param = p->bound;
      done = k_issued(VPU, vpu_hardtanh(&v));
    } else {
      done = k_issued(VPU, vpu_relu(&v));
    }
    on = VPU;
  }
  ring_start = 0;
  if (next && (k_variant & VARIANT_CHAIN)) {
    /* The next matmul's first chunk loads ahead of this C store, so the DMA
     * streams weights while the MXU and VPU finish this call. Its buffer is
     * the one after this call's last; reused if this call wrapped the ring. */
    if (count >= PANEL_BUFFERS) k_need(DMA, MXU, buffer_read[buf]);
    panel_load_ahead(next, buf);
  }
  k_need(DMA, on, done);
  dma_rows(TPU_DMA_STORE, p->c, SP_PC, p->m, crow, p->c_stride, crow);
}

/* ---- matmul_stream (VARIANT_STREAM, prefill) ----
 * The panel scheme for a block of up to 64 rows: B in the same chunks, every
 * chunk's tiles computed for every row group while the next chunks load, the
 * epilogue over the chunk's C columns, and those columns stored behind the
 * next chunk's load (so the DMA streams B while the MXU works, and only the
 * last chunk's epilogue and store are left when the MXU is done).
 * Plan: A in regions 0-3, a ring of four C chunk blocks in 4-7 (chunk i's C
 * in its own region, so that the MXU writing chunk i+1, the VPU on chunk i
 * and the DMA storing chunk i−1 never share a port), the residual in 8, a
 * ring of B buffers in 9-15. */
#define SS_A SP(0)
#define SS_C(i) SP(4 + ((i) & 3))
#define SS_R SP(8)
#define SS_B0 SP(9)
#define SS_BLOCK (4 * SP_REGION)
/* STREAM_BUFFERS (the B ring), STREAM_CHUNK_BYTES (bytes of B per chunk, at
 * most) and STREAM_AHEAD (chunks loaded ahead of the one the MXU works on) are
 * in kernel_constants.h, shared with the predictor. */

int matmul_stream_fits(const struct mm_args *p) {
  /* The chunk's C block: rows × (at most PANEL_CHUNK_BYTES / K tiles) of int4. */
  uint32_t rows = (p->m + (TILE - 1)) & ~(TILE - 1u), chunk = 1;
  for (uint32_t bytes = p->k * TILE_ROW4; 2 * bytes <= STREAM_CHUNK_BYTES; bytes <<= 1) chunk <<= 1;
  return (k_variant & VARIANT_STREAM) && SP_KIB == 64 && p->m <= STREAM_MAX_ROWS && !(p->flags & (MM_TRANSPOSE | MM_CAUSAL | MM_OUT_INT32))
    && rows * (p->k / 2) <= SS_BLOCK && rows * chunk * TILE_ROW4 <= SP_REGION && (p->epi != EPI_RESIDUAL || p->m * (p->n / 2) <= SP_REGION)
    && p->k * TILE_ROW4 <= SP_REGION;
}

/* The B chunk loads of one matmul_stream call, in order. */
struct stream_loads {
  uint32_t sram, tiles_left, buf, chunk, chunk_row, k, b_stride, count;
  uint32_t loaded[STREAM_BUFFERS];       /* DMA ticket of each buffer's chunk */
  uint32_t buffer_read[STREAM_BUFFERS];  /* MXU ticket of the last MATMUL reading each buffer */
};

static void stream_load(struct stream_loads *l) {
  uint32_t nt = l->tiles_left < l->chunk ? l->tiles_left : l->chunk;
  if (l->count >= STREAM_BUFFERS) k_need(DMA, MXU, l->buffer_read[l->buf]);
  l->loaded[l->buf] = dma_rows(TPU_DMA_LOAD, l->sram, SS_B0 + l->buf * SP_REGION, l->k, nt * TILE_ROW4, l->b_stride, l->chunk_row);
  l->sram += l->chunk_row;
  l->tiles_left -= nt;
  l->count++;
  if (++l->buf == STREAM_BUFFERS) l->buf = 0;
}

/* CHAIN: the ring buffer where the next call starts and how many of its
 * chunks the call before it loaded. */
static uint32_t stream_ring_start, stream_prefetched;

static void stream_init(struct stream_loads *l, const struct mm_args *p) {
  l->sram = p->b; l->tiles_left = p->n / TILE; l->chunk = 1; l->k = p->k; l->b_stride = p->b_stride;
  for (uint32_t bytes = p->k * TILE_ROW4; 2 * bytes <= STREAM_CHUNK_BYTES; bytes <<= 1) l->chunk <<= 1;
  l->chunk_row = l->chunk * TILE_ROW4;
}

/* The next call's first chunks, ahead of this call's last C store: ring
 * buffers after this call's, each reused only after this call's MXU has
 * read it. */
static void stream_prefetch(struct stream_loads *l, const struct mm_args *next) {
  struct stream_loads n;
  stream_init(&n, next);
  stream_ring_start = l->buf;
  for (stream_prefetched = 0; stream_prefetched < STREAM_AHEAD && n.tiles_left; stream_prefetched++) {
    uint32_t nt = n.tiles_left < n.chunk ? n.tiles_left : n.chunk;
    if (l->count >= STREAM_BUFFERS) k_need(DMA, MXU, l->buffer_read[l->buf]);
    dma_rows(TPU_DMA_LOAD, n.sram, SS_B0 + l->buf * SP_REGION, n.k, nt * TILE_ROW4, n.b_stride, n.chunk_row);
    n.sram += n.chunk_row;
    n.tiles_left -= nt;
    l->count++;
    if (++l->buf == STREAM_BUFFERS) l->buf = 0;
  }
}

void matmul_stream(const struct mm_args *p, uint32_t keep_a, const struct mm_args *next) {
  uint32_t arow = p->k / 2;
  struct stream_loads l;
  stream_init(&l, p);
  uint32_t work_buf = stream_ring_start, prefetched = stream_prefetched;
  l.buf = stream_ring_start;
  l.count = 0;
  stream_ring_start = stream_prefetched = 0;
  for (uint32_t i = 0; i < prefetched; i++) { /* loaded by the call before */
    l.tiles_left -= l.tiles_left < l.chunk ? l.tiles_left : l.chunk;
    l.sram += l.chunk_row;
    l.count++;
    if (++l.buf == STREAM_BUFFERS) l.buf = 0;
  }
  uint32_t epi = p->epi, groups = (p->m + (TILE - 1)) >> TILE_LOG2, crow = l.chunk_row;
  uint32_t a_group = arow << TILE_LOG2, c_group = crow << TILE_LOG2;
  if (!keep_a) dma_rows(TPU_DMA_LOAD, p->a, SS_A, p->m, arow, p->a_stride, arow);
  if (epi == EPI_RESIDUAL) dma_rows(TPU_DMA_LOAD, p->res, SS_R, p->m, p->n / 2, p->res_stride, p->n / 2);
  /* Prefetched chunks: the DMA's latest command (A, the residual or the
   * previous call's last store) follows them, and the MXU must not write the
   * C ring before that store has read it. */
  for (uint32_t i = 0, b = work_buf; i < prefetched; i++, b = b + 1 == STREAM_BUFFERS ? 0 : b + 1) l.loaded[b] = tpu_pushed[DMA];
  for (uint32_t i = prefetched; i < STREAM_AHEAD && l.tiles_left; i++) stream_load(&l);
  uint32_t next_loaded = !(next && (k_variant & VARIANT_CHAIN)); /* 1: nothing (more) to load ahead */
  uint32_t m_arg2 = TPU_MXU_A_STRIDE(arow) | TPU_MXU_B_STRIDE(l.chunk_row), m_arg3 = TPU_MXU_C_STRIDE(crow) | TPU_MXU_SHIFT(p->shift);
  uint32_t store_sram = p->c, res_col = 0, tiles = p->n / TILE;
  for (uint32_t i = 0, j = 0; j < tiles; i++) {
    uint32_t nt = tiles - j < l.chunk ? tiles - j : l.chunk;
    tpu_stage(MXU, TPU_MXU_A_STRIDE_ARG, m_arg2);
    tpu_stage(MXU, TPU_MXU_C_STRIDE_ARG, m_arg3);
    k_need(MXU, DMA, l.loaded[work_buf]);
    uint32_t b = SS_B0 + work_buf * SP_REGION, last = 0, c_tile = SS_C(i);
    for (uint32_t t = 0; t < nt; t++, j++, b += TILE_ROW4, c_tile += TILE_ROW4) {
      uint32_t ab = SS_A | TPU_MXU_B_ADDR(b), ck = c_tile | TPU_MXU_K(p->k);
      for (uint32_t g = 0; g < groups; g++) {
        tpu_stage(MXU, TPU_MXU_A_ADDR_ARG, ab);
        tpu_stage(MXU, TPU_MXU_C_ADDR_ARG, ck);
        last = k_issued(MXU, tpu_push(MXU, TPU_MXU_MATMUL, 0));
        ab += a_group;
        ck += c_group;
        /* Keeps GCC from computing the loops' final values with a multiply. */
        __asm__("" : "+r"(ab), "+r"(ck));
      }
      __asm__("" : "+r"(b), "+r"(c_tile), "+r"(j));
    }
    l.buffer_read[work_buf] = last;
    if (++work_buf == STREAM_BUFFERS) work_buf = 0;
    uint32_t done = last, on = MXU;
    if (epi != EPI_NONE) {
      struct vpu_op v = {
        .a = SS_C(i), .b = SS_R + res_col, .c = SS_C(i), .a_stride = crow, .b_stride = p->n / 2, .c_stride = crow,
        .rows = p->m, .cols = nt * TILE, .param = 0,
      };
      k_need(VPU, MXU, last);
      if (epi == EPI_RESIDUAL) {
        k_issued(VPU, vpu_add(&v));
        v.param = p->bound;
        done = k_issued(VPU, vpu_hardtanh(&v));
      } else {
        done = k_issued(VPU, vpu_relu(&v));
      }
      on = VPU;
    }
    /* The next chunk's load goes ahead of this chunk's store in the DMA's order. */
    if (l.tiles_left) stream_load(&l);
    else if (!next_loaded) { stream_prefetch(&l, next); next_loaded = 1; }
    uint32_t width = nt * TILE_ROW4;
    k_need(DMA, on, done);
    dma_rows(TPU_DMA_STORE, store_sram, SS_C(i), p->m, width, p->c_stride, crow);
    store_sram += width;
    res_col += width;
  }
}

/* FFN_ON_CHIP (stream_ffn.c): the chain state its last call (W2) leaves for
 * the matmul_stream call after it. */
void stream_chain_set(uint32_t ring, uint32_t prefetched) {
  stream_ring_start = ring;
  stream_prefetched = prefetched;
}

/* LONG_CONTEXT: takes back what stream_chain_set wrote, for a
 * matmul_stream_ffn call (the next row block's Wo) after STREAM_DOWN. */
void stream_chain_take(uint32_t *ring, uint32_t *prefetched) {
  *ring = stream_ring_start;
  *prefetched = stream_prefetched;
  stream_ring_start = stream_prefetched = 0;
}
