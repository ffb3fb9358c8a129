// The golden model's matrix-vector products in WebAssembly SIMD
// (model/golden-kernel.wat, compiled into golden-kernel.wasm.ts by
// npm run gen:wasm): a model's weight matrices copied once, transposed and
// widened to int16, into one kernel instance, then acc = x·W per call with
// eight multiply-adds per instruction. The same int32 wrapping sums as
// golden.ts's plain loops (test/model-golden.test.ts holds them equal); where
// WebAssembly SIMD is missing, forModel() returns null and golden.ts runs its loops.

import { GOLDEN_KERNEL_WASM_BASE64 } from './golden-kernel.wasm.ts';
import type { Model } from './format.ts';

// The little of the WebAssembly JS API used here (the project's lib setting has no DOM types).
interface WasmMemory { readonly buffer: ArrayBuffer; grow(pages: number): number }
interface KernelExports { memory: WasmMemory; matvec(x: number, k: number, w: number, n: number, acc: number): void }
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Matrices per layer, in this order: wq, wk, wv, wo, w1, w2; the output projection follows the last layer's. */
export const GK = { WQ: 0, WK: 1, WV: 2, WO: 3, W1: 4, W2: 5, PER_LAYER: 6 } as const;

let compiled: object | null | undefined;

function kernelModule(): object | null {
  if (compiled === undefined) {
    try {
      const binary = atob(GOLDEN_KERNEL_WASM_BASE64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      compiled = wasm ? new wasm.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const roundUp = (v: number, m: number) => Math.ceil(v / m) * m;

/** One model's weights in a kernel instance. */
export class GoldenKernel {
  /** The accumulators of the last matvec (n values). */
  readonly acc: Int32Array;
  private readonly x16: Int16Array;
  private readonly xPtr = 0;
  private readonly accPtr: number;
  /** Per matrix (GK order): its address, padded input length, columns. */
  private readonly ptr: Int32Array;
  private readonly kPad: Int32Array;
  private readonly cols: Int32Array;
  private readonly matvecFn: KernelExports['matvec'];

  private constructor(k: KernelExports, readonly matrices: readonly Int8Array[], rows: number[], cols: number[]) {
    const count = matrices.length;
    this.ptr = new Int32Array(count); this.kPad = new Int32Array(count); this.cols = new Int32Array(count);
    const maxK = roundUp(Math.max(...rows), 8), maxN = Math.max(...cols);
    this.accPtr = roundUp(2 * maxK, 16);
    let at = roundUp(this.accPtr + 4 * maxN, 16);
    for (let m = 0; m < count; m++) {
      this.kPad[m] = roundUp(rows[m], 8); this.cols[m] = cols[m]; this.ptr[m] = at;
      at += 2 * this.kPad[m] * cols[m];
    }
    const pages = Math.ceil(at / 65536), have = k.memory.buffer.byteLength / 65536;
    if (pages > have) k.memory.grow(pages - have);
    const buffer = k.memory.buffer;
    this.x16 = new Int16Array(buffer, this.xPtr, maxK);
    this.acc = new Int32Array(buffer, this.accPtr, maxN);
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
    const mod = kernelModule();
    if (!mod) return null;
    const { d, dFF, vocab } = model.dims;
    const rows: number[] = [], cols: number[] = [];
    for (let l = 0; l < model.layers.length; l++) {
      rows.push(d, d, d, d, d, dFF);
      cols.push(d, d, d, d, dFF, d);
    }
    rows.push(d); cols.push(vocab);
    const instance = new wasm!.Instance(mod, {});
    const kernel = new GoldenKernel(instance.exports as KernelExports, matrices, rows, cols);
    GoldenKernel.cache.set(model, kernel);
    return kernel;
  }

  /** acc[0..n) = x·W for matrix m (GK order: layer·PER_LAYER + which, or the output projection). */
  matvec(x: Int8Array, m: number): void {
    const x16 = this.x16, k = x.length, kp = this.kPad[m];
    for (let i = 0; i < k; i++) x16[i] = x[i];
    for (let i = k; i < kp; i++) x16[i] = 0;
    this.matvecFn(this.xPtr, kp, this.ptr[m], this.cols[m], this.accPtr);
  }
}

function matricesOf(model: Model): Int8Array[] {
  const out: Int8Array[] = [];
  for (const w of model.layers) out.push(w.wq, w.wk, w.wv, w.wo, w.w1, w.w2);
  out.push(model.wOut);
  return out;
}
