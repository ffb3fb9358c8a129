// The analytic performance model: from the platform's timing rules
// (docs/hardware.md §5.4–5.6) and the kernels' tiling (firmware-c/kernels),
// the busy clocks of each unit and a lower bound on run clocks, for any
// model configuration, job and kernel variant — on paper, without running
// anything. Tests hold its MXU and DMA figures to the emulator's.
//
// The lower bound of a kernel call is the busiest unit's clocks: units run
// in parallel at best, and a call cannot end before its busiest unit is done.
// A phase's bound is the sum over its kernel calls (each call starts from an
// empty pipeline, as the kernels' barriers make it).

import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { jobPrompts, VARIANT, type Job, type ModelDims } from '../format.ts';
import { chunkTiles, LONG_BLOCK_ROWS, PANEL_CHUNK_BYTES, RELU_BLOCKS_MAX, STREAM_CHUNK_BYTES, STREAM_MAX_ROWS } from '../firmware-facts.ts';
import { predictMatmulRun } from './issue-cost.ts';
import { predictModelRun } from './model-program.ts';

/** Busy clocks per unit, the lower bound on run clocks, and the bytes the DMA moves in (loads) and out (stores). */
export interface PhasePrediction {
  name: string; mxu: number; vpu: number; dma: number; lowerBound: number; bytesIn: number; bytesOut: number;
  /** Predicted run clocks of the window (model/predict/issue-cost.ts's schedule model); null where its programs do not cover the kernels yet. */
  runClocks?: number | null;
}
export interface Prediction extends PhasePrediction { phases: PhasePrediction[] }
export interface MatmulShape { m: number; k: number; n: number }

/** The scratchpad region in bytes (tpu.regionKiB), which the kernels' plan is built for (kernels.h SP_REGION: 4 KiB, the platform's). */
function regionFor(cfg: PlatformConfig): number {
  if (cfg.tpu.regionKiB === 4) return cfg.tpu.regionKiB * 1024;
  throw new Error(`the kernels have a scratchpad plan for 4 KiB regions, not ${cfg.tpu.regionKiB} KiB`);
}

/** The firmware's scratchpad plan (kernels.h): the A block and FlashAttention's blocks, in regions, by scratchpad size. */
interface Plan { aBytes: number; kvRegions: number; o32Regions: number }
function planFor(cfg: PlatformConfig, region: number): Plan {
  if (cfg.tpu.spadKiB === 64) return { aBytes: 8 * region, kvRegions: 2, o32Regions: 4 };
  if (cfg.tpu.spadKiB === 32) return { aBytes: 2 * region, kvRegions: 1, o32Regions: 2 };
  throw new Error(`the kernels have a scratchpad plan for 64 or 32 KiB, not ${cfg.tpu.spadKiB}`);
}

/** The MXU tile edge D the kernels are built for (kernels.h TILE = tpu.h TPU_MXU_DIM; hardware.md §5.5). */
function tileFor(cfg: PlatformConfig): number {
  if (cfg.tpu.mxuDim === 8 || cfg.tpu.mxuDim === 16) return cfg.tpu.mxuDim;
  throw new Error(`the kernels are built for an MXU of 8 or 16, not ${cfg.tpu.mxuDim}`);
}

/** n rounded up to a multiple of the tile edge D. */
const ceilTo = (n: number, D: number) => Math.ceil(n / D) * D;

enum Epi { None, Relu, Residual, MaskRelu }

/** Tiles per panel chunk (K × D/2-byte tiles in PANEL_CHUNK_BYTES, the most B bytes one panel load moves), or per stream chunk with STREAM_CHUNK_BYTES. */
const panelChunk = (k: number, D: number, limit: number = PANEL_CHUNK_BYTES) => chunkTiles(k, limit, D / 2);

interface MatmulCall {
  m: number; k: number; n: number;
  transpose?: boolean; out32?: boolean; causal?: boolean;
  epi?: Epi; row0?: number;
}

/** Busy clocks of one kernel call, per unit. */
class Work {
  mxu = 0; vpu = 0; dma = 0; bytesIn = 0; bytesOut = 0;
  /** Bytes of B-operand tiles loaded by matmuls over weights, and the DMA clocks of those loads. */
  weightBytes = 0; weightDma = 0;
  constructor(private readonly cfg: PlatformConfig) {}
  load(rows: number, rowBytes: number): void { this.bytesIn += rows * rowBytes; this.dma += this.cfg.tpu.dmaSetup + rows * rowBytes * this.cfg.bus.sramReadClocksPerByte; }
  store(rows: number, rowBytes: number): void { this.bytesOut += rows * rowBytes; this.dma += this.cfg.tpu.dmaSetup + rows * rowBytes * this.cfg.bus.sramWriteClocksPerByte; }
  /** One MATMUL on the D×D array: setup, preload (ACCUMULATE), K stream clocks, skew, write-back. */
  matmul(k: number, accumulate = false): void {
    const D = this.cfg.tpu.mxuDim;
    this.mxu += this.cfg.tpu.mxuSetup + (accumulate ? D : 0) + k + 2 * (D - 1) + D;
  }
  vector(rows: number, cols: number): void { this.vpu += this.cfg.tpu.vpuSetup + rows * Math.ceil(cols / 8); }
}

