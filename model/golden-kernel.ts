// The golden model's matrix-vector products in WebAssembly SIMD
// (periph/matvec-kernel.ts): a model's weight matrices copied once, transposed and
// widened to int16, into one kernel instance, then acc = x·W per call with
// eight multiply-adds per instruction. Attention's two products run there too,
// on int16 copies of the KV caches kept per head (keys by position, values
// transposed). The same int32 wrapping sums as
// golden.ts's plain loops (test/model-golden.test.ts holds them equal); where
// WebAssembly SIMD is missing, forModel() returns null and golden.ts runs its loops.

import { growTo, matvecKernel, type MatvecKernel } from '../periph/matvec-kernel.ts';
import type { Model } from './format.ts';

/** Matrices per layer, in this order: wq, wk, wv, wo, w1, w2; the output projection follows the last layer's. */
export const GK = { WQ: 0, WK: 1, WV: 2, WO: 3, W1: 4, W2: 5, PER_LAYER: 6 } as const;

const roundUp = (v: number, m: number) => Math.ceil(v / m) * m;

/** One model's weights in a kernel instance. */
export class GoldenKernel {
  /** The accumulators of the last matvec (n values). */
  readonly acc: Int32Array;
  /** The input vector of weightedValues(): the caller writes the attention weights p[0..t] here. */
  readonly input: Int16Array;
  private readonly x16: Int16Array;
  private readonly heads: number;
  private readonly dh: number;
  /** Positions of a transposed value row, padded to a multiple of 8. */
  private readonly seqPad: number;
  /** Per layer and head (l·heads + h): the keys [max_seq][dh] and the values transposed [dh][seqPad], int16. */
  private readonly keyPtr: Int32Array;
  private readonly valuePtr: Int32Array;
  private readonly keys16: Int16Array[];
  private readonly valuesT16: Int16Array[];
  private readonly xPtr = 0;
  private readonly accPtr: number;
  /** Per matrix (GK order): its address, padded input length, columns. */
  private readonly ptr: Int32Array;
  private readonly kPad: Int32Array;
  private readonly cols: Int32Array;
  private readonly matvecFn: MatvecKernel['matvec'];

  private constructor(k: MatvecKernel, readonly matrices: readonly Int8Array[], rows: number[], cols: number[], dims: Model['dims']) {
    const count = matrices.length;
    this.ptr = new Int32Array(count); this.kPad = new Int32Array(count); this.cols = new Int32Array(count);
    this.heads = dims.heads; this.dh = dims.d / dims.heads; this.seqPad = roundUp(dims.maxSeq, 8);
    const maxK = Math.max(roundUp(Math.max(...rows), 8), this.seqPad), maxN = Math.max(...cols, dims.maxSeq);
    this.accPtr = roundUp(2 * maxK, 16);
    let at = roundUp(this.accPtr + 4 * maxN, 16);
    for (let m = 0; m < count; m++) {
      this.kPad[m] = roundUp(rows[m], 8); this.cols[m] = cols[m]; this.ptr[m] = at;
      at += 2 * this.kPad[m] * cols[m];
    }
    const perHead = dims.layers * dims.heads;
    this.keyPtr = new Int32Array(perHead); this.valuePtr = new Int32Array(perHead);
    for (let i = 0; i < perHead; i++) {
      this.keyPtr[i] = at; at += 2 * dims.maxSeq * this.dh;
      this.valuePtr[i] = at; at += 2 * this.dh * this.seqPad;
    }
    growTo(k, at);
    const buffer = k.memory.buffer;
    this.x16 = new Int16Array(buffer, this.xPtr, maxK);
    this.input = this.x16;
    this.acc = new Int32Array(buffer, this.accPtr, maxN);
    this.keys16 = Array.from(this.keyPtr, (p) => new Int16Array(buffer, p, dims.maxSeq * this.dh));
    this.valuesT16 = Array.from(this.valuePtr, (p) => new Int16Array(buffer, p, this.dh * this.seqPad));
    for (let m = 0; m < count; m++) {
      const w = matrices[m], n = cols[m], kp = this.kPad[m], rowsM = rows[m];
      const wt = new Int16Array(buffer, this.ptr[m], kp * n); // zeroed: the padding stays 0
      for (let i = 0; i < rowsM; i++) for (let j = 0; j < n; j++) wt[j * kp + i] = w[i * n + j];
    }
    this.matvecFn = k.matvec;
  }

