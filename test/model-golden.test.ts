// The golden model alone (model/golden.ts), the random models (model/random.ts)
// and the blob (model/format.ts): a case worked by hand, an independent naive
// reference, prefill against step-by-step decoding, determinism, activations
// that carry information, and the blob's layout. The firmware is held to the
// golden model elsewhere (test/model.test.ts).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rshift as platformRshift } from '../periph/unit.ts';
import { SRAM_SIZE } from '../periph/sram.ts';
import {
  buildBlob, HEADER_BYTES, HEADER_FIELDS, headerOffset, LAYER_FIELDS, LAYER_RECORD_BYTES, layerOffset, MODEL_MAGIC,
  MODEL_VERSION, NO_STOP_TOKEN, packInt4, planLayout, unpackInt4, type Job, type LayerWeights, type Model, type ModelDims,
} from '../model/format.ts';
import { argmax, requant, rshift, runGolden, type GoldenResult, type ProbePoint } from '../model/golden.ts';
import { mulberry32, randomModel, randomPrompt, shiftFor } from '../model/random.ts';
import { GoldenKernel } from '../model/golden-kernel.ts';
import { MATVEC_KERNEL, generateWasmModule } from '../scripts/gen-wasm.ts';

const arr = (a: ArrayLike<number>) => Array.from(a);
const BENCH: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };

// ---- an independent naive reference -------------------------------------------------------
// Written the way the firmware's prefill works — whole matrices over every
// position, a causal mask — with plain numbers (no typed arrays, no bit
// operations), and re-run from scratch for every generated token (no KV cache).

const nSat4 = (v: number) => Math.min(7, Math.max(-8, v));
const nR = (acc: number, s: number) => nSat4(s === 0 ? acc : Math.floor((acc + 2 ** (s - 1)) / 2 ** s));
/** Rows × cols matrix product, W row-major [k, n]. */
function nMatmul(X: number[][], W: Int8Array, n: number): number[][] {
  return X.map((x) => {
    const out: number[] = [];
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < x.length; i++) s += x[i] * W[i * n + j];
      out.push(s);
    }
    return out;
  });
}
const nReq = (A: number[][], s: number) => A.map((r) => r.map((v) => nR(v, s)));

interface NaiveForward { logits: number[][]; K: number[][][]; V: number[][][] }
function naiveForward(m: Model, toks: number[]): NaiveForward {
  const { d, dFF, heads, vocab } = m.dims;
  const dh = d / heads, T = toks.length;
  let X = toks.map((tok, t) => Array.from({ length: d }, (_, j) => nSat4(m.tokEmb[tok * d + j] + m.posEmb[t * d + j])));
  const K: number[][][] = [], V: number[][][] = [];
  for (const w of m.layers) {
    const s = w.shifts;
    const Q = nReq(nMatmul(X, w.wq, d), s.q), Kl = nReq(nMatmul(X, w.wk, d), s.k), Vl = nReq(nMatmul(X, w.wv, d), s.v);
    K.push(Kl); V.push(Vl);
    const O = X.map(() => new Array<number>(d).fill(0));
    for (let h = 0; h < heads; h++) {
      const cols = Array.from({ length: dh }, (_, i) => h * dh + i);
      // P[t][u] = relu(mask(R(Q_h·K_hᵀ, s.s)))
      const P = Q.map((q, t) => Kl.map((k, u) => (u > t ? 0 : Math.max(0, nR(cols.reduce((a, c) => a + q[c] * k[c], 0), s.s)))));
      for (let t = 0; t < T; t++) for (const c of cols) O[t][c] = nR(P[t].reduce((a, p, u) => a + p * Vl[u][c], 0), s.o);
    }
    const hardtanh = (v: number, b: number) => Math.min(b, Math.max(-b, v));
    const A = nReq(nMatmul(O, w.wo, d), s.a);
    X = X.map((x, t) => x.map((v, j) => hardtanh(nSat4(v + A[t][j]), w.bound1)));
    const F = nReq(nMatmul(X, w.w1, dFF), s.f1).map((r) => r.map((v) => Math.max(0, v)));
    const G = nReq(nMatmul(F, w.w2, d), s.f2);
    X = X.map((x, t) => x.map((v, j) => hardtanh(nSat4(v + G[t][j]), w.bound2)));
  }
  return { logits: nMatmul(X, m.wOut, vocab), K, V };
}
const nArgmax = (l: number[]) => l.indexOf(Math.max(...l));