/** Sums kernel calls into a phase. */
class Phase {
  mxu = 0; vpu = 0; dma = 0; lowerBound = 0; bytesIn = 0; bytesOut = 0; weightBytes = 0; weightDma = 0;
  constructor(readonly name: string, private readonly cfg: PlatformConfig) {}
  call(fill: (w: Work) => void): void {
    const w = new Work(this.cfg);
    fill(w);
    this.mxu += w.mxu; this.vpu += w.vpu; this.dma += w.dma; this.bytesIn += w.bytesIn; this.bytesOut += w.bytesOut;
    this.weightBytes += w.weightBytes; this.weightDma += w.weightDma;
    this.lowerBound += Math.max(w.mxu, w.vpu, w.dma);
  }
  result(): PhasePrediction {
    return { name: this.name, mxu: this.mxu, vpu: this.vpu, dma: this.dma, lowerBound: this.lowerBound, bytesIn: this.bytesIn, bytesOut: this.bytesOut };
  }
}

class Kernels {
  private readonly plan: Plan;
  /** The scratchpad region in bytes: each operand of a command in its own. */
  private readonly region: number;
  /** The MXU tile edge: D×D output tiles, row groups of D, K in multiples of D. */
  readonly D: number;
  constructor(private readonly variant: number, private readonly cfg: PlatformConfig = defaultConfig()) {
    this.region = regionFor(cfg);
    this.plan = planFor(cfg, this.region);
    this.D = tileFor(cfg);
  }
  /** kernels.h k_fuses: epilogues go into the tiles of blocks with a full row group. */
  fuses(rows: number): boolean { return (this.variant & VARIANT.FUSED) !== 0 && rows >= this.D; }

  /** kernels/matmul.c: A blocks, D-column B tiles, causal tiles skipped; `weights`: B is a weight matrix (counted in weightBytes). */
  matmul(w: Work, c: MatmulCall, weights = false): void {
    const D = this.D, row4 = D / 2;
    const arow = c.k / 2, crow = c.out32 ? 4 * D : row4, row0 = c.row0 ?? 0;
    const epi = this.fuses(c.m) ? (c.epi ?? Epi.None) : Epi.None;
    const causalCols = !!(c.causal && c.transpose), causalK = !!(c.causal && !c.transpose);
    let block = Math.min(Math.floor(this.plan.aBytes / arow), Math.floor(this.region / crow)) & ~(D - 1);
    block = Math.min(block, ceilTo(c.m, D));
    for (let r0 = 0; r0 < c.m; r0 += block) {
      const rows = Math.min(block, c.m - r0), groups = Math.ceil(rows / D);
      const groupLast = (g: number) => row0 + r0 + Math.min(D * g + D - 1, rows - 1);
      let tiles = c.n / D;
      if (causalCols) tiles = Math.min(tiles, Math.floor(groupLast(groups - 1) / D) + 1);
      w.load(rows, arow);
      for (let j = 0; j < tiles; j++) {
        const base = row0 + r0;
        const g0 = causalCols && D * j > base ? Math.floor((D * j - base) / D) : 0;
        if (c.transpose) w.load(D, arow); else w.load(c.k, row4);
        if (weights) {
          const bytes = c.transpose ? D * arow : row4 * c.k;
          w.weightBytes += bytes;
          w.weightDma += this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramReadClocksPerByte;
        }
        if (epi === Epi.Residual) w.load(rows, row4);
        for (let g = g0; g < groups; g++) w.matmul(causalK ? Math.min(c.k, ceilTo(groupLast(g) + 1, D)) : c.k);
        const vr = rows - D * g0;
        if (epi === Epi.Relu) w.vector(vr, D);
        else if (epi !== Epi.None) { w.vector(vr, D); w.vector(vr, D); }
        w.store(vr, crow);
      }
    }
  }

