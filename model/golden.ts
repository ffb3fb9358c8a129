// The golden model: the quantized int4 transformer exactly as the firmware
// (build/fw/model.elf) computes it on the TPU, in plain integer arithmetic
// (docs/model-format.md §5). Tokens, logits and KV-cache bytes must match the
// firmware's bit for bit, for every kernel variant: the variants change how
// the work is scheduled on the units, never the numbers.
//
// Every value is int4 (−8..7) except the accumulators, int32 and wrapping.
// Requantization is the platform's: R(acc, s) = sat4(rshift(acc, s)).
//
// The matrix-vector products run in WebAssembly SIMD (golden-kernel.ts) where
// available, the plain loops below otherwise or with { plain: true }: the same
// int32 sums, held equal by test/model-golden.test.ts.

import { checkDims, checkJob, jobPrompts, packInt4, type Job, type Model } from './format.ts';
import { GK, GoldenKernel } from './golden-kernel.ts';

export interface GoldenResult {
  /** out[0] from the prefill, then one token per decode step run. */
  tokens: number[];
  /** The logits each token was chosen from (vocab int32 values each). */
  logits: Int32Array[];
  /** Per layer: packed int4 keys / values of every position processed (row stride d/2). */
  kCache: Uint8Array[];
  vCache: Uint8Array[];
}

/**
 * Where `runGolden` can show its intermediate vectors (one position's, `d`
 * or `d_ff` values; the array is reused, so copy what you keep):
 * embed (layer −1), then per layer q, k, v, att (the heads' P·V output side by
 * side), proj (R(att·Wo)), mid (x after the attention residual), hidden (the
 * FFN's ReLU output), ffn (R(hidden·W2)), out (x after the layer).
 */
export type ProbePoint = 'embed' | 'q' | 'k' | 'v' | 'att' | 'proj' | 'mid' | 'hidden' | 'ffn' | 'out';
export type Probe = (point: ProbePoint, layer: number, position: number, values: Int8Array) => void;

export interface GoldenOptions {
  probe?: Probe;
  /** The plain TypeScript loops instead of the WebAssembly kernel (the kernel's reference in tests). */
  plain?: boolean;
}

export const sat4 = (v: number): number => (v < -8 ? -8 : v > 7 ? 7 : v);

/**
 * The platform's rounding shift of an int32: (x + 2^(s−1)) >> s, arithmetic
 * (round half up), computed without overflowing; rshift(x, 0) = x; s 0..31.
 */
export const rshift = (x: number, s: number): number => (s === 0 ? x | 0 : (x >> s) + ((x >> (s - 1)) & 1));

/** Requantization int32 → int4: sat4(rshift(acc, s)). */
export const requant = (acc: number, s: number): number => sat4(rshift(acc, s));

/** Greedy decoding: the index of the largest logit, the lowest among equal maxima. */
export function argmax(logits: Int32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** acc[j] = Σ_i x[i]·W[i·n + j] (int32, wrapping); W row-major [x.length, n]. */
function matvec(x: Int8Array, w: Int8Array, n: number, acc: Int32Array): void {
  acc.fill(0, 0, n);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    if (xi === 0) continue;
    const row = i * n;
    for (let j = 0; j < n; j++) acc[j] = (acc[j] + xi * w[row + j]) | 0;
  }
}

/** out = R(x·W, shift), out.length columns. */
function project(x: Int8Array, w: Int8Array, shift: number, acc: Int32Array, out: Int8Array): void {
  const n = out.length;
  matvec(x, w, n, acc);
  for (let j = 0; j < n; j++) out[j] = requant(acc[j], shift);
}

/** x = clamp(sat4(x + a), −bound, bound), in place (the residual add and hardtanh). */
function residual(x: Int8Array, a: Int8Array, bound: number): void {
  for (let j = 0; j < x.length; j++) {
    const v = sat4(x[j] + a[j]);
    x[j] = v < -bound ? -bound : v > bound ? bound : v;
  }
}