function naiveJob(m: Model, job: Job): { tokens: number[]; logits: number[][]; K: number[][][]; V: number[][][] } {
  const seq = [...job.prompt];
  let f = naiveForward(m, seq);
  const logits = [f.logits[seq.length - 1]];
  const tokens = [nArgmax(logits[0])];
  for (let i = 1; i <= job.decodeSteps && tokens[i - 1] !== job.stopToken; i++) {
    seq.push(tokens[i - 1]);
    f = naiveForward(m, seq);
    logits.push(f.logits[seq.length - 1]);
    tokens.push(nArgmax(logits[i]));
  }
  return { tokens, logits, K: f.K, V: f.V };
}

/** A small model with random weights, shifts 0..6 and bounds 1..8: every clamp and rounding gets exercised. */
function wildModel(dims: ModelDims, seed: number): Model {
  const m = randomModel(dims, seed);
  const rnd = mulberry32(seed * 31 + 1);
  const r = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  for (const w of m.layers) {
    for (const k of Object.keys(w.shifts) as (keyof LayerWeights['shifts'])[]) w.shifts[k] = r(Math.max(0, w.shifts[k] - 2), w.shifts[k] + 1);
    w.bound1 = r(3, 8); w.bound2 = r(3, 8);
  }
  return m;
}

function expectMatchesNaive(m: Model, job: Job, g: GoldenResult): void {
  const n = naiveJob(m, job);
  const { d } = m.dims;
  expect(g.tokens).toEqual(n.tokens);
  expect(g.logits.map(arr)).toEqual(n.logits);
  const positions = job.prompt.length + g.tokens.length - 1;
  m.layers.forEach((_, l) => {
    expect(arr(unpackInt4(g.kCache[l], 0, positions * d))).toEqual(n.K[l].flat());
    expect(arr(unpackInt4(g.vCache[l], 0, positions * d))).toEqual(n.V[l].flat());
  });
}

// ---- the tests -------------------------------------------------------------------------------

describe('the blob\'s int4 packing', () => {
  // The naive reading of the format: value i is nibble i & 1 of byte i >> 1, 8..15 meaning -8..-1.
  const naiveUnpack = (bytes: Uint8Array, at: number, count: number) => Array.from({ length: count }, (_, i) => {
    const n = Math.floor(bytes[at + Math.floor(i / 2)] / (i % 2 ? 16 : 1)) % 16;
    return n >= 8 ? n - 16 : n;
  });
  it('unpacks as the naive reading, odd counts and offsets included; packing what it unpacked gives the bytes back', () => {
    const rand = mulberry32(0x1417);
    const bytes = Uint8Array.from({ length: 301 }, () => Math.floor(rand() * 256));
    for (const [at, count] of [[0, 0], [0, 1], [0, 2], [1, 7], [3, 64], [5, 129], [0, 600], [1, 599]]) {
      const v = unpackInt4(bytes, at, count);
      expect(arr(v), `at ${at}, count ${count}`).toEqual(naiveUnpack(bytes, at, count));
      const out = new Uint8Array(310).fill(0xa5);
      packInt4(v, out, 2);
      const whole = count >> 1;
      expect(arr(out.subarray(2, 2 + whole))).toEqual(arr(bytes.subarray(at, at + whole)));
      if (count & 1) expect(out[2 + whole]).toBe(bytes[at + whole] & 15); // the last value alone: its high nibble 0
      expect(out[2 + Math.ceil(count / 2)]).toBe(0xa5); // nothing past the values
      expect(out[1]).toBe(0xa5);
    }
  });
});

