// Deterministic random models for benchmarks and tests: weights do not
// change clocks, but the shifts are chosen so that activations stay
// informative (neither all saturated nor all zero), which is what makes a
// bit-exact comparison with the firmware mean something.

import type { LayerWeights, Model, ModelDims } from './format.ts';
import { checkDims } from './format.ts';

/** mulberry32: a small seeded generator. */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shift that brings an accumulator of K products of inputs with standard
 * deviation sigma (times weights uniform in −7..7, σ ≈ 4.3) to σ ≈ 2.5. */
export function shiftFor(k: number, sigmaIn: number): number {
  const sigmaAcc = Math.sqrt(k) * sigmaIn * 4.3;
  return Math.max(0, Math.round(Math.log2(sigmaAcc / 2.5)));
}

/** int4 weights uniform in −7..7 (symmetric), shifts from shiftFor. */
export function randomModel(dims: ModelDims, seed: number): Model {
  checkDims(dims);
  const rnd = mulberry32(seed);
  const int4 = (n: number) => {
    const a = new Int8Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.floor(rnd() * 15) - 7; // symmetric: no drift through the layers
    return a;
  };
  const { d, dFF, heads, layers, vocab, maxSeq } = dims;
  const dh = d / heads;
  const act = 2.5; // σ of int4 activations after requantization
  const layer = (): LayerWeights => ({
    wq: int4(d * d), wk: int4(d * d), wv: int4(d * d), wo: int4(d * d), w1: int4(d * dFF), w2: int4(dFF * d),
    shifts: {
      q: shiftFor(d, act), k: shiftFor(d, act), v: shiftFor(d, act),
      // q·k has int4 × int4 terms (σ 2.5 each): scale it like a weight of σ 2.5.
      s: shiftFor(dh, (act * 2.5) / 4.3),
      // P ≥ 0 after ReLU, about half the keys contribute.
      o: shiftFor(maxSeq / 2, (1.5 * 2.5) / 4.3),
      a: shiftFor(d, act), f1: shiftFor(d, act), f2: shiftFor(dFF / 2, act),
    },
    bound1: 8, bound2: 7,
  });
  return { dims, tokEmb: int4(vocab * d), posEmb: int4(maxSeq * d), wOut: int4(d * vocab), layers: Array.from({ length: layers }, layer) };
}

export function randomPrompt(dims: ModelDims, length: number, seed: number): number[] {
  const rnd = mulberry32(seed ^ 0x5eed);
  return Array.from({ length }, () => Math.floor(rnd() * dims.vocab));
}
