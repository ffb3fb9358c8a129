// The sharded golden check: the golden model (model/golden.ts) split over N
// boards Megatron-style, exactly as build/fw/model_tp.elf computes it
// (firmware-c/model/model_tp.c), in plain integer arithmetic.
//
// Board b of N owns heads [b·H/N, (b+1)·H/N): the columns C_b = [b·d/N,
// (b+1)·d/N) of Wq, Wk, Wv (column-parallel: its heads' q, k, v and its
// slice of the K/V caches), attention over its heads, and the rows C_b of
// Wo (row-parallel: an int32 partial of att·Wo over the whole width d). It
// owns the FFN columns F_b = [b·dFF/N, (b+1)·dFF/N) of W1 (ReLU local) and
// those rows of W2 (another int32 partial). Each partial is summed over the
// boards by a ring AllReduce done the cheap exact way the firmware does it:
//   reduce-scatter the int32 partials (board b ends with the full sum of
//   chunk (b+1) mod N, chunk c = columns C_c),
//   requantize + residual + hardtanh its own chunk only (elementwise, so a
//   chunk's result needs only that chunk's sum),
//   all-gather the int4 result (d/2 bytes a row instead of 4·d: 8× less).
// Sums are int32 and wrap (Σ_b partial_b ≡ the full matvec mod 2³²), so every
// board's x, tokens and logits equal runGolden's. Embedding and the output
// head are replicated: every board computes the logits and the token itself,
// so decode needs no broadcast.

import { checkJob, jobPrompts, packInt4, type Job, type Model } from './format.ts';
import { argmax, requant, sat4, type GoldenResult } from './golden.ts';

/** Why N boards cannot shard this model (heads or dFF not divisible into whole MXU tiles), or null. */
export function shardingError(dims: { d: number; dFF: number; heads: number }, boards: number): string | null {
  if (!(Number.isInteger(boards) && boards >= 1 && boards <= 8)) return `${boards} boards: 1..8 boards`;
  if (dims.heads % boards) return `${dims.heads} heads do not split over ${boards} boards (each board takes whole heads)`;
  if ((dims.dFF / boards) % 8) return `d_ff ${dims.dFF} does not split over ${boards} boards into whole 8-column tiles`;
  return null;
}

/** The traffic of one AllReduce of `rows` rows of width d over N boards, as the firmware moves it. */
export interface AllReduceTraffic {
  /** Messages each board sends: N − 1 reduce-scatter steps + N − 1 all-gather steps, per row block. */
  messages: number;
  /** Bytes each board sends: (N − 1) int32 chunks of rows × d/N, then (N − 1) int4 chunks. */
  bytes: number;
}

/** One board's slice of the work: its heads' columns and its FFN columns. */
interface Shard { c0: number; cw: number; f0: number; fw: number }

function shardOf(m: Model, b: number, n: number): Shard {
  const { d, dFF } = m.dims;
  return { c0: (b * d) / n, cw: d / n, f0: (b * dFF) / n, fw: dFF / n };
}

/** out[j] = Σ_i x[i]·W[i·stride + col0 + j], j < out.length (int32 wrapping): x times a column slice of W. */
function matvecCols(x: Int8Array, w: Int8Array, stride: number, col0: number, out: Int32Array): void {
  out.fill(0);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    if (xi === 0) continue;
    const row = i * stride + col0;
    for (let j = 0; j < out.length; j++) out[j] = (out[j] + xi * w[row + j]) | 0;
  }
}

/** One board: its slices of the caches and its scratch vectors. */
class Board {
  /** Per layer, int4 [maxSeq, cw]: its heads' keys / values. */
  readonly keys: Int8Array[];
  readonly values: Int8Array[];
  readonly q: Int8Array;
  readonly att: Int8Array;
  readonly hidden: Int8Array;
  readonly acc: Int32Array;
  /** The int32 partial this board contributes to an AllReduce (width d). */
  readonly partial: Int32Array;
  constructor(readonly m: Model, readonly s: Shard) {
    const { maxSeq, d } = m.dims;
    this.keys = m.layers.map(() => new Int8Array(maxSeq * s.cw));
    this.values = m.layers.map(() => new Int8Array(maxSeq * s.cw));
    this.q = new Int8Array(s.cw);
    this.att = new Int8Array(s.cw);
    this.hidden = new Int8Array(s.fw);
    this.acc = new Int32Array(Math.max(d, s.fw));
    this.partial = new Int32Array(d);
  }