function checkModel(m: Model): void {
  checkDims(m.dims);
  const { d, dFF, vocab, maxSeq, layers } = m.dims;
  const want = (what: string, a: Int8Array, n: number) => {
    if (a.length !== n) throw new Error(`${what} has ${a.length} values, wants ${n}`);
  };
  want('tok_emb', m.tokEmb, vocab * d); want('pos_emb', m.posEmb, maxSeq * d); want('w_out', m.wOut, d * vocab);
  if (m.layers.length !== layers) throw new Error(`model has ${m.layers.length} layers, dims say ${layers}`);
  m.layers.forEach((w, l) => {
    want(`layer ${l} wq`, w.wq, d * d); want(`layer ${l} wk`, w.wk, d * d); want(`layer ${l} wv`, w.wv, d * d);
    want(`layer ${l} wo`, w.wo, d * d); want(`layer ${l} w1`, w.w1, d * dFF); want(`layer ${l} w2`, w.w2, dFF * d);
    for (const [name, v] of Object.entries(w.shifts)) {
      if (!(Number.isInteger(v) && v >= 0 && v <= 31)) throw new Error(`layer ${l}: shift ${name} = ${v} is not in 0..31`);
    }
    for (const b of [w.bound1, w.bound2]) {
      if (!(Number.isInteger(b) && b >= 1 && b <= 8)) throw new Error(`layer ${l}: hardtanh bound ${b} is not in 1..8`);
    }
  });
}

/** The network with its KV caches: one position at a time, in order. */
class Transformer {
  /** Per layer, int4 [max_seq, d]: row t is position t's key / value. */
  readonly keys: Int8Array[];
  readonly values: Int8Array[];
  private readonly x: Int8Array;
  private readonly q: Int8Array;
  private readonly att: Int8Array;
  private readonly tmp: Int8Array;
  private readonly hidden: Int8Array;
  private readonly acc: Int32Array;
  private readonly kernel: GoldenKernel | null;

  constructor(private readonly m: Model, private readonly probe?: Probe, plain = false) {
    this.kernel = plain ? null : GoldenKernel.forModel(m);
    const { d, dFF, maxSeq, vocab } = m.dims;
    this.keys = m.layers.map(() => new Int8Array(maxSeq * d));
    this.values = m.layers.map(() => new Int8Array(maxSeq * d));
    this.x = new Int8Array(d);
    this.q = new Int8Array(d);
    this.att = new Int8Array(d);
    this.tmp = new Int8Array(d);
    this.hidden = new Int8Array(dFF);
    this.acc = new Int32Array(Math.max(d, dFF, vocab));
  }

  /** att = the heads' o_h side by side, for the query q at position t of layer l. */
  private attention(l: number, t: number, shiftS: number, shiftO: number): void {
    if (this.kernel) { this.attentionOnKernel(this.kernel, l, t, shiftS, shiftO); return; }
    const { d, heads } = this.m.dims;
    const dh = d / heads;
    const { q, att, acc } = this;
    const K = this.keys[l], V = this.values[l];
    for (let h = 0; h < heads; h++) {
      const c0 = h * dh;
      acc.fill(0, 0, dh);
      for (let u = 0; u <= t; u++) {
        const row = u * d + c0;
        let s = 0;
        for (let i = 0; i < dh; i++) s = (s + q[c0 + i] * K[row + i]) | 0;
        const p = requant(s, shiftS); // ReLU attention: p = max(R(q·k, s.s), 0)
        if (p <= 0) continue;
        for (let i = 0; i < dh; i++) acc[i] = (acc[i] + p * V[row + i]) | 0;
      }
      for (let i = 0; i < dh; i++) att[c0 + i] = requant(acc[i], shiftO);
    }
  }

  /** attention() with both products on the kernel: p = max(R(q·k, s.s), 0) is max(p, 0) where the loops skip p ≤ 0. */
  private attentionOnKernel(kernel: GoldenKernel, l: number, t: number, shiftS: number, shiftO: number): void {
    const { d, heads } = this.m.dims;
    const dh = d / heads;
    const { q, att } = this;
    const acc = kernel.acc, p = kernel.input;
    for (let h = 0; h < heads; h++) {
      const c0 = h * dh;
      kernel.scores(l, h, q, c0, t);
      for (let u = 0; u <= t; u++) { const v = requant(acc[u], shiftS); p[u] = v > 0 ? v : 0; }
      kernel.weightedValues(l, h, t);
      for (let i = 0; i < dh; i++) att[c0 + i] = requant(acc[i], shiftO);
    }
  }

  /** out = R(x·W, shift) for matrix `which` of layer l (GK order; the output projection has no requant). */
  private project(x: Int8Array, l: number, which: number, w: Int8Array, shift: number, out: Int8Array): void {
    if (!this.kernel) { project(x, w, shift, this.acc, out); return; }
    this.kernel.matvec(x, l * GK.PER_LAYER + which);
    const acc = this.kernel.acc;
    for (let j = 0; j < out.length; j++) out[j] = requant(acc[j], shift);
  }

