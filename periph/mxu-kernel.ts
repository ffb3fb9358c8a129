// The MXU fast model's multiply-accumulate in WebAssembly SIMD
// (periph/mxu-kernel.wat, compiled into mxu-kernel.wasm.ts by npm run gen:wasm).
// The kernel reads the scratchpad bytes in place, so the scratchpad lives at
// address 0 of the kernel's memory: createScratchpad() makes both (the TPU
// core does, periph/tpu.ts, and hands the kernel to MxuFast in UnitMemories).
// It loads from the base64 text with atob, so the same file runs in Node and
// in a browser's Web Worker (web/).
// Without a kernel (a plain Uint8Array scratchpad, as unit tests make) MxuFast
// computes with its JavaScript loops, with the same results.

import { MXU_KERNEL_WASM_BASE64 } from './mxu-kernel.wasm.ts';
import { moduleOnce, wasm, type WasmMemory } from './wasm-module.ts';

/** Longest k-range of one kernel call (the unpacked operand rows' length). */
export const SEGMENT_K = 2048;
/** Unpacked row pitch in bytes: a segment's 2048 int16 plus the unpack's overrun (≤ 48 bytes). */
const PITCH = 2 * SEGMENT_K + 64;
/** Largest array dimension the scratch is laid out for. */
const MAX_DIM = 16;
/** The packed B operand the unpacked one was made from (a segment of D/2·2048 bytes), and the copy's overrun (≤ 12 bytes). */
const RAW_BYTES = (MAX_DIM / 2) * SEGMENT_K + 16;
/** Room after the scratchpad for the unpack's reads past a row (≤ 15 bytes). */
const SPAD_SLACK = 64;
const PAGE = 65536;

interface KernelExports {
  /**
   * The parameters at `params`, int32 each: dim, a, aStride, b, bStride,
   * transposeB, k0, k1, shift, au, bu, pitch, acc, segK, out, raw.
   */
  matmul(params: number): void;
}

/** Int32 parameters of a matmul call (mxu-kernel.wat), the first PER_CALL of which change per call. */
const PARAM_COUNT = 16;
const PER_CALL = 9;

/** The compiled module, or null where WebAssembly SIMD is unavailable. */
const kernelModule = moduleOnce(MXU_KERNEL_WASM_BASE64);

/** One kernel instance and its scratch: the accumulators and the unpacked operands. */
export class MxuKernel {
  /** The D×D int32 accumulators, row-major (i·D + j), shared with MxuFast. */
  readonly acc: Int32Array;
  /** The int4 C rows of the last matmul with a shift: row i's eight elements from column 8q in word i·D/8 + q. */
  readonly packed: Int32Array;
  /** The scratchpad as little-endian int32 words (MxuFast's Cin and int32 C rows). */
  readonly spadWords: Int32Array;
  private readonly accAddr: number;
  private readonly aAddr: number;
  private readonly bAddr: number;
  /** The matmul call's parameter block (mxu-kernel.wat), and its address. */
  private readonly params: Int32Array;
  private readonly paramsAddr: number;

  constructor(private readonly k: KernelExports, memory: WasmMemory, scratch: number, spadBytes: number) {
    this.spadWords = new Int32Array(memory.buffer, 0, spadBytes >> 2);
    this.accAddr = scratch;
    this.aAddr = scratch + 4 * MAX_DIM * MAX_DIM;
    this.bAddr = this.aAddr + MAX_DIM * PITCH;
    this.acc = new Int32Array(memory.buffer, this.accAddr, MAX_DIM * MAX_DIM);
    const packedAddr = this.bAddr + MAX_DIM * PITCH;
    this.packed = new Int32Array(memory.buffer, packedAddr, MAX_DIM * MAX_DIM / 8);
    this.paramsAddr = packedAddr + 4 * this.packed.length;
    this.params = new Int32Array(memory.buffer, this.paramsAddr, PARAM_COUNT);
    // The parameters that never change: where the unpacked operands, the sums and the int4 rows go.
    this.params.set([this.aAddr, this.bAddr, PITCH, this.accAddr, SEGMENT_K, packedAddr, this.paramsAddr + 4 * PARAM_COUNT], PER_CALL);
  }

  /** Bytes of scratch after the scratchpad. */
  static scratchBytes(): number {
    return 4 * MAX_DIM * MAX_DIM + 2 * MAX_DIM * PITCH + 4 * (MAX_DIM * MAX_DIM / 8) + 4 * PARAM_COUNT + RAW_BYTES;
  }

  /**
   * acc[i·D + j] += Σ_{k0 ≤ k < k1} A[i][k]·B[k][j] of a D×D MATMUL (D = 8 or 16,
   * k0 and k1 multiples of D), with A's row i at a + i·aStride (k/2 bytes on) and
   * B's row k at b + k·bStride, or, transposed, Bt's row j at b + j·bStride.
   * With shift ≥ 0 (the command's last reads, int4 output), then `packed`: the
   * finished sums as int4 C rows, sat4(rshift(acc, shift)), D/8 words a row.
   */
  matmul(dim: number, a: number, aStride: number, b: number, bStride: number, transposeB: boolean, k0: number, k1: number,
    shift = -1): void {
    // One call with one argument: the kernel walks the segments itself.
    const p = this.params;
    p[0] = dim; p[1] = a; p[2] = aStride; p[3] = b; p[4] = bStride; p[5] = transposeB ? 1 : 0; p[6] = k0; p[7] = k1; p[8] = shift;
    this.k.matmul(this.paramsAddr);
  }
}

/**
 * A zeroed scratchpad of `bytes` bytes at address 0 of a fresh kernel memory,
 * and its kernel (a plain Uint8Array and null where WebAssembly SIMD is unavailable).
 */
export function createScratchpad(bytes: number): { spad: Uint8Array; kernel: MxuKernel | null } {
  const mod = kernelModule();
  if (!mod) return { spad: new Uint8Array(bytes), kernel: null };
  const scratch = Math.ceil((bytes + SPAD_SLACK) / 64) * 64;
  const pages = Math.ceil((scratch + MxuKernel.scratchBytes()) / PAGE);
  // A fixed size: the memory never grows, so views of it stay valid.
  const memory = new wasm!.Memory({ initial: pages, maximum: pages });
  const instance = new wasm!.Instance(mod, { tpu: { memory } });
  // The exports copied into an object of our own: the instance's exports object has no
  // prototype and V8 keeps its properties in a dictionary, so each kernel call would look its
  // function up there (periph/matvec-kernel.ts does the same).
  const exports = { ...(instance.exports as object) } as KernelExports;
  return { spad: new Uint8Array(memory.buffer, 0, bytes), kernel: new MxuKernel(exports, memory, scratch, bytes) };
}