describe('golden model: semantics', () => {
  it('a one-layer d = 8 model worked by hand', () => {
    const d = 8, dims: ModelDims = { d, dFF: 8, heads: 1, layers: 1, vocab: 8, maxSeq: 4 };
    const mat = (rows: number, cols: number, set: [number, number, number][]) => {
      const a = new Int8Array(rows * cols);
      for (const [i, j, v] of set) a[i * cols + j] = v;
      return a;
    };
    const diag = (v: number) => mat(d, d, Array.from({ length: d }, (_, i) => [i, i, v] as [number, number, number]));
    const model: Model = {
      dims,
      tokEmb: mat(8, d, [[1, 0, 4], [1, 1, -3], [2, 0, 1], [2, 1, 2]]),
      posEmb: mat(4, d, [[1, 0, 7]]),
      wOut: mat(d, 8, [[0, 0, 1], [0, 1, 2], [0, 3, -1], [0, 4, 2], [1, 1, -1], [1, 2, 1], [1, 3, 3]]),
      layers: [{
        wq: diag(1), wk: diag(1), wv: diag(1), wo: diag(1), w1: diag(1), w2: diag(-1),
        shifts: { q: 0, k: 0, v: 0, s: 3, o: 1, a: 0, f1: 0, f2: 1 }, bound1: 6, bound2: 8,
      }],
    };
    // Prompt [1, 2]. Position 0: x = [4, −3]; q = k = v = x; q·k = 25 → (25 + 4) >> 3 = 3;
    //   o = R(3·[4, −3], 1) = [(12 + 1) >> 1, (−9 + 1) >> 1] = [6, −4]; x = hardtanh6(sat4([10, −7])) = [6, −6];
    //   f = relu([6, −6]) = [6, 0]; g = R(−[6, 0], 1) = [−3, 0]; x = [3, −6].
    // Position 1: x = [sat4(1 + 7), 2] = [7, 2] = q = k = v;
    //   scores: q·k(0) = 28 − 6 = 22 → 26 >> 3 = 3; q·k(1) = 53 → 57 >> 3 = 7;
    //   Σ p·v = 3·[4, −3] + 7·[7, 2] = [61, 5] → R(·, 1) = [sat4(31), 3] = [7, 3];
    //   x = hardtanh6(sat4([14, 5])) = [6, 5]; f = [6, 5]; g = R([−6, −5], 1) = [−3, −2]; x = [3, 3].
    // logits = 3·Wout row 0 + 3·Wout row 1 = [3, 3, 3, 6, 6, 0, 0, 0]: a tie, the lower index wins.
    const r = runGolden(model, { prompt: [1, 2], decodeSteps: 0, variant: 0 });
    expect(arr(r.logits[0])).toEqual([3, 3, 3, 6, 6, 0, 0, 0]);
    expect(r.tokens).toEqual([3]);
    expect(r.logits).toHaveLength(1);
    expect(arr(unpackInt4(r.kCache[0], 0, 2 * d))).toEqual([4, -3, 0, 0, 0, 0, 0, 0, 7, 2, 0, 0, 0, 0, 0, 0]);
    expect(arr(r.vCache[0])).toEqual(arr(r.kCache[0]));
    expect(r.kCache[0].length).toBe(d); // two rows of d/2 bytes

    // The naive reference agrees, and shows one intermediate: position 0's row after the layer.
    const n = naiveForward(model, [1, 2]);
    expect(n.logits[1]).toEqual([3, 3, 3, 6, 6, 0, 0, 0]);
    expect(n.logits[0]).toEqual([3, 12, -6, -21, 6, 0, 0, 0]); // x = [3, −6]: 3·row 0 − 6·row 1
  });

  it('matches a naive whole-sequence reference on small random models, decode and stop token included', () => {
    const shapes: ModelDims[] = [
      { d: 16, dFF: 8, heads: 2, layers: 2, vocab: 8, maxSeq: 12 },
      { d: 24, dFF: 32, heads: 3, layers: 1, vocab: 16, maxSeq: 10 },
      { d: 8, dFF: 16, heads: 1, layers: 3, vocab: 8, maxSeq: 9 },
    ];
    let stops = 0;
    shapes.forEach((dims, i) => {
      for (const seed of [1, 2, 3]) {
        const m = wildModel(dims, 100 * i + seed);
        const prompt = randomPrompt(dims, 1 + ((seed * 2) % 5), seed);
        const job: Job = { prompt, decodeSteps: dims.maxSeq - prompt.length, variant: 0 };
        const g = runGolden(m, job);
        expectMatchesNaive(m, job, g);
        // With a stop token that occurs: it ends the job after its first occurrence.
        const stop = g.tokens[Math.min(2, g.tokens.length - 1)];
        const sj = { ...job, stopToken: stop };
        const gs = runGolden(m, sj);
        expect(gs.tokens).toEqual(g.tokens.slice(0, g.tokens.indexOf(stop) + 1));
        expectMatchesNaive(m, sj, gs);
        if (gs.tokens.length < g.tokens.length) stops++;
      }
    });
    expect(stops).toBeGreaterThan(0);
  });

  it('prefill of prompt + generated tokens gives the logits and caches of step-by-step decoding', () => {
    const dims: ModelDims = { d: 64, dFF: 128, heads: 2, layers: 3, vocab: 16, maxSeq: 48 };
    const model = randomModel(dims, 5);
    const prompt = randomPrompt(dims, 10, 2);
    const D = 20;
    const dec = runGolden(model, { prompt, decodeSteps: D, variant: 0 });
    expect(dec.tokens).toHaveLength(D + 1);
    const whole = runGolden(model, { prompt: [...prompt, ...dec.tokens.slice(0, D)], decodeSteps: 0, variant: 0 });
    expect(arr(whole.logits[0])).toEqual(arr(dec.logits[D]));
    expect(whole.tokens).toEqual([dec.tokens[D]]);
    for (let l = 0; l < dims.layers; l++) {
      expect(whole.kCache[l].length).toBe(((prompt.length + D) * dims.d) / 2);
      expect(Buffer.from(whole.kCache[l]).equals(Buffer.from(dec.kCache[l]))).toBe(true);
      expect(Buffer.from(whole.vCache[l]).equals(Buffer.from(dec.vCache[l]))).toBe(true);
    }
    // And a prefix: prefill of the prompt + the first 5 generated tokens predicts the 6th.
    const part = runGolden(model, { prompt: [...prompt, ...dec.tokens.slice(0, 5)], decodeSteps: 0, variant: 0 });
    expect(arr(part.logits[0])).toEqual(arr(dec.logits[5]));
  });

  it('the stop token ends generation after it, also when it is the prefill token; the caches cover what ran', () => {
    const dims: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 32 };
    const model = randomModel(dims, 11);
    const prompt = randomPrompt(dims, 6, 4);
    const free = runGolden(model, { prompt, decodeSteps: 20, variant: 0 });
    const first = runGolden(model, { prompt, decodeSteps: 20, variant: 0, stopToken: free.tokens[0] });
    expect(first.tokens).toEqual([free.tokens[0]]);
    expect(first.kCache[1].length).toBe((6 * dims.d) / 2);
    expect(Buffer.from(first.kCache[1]).equals(Buffer.from(free.kCache[1].subarray(0, (6 * dims.d) / 2)))).toBe(true);
    const never = runGolden(model, { prompt, decodeSteps: 20, variant: 0, stopToken: NO_STOP_TOKEN });
    expect(never.tokens).toEqual(free.tokens);
    expect(never.vCache[0].length).toBe(((6 + 20) * dims.d) / 2);
  });

  it('requantization is the platform\'s rshift + sat4, argmax takes the lowest index of a tie', () => {
    const seed = 77;
    const rnd = mulberry32(seed);
    for (let i = 0; i < 5000; i++) {
      const x = (Math.floor(rnd() * 2 ** 32) - 2 ** 31) >> Math.floor(rnd() * 28);
      const s = Math.floor(rnd() * 32);
      const what = `rshift(${x}, ${s}) (mulberry32 seed ${seed}, case ${i})`;
      expect(rshift(x, s), what).toBe(platformRshift(x, s));
      expect(requant(x, s), what).toBe(Math.min(7, Math.max(-8, platformRshift(x, s))));
    }
    expect(rshift(-9, 1)).toBe(-4); // (−9 + 1) >> 1: round half up
    expect(rshift(-10, 2)).toBe(-2); // (−10 + 2) >> 2
    expect(rshift(0x7fffffff, 1)).toBe(0x40000000); // no overflow in the addition
    expect(rshift(-5, 0)).toBe(-5);
    expect(requant(100, 3)).toBe(7);
    expect(requant(-100, 3)).toBe(-8);
    expect(argmax(Int32Array.from([1, 5, 5, -7]))).toBe(1);
    expect(argmax(Int32Array.from([-3, -3]))).toBe(0);
    expect(argmax(Int32Array.from([-9, -3, 0, 0x7fffffff]))).toBe(3);
  });

  it('rejects jobs and models the firmware would reject', () => {
    const dims: ModelDims = { d: 16, dFF: 16, heads: 2, layers: 1, vocab: 8, maxSeq: 8 };
    const m = randomModel(dims, 1);
    expect(() => runGolden(m, { prompt: [], decodeSteps: 1, variant: 0 })).toThrow(/at least one token/);
    expect(() => runGolden(m, { prompt: [1, 2, 3], decodeSteps: 6, variant: 0 })).toThrow(/max_seq/);
    expect(() => runGolden(m, { prompt: [8], decodeSteps: 0, variant: 0 })).toThrow(/vocabulary/);
    const bad = randomModel(dims, 1);
    bad.layers[0].shifts.o = 32;
    expect(() => runGolden(bad, { prompt: [1], decodeSteps: 0, variant: 0 })).toThrow(/shift o/);
    const short = randomModel(dims, 1);
    short.layers[0].w1 = new Int8Array(8);
    expect(() => runGolden(short, { prompt: [1], decodeSteps: 0, variant: 0 })).toThrow(/w1/);
  });

  // Its speed is a benchmark's business, not a test's (a loaded machine would fail it).
  it('runs the benchmark job (4 layers, d = 128, 64 + 64 tokens) to the end, its start as the naive reference', () => {
    const model = randomModel(BENCH, 1);
    const prompt = randomPrompt(BENCH, 64, 1);
    const r = runGolden(model, { prompt, decodeSteps: 64, variant: 0 });
    expect(r.tokens).toHaveLength(65);
    expect(r.kCache[3].length).toBe((128 * 128) / 2);
    // The naive whole-sequence reference is too slow for all 64 steps; its first two agree with
    // the full run's first tokens, logits and the caches of the 66 positions they cover.
    const steps = 2, positions = prompt.length + steps;
    const n = naiveJob(model, { prompt, decodeSteps: steps, variant: 0 });
    expect(r.tokens.slice(0, steps + 1)).toEqual(n.tokens);
    expect(r.logits.slice(0, steps + 1).map(arr)).toEqual(n.logits);
    for (let l = 0; l < BENCH.layers; l++) {
      expect(arr(unpackInt4(r.kCache[l], 0, positions * BENCH.d)), `layer ${l} K`).toEqual(n.K[l].flat());
      expect(arr(unpackInt4(r.vCache[l], 0, positions * BENCH.d)), `layer ${l} V`).toEqual(n.V[l].flat());
    }
  });
});

