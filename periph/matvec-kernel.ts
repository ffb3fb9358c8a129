// The int16 matrix-vector kernel (periph/matvec-kernel.wat, compiled into
// matvec-kernel.wasm.ts by npm run gen:wasm): acc[j] = Σ_i x[i]·w[j·stride/2 + i],
// int32 wrapping, eight multiply-adds per instruction. One compiled module,
// an instance (with its own memory) per user: the golden model
// (model/golden-kernel.ts) and the seed MXU's fast datapath (boards/transformer-tpu-int4/mxu.ts,
// through seedmm, which widens its packed operand words itself, and seedmmspad, which
// also fetches them from the scratchpad living in the same memory and requantizes the sums),
// the seed DMA's fills (copyrows) and the seed VPU's long elementwise ops (vpuew) in that memory.

import { MATVEC_KERNEL_WASM_BASE64 } from './matvec-kernel.wasm.ts';
import { moduleOnce, wasm, type WasmMemory } from './wasm-module.ts';

export interface MatvecKernel {
  memory: WasmMemory;
  /** acc[0..n) at byte address `acc` = x (k int16 at `x`, k a multiple of 8) times the n rows of int16 at `w`, `stride` bytes apart. */
  matvec(x: number, k: number, w: number, n: number, acc: number, stride: number): void;
  /**
   * The seed MXU's 64 sums from its packed int4 operand words as fetched (periph/matvec-kernel.wat):
   * A's at `aw`, B's at `bw` (`transposed` 1: B^T's), K = len; widened into 8 rows `pitch` bytes
   * apart at a16 and bt16 (B's pairs of rows, when they are not transposed), the int32 sums row-major at `acc`.
   */
  seedmm(aw: number, bw: number, len: number, transposed: number, a16: number, bt16: number, pitch: number, acc: number): void;
  /**
   * The seed MXU's requant of its 64 sums at `acc`: q = clip((acc·m0 + 2^(n-1)) >> n, -8, 7),
   * each row's eight packed a nibble per column into the word at out + 4·row, and every q as a
   * byte at out + 32 + 8·row + column.
   */
  seedrq(acc: number, m0: number, n: number, out: number): void;
  /**
   * One seed MXU command (K = len <= 4096) whose scratchpad (64 KiB) is at `spad` in this memory:
   * the sums and their requant as seedmm and seedrq leave them. Its operand words are read in
   * place when K is a multiple of 8 and no operand row wraps or leaves the scratchpad: returns 0,
   * aw and bw untouched; else they are gathered as its issue phase fetches them (to aw and bw): 1.
   */
  seedmmspad(spad: number, aBase: number, aStride: number, bBase: number, bStride: number, len: number, transposed: number,
    aw: number, bw: number, a16: number, bt16: number, pitch: number, acc: number, m0: number, n: number, out: number): number;
  /** seedmmspad with its 16 arguments as int32 at byte address `args`, in its order (one argument: a cheap call); its result. */
  seedmmat(args: number): number;
  /** `rows` rows of `rowWords` words from src + r·srcStride to dst + r·dstStride (bytes), in order. */
  copyrows(dst: number, src: number, rows: number, rowWords: number, dstStride: number, srcStride: number): void;
  /** vpuew's two lookup vectors (16 bytes each, as four little-endian int32), kept by the instance. */
  vputables(t0: number, t1: number, t2: number, t3: number, t4: number, t5: number, t6: number, t7: number): void;
  /**
   * The seed VPU's elementwise op (its lookup vectors from vputables) on `vectors` times four
   * words of int4 lanes from s0 (and s1, `binary` 1) to d, byte addresses, four words loaded then
   * stored at a time in address order: the unit's word-by-word order unless d is 4 to 12 bytes above a source.
   */
  vpuew(s0: number, s1: number, d: number, vectors: number, binary: number): void;
}
const kernelModule = moduleOnce(MATVEC_KERNEL_WASM_BASE64);

/** A new kernel instance with at least `bytes` of memory, or null where WebAssembly SIMD is unavailable. */
export function matvecKernel(bytes: number): MatvecKernel | null {
  const compiled = kernelModule();
  if (!compiled) return null;
  // The exports copied into an object of our own: the instance's exports object has no
  // prototype, so V8 keeps its properties in a dictionary, and every kernel.f(...) in a hot path
  // would look its function up there (a call to the generic load), where a copy's fields load
  // like any object's.
  const k = { ...(new wasm!.Instance(compiled, {}).exports as object) } as MatvecKernel;
  growTo(k, bytes);
  return k;
}

/** Grows the instance's memory to at least `bytes` (views of the old buffer are then stale). */
export function growTo(k: MatvecKernel, bytes: number): void {
  const pages = Math.ceil(bytes / 65536), have = k.memory.buffer.byteLength / 65536;
  if (pages > have) k.memory.grow(pages - have);
}