  /** kernels/panel.c matmul_panel_fits: PANEL, one row group, plain (not transposed, not causal), C's row block, A's and one B tile's rows each in a region. */
  panelFits(c: MatmulCall): boolean {
    const D = this.D, crow = c.out32 ? 4 * c.n : c.n / 2;
    return (this.variant & VARIANT.PANEL) !== 0 && c.m <= D && !c.transpose && !c.causal
      && D * crow <= this.region && D * (c.k / 2) <= this.region && c.k * (D / 2) <= this.region;
  }

  /** kernels/panel.c matmul_panel: A (unless kept) and residual rows, B in chunks of up to PANEL_CHUNK_BYTES, every tile one MATMUL, the epilogue once over the row block, one C store. */
  panel(w: Work, c: MatmulCall, keepA = false, weights = false): void {
    const D = this.D, row4 = D / 2, tiles = c.n / D, chunk = panelChunk(c.k, D);
    if (!keepA) w.load(c.m, c.k / 2);
    if (c.epi === Epi.Residual) w.load(c.m, c.n / 2);
    for (let j = 0; j < tiles; j += chunk) {
      const bytes = c.k * Math.min(chunk, tiles - j) * row4;
      w.load(c.k, Math.min(chunk, tiles - j) * row4);
      if (weights) { w.weightBytes += bytes; w.weightDma += this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramReadClocksPerByte; }
    }
    for (let j = 0; j < tiles; j++) w.matmul(c.k);
    if (c.epi === Epi.Relu) w.vector(c.m, c.n);
    else if (c.epi === Epi.Residual) { w.vector(c.m, c.n); w.vector(c.m, c.n); }
    w.store(c.m, c.out32 ? 4 * c.n : c.n / 2);
  }

  /** kernels/attention.c attention_decode_fits (model.c asks it once, for max_seq keys): HEADS, the 64 KiB plan, every key in two regions, P and the output rows in one. */
  decodeAttentionFits(maxSeq: number, d: number): boolean {
    const ctx = ceilTo(maxSeq, this.D);
    return (this.variant & VARIANT.HEADS) !== 0 && this.cfg.tpu.spadKiB === 64
      && ctx * (d / 2) <= 2 * this.region && this.D * (ctx / 2) <= this.region && this.D * (d / 2) <= this.region;
  }

  /** kernels/attention.c attention_decode: Q, all keys, each head's values; per head scores, mask + ReLU on one row, P·V; one output store. */
  decodeAttention(w: Work, pos: number, d: number, heads: number): void {
    const D = this.D, dh = d / heads, keys = pos + 1, ctx = ceilTo(keys, D);
    w.load(1, d / 2);
    w.load(keys, d / 2);
    for (let h = 0; h < heads; h++) {
      w.load(keys, dh / 2);
      for (let t = 0; t < ctx / D; t++) w.matmul(dh);
      w.vector(1, ctx); w.vector(1, ctx);
      for (let t = 0; t < dh / D; t++) w.matmul(ctx);
    }
    w.store(1, d / 2);
  }

  /** kernels/panel.c matmul_stream_fits: STREAM, the 64 KiB plan, up to 64 rows of int4 output, A in four regions, a chunk's C block and the residual rows in one. */
  streamFits(c: MatmulCall): boolean {
    const D = this.D, rows = ceilTo(c.m, D);
    return (this.variant & VARIANT.STREAM) !== 0 && this.cfg.tpu.spadKiB === 64 && c.m <= STREAM_MAX_ROWS && !c.transpose && !c.causal && !c.out32
      && rows * (c.k / 2) <= 4 * this.region && rows * panelChunk(c.k, D, STREAM_CHUNK_BYTES) * (D / 2) <= this.region
      && (c.epi !== Epi.Residual || c.m * (c.n / 2) <= this.region) && c.k * (D / 2) <= this.region;
  }

  /** kernels/panel.c matmul_stream_up_fits: FFN_ON_CHIP's W1, its A in one region and its whole C block in the four of the A block. */
  streamUpFits(c: MatmulCall): boolean {
    return (this.variant & VARIANT.FFN_ON_CHIP) !== 0 && this.streamFits(c) && c.epi === Epi.Relu && c.m * (c.k / 2) <= this.region && c.m * (c.n / 2) <= 4 * this.region;
  }