  private static readonly cache = new WeakMap<Model, GoldenKernel>();

  /**
   * The kernel holding `model`'s weights (built on first use, then reused while the model's
   * weight arrays are the same objects; weights changed in place afterwards are not seen),
   * or null without WebAssembly SIMD.
   */
  static forModel(model: Model): GoldenKernel | null {
    const matrices = matricesOf(model);
    const cached = GoldenKernel.cache.get(model);
    if (cached && cached.matrices.length === matrices.length && cached.matrices.every((w, i) => w === matrices[i])) return cached;
    const k = matvecKernel(0);
    if (!k) return null;
    const { d, dFF, vocab } = model.dims;
    const rows: number[] = [], cols: number[] = [];
    for (let l = 0; l < model.layers.length; l++) {
      rows.push(d, d, d, d, d, dFF);
      cols.push(d, d, d, d, dFF, d);
    }
    rows.push(d); cols.push(vocab);
    const kernel = new GoldenKernel(k, matrices, rows, cols, model.dims);
    GoldenKernel.cache.set(model, kernel);
    return kernel;
  }

  /** acc[0..n) = x·W for matrix m (GK order: layer·PER_LAYER + which, or the output projection). */
  matvec(x: Int8Array, m: number): void {
    const x16 = this.x16, k = x.length, kp = this.kPad[m];
    for (let i = 0; i < k; i++) x16[i] = x[i];
    for (let i = k; i < kp; i++) x16[i] = 0;
    this.matvecFn(this.xPtr, kp, this.ptr[m], this.cols[m], this.accPtr, 2 * kp);
  }

  /** Position t's key and value rows of layer l (d values each) into the kernel's per-head copies. */
  storeKV(l: number, t: number, k: Int8Array, v: Int8Array): void {
    const dh = this.dh, seqPad = this.seqPad;
    for (let h = 0; h < this.heads; h++) {
      const keys = this.keys16[l * this.heads + h], valuesT = this.valuesT16[l * this.heads + h];
      const c0 = h * dh, row = t * dh;
      for (let i = 0; i < dh; i++) {
        keys[row + i] = k[c0 + i];
        valuesT[i * seqPad + t] = v[c0 + i];
      }
    }
  }

  /** acc[u] = q_h · k_h(u) for u = 0..t: head h's query (q[c0..c0+dh)) against the keys of layer l. */
  scores(l: number, h: number, q: Int8Array, c0: number, t: number): void {
    const x16 = this.x16, dh = this.dh;
    for (let i = 0; i < dh; i++) x16[i] = q[c0 + i];
    this.matvecFn(this.xPtr, dh, this.keyPtr[l * this.heads + h], t + 1, this.accPtr, 2 * dh);
  }

  /** acc[i] = Σ_{u ≤ t} input[u] · v_h(u)[i] for i < dh: the weights the caller put in `input` times layer l's values. */
  weightedValues(l: number, h: number, t: number): void {
    const x16 = this.x16, kp = roundUp(t + 1, 8);
    for (let u = t + 1; u < kp; u++) x16[u] = 0;
    this.matvecFn(this.xPtr, kp, this.valuePtr[l * this.heads + h], this.dh, this.accPtr, 2 * this.seqPad);
  }
}

function matricesOf(model: Model): Int8Array[] {
  const out: Int8Array[] = [];
  for (const w of model.layers) out.push(w.wq, w.wk, w.wv, w.wo, w.w1, w.w2);
  out.push(model.wOut);
  return out;
}
