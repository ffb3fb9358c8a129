// The golden model: the quantized transformer exactly as the firmware
// computes it on the TPU (docs/model-format.md), in plain integer
// arithmetic. Tokens, logits and KV-cache bytes must match the firmware's
// bit for bit, for every kernel variant.

import { packInt4, type Job, type LayerWeights, type Model } from './format.ts';

export interface GoldenResult { tokens: number[]; logits: Int32Array[]; kCache: Uint8Array[]; vCache: Uint8Array[] }

const sat4 = (v: number) => (v < -8 ? -8 : v > 7 ? 7 : v);
/** The platform's rounding shift: (x + 2^(s−1)) >> s, arithmetic; s = 0 is x. */
const rshift = (x: number, s: number) => (s === 0 ? x : (x + 2 ** (s - 1)) >> s);
/** Requantization int32 → int4. */
export const requant = (acc: number, s: number) => sat4(rshift(acc | 0, s));

/** out[j] = Σ_i x[i]·W[i·n + j] (int32, wrapping), W row-major [k, n]. */
function matvec(x: Int8Array, w: Int8Array, n: number, acc: Int32Array): Int32Array {
  acc.fill(0);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    if (xi === 0) continue;
    const row = i * n;
    for (let j = 0; j < n; j++) acc[j] = (acc[j] + xi * w[row + j]) | 0;
  }
  return acc;
}

function project(x: Int8Array, w: Int8Array, n: number, shift: number): Int8Array {
  const acc = matvec(x, w, n, new Int32Array(n));
  const out = new Int8Array(n);
  for (let j = 0; j < n; j++) out[j] = requant(acc[j], shift);
  return out;
}

/** x = clamp(sat4(x + a), −bound, bound), in place. */
function residual(x: Int8Array, a: Int8Array, bound: number): void {
  for (let j = 0; j < x.length; j++) {
    const v = sat4(x[j] + a[j]);
    x[j] = v < -bound ? -bound : v > bound ? bound : v;
  }
}

class Transformer {
  /** Per layer, the keys and values of every position processed so far. */
  readonly keys: Int8Array[][];
  readonly values: Int8Array[][];
  constructor(private readonly m: Model) {
    this.keys = m.layers.map(() => []);
    this.values = m.layers.map(() => []);
  }

  private attention(l: number, q: Int8Array, t: number, w: LayerWeights): Int8Array {
    const { d, heads } = this.m.dims;
    const dh = d / heads;
    const out = new Int8Array(d);
    const acc = new Int32Array(dh);
    for (let h = 0; h < heads; h++) {
      acc.fill(0);
      const c0 = h * dh;
      for (let u = 0; u <= t; u++) {
        const k = this.keys[l][u];
        let s = 0;
        for (let i = c0; i < c0 + dh; i++) s += q[i] * k[i];
        const p = Math.max(requant(s, w.shifts.s), 0);
        if (p === 0) continue;
        const v = this.values[l][u];
        for (let i = 0; i < dh; i++) acc[i] = (acc[i] + p * v[c0 + i]) | 0;
      }
      for (let i = 0; i < dh; i++) out[c0 + i] = requant(acc[i], w.shifts.o);
    }
    return out;
  }

  /** Runs token `tok` at position t through every layer; returns its logits. */
  step(tok: number, t: number): Int32Array {
    const { d, dFF, vocab } = this.m.dims;
    const x = new Int8Array(d);
    for (let j = 0; j < d; j++) x[j] = sat4(this.m.tokEmb[tok * d + j] + this.m.posEmb[t * d + j]);
    this.m.layers.forEach((w, l) => {
      const q = project(x, w.wq, d, w.shifts.q);
      this.keys[l][t] = project(x, w.wk, d, w.shifts.k);
      this.values[l][t] = project(x, w.wv, d, w.shifts.v);
      const o = this.attention(l, q, t, w);
      residual(x, project(o, w.wo, d, w.shifts.a), w.bound1);
      const f = project(x, w.w1, dFF, w.shifts.f1);
      for (let j = 0; j < dFF; j++) if (f[j] < 0) f[j] = 0;
      residual(x, project(f, w.w2, d, w.shifts.f2), w.bound2);
    });
    return matvec(x, this.m.wOut, vocab, new Int32Array(vocab));
  }

  /** Packed int4 rows (stride d/2) of one layer's cache, positions 0..n−1. */
  packed(cache: Int8Array[], n: number): Uint8Array {
    const d = this.m.dims.d;
    const out = new Uint8Array((n * d) / 2);
    for (let t = 0; t < n; t++) packInt4(cache[t], out, (t * d) / 2);
    return out;
  }
}

/** Greedy argmax: the lowest index among equal maxima. */
export function argmax(logits: Int32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** Prefill of the prompt, then the job's decode steps, as the firmware runs them. */
export function runGolden(model: Model, job: Job): GoldenResult {
  const net = new Transformer(model);
  const P = job.prompt.length;
  let logits: Int32Array = new Int32Array(0);
  for (let t = 0; t < P; t++) logits = net.step(job.prompt[t], t);
  const tokens = [argmax(logits)];
  const all = [logits];
  let positions = P;
  for (let i = 1; i <= job.decodeSteps && tokens[tokens.length - 1] !== job.stopToken; i++) {
    logits = net.step(tokens[i - 1], P + i - 1);
    positions++;
    tokens.push(argmax(logits));
    all.push(logits);
  }
  return {
    tokens, logits: all,
    kCache: net.keys.map((c) => net.packed(c, positions)),
    vCache: net.values.map((c) => net.packed(c, positions)),
  };
}