  /** kernels/panel.c matmul_stream: A (unless kept) and residual rows; per chunk its B load, the MATMULs of every row group, the epilogue on its columns and its C store.
   * `on`: FFN_ON_CHIP's opts — 'resOut' (Wo: its output rows left in the scratchpad, no stores), 'up' (W1: A kept, no epilogue or store per chunk, one ReLU over the block at the end),
   * 'down' (W2: A and the residual rows already in the scratchpad). */
  stream(w: Work, c: MatmulCall, keepA = false, on?: 'resOut' | 'up' | 'down'): void {
    const D = this.D, row4 = D / 2, tiles = c.n / D, chunk = panelChunk(c.k, D, STREAM_CHUNK_BYTES), groups = Math.ceil(c.m / D);
    if (!keepA && on !== 'down' && on !== 'up') w.load(c.m, c.k / 2);
    if (c.epi === Epi.Residual && on !== 'down') w.load(c.m, c.n / 2);
    for (let j = 0; j < tiles; j += chunk) {
      const nt = Math.min(chunk, tiles - j);
      w.load(c.k, nt * row4);
      for (let t = 0; t < nt * groups; t++) w.matmul(c.k);
      if (on === 'up') continue;
      if (c.epi === Epi.Relu) w.vector(c.m, nt * D);
      else if (c.epi === Epi.Residual) { w.vector(c.m, nt * D); w.vector(c.m, nt * D); }
      if (on !== 'resOut') w.store(c.m, nt * row4);
    }
    if (on === 'up') {
      // One ReLU per block of rows (D << log2 rows, at most a region's and RELU_BLOCKS_MAX blocks; stream_ffn.c's stream_relu).
      let log2 = 0;
      while ((c.n / 2) * (D << (log2 + 1)) <= this.region && (1 << (log2 + 1)) <= RELU_BLOCKS_MAX) log2++;
      for (let r = 0; r < c.m; r += D << log2) w.vector(Math.min(D << log2, c.m - r), c.n);
    }
  }

  /** kernels/attention.c attention_block_fits: BLOCK_ATTN, the 64 KiB plan, Q, K, V and a head's P block each in a region. */
  blockAttentionFits(d: number, rows: number): boolean {
    const ctx = ceilTo(rows, this.D);
    return (this.variant & VARIANT.BLOCK_ATTN) !== 0 && this.cfg.tpu.spadKiB === 64 && ctx * (d / 2) <= this.region && ctx * (ctx / 2) <= this.region;
  }

  /** kernels/attention.c attention_block: Q, K, V whole; per head the causal score tiles, mask + ReLU over its P block, P·V per row group over its keys, its output columns stored. */
  blockAttention(w: Work, rows: number, d: number, heads: number): void {
    const D = this.D, dh = d / heads, ctx = ceilTo(rows, D), groups = ctx / D;
    for (let i = 0; i < 3; i++) w.load(rows, d / 2);
    for (let h = 0; h < heads; h++) {
      for (let g = 0; g < groups; g++) for (let t = 0; t <= g; t++) w.matmul(dh);
      w.vector(rows, ctx); w.vector(rows, ctx);
      for (let g = 0; g < groups; g++) for (let t = 0; t < dh / D; t++) w.matmul(D * (g + 1));
      w.store(rows, dh / 2);
    }
  }

  /** kernels/long.c query_block: query rows per block, the largest multiple of D whose Q rows fit a region and whose P block against all ctx keys fits two. */
  longQueryBlock(d: number, ctx: number): number {
    let qb = 0;
    while (qb + this.D <= ctx && (qb + this.D) * (d / 2) <= this.region && (qb + this.D) * (ctx / 2) <= 2 * this.region) qb += this.D;
    return qb;
  }

  /** kernels/long.c attention_long_fits: LONG_CONTEXT with TOKENS, the 64 KiB plan, K and V in four regions each, at least one row group per query block. */
  longAttentionFits(d: number, rows: number): boolean {
    const ctx = ceilTo(rows, this.D);
    return (this.variant & VARIANT.LONG_CONTEXT) !== 0 && (this.variant & VARIANT.TOKENS) !== 0 && this.cfg.tpu.spadKiB === 64 && ctx * (d / 2) <= 4 * this.region && this.longQueryBlock(d, ctx) >= this.D;
  }

  /** kernels/long.c attention_long: per query block its Q, K and V rows; per block and head the causal score tiles, mask + ReLU over the block's keys, P·V per row group over its keys, the head's output columns stored. */
  longAttention(w: Work, rows: number, d: number, heads: number): void {
    const D = this.D, dh = d / heads, qb = this.longQueryBlock(d, ceilTo(rows, D));
    for (let q0 = 0; q0 < rows; q0 += qb) {
      const mq = Math.min(qb, rows - q0), keys = ceilTo(q0 + mq, D), groups = Math.ceil(mq / D), gFirst = q0 / D;
      for (let i = 0; i < 3; i++) w.load(mq, d / 2);
      for (let h = 0; h < heads; h++) {
        for (let g = 0; g < groups; g++) for (let t = 0; t <= gFirst + g; t++) w.matmul(dh);
        w.vector(mq, keys); w.vector(mq, keys);
        for (let g = 0; g < groups; g++) for (let t = 0; t < dh / D; t++) w.matmul(D * (gFirst + g + 1));
        w.store(mq, dh / 2);
      }
    }
  }

