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

import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { jobPrompts, VARIANT, type Job, type ModelDims } from './format.ts';

/** Busy clocks per unit, the lower bound on run clocks, and the bytes the DMA moves in (loads) and out (stores). */
export interface PhasePrediction { name: string; mxu: number; vpu: number; dma: number; lowerBound: number; bytesIn: number; bytesOut: number }
export interface Prediction extends PhasePrediction { phases: PhasePrediction[] }
export interface MatmulShape { m: number; k: number; n: number }

/** The firmware's scratchpad plan (kernels.h): 4 KiB regions; the A block and FlashAttention's blocks by scratchpad size. */
const REGION = 4096;
interface Plan { aBytes: number; kvRegions: number; o32Regions: number }
function planFor(cfg: PlatformConfig): Plan {
  if (cfg.tpu.spadKiB === 64) return { aBytes: 8 * REGION, kvRegions: 2, o32Regions: 4 };
  if (cfg.tpu.spadKiB === 32) return { aBytes: 2 * REGION, kvRegions: 1, o32Regions: 2 };
  throw new Error(`the kernels have a scratchpad plan for 64 or 32 KiB, not ${cfg.tpu.spadKiB}`);
}

const ceil8 = (n: number) => Math.ceil(n / 8) * 8;

enum Epi { None, Relu, Residual, MaskRelu }

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
  matmul(k: number, accumulate = false): void { this.mxu += this.cfg.tpu.mxuSetup + (accumulate ? 8 : 0) + k + 2 * (8 - 1) + 8; }
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
  constructor(private readonly variant: number, private readonly cfg: PlatformConfig = defaultConfig()) { this.plan = planFor(cfg); }
  /** kernels.h k_fuses: epilogues go into the tiles of blocks with a full row group. */
  fuses(rows: number): boolean { return (this.variant & VARIANT.FUSED) !== 0 && rows >= 8; }

  /** kernels/matmul.c: A blocks, 8-column B tiles, causal tiles skipped; `weights`: B is a weight matrix (counted in weightBytes). */
  matmul(w: Work, c: MatmulCall, weights = false): void {
    const arow = c.k / 2, crow = c.out32 ? 32 : 4, row0 = c.row0 ?? 0;
    const epi = this.fuses(c.m) ? (c.epi ?? Epi.None) : Epi.None;
    const causalCols = !!(c.causal && c.transpose), causalK = !!(c.causal && !c.transpose);
    let block = Math.min(Math.floor(this.plan.aBytes / arow), Math.floor(REGION / crow)) & ~7;
    block = Math.min(block, ceil8(c.m));
    for (let r0 = 0; r0 < c.m; r0 += block) {
      const rows = Math.min(block, c.m - r0), groups = Math.ceil(rows / 8);
      const groupLast = (g: number) => row0 + r0 + Math.min(8 * g + 7, rows - 1);
      let tiles = c.n / 8;
      if (causalCols) tiles = Math.min(tiles, Math.floor(groupLast(groups - 1) / 8) + 1);
      w.load(rows, arow);
      for (let j = 0; j < tiles; j++) {
        const base = row0 + r0;
        const g0 = causalCols && 8 * j > base ? (8 * j - base) >> 3 : 0;
        if (c.transpose) w.load(8, arow); else w.load(c.k, 4);
        if (weights) {
          const bytes = c.transpose ? 8 * arow : 4 * c.k;
          w.weightBytes += bytes;
          w.weightDma += this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramReadClocksPerByte;
        }
        if (epi === Epi.Residual) w.load(rows, 4);
        for (let g = g0; g < groups; g++) w.matmul(causalK ? Math.min(c.k, ceil8(groupLast(g) + 1)) : c.k);
        const vr = rows - 8 * g0;
        if (epi === Epi.Relu) w.vector(vr, 8);
        else if (epi !== Epi.None) { w.vector(vr, 8); w.vector(vr, 8); }
        w.store(vr, crow);
      }
    }
  }

  /** kernels/elementwise.c: chunks of rows through one region per operand. */
  elementwise(w: Work, rows: number, cols: number, inputs: number, ops: number): void {
    const rb = cols / 2, chunk = Math.floor(REGION / rb);
    for (let r = 0; r < rows; r += chunk) {
      const n = Math.min(chunk, rows - r);
      for (let i = 0; i < inputs; i++) w.load(n, rb);
      for (let i = 0; i < ops; i++) w.vector(n, cols);
      w.store(n, rb);
    }
  }

  embed(w: Work, rows: number, d: number): void {
    const rb = d / 2, chunk = Math.floor(REGION / rb);
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
    const dh = d / heads, hb = dh / 2, ctx8 = ceil8(row0 + rows);
    const bq = Math.min(Math.floor(REGION / hb), Math.floor((this.plan.o32Regions * REGION) / (dh * 4)), ceil8(rows)) & ~7;
    const bk = Math.min(Math.floor((this.plan.kvRegions * REGION) / hb), 2 * REGION, ctx8) & ~7;
    for (let h = 0; h < heads; h++) {
      for (let q0 = 0; q0 < rows; q0 += bq) {
        const mq = Math.min(bq, rows - q0), groups = Math.ceil(mq / 8);
        const groupLast = (g: number) => row0 + q0 + Math.min(8 * g + 7, mq - 1);
        w.load(mq, hb);
        const last = groupLast(groups - 1);
        for (let kv0 = 0; kv0 <= last; kv0 += bk) {
          const nk = Math.min(bk, last + 1 - kv0);
          w.load(nk, hb); w.load(nk, hb);
          for (let g = 0; g < groups; g++) {
            const gl = groupLast(g);
            if (kv0 > gl) continue;
            const n = Math.min(Math.floor((gl + 8 - kv0) / 8), bk / 8);
            for (let c = 0; c < n; c++) w.matmul(dh);
            w.vector(8, 8 * n); w.vector(8, 8 * n);
            for (let c = 0; c < dh / 8; c++) w.matmul(8 * n, kv0 > 0);
          }
        }
        w.vector(mq, dh);
        w.store(mq, hb);
      }
    }
  }
}