  /** q, k, v of its heads (column slices of Wq, Wk, Wv) for x at position t of layer l. */
  qkv(x: Int8Array, l: number, t: number): void {
    const { d } = this.m.dims, w = this.m.layers[l], { c0, cw } = this.s, acc = this.acc.subarray(0, cw);
    const k = this.keys[l].subarray(t * cw, (t + 1) * cw), v = this.values[l].subarray(t * cw, (t + 1) * cw);
    for (const [wt, shift, out] of [[w.wq, w.shifts.q, this.q], [w.wk, w.shifts.k, k], [w.wv, w.shifts.v, v]] as const) {
      matvecCols(x, wt, d, c0, acc);
      for (let j = 0; j < cw; j++) out[j] = requant(acc[j], shift);
    }
  }

  /** ReLU attention over its heads (golden.ts Transformer.attention on the slice). */
  attention(l: number, t: number): void {
    const { d, heads } = this.m.dims, dh = d / heads, { cw } = this.s, { shifts } = this.m.layers[l];
    const { q, att, acc } = this, K = this.keys[l], V = this.values[l];
    for (let c0 = 0; c0 < cw; c0 += dh) {
      acc.fill(0, 0, dh);
      for (let u = 0; u <= t; u++) {
        const row = u * cw + c0;
        let s = 0;
        for (let i = 0; i < dh; i++) s = (s + q[c0 + i] * K[row + i]) | 0;
        const p = requant(s, shifts.s);
        if (p <= 0) continue;
        for (let i = 0; i < dh; i++) acc[i] = (acc[i] + p * V[row + i]) | 0;
      }
      for (let i = 0; i < dh; i++) att[c0 + i] = requant(acc[i], shifts.o);
    }
  }

  /** partial = att · Wo[C_b, :] (row-parallel, int32). */
  projectionPartial(l: number): void {
    const { d } = this.m.dims;
    matvecCols(this.att, this.m.layers[l].wo.subarray(this.s.c0 * d, (this.s.c0 + this.s.cw) * d), d, 0, this.partial);
  }

  /** hidden = ReLU(R(x · W1[:, F_b])); partial = hidden · W2[F_b, :]. */
  ffnPartial(x: Int8Array, l: number): void {
    const { d, dFF } = this.m.dims, w = this.m.layers[l], { f0, fw } = this.s, acc = this.acc.subarray(0, fw);
    matvecCols(x, w.w1, dFF, f0, acc);
    for (let j = 0; j < fw; j++) { const h = requant(acc[j], w.shifts.f1); this.hidden[j] = h < 0 ? 0 : h; }
    matvecCols(this.hidden, w.w2.subarray(f0 * d, (f0 + fw) * d), d, 0, this.partial);
  }
}

/**
 * The ring AllReduce of the boards' partials fused with the residual, as the
 * firmware does it: reduce-scatter (board b sums chunk (b+1) mod N), each
 * board requantizes its chunk and adds the residual (x = clamp(sat4(x +
 * R(sum, shift)), ±bound)), then all-gather of the int4 chunks; every
 * board's x becomes the same. `x` is the boards' (replicated) residual stream.
 */
export function allReduceResidual(partials: Int32Array[], x: Int8Array, shift: number, bound: number): void {
  const n = partials.length, d = x.length, cw = d / n;
  // Reduce-scatter: at step s board b sends its running chunk (b − s) mod N to board b + 1, which adds its own partial.
  const running = partials.map((p) => Int32Array.from(p));
  for (let s = 0; s < n - 1; s++) {
    const sent = running.map((r, b) => { const c = (((b - s) % n) + n) % n; return { c, data: r.slice(c * cw, (c + 1) * cw) }; });
    for (let b = 0; b < n; b++) {
      const { c, data } = sent[(b - 1 + n) % n];
      for (let j = 0; j < cw; j++) running[b][c * cw + j] = (data[j] + partials[b][c * cw + j]) | 0;
    }
  }
  // Board b owns chunk (b + 1) mod N: requant + residual + hardtanh; the all-gather hands each chunk to every board.
  const out = new Int8Array(d);
  for (let b = 0; b < n; b++) {
    const c = (b + 1) % n;
    for (let j = c * cw; j < (c + 1) * cw; j++) {
      const v = sat4(x[j] + requant(running[b][j], shift));
      out[j] = v < -bound ? -bound : v > bound ? bound : v;
    }
  }
  x.set(out);
}