  /** kernels/elementwise.c: chunks of rows through one region per operand. */
  elementwise(w: Work, rows: number, cols: number, inputs: number, ops: number): void {
    const rb = cols / 2, chunk = Math.floor(this.region / rb);
    for (let r = 0; r < rows; r += chunk) {
      const n = Math.min(chunk, rows - r);
      for (let i = 0; i < inputs; i++) w.load(n, rb);
      for (let i = 0; i < ops; i++) w.vector(n, cols);
      w.store(n, rb);
    }
  }

  embed(w: Work, rows: number, d: number): void {
    const rb = d / 2, chunk = Math.floor(this.region / rb);
    for (let r = 0; r < rows; r += chunk) {
      const n = Math.min(chunk, rows - r);
      for (let i = 0; i < n; i++) w.load(1, rb);
      w.load(n, rb);
      w.vector(n, d);
      w.store(n, rb);
    }
  }

  /** kernels/attention.c, FlashAttention: Q blocks, key blocks, P in the scratchpad. */
  flash(w: Work, rows: number, row0: number, d: number, heads: number): void {
    const D = this.D;
    const dh = d / heads, hb = dh / 2, ctx = ceilTo(row0 + rows, D);
    const bq = Math.min(Math.floor(this.region / hb), Math.floor((this.plan.o32Regions * this.region) / (dh * 4)), ceilTo(rows, D)) & ~(D - 1);
    const bk = Math.min(Math.floor((this.plan.kvRegions * this.region) / hb), 2 * this.region, ctx) & ~(D - 1);
    for (let h = 0; h < heads; h++) {
      for (let q0 = 0; q0 < rows; q0 += bq) {
        const mq = Math.min(bq, rows - q0), groups = Math.ceil(mq / D);
        const groupLast = (g: number) => row0 + q0 + Math.min(D * g + D - 1, mq - 1);
        w.load(mq, hb);
        const last = groupLast(groups - 1);
        for (let kv0 = 0; kv0 <= last; kv0 += bk) {
          const nk = Math.min(bk, last + 1 - kv0);
          w.load(nk, hb); w.load(nk, hb);
          for (let g = 0; g < groups; g++) {
            const gl = groupLast(g);
            if (kv0 > gl) continue;
            const n = Math.min(Math.floor((gl + D - kv0) / D), bk / D);
            for (let c = 0; c < n; c++) w.matmul(dh);
            w.vector(D, D * n); w.vector(D, D * n);
            for (let c = 0; c < dh / D; c++) w.matmul(D * n, kv0 > 0);
          }
        }
        w.vector(mq, dh);
        w.store(mq, hb);
      }
    }
  }
}

/**
 * One layer as model.c's layer_forward issues it: the Q, K, V projections,
 * Wo, W1 and W2 over `rows` rows together (their epilogues fused or as
 * passes by k_fuses(rows)), and attention once per sequence — `sequences`
 * calls of `attnRows` query rows at positions attnRow0.. against that
 * sequence's cache. Prefill: rows = attnRows = P, one sequence at row 0;
 * a decode step of B sequences: rows = B, B calls of one row at pos.
 * `batched` gets the calls over the rows together, `perSequence` the
 * attention calls.
 */
interface LayerShape { rows: number; sequences: number; attnRows: number; attnRow0: number }
function layerCalls(batched: Phase, perSequence: Phase, k: Kernels, dims: ModelDims, at: LayerShape, variant: number): void {
  const { d, dFF, heads } = dims;
  const { rows, attnRows, attnRow0: row0 } = at;
  const dh = d / heads, ctx = ceilTo(row0 + attnRows, k.D);
  for (let i = 0; i < 3; i++) batched.call((w) => k.matmul(w, { m: rows, k: d, n: d }, true));
  for (let s = 0; s < at.sequences; s++) {
    if (variant & VARIANT.FLASH) {
      perSequence.call((w) => k.flash(w, attnRows, row0, d, heads));
      continue;
    }
    for (let h = 0; h < heads; h++) {
      perSequence.call((w) => k.matmul(w, { m: attnRows, k: dh, n: ctx, transpose: true, causal: true, epi: Epi.MaskRelu, row0 }));
      if (!k.fuses(attnRows)) perSequence.call((w) => k.elementwise(w, attnRows, ctx, 1, 2));
      perSequence.call((w) => k.matmul(w, { m: attnRows, k: ctx, n: dh, causal: true, row0 }));
    }
  }
  const residual = (kIn: number) => {
    batched.call((w) => k.matmul(w, { m: rows, k: kIn, n: d, epi: Epi.Residual }, true));
    if (!k.fuses(rows)) batched.call((w) => k.elementwise(w, rows, d, 2, 2));
  };
  residual(d);
  batched.call((w) => k.matmul(w, { m: rows, k: d, n: dFF, epi: Epi.Relu }, true));
  if (!k.fuses(rows)) batched.call((w) => k.elementwise(w, rows, dFF, 1, 1));
  residual(dFF);
}