describe('golden model: the WebAssembly kernel', () => {
  const same = (a: GoldenResult, b: GoldenResult) => {
    expect(a.tokens).toEqual(b.tokens);
    expect(a.logits.map(arr)).toEqual(b.logits.map(arr));
    expect(a.kCache.map(arr)).toEqual(b.kCache.map(arr));
    expect(a.vCache.map(arr)).toEqual(b.vCache.map(arr));
  };

  it('the generated binary is the .wat compiled (npm run gen:wasm)', async () => {
    expect(readFileSync(MATVEC_KERNEL.ts, 'utf8')).toBe(await generateWasmModule(MATVEC_KERNEL));
  });

  it('is there on this Node, and gives the plain loops\' tokens, logits and caches on random models', () => {
    const dims: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 40 };
    expect(GoldenKernel.forModel(randomModel(dims, 1))).not.toBeNull();
    for (const seed of [1, 2, 3]) {
      const m = wildModel(dims, seed);
      const job: Job = { prompt: randomPrompt(dims, 9, seed), decodeSteps: 30, variant: 0 };
      same(runGolden(m, job), runGolden(m, job, { plain: true }));
    }
  });

  it('sums at the extremes: every weight and activation −8 over K = d_ff = 512 gives 32768 per column', () => {
    const dims: ModelDims = { d: 64, dFF: 512, heads: 2, layers: 1, vocab: 8, maxSeq: 4 };
    const m = randomModel(dims, 5);
    m.layers[0].w2.fill(-8); // [d_ff, d]
    const kernel = GoldenKernel.forModel(m)!;
    kernel.matvec(new Int8Array(512).fill(-8), 5); // matrix 5: layer 0's w2
    expect(arr(kernel.acc.subarray(0, 64))).toEqual(new Array(64).fill(512 * 64));
    kernel.matvec(new Int8Array(512).fill(7), 5);
    expect(arr(kernel.acc.subarray(0, 64))).toEqual(new Array(64).fill(-512 * 56));
  });

  it('sees a model whose weight arrays were replaced, not a stale copy', () => {
    const dims: ModelDims = { d: 16, dFF: 16, heads: 2, layers: 1, vocab: 8, maxSeq: 8 };
    const m = randomModel(dims, 7), other = randomModel(dims, 8);
    const job: Job = { prompt: [1, 2, 3], decodeSteps: 3, variant: 0 };
    runGolden(m, job);
    m.layers[0].w1 = other.layers[0].w1;
    same(runGolden(m, job), runGolden(m, job, { plain: true }));
  });
});

