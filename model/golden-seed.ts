// The golden model of the seed board (docs/seed-board.md §4 "Arithmetic"): the
// int4 transformer as build/fw/seed/model.elf computes it with the seed's own
// operations — the MXU's 8×8 block matmul with its fused requant
// clip4((acc·m0 + 2^(n−1)) >>> n), the VPU's ADD, RELU, DYT and DOT — written
// from that documented arithmetic, not from model/golden.ts. Where it equals
// runGolden (every model whose shifts are 0..15 and hardtanh bounds 7 or 8,
// the trained adder among them) one model serves both boards; a test holds
// the two to each other (test/golden-seed.test.ts).
//
// How each step of the picotpu model maps onto the seed's operations:
// projection R(x·W, s) = MXU with m0 = 1, n = s; the residual with bound 8 is
// ADD (clip to −8..7), with bound 7 DYT (clip to −7..7); ReLU attention is
// the MXU's scores, an ADD of the causal mask (−8 where a key is in the
// future: clip4(s − 8) < 0 for every int4 s) and RELU; the logits are DOTs of
// x with the rows of the transposed output head; argmax takes the first
// maximum, as the firmware's loop over the DOT results does.

import { checkDims, checkJob, jobPrompts, packInt4, type Job, type Model } from './format.ts';
import type { GoldenResult } from './golden.ts';

/** The seed's narrowing: clip((acc·m0 + 2^(n−1)) >>> n) to lo..7; no rounding term when n = 0. */
export function seedRq(acc: number, m0: number, n: number, lo: number): number {
  const p = acc * m0;
  const s = n === 0 ? p : Math.floor((p + 2 ** (n - 1)) / 2 ** n);
  return s > 7 ? 7 : s < lo ? lo : s;
}

/** Largest requant shift the seed's command words carry (n is 4 bits). */
export const SEED_MAX_SHIFT = 15;

/** Why the seed board cannot compute `model` exactly, or null when it can. */
export function seedIncompatibility(model: Model): string | null {
  for (const [l, w] of model.layers.entries()) {
    for (const [name, v] of Object.entries(w.shifts)) {
      if (v > SEED_MAX_SHIFT) return `layer ${l}: shift ${name} = ${v} is beyond the seed's 4-bit requant shift (0..${SEED_MAX_SHIFT})`;
    }
    for (const b of [w.bound1, w.bound2]) {
      if (b !== 7 && b !== 8) return `layer ${l}: hardtanh bound ${b}: the seed's VPU clips only to −8..7 (ADD) or −7..7 (DYT)`;
    }
  }
  return null;
}

/** C[r][c] = clip4(R(A[r]·B[:, c])) for rows×cols, A row-major [rows, k] at strides, B [k, cols]. */
function mxu(a: Int8Array, aOff: number, aStride: number, b: (kk: number, c: number) => number, k: number, rows: number, cols: number, n: number, out: Int8Array, oOff: number, oStride: number): void {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let acc = 0;
      for (let kk = 0; kk < k; kk++) acc = (acc + a[aOff + r * aStride + kk] * b(kk, c)) | 0;
      out[oOff + r * oStride + c] = seedRq(acc, 1, n, -8);
    }
  }
}

/** The network on the seed's operations, with its KV caches. */
class SeedTransformer {
  readonly keys: Int8Array[];
  readonly values: Int8Array[];
  private readonly woutT: Int8Array;

  constructor(private readonly m: Model) {
    const { d, maxSeq, vocab } = m.dims;
    this.keys = m.layers.map(() => new Int8Array(maxSeq * d));
    this.values = m.layers.map(() => new Int8Array(maxSeq * d));
    this.woutT = new Int8Array(vocab * d);
    for (let i = 0; i < d; i++) for (let j = 0; j < vocab; j++) this.woutT[j * d + i] = m.wOut[i * vocab + j];
  }

  /** x (rows × n) = W-projection of a (rows × k), W row-major [k, n]. */
  private project(a: Int8Array, rows: number, k: number, w: Int8Array, n: number, shift: number): Int8Array {
    const out = new Int8Array(rows * n);
    mxu(a, 0, k, (kk, c) => w[kk * n + c], k, rows, n, shift, out, 0, n);
    return out;
  }