/** A prompt's forward pass: embedding, the layers, the output head on the last row. */
function forwardCalls(p: Phase, k: Kernels, dims: ModelDims, rows: number, variant: number, single = false): void {
  if (single && (variant & VARIANT.PANEL) !== 0) {
    // model.c main_panel_or_ffn: LONG_CONTEXT's flow when it fits, else FFN_ON_CHIP's (in streamPrefill) or main_panel's.
    if (longPrefills(k, dims, rows)) { longPrefill(p, k, dims, rows); return; }
    if (streamPrefills(k, dims, rows)) { streamPrefill(p, k, dims, rows, variant); return; }
  }
  p.call((w) => k.embed(w, rows, dims.d));
  for (let l = 0; l < dims.layers; l++) layerCalls(p, p, k, dims, { rows, sequences: 1, attnRows: rows, attnRow0: 0 }, variant);
  p.call((w) => k.matmul(w, { m: 1, k: dims.d, n: dims.vocab, out32: true }));
}

/**
 * One decode step at position pos for B sequences, as model.c issues it
 * (B = 1: forward with one row; B > 1: batch_decode_layers): the embedding
 * of each sequence's token, the layers (weight matmuls over the B rows,
 * attention per sequence), the output head over the B rows.
 */
function decodeStepCalls(batched: Phase, perSequence: Phase, k: Kernels, dims: ModelDims, B: number, pos: number, variant: number): void {
  if (B === 1 && panelDecodes(k, dims)) { panelDecodeStep(batched, k, dims, pos, variant); return; }
  for (let s = 0; s < B; s++) perSequence.call((w) => k.embed(w, 1, dims.d));
  for (let l = 0; l < dims.layers; l++) layerCalls(batched, perSequence, k, dims, { rows: B, sequences: B, attnRows: 1, attnRow0: pos }, variant);
  batched.call((w) => k.matmul(w, { m: B, k: dims.d, n: dims.vocab, out32: true }, true));
}

/** model.c decodes_by_panels: PANEL, and every weight matmul of a decode step takes matmul_panel. */
function panelDecodes(k: Kernels, dims: ModelDims): boolean {
  const { d, dFF } = dims;
  return k.panelFits({ m: 1, k: d, n: d }) && k.panelFits({ m: 1, k: d, n: dFF }) && k.panelFits({ m: 1, k: dFF, n: d });
}

/** model.c prefills_by_streams (asked in main_panel: a single job with PANEL): every weight matmul of the prefill takes matmul_stream. */
function streamPrefills(k: Kernels, dims: ModelDims, P: number): boolean {
  const { d, dFF } = dims;
  return k.streamFits({ m: P, k: d, n: d, epi: Epi.Residual }) && k.streamFits({ m: P, k: d, n: dFF, epi: Epi.Relu })
    && k.streamFits({ m: P, k: dFF, n: d, epi: Epi.Residual });
}

/** The prefill as model.c's stream_forward issues it: the embedding; per layer Q, K, V by matmul_stream (A loaded once), attention as layerCalls has it, Wo and W2 with the residual fused, W1 with ReLU; the head by matmul_panel when it fits. */
function streamPrefill(p: Phase, k: Kernels, dims: ModelDims, P: number, variant: number): void {
  const { d, dFF, heads } = dims;
  p.call((w) => k.embed(w, P, d));
  for (let l = 0; l < dims.layers; l++) {
    for (let i = 0; i < 3; i++) p.call((w) => k.stream(w, { m: P, k: d, n: d }, i > 0));
    if (k.blockAttentionFits(d, P)) p.call((w) => k.blockAttention(w, P, d, heads));
    else if (variant & VARIANT.FLASH) p.call((w) => k.flash(w, P, 0, d, heads));
    else {
      const dh = d / heads, ctx = ceilTo(P, k.D);
      for (let h = 0; h < heads; h++) {
        p.call((w) => k.matmul(w, { m: P, k: dh, n: ctx, transpose: true, causal: true, epi: Epi.MaskRelu, row0: 0 }));
        if (!k.fuses(P)) p.call((w) => k.elementwise(w, P, ctx, 1, 2));
        p.call((w) => k.matmul(w, { m: P, k: ctx, n: dh, causal: true, row0: 0 }));
      }
    }
    // FFN_ON_CHIP: Wo's output rows stay in the scratchpad as W1's A and W2's residual, W1's ReLU'd rows as W2's A.
    const onChip = k.streamUpFits({ m: P, k: d, n: dFF, epi: Epi.Relu });
    p.call((w) => k.stream(w, { m: P, k: d, n: d, epi: Epi.Residual }, false, onChip ? 'resOut' : undefined));
    p.call((w) => k.stream(w, { m: P, k: d, n: dFF, epi: Epi.Relu }, false, onChip ? 'up' : undefined));
    p.call((w) => k.stream(w, { m: P, k: dFF, n: d, epi: Epi.Residual }, false, onChip ? 'down' : undefined));
  }
  const head: MatmulCall = { m: 1, k: d, n: dims.vocab, out32: true };
  p.call((w) => (k.panelFits(head) ? k.panel(w, head) : k.matmul(w, head)));
}