describe('random models', () => {
  it('are deterministic: the same seed gives the same weights and results, another seed others', () => {
    const dims: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 24 };
    const a = randomModel(dims, 3), b = randomModel(dims, 3), c = randomModel(dims, 4);
    expect(a).toEqual(b);
    expect(arr(a.layers[1].w2)).not.toEqual(arr(c.layers[1].w2));
    expect(arr(a.tokEmb)).not.toEqual(arr(c.tokEmb));
    expect(randomPrompt(dims, 12, 5)).toEqual(randomPrompt(dims, 12, 5));
    expect(randomPrompt(dims, 12, 5)).not.toEqual(randomPrompt(dims, 12, 6));
    expect(randomPrompt(dims, 200, 1).every((t) => Number.isInteger(t) && t >= 0 && t < 16)).toBe(true);
    expect(new Set(randomPrompt(dims, 200, 1)).size).toBe(16);
    const job: Job = { prompt: randomPrompt(dims, 8, 1), decodeSteps: 10, variant: 0 };
    const r1 = runGolden(a, job), r2 = runGolden(b, job);
    expect(r2.tokens).toEqual(r1.tokens);
    expect(r2.logits.map(arr)).toEqual(r1.logits.map(arr));
    expect(Buffer.from(r2.vCache[1]).equals(Buffer.from(r1.vCache[1]))).toBe(true);
  });

  it('weights are int4, spread over the range, and centred', () => {
    const m = randomModel(BENCH, 2);
    const w = m.layers[2].w1;
    const counts = new Map<number, number>();
    let sum = 0;
    for (const v of w) { counts.set(v, (counts.get(v) ?? 0) + 1); sum += v; }
    expect(Math.min(...counts.keys())).toBeGreaterThanOrEqual(-8);
    expect(Math.max(...counts.keys())).toBeLessThanOrEqual(7);
    expect(counts.size).toBeGreaterThanOrEqual(15);
    expect(Math.abs(sum / w.length)).toBeLessThan(0.05); // no drift through the layers
    for (const v of [m.tokEmb, m.posEmb, m.wOut, m.layers[0].wq]) expect(v.some((x) => x !== v[0])).toBe(true);
  });

  it('shifts follow round(log2(√K·σ_in·σ_w / 2.5))', () => {
    expect(shiftFor(128, 4, 4.32)).toBe(Math.round(Math.log2((Math.sqrt(128) * 4 * 4.32) / 2.5)));
    expect(shiftFor(1, 1, 1)).toBe(0); // never negative
    expect(shiftFor(512, 2, 4.3)).toBeGreaterThan(shiftFor(32, 2, 4.3));
    const s = randomModel(BENCH, 1).layers[0].shifts;
    for (const v of Object.values(s)) { expect(v).toBeGreaterThanOrEqual(2); expect(v).toBeLessThanOrEqual(9); }
  });

  it('keep activations informative on a 4-layer d = 128 model: neither saturated nor zero, and decoding varies', () => {
    const model = randomModel(BENCH, 1);
    const stats = new Map<string, { n: number; zero: number; sat: number; values: Set<number> }>();
    const watch: ProbePoint[] = ['q', 'k', 'v', 'att', 'proj', 'mid', 'hidden', 'ffn', 'out'];
    const r = runGolden(model, { prompt: randomPrompt(BENCH, 64, 1), decodeSteps: 32, variant: 0 }, {
      probe: (point, layer, _t, values) => {
        if (!watch.includes(point)) return;
        const key = `${point}${layer}`;
        let s = stats.get(key);
        if (!s) stats.set(key, (s = { n: 0, zero: 0, sat: 0, values: new Set() }));
        for (const v of values) { s.n++; if (v === 0) s.zero++; if (v === 7 || v === -8) s.sat++; s.values.add(v); }
      },
    });
    expect(new Set(r.tokens.slice(1)).size).toBeGreaterThan(3);
    expect(stats.size).toBe(watch.length * BENCH.layers);
    for (const [key, s] of stats) {
      const relu = key.startsWith('hidden'); // about half of a ReLU's outputs are 0, and none negative
      expect(s.n, key).toBe(96 * (relu ? BENCH.dFF : BENCH.d));
      expect(s.zero / s.n, key).toBeLessThan(relu ? 0.7 : 0.5);
      expect(s.sat / s.n, key).toBeLessThan(0.3);
      expect(s.values.size, key).toBeGreaterThanOrEqual(relu ? 7 : 13);
    }
    // The logits separate the vocabulary.
    for (const l of r.logits) expect(new Set(arr(l)).size).toBeGreaterThan(8);
  });
});