  /** Runs token `tok` at position t through every layer (filling the caches' row t); its logits. */
  step(tok: number, t: number): Int32Array {
    const { d, vocab } = this.m.dims;
    const { x, q, att, tmp, hidden, acc, probe } = this;
    const te = this.m.tokEmb, pe = this.m.posEmb;
    for (let j = 0; j < d; j++) x[j] = sat4(te[tok * d + j] + pe[t * d + j]);
    probe?.('embed', -1, t, x);
    this.m.layers.forEach((w, l) => {
      const s = w.shifts;
      const k = this.keys[l].subarray(t * d, (t + 1) * d);
      const v = this.values[l].subarray(t * d, (t + 1) * d);
      this.project(x, l, GK.WQ, w.wq, s.q, q);
      this.project(x, l, GK.WK, w.wk, s.k, k);
      this.project(x, l, GK.WV, w.wv, s.v, v);
      this.kernel?.storeKV(l, t, k, v);
      if (probe) { probe('q', l, t, q); probe('k', l, t, k); probe('v', l, t, v); }
      this.attention(l, t, s.s, s.o);
      probe?.('att', l, t, att);
      this.project(att, l, GK.WO, w.wo, s.a, tmp);
      probe?.('proj', l, t, tmp);
      residual(x, tmp, w.bound1);
      probe?.('mid', l, t, x);
      this.project(x, l, GK.W1, w.w1, s.f1, hidden);
      for (let j = 0; j < hidden.length; j++) if (hidden[j] < 0) hidden[j] = 0;
      probe?.('hidden', l, t, hidden);
      this.project(hidden, l, GK.W2, w.w2, s.f2, tmp);
      probe?.('ffn', l, t, tmp);
      residual(x, tmp, w.bound2);
      probe?.('out', l, t, x);
    });
    const logits = new Int32Array(vocab);
    if (this.kernel) {
      this.kernel.matvec(x, this.m.layers.length * GK.PER_LAYER);
      logits.set(this.kernel.acc.subarray(0, vocab));
    } else {
      matvec(x, this.m.wOut, vocab, acc);
      logits.set(acc.subarray(0, vocab));
    }
    return logits;
  }

  /** The packed int4 bytes (row stride d/2) of positions 0..n−1 of a cache. */
  packed(cache: Int8Array, n: number): Uint8Array {
    const out = new Uint8Array((n * this.m.dims.d) / 2);
    packInt4(cache.subarray(0, n * this.m.dims.d), out, 0);
    return out;
  }
}

/**
 * The job as the firmware runs it: prefill of positions 0..P−1 gives out[0]
 * (from the logits of position P−1); decode step i = 1..D feeds out[i−1] at
 * position P+i−1 and gives out[i]. A token equal to the stop token (also
 * out[0]) ends the job after it.
 */
export function runGolden(model: Model, job: Job, opts: GoldenOptions = {}): GoldenResult {
  checkModel(model);
  checkJob(model.dims, job);
  if (jobPrompts(job).length > 1) throw new Error('runGolden runs one sequence: use runGoldenBatch for a batched job');
  const prompt = jobPrompts(job)[0];
  const net = new Transformer(model, opts.probe, opts.plain);
  const P = prompt.length;
  let logits: Int32Array = new Int32Array(0);
  for (let t = 0; t < P; t++) logits = net.step(prompt[t], t);
  const tokens = [argmax(logits)];
  const all = [logits];
  let positions = P;
  for (let i = 1; i <= job.decodeSteps && tokens[i - 1] !== job.stopToken; i++) {
    logits = net.step(tokens[i - 1], P + i - 1);
    positions++;
    tokens.push(argmax(logits));
    all.push(logits);
  }
  return {
    tokens,
    logits: all,
    kCache: net.keys.map((c) => net.packed(c, positions)),
    vCache: net.values.map((c) => net.packed(c, positions)),
  };
}

/**
 * A batched job (Job.prompts; a single-prompt job is a batch of one),
 * sequence by sequence: batching changes how the TPU schedules the work, not
 * what each sequence computes. Sequence s's result is exactly the result of
 * its prompt run alone with the job's decode steps and stop token: its tokens
 * up to and including its first stop token, their logits, and the caches of
 * the positions it processed. (In the batch a stopped sequence keeps being
 * computed until every sequence has stopped, but records nothing more.)
 */
export function runGoldenBatch(model: Model, job: Job, opts: GoldenOptions = {}): GoldenResult[] {
  return jobPrompts(job).map((prompt) => runGolden(model, { prompt, decodeSteps: job.decodeSteps, variant: job.variant, stopToken: job.stopToken }, opts));
}