/** model.c long_prefill_fits: a block of LONG_BLOCK_ROWS rows takes the FFN-on-chip matmuls, and attention_long holds the prompt. */
function longPrefills(k: Kernels, dims: ModelDims, P: number): boolean {
  const { d, dFF } = dims, R = LONG_BLOCK_ROWS;
  return k.streamFits({ m: R, k: d, n: d, epi: Epi.Residual }) && k.streamFits({ m: R, k: d, n: dFF, epi: Epi.Relu })
    && k.streamFits({ m: R, k: dFF, n: d, epi: Epi.Residual }) && k.streamUpFits({ m: R, k: d, n: dFF, epi: Epi.Relu })
    && k.longAttentionFits(d, P);
}

/** The prefill as model.c's stream_forward_long issues it: the embedding; per layer Q, K and V by matmul_stream block by block of rows (A loaded once a block), attention_long, then Wo, W1 and W2 with the FFN on chip block by block; the head by matmul_panel when it fits. */
function longPrefill(p: Phase, k: Kernels, dims: ModelDims, P: number): void {
  const { d, dFF, heads } = dims;
  const blocks: number[] = [];
  for (let r0 = 0; r0 < P; r0 += LONG_BLOCK_ROWS) blocks.push(Math.min(LONG_BLOCK_ROWS, P - r0));
  p.call((w) => k.embed(w, P, d));
  for (let l = 0; l < dims.layers; l++) {
    for (const m of blocks) for (let i = 0; i < 3; i++) p.call((w) => k.stream(w, { m, k: d, n: d }, i > 0));
    p.call((w) => k.longAttention(w, P, d, heads));
    for (const m of blocks) {
      p.call((w) => k.stream(w, { m, k: d, n: d, epi: Epi.Residual }, false, 'resOut'));
      p.call((w) => k.stream(w, { m, k: d, n: dFF, epi: Epi.Relu }, false, 'up'));
      p.call((w) => k.stream(w, { m, k: dFF, n: d, epi: Epi.Residual }, false, 'down'));
    }
  }
  const head: MatmulCall = { m: 1, k: d, n: dims.vocab, out32: true };
  p.call((w) => (k.panelFits(head) ? k.panel(w, head) : k.matmul(w, head)));
}

/**
 * One single-sequence decode step as model.c's panel_forward issues it: the
 * embedding; per layer Q, K and V by matmul_panel (A loaded once), attention
 * (the variant's kernel), Wo and W2 with the residual fused, W1 with ReLU
 * fused; the output head by matmul_panel when it fits.
 */
function panelDecodeStep(p: Phase, k: Kernels, dims: ModelDims, pos: number, variant: number): void {
  const { d, dFF, heads } = dims;
  p.call((w) => k.embed(w, 1, d));
  for (let l = 0; l < dims.layers; l++) {
    for (let i = 0; i < 3; i++) p.call((w) => k.panel(w, { m: 1, k: d, n: d }, i > 0, true));
    if (k.decodeAttentionFits(dims.maxSeq, d)) p.call((w) => k.decodeAttention(w, pos, d, heads));
    else if (variant & VARIANT.FLASH) p.call((w) => k.flash(w, 1, pos, d, heads));
    else {
      const dh = d / heads, ctx = ceilTo(pos + 1, k.D);
      for (let h = 0; h < heads; h++) {
        p.call((w) => k.matmul(w, { m: 1, k: dh, n: ctx, transpose: true, causal: true, epi: Epi.MaskRelu, row0: pos }));
        p.call((w) => k.elementwise(w, 1, ctx, 1, 2));
        p.call((w) => k.matmul(w, { m: 1, k: ctx, n: dh, causal: true, row0: pos }));
      }
    }
    p.call((w) => k.panel(w, { m: 1, k: d, n: d, epi: Epi.Residual }, false, true));
    p.call((w) => k.panel(w, { m: 1, k: d, n: dFF, epi: Epi.Relu }, false, true));
    p.call((w) => k.panel(w, { m: 1, k: dFF, n: d, epi: Epi.Residual }, false, true));
  }
  const head: MatmulCall = { m: 1, k: d, n: dims.vocab, out32: true };
  p.call((w) => (k.panelFits(head) ? k.panel(w, head, false, true) : k.matmul(w, head, true)));
}