function layerCalls(p: Phase, k: Kernels, dims: ModelDims, rows: number, row0: number, variant: number): void {
  const { d, dFF, heads } = dims;
  const dh = d / heads, ctx8 = ceil8(row0 + rows);
  for (let i = 0; i < 3; i++) p.call((w) => k.matmul(w, { m: rows, k: d, n: d }));
  if (variant & VARIANT.FLASH) {
    p.call((w) => k.flash(w, rows, row0, d, heads));
  } else {
    for (let h = 0; h < heads; h++) {
      p.call((w) => k.matmul(w, { m: rows, k: dh, n: ctx8, transpose: true, causal: true, epi: Epi.MaskRelu, row0 }));
      if (!k.fuses(rows)) p.call((w) => k.elementwise(w, rows, ctx8, 1, 2));
      p.call((w) => k.matmul(w, { m: rows, k: ctx8, n: dh, causal: true, row0 }));
    }
  }
  const residual = (kIn: number) => {
    p.call((w) => k.matmul(w, { m: rows, k: kIn, n: d, epi: Epi.Residual }));
    if (!k.fuses(rows)) p.call((w) => k.elementwise(w, rows, d, 2, 2));
  };
  residual(d);
  p.call((w) => k.matmul(w, { m: rows, k: d, n: dFF, epi: Epi.Relu }));
  if (!k.fuses(rows)) p.call((w) => k.elementwise(w, rows, dFF, 1, 1));
  residual(dFF);
}

function forwardCalls(p: Phase, k: Kernels, dims: ModelDims, rows: number, row0: number, variant: number): void {
  p.call((w) => k.embed(w, rows, dims.d));
  for (let l = 0; l < dims.layers; l++) layerCalls(p, k, dims, rows, row0, variant);
  p.call((w) => k.matmul(w, { m: 1, k: dims.d, n: dims.vocab, out32: true }));
}

/**
 * One decode step at position pos for B sequences, as model.c issues it
 * (B = 1: forward with one row; B > 1: batch_decode_layers): the embedding
 * of each sequence's token; per layer the Q, K, V projections, Wo, W1 and W2
 * over the B rows together (their epilogues fused or as passes by
 * k_fuses(B)) and attention per sequence (one query row against its own
 * cache); the output head over the B rows. `batched` gets the calls over the
 * B rows together, `perSequence` the embeddings and attention calls.
 */
function decodeStepCalls(batched: Phase, perSequence: Phase, k: Kernels, dims: ModelDims, B: number, pos: number, variant: number): void {
  const { d, dFF, heads } = dims;
  const dh = d / heads, ctx8 = ceil8(pos + 1);
  for (let s = 0; s < B; s++) perSequence.call((w) => k.embed(w, 1, d));
  for (let l = 0; l < dims.layers; l++) {
    for (let i = 0; i < 3; i++) batched.call((w) => k.matmul(w, { m: B, k: d, n: d }, true));
    for (let s = 0; s < B; s++) {
      if (variant & VARIANT.FLASH) perSequence.call((w) => k.flash(w, 1, pos, d, heads));
      else {
        for (let h = 0; h < heads; h++) {
          perSequence.call((w) => k.matmul(w, { m: 1, k: dh, n: ctx8, transpose: true, causal: true, epi: Epi.MaskRelu, row0: pos }));
          if (!k.fuses(1)) perSequence.call((w) => k.elementwise(w, 1, ctx8, 1, 2));
          perSequence.call((w) => k.matmul(w, { m: 1, k: ctx8, n: dh, causal: true, row0: pos }));
        }
      }
    }
    const residual = (kIn: number) => {
      batched.call((w) => k.matmul(w, { m: B, k: kIn, n: d, epi: Epi.Residual }, true));
      if (!k.fuses(B)) batched.call((w) => k.elementwise(w, B, d, 2, 2));
    };
    residual(d);
    batched.call((w) => k.matmul(w, { m: B, k: d, n: dFF, epi: Epi.Relu }, true));
    if (!k.fuses(B)) batched.call((w) => k.elementwise(w, B, dFF, 1, 1));
    residual(dFF);
  }
  batched.call((w) => k.matmul(w, { m: B, k: d, n: dims.vocab, out32: true }, true));
}

const sumPhases = (name: string, phases: PhasePrediction[]): PhasePrediction => {
  const sum = (f: keyof Omit<PhasePrediction, 'name'>) => phases.reduce((s, ph) => s + ph[f], 0);
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
  for (let s = 0; s < B; s++) forwardCalls(prefill, k, dims, P, 0, job.variant);
  const phases = [prefill.result()];
  if (job.decodeSteps > 0) {
    const decode = new Phase('decode', cfg);
    for (let i = 1; i <= job.decodeSteps; i++) decodeStepCalls(decode, decode, k, dims, B, P + i - 1, job.variant);
    phases.push(decode.result());
  }
  return { ...sumPhases('total', phases), phases };
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
  p.call((w) => new Kernels(variant, cfg).matmul(w, { m: shape.m, k: shape.k, n: shape.n }));
  return p.result();
}