describe('model blob', () => {
  const dims: ModelDims = { d: 64, dFF: 96, heads: 2, layers: 3, vocab: 24, maxSeq: 40 };
  const model = randomModel(dims, 8);
  const job: Job = { prompt: randomPrompt(dims, 11, 2), decodeSteps: 7, variant: 13, stopToken: 5 };
  const { bytes, layout } = buildBlob(model, job);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (off: number) => dv.getUint32(off, true);
  const h = (name: string) => word(headerOffset(name));

  it('the header reads back: dimensions, job and every buffer offset', () => {
    expect(h('MAGIC')).toBe(MODEL_MAGIC);
    expect(h('VERSION')).toBe(MODEL_VERSION);
    expect([h('D'), h('D_FF'), h('HEADS'), h('LAYERS'), h('VOCAB'), h('MAX_SEQ')]).toEqual([64, 96, 2, 3, 24, 40]);
    expect([h('PROMPT_LEN'), h('DECODE_STEPS'), h('VARIANT'), h('STOP_TOKEN')]).toEqual([11, 7, 13, 5]);
    const names: [string, number][] = [
      ['TOK_EMB', layout.tokEmb], ['POS_EMB', layout.posEmb], ['W_OUT', layout.wOut], ['LAYER_TABLE', layout.layerTable],
      ['PROMPT', layout.prompt], ['OUT_TOKENS', layout.outTokens], ['LOGITS', layout.logits], ['X', layout.x], ['Q', layout.q],
      ['ATT', layout.att], ['TMP', layout.tmp], ['HIDDEN', layout.hidden], ['SCORES', layout.scores], ['BLOB_END', layout.end],
    ];
    for (const [name, off] of names) expect(h(name), name).toBe(off);
    expect(layout.end).toBe(bytes.length);
    expect([h('GENERATED'), h('STATUS')]).toEqual([0, 0]); // the firmware's to write
    expect(arr(bytes.subarray(layout.prompt, layout.prompt + 11))).toEqual(job.prompt);
    const noStop = buildBlob(model, { ...job, stopToken: undefined }).bytes;
    expect(new DataView(noStop.buffer).getUint32(headerOffset('STOP_TOKEN'), true)).toBe(NO_STOP_TOKEN);
    // Header fields are distinct words inside the 128-byte header.
    const offs = HEADER_FIELDS.map((f) => f.offset);
    expect(new Set(offs).size).toBe(offs.length);
    for (const o of offs) { expect(o % 4).toBe(0); expect(o + 4).toBeLessThanOrEqual(HEADER_BYTES); }
  });

  it('layer records and tensors read back', () => {
    for (let l = 0; l < dims.layers; l++) {
      const rec = layout.layerTable + l * LAYER_RECORD_BYTES;
      const r = (name: string) => word(rec + layerOffset(name));
      const o = layout.layers[l], w = model.layers[l], s = w.shifts;
      expect([r('WQ'), r('WK'), r('WV'), r('WO'), r('W1'), r('W2'), r('K_CACHE'), r('V_CACHE')]).toEqual([o.wq, o.wk, o.wv, o.wo, o.w1, o.w2, o.kCache, o.vCache]);
      expect(r('SHIFTS_QKVS')).toBe((s.q | (s.k << 8) | (s.v << 16) | (s.s << 24)) >>> 0);
      expect(r('SHIFTS_OAF')).toBe((s.o | (s.a << 8) | (s.f1 << 16) | (s.f2 << 24)) >>> 0);
      expect(r('BOUNDS')).toBe(w.bound1 | (w.bound2 << 8));
      expect(arr(unpackInt4(bytes, o.w1, 64 * 96))).toEqual(arr(w.w1));
      expect(arr(unpackInt4(bytes, o.wo, 64 * 64))).toEqual(arr(w.wo));
    }
    expect(arr(unpackInt4(bytes, layout.tokEmb, 24 * 64))).toEqual(arr(model.tokEmb));
    expect(arr(unpackInt4(bytes, layout.posEmb, 40 * 64))).toEqual(arr(model.posEmb));
    expect(arr(unpackInt4(bytes, layout.wOut, 64 * 24))).toEqual(arr(model.wOut));
    const offs = LAYER_FIELDS.map((f) => f.offset);
    for (const o of offs) expect(o + 4).toBeLessThanOrEqual(LAYER_RECORD_BYTES);
  });

  it('buffers are 64-byte aligned, disjoint and inside the SRAM', () => {
    const { d, dFF, vocab, maxSeq, layers } = dims;
    const rows = Math.ceil(11 / 8) * 8;
    expect(layout.rows).toBe(rows);
    const spans: [string, number, number][] = [
      ['header', 0, HEADER_BYTES], ['layer table', layout.layerTable, layers * LAYER_RECORD_BYTES],
      ['tok_emb', layout.tokEmb, (vocab * d) / 2], ['pos_emb', layout.posEmb, (maxSeq * d) / 2], ['w_out', layout.wOut, (d * vocab) / 2],
      ['prompt', layout.prompt, 11], ['out tokens', layout.outTokens, 8], ['logits', layout.logits, 8 * vocab * 4],
      ['x', layout.x, (rows * d) / 2], ['q', layout.q, (rows * d) / 2], ['att', layout.att, (rows * d) / 2], ['tmp', layout.tmp, (rows * d) / 2],
      ['hidden', layout.hidden, (rows * dFF) / 2], ['scores', layout.scores, rows * layout.scoresStride],
    ];
    layout.layers.forEach((o, l) => {
      spans.push([`wq${l}`, o.wq, (d * d) / 2], [`wk${l}`, o.wk, (d * d) / 2], [`wv${l}`, o.wv, (d * d) / 2], [`wo${l}`, o.wo, (d * d) / 2],
        [`w1${l}`, o.w1, (d * dFF) / 2], [`w2${l}`, o.w2, (dFF * d) / 2], [`k${l}`, o.kCache, (maxSeq * d) / 2], [`v${l}`, o.vCache, (maxSeq * d) / 2]);
    });
    const sorted = [...spans].sort((a, b) => a[1] - b[1]);
    for (let i = 0; i < sorted.length; i++) {
      const [name, at, len] = sorted[i];
      expect(at % 64, name).toBe(0);
      expect(at + len, name).toBeLessThanOrEqual(i + 1 < sorted.length ? sorted[i + 1][1] : layout.end);
    }
    expect(layout.end).toBeLessThanOrEqual(SRAM_SIZE);
    expect(layout.scoresStride).toBe(Math.ceil(maxSeq / 8) * 4);
  });

  it('the benchmark model with 64 + 64 tokens fits the SRAM, so does T = 256 with one layer; too big throws', () => {
    const big = buildBlob(randomModel(BENCH, 1), { prompt: randomPrompt(BENCH, 64, 1), decodeSteps: 64, variant: 0 }).layout;
    expect(big.end).toBeLessThanOrEqual(SRAM_SIZE);
    expect(big.end).toBeGreaterThan(4 * 6 * 8192); // the weights alone: 4 layers of ≥ 6 × 8 KiB
    const long: ModelDims = { ...BENCH, layers: 1, maxSeq: 256 };
    for (const [p, dsteps] of [[256, 0], [128, 128], [1, 255]]) {
      expect(planLayout(long, { prompt: new Array(p).fill(0), decodeSteps: dsteps, variant: 0 }).end).toBeLessThanOrEqual(SRAM_SIZE);
    }
    expect(() => planLayout({ ...BENCH, layers: 12 }, { prompt: [0], decodeSteps: 0, variant: 0 })).toThrow(/SRAM/);
    expect(() => buildBlob(randomModel(BENCH, 1), { prompt: randomPrompt(BENCH, 100, 1), decodeSteps: 64, variant: 0 })).toThrow(/max_seq/);
  });

  it('docs/model-format.md lists every header and layer-record field as model/format.ts defines it', () => {
    const doc = readFileSync(new URL('../docs/model-format.md', import.meta.url), 'utf8');
    const table = (title: string) => {
      const sec = doc.slice(doc.indexOf(title));
      return sec.split('\n').filter((l) => /^\| 0x[0-9A-F]+ \|/.test(l)).slice(0, title.includes('Header') ? HEADER_FIELDS.length : LAYER_FIELDS.length);
    };
    const hex = (n: number) => '0x' + n.toString(16).toUpperCase().padStart(2, '0');
    const rowOf = (f: { name: string; offset: number; doc: string }) => `| ${hex(f.offset)} | ${f.name} | ${f.doc.replace(/\|/g, '\\|')} |`;
    expect(table('## 1. Header')).toEqual(HEADER_FIELDS.map(rowOf));
    expect(table('## 2. Layer records')).toEqual(LAYER_FIELDS.map(rowOf));
  });
});