const sumPhases = (name: string, phases: PhasePrediction[]): PhasePrediction => {
  const sum = (f: keyof Omit<PhasePrediction, 'name' | 'runClocks'>) => phases.reduce((s, ph) => s + ph[f], 0);
  return { name, mxu: sum('mxu'), vpu: sum('vpu'), dma: sum('dma'), lowerBound: sum('lowerBound'), bytesIn: sum('bytesIn'), bytesOut: sum('bytesOut') };
};

/**
 * Prefill, then (when the job has decode steps) every decode step, as the
 * firmware runs them. A batch (Job.prompts, B sequences) prefills each
 * sequence on its own (B forwards of P rows) and decodes with
 * decodeStepCalls; a batch of one is the single-prompt job. Every decode step
 * is counted: the model does not know where a stop token would end decoding.
 */
export function predict(dims: ModelDims, job: Job, cfg: PlatformConfig = defaultConfig()): Prediction {
  const k = new Kernels(job.variant, cfg);
  const prompts = jobPrompts(job), B = prompts.length, P = prompts[0].length;
  const prefill = new Phase('prefill', cfg);
  for (let s = 0; s < B; s++) forwardCalls(prefill, k, dims, P, job.variant, B === 1);
  const phases = [prefill.result()];
  if (job.decodeSteps > 0) {
    const decode = new Phase('decode', cfg);
    for (let i = 1; i <= job.decodeSteps; i++) decodeStepCalls(decode, decode, k, dims, B, P + i - 1, job.variant);
    phases.push(decode.result());
  }
  // The schedule model's run clocks per window (model/predict/model-program.ts), null where it does not model the job.
  const runs = predictModelRun(dims, job, cfg);
  phases.forEach((ph, i) => { ph.runClocks = runs ? runs[i] : null; });
  return { ...sumPhases('total', phases), runClocks: runs ? runs.reduce((a, b) => a + b, 0) : null, phases };
}

/** One decode step split by who shares it (decodeStepCalls). */
export interface DecodeStepPrediction {
  /** The whole step: batched + perSequence. */
  total: PhasePrediction;
  /** The calls over the B rows together: the weight matmuls, their elementwise passes and the output head. */
  batched: PhasePrediction;
  /** The embeddings and the attention calls of the B sequences. */
  perSequence: PhasePrediction;
  /** Bytes of weight tiles (the matmuls' B operands) the batched calls load: the model's weights once when every A block holds the B rows. */
  weightBytes: number;
  /** The DMA busy clocks of those weight-tile loads (part of batched.dma). */
  weightDma: number;
}

/** One decode step at position pos for a batch of B sequences (predict's decode phase is the sum of these over the steps). */
export function predictDecodeStep(dims: ModelDims, B: number, pos: number, variant: number, cfg: PlatformConfig = defaultConfig()): DecodeStepPrediction {
  const k = new Kernels(variant, cfg);
  const batched = new Phase('batched', cfg), perSequence = new Phase('per sequence', cfg);
  decodeStepCalls(batched, perSequence, k, dims, B, pos, variant);
  const b = batched.result(), s = perSequence.result();
  return { total: sumPhases('decode step', [b, s]), batched: b, perSequence: s, weightBytes: batched.weightBytes, weightDma: batched.weightDma };
}

/** One tiled matmul, as build/fw/mmbench.elf runs it. */
export function predictMatmul(shape: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig()): PhasePrediction {
  const p = new Phase(`matmul ${shape.m}x${shape.k}x${shape.n}`, cfg);
  const k = new Kernels(variant, cfg), call: MatmulCall = { m: shape.m, k: shape.k, n: shape.n };
  p.call((w) => (k.panelFits(call) ? k.panel(w, call) : k.streamFits(call) ? k.stream(w, call) : k.matmul(w, call)));
  return { ...p.result(), runClocks: predictMatmulRun(shape, variant, cfg) };
}
