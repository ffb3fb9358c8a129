// Deterministic random models for benchmarks and tests. Weights do not change
// clocks, but the shifts are chosen so that activations stay informative —
// neither all saturated nor all zero — which is what makes a bit-exact
// comparison with the firmware mean something.

import { checkDims, type LayerWeights, type Model, type ModelDims } from './format.ts';

/** mulberry32: a small seeded generator (the same as test/helpers/rng.ts). */
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

/** Standard deviation of a value uniform in −7..7: √((15² − 1)/12). */
export const SIGMA_W = Math.sqrt(224 / 12); // ≈ 4.32
/** The output spread a shift aims at: informative, and rarely beyond −8..7. */
export const SIGMA_TARGET = 2.5;

/**
 * The shift that brings a sum of k products, inputs of standard deviation
 * sigmaIn times weights of sigmaW, to about SIGMA_TARGET:
 * round(log2(√k·σ_in·σ_w / 2.5)), at least 0.
 */
export function shiftFor(k: number, sigmaIn: number, sigmaW = SIGMA_W): number {
  const sigmaAcc = Math.sqrt(k) * sigmaIn * sigmaW;
  return Math.max(0, Math.min(31, Math.round(Math.log2(sigmaAcc / SIGMA_TARGET))));
}

/** Estimated spreads of the activations that feed each matmul. */
const SIGMA_X = 4; // the residual stream: int4 after sat4/hardtanh, wider than a requantized output
const SIGMA_ACT = 3.5; // a requantized output (q, k, v, attention output): the shifts round, so wider than the target
/** Root mean square of a ReLU'd requantized output: about half are 0. */
const RMS_RELU = SIGMA_ACT / Math.SQRT2;

/**
 * A model with int4 weights and embeddings uniform in −8..7 from mulberry32(seed),
 * shifts from shiftFor, hardtanh bounds 8 (after attention) and 7 (after the FFN).
 */
export function randomModel(dims: ModelDims, seed: number): Model {
  checkDims(dims);
  const rnd = mulberry32(seed);
  const int4 = (n: number) => {
    const a = new Int8Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.floor(rnd() * 15) - 7;
    return a;
  };
  const { d, dFF, heads, layers, vocab, maxSeq } = dims;
  const dh = d / heads;
  const layer = (): LayerWeights => ({
    wq: int4(d * d), wk: int4(d * d), wv: int4(d * d), wo: int4(d * d), w1: int4(d * dFF), w2: int4(dFF * d),
    shifts: {
      q: shiftFor(d, SIGMA_X), k: shiftFor(d, SIGMA_X), v: shiftFor(d, SIGMA_X),
      // q·k over one head: both sides requantized outputs.
      s: shiftFor(dh, SIGMA_ACT, SIGMA_ACT),
      // Σ_u p_u·v_u: post-ReLU scores times values, over about half of max_seq positions.
      o: shiftFor(Math.max(1, maxSeq / 2), RMS_RELU, SIGMA_ACT),
      a: shiftFor(d, SIGMA_ACT), f1: shiftFor(d, SIGMA_X), f2: shiftFor(dFF, RMS_RELU),
    },
    bound1: 8, bound2: 7,
  });
  return {
    dims, tokEmb: int4(vocab * d), posEmb: int4(maxSeq * d), wOut: int4(d * vocab),
    layers: Array.from({ length: layers }, layer),
  };
}

/** `length` tokens uniform over the vocabulary, from mulberry32(seed) (independent of the model's seed). */
export function randomPrompt(dims: ModelDims, length: number, seed: number): number[] {
  const rnd = mulberry32((seed ^ 0x5eed5eed) >>> 0);
  return Array.from({ length }, () => Math.floor(rnd() * dims.vocab));
}