  /** x = ADD(x, a) (bound 8) or DYT(x, a) (bound 7), n = 0, m0 = 1. */
  private residual(x: Int8Array, a: Int8Array, bound: number): void {
    const lo = bound === 7 ? -7 : -8;
    for (let i = 0; i < x.length; i++) x[i] = seedRq(x[i] + a[i], 1, 0, lo);
  }

  /** Positions pos0..pos0+tokens.length−1 through every layer; the last row's logits (DOT). */
  forward(tokens: number[], pos0: number): Int32Array {
    const { d, dFF, heads, vocab } = this.m.dims;
    const rows = tokens.length, T = pos0 + rows, dh = d / heads;
    const x = new Int8Array(rows * d);
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < d; j++) x[r * d + j] = seedRq(this.m.tokEmb[tokens[r] * d + j] + this.m.posEmb[(pos0 + r) * d + j], 1, 0, -8);
    }
    this.m.layers.forEach((w, l) => {
      const s = w.shifts;
      const q = this.project(x, rows, d, w.wq, d, s.q);
      this.keys[l].set(this.project(x, rows, d, w.wk, d, s.k), pos0 * d);
      this.values[l].set(this.project(x, rows, d, w.wv, d, s.v), pos0 * d);
      const K = this.keys[l], V = this.values[l];
      const att = new Int8Array(rows * d);
      const p = new Int8Array(rows * T);
      for (let h = 0; h < heads; h++) {
        const c0 = h * dh;
        // Scores on the MXU (B = K transposed), the causal mask added on the VPU, then RELU.
        mxu(q, c0, d, (kk, u) => K[u * d + c0 + kk], dh, rows, T, s.s, p, 0, T);
        for (let r = 0; r < rows; r++) {
          for (let u = 0; u < T; u++) {
            const masked = seedRq(p[r * T + u] + (u > pos0 + r ? -8 : 0), 1, 0, -8);
            p[r * T + u] = seedRq(masked > 0 ? masked : 0, 1, 0, -8);
          }
        }
        mxu(p, 0, T, (u, c) => V[u * d + c0 + c], T, rows, dh, s.o, att, c0, d);
      }
      this.residual(x, this.project(att, rows, d, w.wo, d, s.a), w.bound1);
      const hidden = this.project(x, rows, d, w.w1, dFF, s.f1);
      for (let i = 0; i < hidden.length; i++) hidden[i] = seedRq(hidden[i] > 0 ? hidden[i] : 0, 1, 0, -8);
      this.residual(x, this.project(hidden, rows, dFF, w.w2, d, s.f2), w.bound2);
    });
    const logits = new Int32Array(vocab);
    const last = (rows - 1) * d;
    for (let j = 0; j < vocab; j++) {
      let acc = 0;
      for (let i = 0; i < d; i++) acc = (acc + x[last + i] * this.woutT[j * d + i]) | 0;
      logits[j] = acc;
    }
    return logits;
  }

  packed(cache: Int8Array, n: number): Uint8Array {
    const out = new Uint8Array((n * this.m.dims.d) / 2);
    packInt4(cache.subarray(0, n * this.m.dims.d), out, 0);
    return out;
  }
}

/** The first index of the largest logit (the firmware's scan of the DOT results). */
function firstMax(logits: Int32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/**
 * The job as the seed firmware runs it: the prompt's positions in one
 * forward pass (out[0] from its last row), then one position per decode step,
 * stopping after the stop token. Throws when the model needs arithmetic the
 * seed board does not have (seedIncompatibility).
 */
export function runSeedGolden(model: Model, job: Job): GoldenResult {
  checkDims(model.dims);
  checkJob(model.dims, job);
  const prompts = jobPrompts(job);
  if (prompts.length > 1) throw new Error('the seed board runs one sequence at a time');
  const why = seedIncompatibility(model);
  if (why) throw new Error(`the seed board cannot compute this model exactly: ${why}`);
  const net = new SeedTransformer(model);
  const prompt = prompts[0];
  let logits = net.forward(prompt, 0);
  const tokens = [firstMax(logits)];
  const all = [logits];
  let positions = prompt.length;
  for (let i = 1; i <= job.decodeSteps && tokens[i - 1] !== job.stopToken; i++) {
    logits = net.forward([tokens[i - 1]], positions);
    positions++;
    tokens.push(firstMax(logits));
    all.push(logits);
  }
  return {
    tokens,
    logits: all,
    kCache: net.keys.map((c) => net.packed(c, positions)),
    vCache: net.values.map((c) => net.packed(c, positions)),
  };
}
