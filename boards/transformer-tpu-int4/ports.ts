// The seed scratchpad's ports and per-bank arbitration (scratchpad.sv): 16
// banks of 4 KB (1024 words of 32 bits, contiguous address ranges), per bank
// one read and one write per clock, arbitrated separately. Lowest requester
// index wins its bank: reads A > B > C > V > DMA > CPU, writes C > V > DMA >
// CPU. A loser is simply not granted this clock and re-presents (every
// requester of the RTL holds its request until granted).
//
// Each clock the TPU core clears the requests, every unit posts its requests
// from its state at the start of the clock (request()), arbitrate() grants,
// then granted reads sample the memory (read-first: before this clock's
// writes) and the edges perform granted writes.

import type { BankedUnit } from '../../periph/unit.ts';
import type { MatvecKernel } from '../../periph/matvec-kernel.ts';

/** A seed unit: the banked flavour of the one unit clock protocol (periph/unit.ts BankedUnit) over these ports. */
export type SeedUnit = BankedUnit<Ports>;

export const RD_A = 0, RD_B = 1, RD_C = 2, RD_V = 3, RD_DMA = 4, RD_CPU = 5, N_RD = 6;
export const WR_C = 0, WR_V = 1, WR_DMA = 2, WR_CPU = 3, N_WR = 4;

/** Bank of a scratchpad byte address (bank_of: a >> (WOFF_W + BANK_AW)). */
export function bankOf(addr: number): number {
  return (addr >>> 12) & 15;
}

export class Ports {
  readonly rdReq = new Uint8Array(N_RD);
  readonly rdAddr = new Int32Array(N_RD);
  readonly rdGnt = new Uint8Array(N_RD);
  readonly wrReq = new Uint8Array(N_WR);
  readonly wrAddr = new Int32Array(N_WR);
  readonly wrGnt = new Uint8Array(N_WR);
  /** Banks whose read / write port a requester lost this clock (for the stall reports). */
  rdLost = 0;
  wrLost = 0;

  clear(): void {
    const r = this.rdReq, w = this.wrReq;
    r[0] = 0; r[1] = 0; r[2] = 0; r[3] = 0; r[4] = 0; r[5] = 0;
    w[0] = 0; w[1] = 0; w[2] = 0; w[3] = 0;
  }

  arbitrate(): void {
    let taken = 0;
    this.rdLost = 0;
    for (let r = 0; r < N_RD; r++) {
      this.rdGnt[r] = 0;
      if (!this.rdReq[r]) continue;
      const bit = 1 << bankOf(this.rdAddr[r]);
      if (taken & bit) this.rdLost |= bit;
      else { this.rdGnt[r] = 1; taken |= bit; }
    }
    taken = 0;
    this.wrLost = 0;
    for (let w = 0; w < N_WR; w++) {
      this.wrGnt[w] = 0;
      if (!this.wrReq[w]) continue;
      const bit = 1 << bankOf(this.wrAddr[w]);
      if (taken & bit) this.wrLost |= bit;
      else { this.wrGnt[w] = 1; taken |= bit; }
    }
  }
}

/** The scratchpad's bytes. */
export const SEED_SPAD_BYTES = 64 * 1024;

/**
 * The scratchpad: bytes plus a word view (one bank word = 4 bytes, little-endian lanes). Its own
 * array, or (the fast model: boards/transformer-tpu-int4/mxu.ts seedKernelSpad) `kernelAt` bytes
 * into the memory of a WebAssembly kernel that never grows, where the MXU's kernel reads its
 * operands without a copy.
 */
export class SeedSpad {
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;

  constructor(readonly kernel: MatvecKernel | null = null, readonly kernelAt = 0) {
    this.bytes = kernel ? new Uint8Array(kernel.memory.buffer, kernelAt, SEED_SPAD_BYTES) : new Uint8Array(SEED_SPAD_BYTES);
    this.words = new Uint32Array(this.bytes.buffer, this.bytes.byteOffset, SEED_SPAD_BYTES >>> 2);
  }

  /** The bank word holding byte address `addr` (row_of drops the low two bits). */
  word(addr: number): number {
    return this.words[(addr & 0xffff) >>> 2];
  }
  /** Writes the byte lanes of `strb` of the word holding `addr`. */
  writeWord(addr: number, value: number, strb: number): void {
    const i = (addr & 0xffff) >>> 2;
    if (strb === 15) { this.words[i] = value >>> 0; return; }
    let w = this.words[i];
    for (let k = 0; k < 4; k++) {
      if (strb & (1 << k)) { const m = 0xff << (8 * k); w = (w & ~m) | (value & m); }
    }
    this.words[i] = w >>> 0;
  }
}

/** Bytes of one bank (1024 words). */
const BANK_BYTES = 4096;

/** Banks (bitmask) touched by `rows` rows of `rowBytes` bytes from `addr`, `stride` apart, 16-bit wrapping. */
export function bankMask(addr: number, rows: number, rowBytes: number, stride: number): number {
  if (rows <= 0 || rowBytes <= 0) return 0;
  if (stride >= 0 && (stride <= rowBytes || stride <= BANK_BYTES)) {
    // The rows overlap or abut, or start at most a bank apart (each row's first bank is at most
    // one past the row before's): every bank from the first row's start to the last row's end
    // is touched, one span (a B panel's word rows, a dense fill, a strided B's rows).
    const span = (rows - 1) * stride + rowBytes;
    if (span >= 0x10000) return 0xffff;
    const first = (addr & 0xffff) >>> 12, last = ((addr & 0xffff) + span - 1) >>> 12;
    let spanMask = 0;
    for (let b = first; b <= last; b++) spanMask |= 1 << (b & 15);
    return spanMask;
  }
  let mask = 0;
  for (let r = 0; r < rows && mask !== 0xffff; r++) {
    const first = (addr + r * stride) & 0xffff;
    if (rowBytes >= 0x10000) return 0xffff;
    const last = first + rowBytes - 1;
    for (let b = first >>> 12; b <= last >>> 12; b++) mask |= 1 << (b & 15);
  }
  return mask;
}