/** Bytes and messages one board sends in the AllReduces of `rows` rows (collective.c allreduce_residual, once per block of rowBlock rows: tp-program.ts ringPlan). */
export function allReduceTraffic(d: number, rows: number, boards: number, rowBlock: number): AllReduceTraffic {
  if (boards === 1) return { messages: 0, bytes: 0 };
  const blocks = Math.ceil(rows / rowBlock), cw = d / boards;
  return { messages: 2 * (boards - 1) * blocks, bytes: (boards - 1) * rows * (cw * 4 + cw / 2) };
}

export interface ShardedResult extends GoldenResult {
  /** Per board, per layer: its packed int4 keys / values (cw columns, row stride cw/2). */
  boardKCache: Uint8Array[][];
  boardVCache: Uint8Array[][];
}

/** The job on N boards: tokens, logits and caches (the boards' slices side by side) — equal to runGolden's. */
export function runSharded(model: Model, job: Job, boards: number): ShardedResult {
  checkJob(model.dims, job);
  const why = shardingError(model.dims, boards);
  if (why) throw new Error(why);
  if (jobPrompts(job).length > 1) throw new Error('runSharded runs one sequence');
  const { d, vocab, maxSeq } = model.dims;
  const bs = Array.from({ length: boards }, (_, b) => new Board(model, shardOf(model, b, boards)));
  const x = new Int8Array(d);
  const step = (tok: number, t: number): Int32Array => {
    for (let j = 0; j < d; j++) x[j] = sat4(model.tokEmb[tok * d + j] + model.posEmb[t * d + j]);
    model.layers.forEach((w, l) => {
      for (const b of bs) { b.qkv(x, l, t); b.attention(l, t); b.projectionPartial(l); }
      allReduceResidual(bs.map((b) => b.partial), x, w.shifts.a, w.bound1);
      for (const b of bs) b.ffnPartial(x, l);
      allReduceResidual(bs.map((b) => b.partial), x, w.shifts.f2, w.bound2);
    });
    const logits = new Int32Array(vocab);
    matvecCols(x, model.wOut, vocab, 0, logits);
    return logits;
  };
  const prompt = job.prompt, P = prompt.length;
  let logits: Int32Array = new Int32Array(0);
  for (let t = 0; t < P; t++) logits = step(prompt[t], t);
  const tokens = [argmax(logits)], all = [logits];
  let positions = P;
  for (let i = 1; i <= job.decodeSteps && tokens[i - 1] !== job.stopToken; i++) {
    logits = step(tokens[i - 1], P + i - 1);
    positions++;
    tokens.push(argmax(logits));
    all.push(logits);
  }
  // The full caches: board b's columns at C_b of every row.
  const full = (pick: (b: Board) => Int8Array[]) => model.layers.map((_, l) => {
    const c = new Int8Array(maxSeq * d);
    bs.forEach((b) => { for (let t = 0; t < positions; t++) c.set(pick(b)[l].subarray(t * b.s.cw, (t + 1) * b.s.cw), t * d + b.s.c0); });
    const out = new Uint8Array((positions * d) / 2);
    packInt4(c.subarray(0, positions * d), out, 0);
    return out;
  });
  const perBoard = (pick: (b: Board) => Int8Array[]) => bs.map((b) => pick(b).map((c) => {
    const out = new Uint8Array((positions * b.s.cw) / 2);
    packInt4(c.subarray(0, positions * b.s.cw), out, 0);
    return out;
  }));
  return {
    tokens, logits: all, kCache: full((b) => b.keys), vCache: full((b) => b.values),
    boardKCache: perBoard((b) => b.keys), boardVCache: perBoard((b) => b.values),
  };
}
