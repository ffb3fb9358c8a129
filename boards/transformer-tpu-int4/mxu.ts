// The seed's MXU (mxu.sv at 62a3eb39) with cmd_mxu.sv's GEOM registers: an
// 8×8 output-stationary int4 systolic array. States S_IDLE → S_STREAM (issue
// the operand words, step the array on every arrival, then drain the skew) →
// S_DRAIN_RD / S_DRAIN_WR (one C row a clock; a read first when
// accumulating) → S_DONE. Without stalls: K + 25 busy clocks, K + 33
// accumulating.
//
// The control (iq, sc, arrive, the address offsets, drow) is the RTL's in both
// models. The datapath differs:
//   - reference: the literal array: edge buffers, the B skew chain, the valid
//     chain and 64 PEs with their a/b/v registers and int32 accumulators,
//     stepped on every array_en clock;
//   - fast: the operand words are kept as they are fetched (the RTL's array
//     only ever multiplies A[i][k]·B[k][j] for k < K), straight into the
//     memory of the MXU's own WebAssembly SIMD kernel, and the 64 sums are
//     formed once, at the clock the stream ends, by its seedmm
//     (periph/matvec-kernel.wat), which widens A's rows and B's columns to
//     int16 and multiplies them, and requantized by its seedrq; without
//     WebAssembly SIMD, in doubles three lanes at a time. The TPU's
//     scratchpad lives in that memory (seedKernelSpad): an issue phase done
//     in one step (issueAll) is one call, seedmmspad, which fetches the
//     words, multiplies and requantizes.

import * as ports from './ports.ts';
import type { Ports, SeedUnit } from './ports.ts';
import { growTo, matvecKernel, type MatvecKernel } from '../../periph/matvec-kernel.ts';

// Module-local copies of the constants the hot paths read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const { Ports: OwnPorts, RD_A, RD_B, RD_C, WR_C, bankMask, SeedSpad, SEED_SPAD_BYTES } = ports;
type SeedSpad = ports.SeedSpad;

const S_IDLE = 0, S_STREAM = 1, S_DRAIN_RD = 2, S_DRAIN_WR = 3, S_DONE = 4;
const N = 8;

const sext4 = (v: number): number => ((v & 15) << 28) >> 28;
const P17 = 2 ** 17, P34 = 2 ** 34, HALF = 2 ** 16;

/** Adds the `n` signed 17-bit-spaced fields of x (each within ±2^16) to acc[o..o+n-1]. */
function splitLanes(x: number, acc: Int32Array, o: number, n: number): void {
  for (let f = 0; f < n - 1; f++) {
    let lo = x % P17;
    if (lo >= HALF) lo -= P17;
    else if (lo < -HALF) lo += P17;
    acc[o + f] += lo;
    x = (x - lo) / P17;
  }
  acc[o + n - 1] += x;
}

/** 2^k and 2^-k for the requant's shift n (0..15). */
const POW2 = Float64Array.from({ length: 16 }, (_, k) => 2 ** k);
const INV_POW2 = Float64Array.from({ length: 16 }, (_, k) => 2 ** -k);

/**
 * int32 → int4: clip((acc*m0 + 2^(n-1)) >>> n), the RTL's requant4 (48-bit exact in a double; the
 * scaling by 2^-n is exact, so the floor is the arithmetic shift's).
 */
export function seedRequant(acc: number, m0: number, n: number, lo: number): number {
  const prod = acc * m0;
  const shifted = n === 0 ? prod : Math.floor((prod + POW2[n - 1]) * INV_POW2[n]);
  return shifted > 7 ? 7 : shifted < lo ? lo : shifted;
}

/**
 * Byte addresses in an MXU's kernel memory, for operand words up to `size` a side (a power of
 * two): [A widened: 8 rows of int16, pitchOf(K) bytes apart][B^T widened: the same, or B's pairs of rows][64 int32
 * sums][the requant: 8 packed row words, 64 bytes][seedmmat's arguments][A's operand words:
 * `size`][B's: `size`]. The operand words are fetched straight into it (no copy). The rows'
 * pitch is K's, not `size`'s, plus 16 bytes: the 16 rows of a short K then share no cache sets.
 */
const bt16At = (size: number) => 2 * N * size + 256;
const accAt = (size: number) => 2 * bt16At(size);
const rqAt = (size: number) => accAt(size) + 4 * N * N;
/** seedmmat's 16 arguments. */
const argsAt = (size: number) => rqAt(size) + 128;
const awAt = (size: number) => argsAt(size) + 64;
const bwAt = (size: number) => awAt(size) + 4 * size;
const kernelBytes = (size: number) => bwAt(size) + 4 * size;
/** Bytes from one widened row to the next for K = len (8 rows of pitchOf(len) fit in 2·N·size + 256). */
const pitchOf = (len: number) => 2 * ((len + 7) & ~7) + 16;
/**
 * Operand words a side the scratchpad's kernel is laid out for (K up to 4096, beyond any model's):
 * a longer command moves the MXU to a kernel of its own, grown to it (growOperands), whose
 * operand words are fetched in JavaScript.
 */
const SPAD_KERNEL_WORDS = 4096;
/** The scratchpad's place in a kernel memory laid out for SPAD_KERNEL_WORDS (seedKernelSpad), on a page of its own. */
const SPAD_AT = Math.ceil(kernelBytes(SPAD_KERNEL_WORDS) / 65536) * 65536;

/**
 * The fast model's scratchpad: in the memory of a kernel laid out once for the largest command
 * (so it never grows and no view of it goes stale), where the MXU gathers, multiplies and
 * requantizes a command in one call (seedmmspad); a plain one without WebAssembly SIMD. With
 * `sramBytes`, that memory also holds an SRAM of that size after the scratchpad (seedKernelSram),
 * where the DMA's fills copy whole words in one call (copyrows).
 */
export function seedKernelSpad(sramBytes = 0): SeedSpad {
  const k = matvecKernel(SPAD_AT + SEED_SPAD_BYTES + sramBytes);
  return k ? new SeedSpad(k, SPAD_AT) : new SeedSpad();
}

/** The SRAM of `bytes` that seedKernelSpad(bytes) made room for after the scratchpad, or null without a kernel. */
export function seedKernelSram(spad: SeedSpad, bytes: number): Uint8Array | null {
  return spad.kernel ? new Uint8Array(spad.kernel.memory.buffer, SPAD_AT + SEED_SPAD_BYTES, bytes) : null;
}

/** Whether this process has WebAssembly SIMD for the kernel (tried once: without it, the doubles' path). */
let kernelsWork: boolean | undefined;

export class SeedMxu implements SeedUnit {
  state = S_IDLE;
  // cmd_mxu GEOM registers
  gAStride = 0; gBStride = 0; gCStride = 0; gLen = 0;
  // latched dispatch
  private transposeQ = false; private accQ = false; private lenQ = 0;
  private aBase = 0; private bBase = 0; private cBase = 0;
  private aStride = 0; private bStride = 0; private cStride = 0;
  private m0 = 0; private n = 0;
  /** requant's 2^(n-1) and 2^-n, for the drain. */
  private rqHalf = 0; private rqScale = 1;
  private aReads = 0; private bReads = 0; private scLast = 0;
  // control
  private iq = 0; private sc = 0; private arrive = false;
  private aOffRow = 0; private aOffChunk = 0; private bOffRow = 0; private bOffChunk = 0;
  private drow = 0;
  // bank_dout as seen by A/B/C: sampled at a grant (latch), visible the next clock (rdata)
  private aLatch = 0; private bLatch = 0; private cLatch = 0;
  private aRdata = 0; private bRdata = 0; private cRdata = 0;
  // reference datapath
  private readonly arowBuf = new Uint32Array(N);
  private readonly bcolBuf = new Uint32Array(N);
  private readonly bskew = new Uint32Array(N);
  private vchain = 0;
  private readonly peA = new Int8Array(N * N);
  private readonly peB = new Int8Array(N * N);
  private readonly peV = new Uint8Array(N * N);
  private readonly aEdge = new Int8Array(N);
  private readonly bEdge = new Int8Array(N);
  private readonly vEdge = new Uint8Array(N);
  /**
   * The 64 accumulators (both models: the fast one fills them when the stream ends, or at its
   * issue phase when that ran in one step; with a kernel, a view of the kernel's sums).
   */
  acc = new Int32Array(N * N);
  // fast datapath: operand words in fetch order (sized by start() for the command's length: a board
  // is built per run, and most commands are short), in the kernel's memory when there is one
  private aWords = new Uint32Array(0);
  private bWords = new Uint32Array(0);
  private bPacked = new Float64Array(0);
  /** This MXU's WebAssembly kernel (its own memory: the operand words live there), made at the first fast MM; null without one. */
  private kernel: MatvecKernel | null = null;
  /** The K the kernel's memory is laid out for (0: none yet), and its view of the 64 sums. */
  private kernelSize = 0;
  private acc32 = new Int32Array(0);
  /** The kernel's requant of the sums (seedrq): the 8 row words, and every lane's q as a byte. */
  private rqWords = new Int32Array(0);
  private rq8 = new Int8Array(0);
  /** seedmmat's arguments in the kernel's memory. */
  private args = new Int32Array(0);
  /** The scratchpad lives in the kernel's memory (seedKernelSpad): a whole issue phase is one call. */
  private spadInKernel = false;
  /** Every operand word of the running command's issue phase is fetched already (issueAll). */
  private wordsFetched = false;
  /**
   * ... and held in aWords and bWords (false: the kernel read them in place from the scratchpad,
   * seedmmspad; they are gathered from it only if the phase is then finished clock by clock).
   */
  private wordsGathered = false;
  /** The running command's sums (and their requant) are formed already (issueAll on the kernel). */
  private sumsReady = false;
  readMask = 0; writeMask = 0;
  /** Set when A and B were requested in one bank (B is denied for ever: the MXU never finishes). */
  starvedBank = -1;
  /** Fast model: the clocks of the last bulk() before the one in which the MXU was starved (-1: it was not, then). */
  starvedAfter = -1;
  /** The running command's A and B regions touch a common bank (it may starve: see SeedTpu.skipBy()). */
  abMayShareBank = false;

  private readonly own = new OwnPorts();

  constructor(private readonly spad: SeedSpad, private readonly reference: boolean) {
    if (!reference && spad.kernel !== null) {
      this.useKernel(spad.kernel, SPAD_KERNEL_WORDS);
      this.spadInKernel = true;
    }
  }

  /**
   * Fast model: a lower bound of the clocks before S_DONE when the MXU is alone in its banks. The
   * array steps at most once a clock up to sc_last (not in this clock when no word has arrived
   * and words are still to issue: array_en is low), then the drain takes a clock a row (two
   * accumulating); a stall (A and B in one bank) only adds clocks. Without one it is exact.
   */
  horizon(): number {
    const perRow = this.accQ ? 2 : 1;
    switch (this.state) {
      case S_STREAM: {
        const arrayEn = this.arrive || (this.iq >= this.aReads && this.iq >= this.bReads);
        return (arrayEn ? 0 : 1) + this.scLast - this.sc + 1 + N * perRow;
      }
      case S_DRAIN_RD: return (N - this.drow) * 2;
      case S_DRAIN_WR: return (N - this.drow) * perRow - (perRow - 1);
      default: return 0;
    }
  }

  /** Fast model: n clocks (n <= horizon()) with nobody else in the MXU's banks (A still outranks B). */
  bulk(n: number): void {
    // Starved, the MXU re-presents the same A and B addresses every clock and nothing changes.
    if (this.starvedBank >= 0 && this.state === S_STREAM) n = Math.min(n, 1);
    const total = n, wasStarved = this.starvedBank >= 0;
    this.starvedAfter = -1;
    if (!this.reference) n -= this.streamBulk(n);
    // The drain alone: C is the top writer and the only reader left, every access is granted.
    if (n >= N && this.state === S_DRAIN_WR && this.drow === 0 && !this.accQ && this.kernel !== null) {
      // Eight write clocks, a row each: the kernel's requantized rows as they are (cWord()).
      const words = this.spad.words, rq = this.rqWords, cBase = this.cBase, cStride = this.cStride;
      for (let i = 0; i < N; i++) words[((cBase + i * cStride) & 0xffff) >>> 2] = rq[i] >>> 0;
      this.state = S_DONE;
      this.arrive = false;
      n -= N;
    }
    while (n > 0 && (this.state === S_DRAIN_RD || this.state === S_DRAIN_WR)) {
      if (this.state === S_DRAIN_RD) { this.cRdata = this.spad.word(this.cAddr); this.state = S_DRAIN_WR; }
      else {
        this.spad.writeWord(this.cAddr, this.cWord(), 15);
        if (this.drow === N - 1) this.state = S_DONE;
        else this.state = this.accQ ? S_DRAIN_RD : S_DRAIN_WR;
        this.drow = (this.drow + 1) & 7;
      }
      this.arrive = false;
      n--;
    }
    // S_DONE's clock (its edge returns to S_IDLE) and idle clocks request nothing: no ports.
    if (n > 0 && (this.state === S_DONE || this.state === S_IDLE)) { this.state = S_IDLE; this.arrive = false; return; }
    const p = this.own;
    for (let i = 0; i < n; i++) {
      p.clear();
      this.request(p);
      p.arbitrate();
      this.read(p);
      if (!wasStarved && this.starvedAfter < 0 && this.starvedBank >= 0) this.starvedAfter = total - n + i;
      this.edge(p);
    }
  }

  get busy(): boolean { return this.state !== S_IDLE; }
  get isDone(): boolean { return this.state === S_DONE; }

  /** MXU_GEOM at the queue head: latched at that clock's edge. */
  geom(w0: number, w1: number, w2: number): void {
    this.gAStride = w0 >>> 16;
    this.gBStride = w1 & 0xffff;
    this.gCStride = w1 >>> 16;
    this.gLen = w2 & 0xffff;
  }

  /** MXU_MM at the head in S_IDLE: mxu_start; the edge of this clock leaves S_IDLE. */
  start(w0: number, w1: number, w2: number): void {
    const transpose = ((w0 >>> 9) & 1) === 1;
    const len = this.gLen;
    const lenBytes = len >>> 1;
    this.transposeQ = transpose;
    this.accQ = ((w0 >>> 8) & 1) === 1;
    this.lenQ = len;
    this.cBase = w0 >>> 16;
    this.aBase = w1 & 0xffff;
    this.bBase = w1 >>> 16;
    this.aStride = this.gAStride !== 0 ? this.gAStride : lenBytes;
    this.bStride = this.gBStride !== 0 ? this.gBStride : transpose ? lenBytes : 4;
    this.cStride = this.gCStride !== 0 ? this.gCStride : 4;
    this.m0 = w2 & 0xfff;
    this.n = (w2 >>> 12) & 15;
    this.rqHalf = this.n === 0 ? 0 : POW2[this.n - 1];
    this.rqScale = INV_POW2[this.n];
    const chunks = (len + N - 1) >>> 3;
    if (!this.reference && this.aWords.length < (chunks << 3)) this.growOperands(chunks << 3);
    this.aReads = chunks << 3;
    this.bReads = transpose ? chunks << 3 : len;
    this.scLast = len + 2 * N - 2;
    this.iq = 0; this.sc = 0; this.arrive = false; this.drow = 0; this.vchain = 0;
    this.sumsReady = false;
    this.wordsFetched = false;
    this.aOffRow = 0; this.aOffChunk = 0; this.bOffRow = 0; this.bOffChunk = 0;
    if (this.reference) {
      // The fast datapath sets every sum when the stream ends (a K = 0 command drains nothing).
      this.acc.fill(0);
      this.peV.fill(0);
    }
    const aMask = bankMask(this.aBase, N, chunks * 4, this.aStride);
    const bMask = transpose ? bankMask(this.bBase, N, chunks * 4, this.bStride) : bankMask(this.bBase, len, 4, this.bStride);
    const cMask = bankMask(this.cBase, N, 4, this.cStride);
    this.readMask = aMask | bMask | (this.accQ ? cMask : 0);
    this.abMayShareBank = (aMask & bMask) !== 0;
    this.writeMask = cMask;
    this.state = len === 0 ? S_DONE : S_STREAM;
  }

  private get cAddr(): number { return (this.cBase + this.drow * this.cStride) & 0xffff; }

  request(p: Ports): void {
    switch (this.state) {
      case S_STREAM:
        // A stepped clock before the last issue (another unit or the CPU may write the banks):
        // the words fetched at once (issueAll) for the later issues no longer hold.
        if (this.wordsFetched && (this.iq < this.aReads || this.iq < this.bReads)) this.dropFetchedWords();
        if (this.iq < this.aReads) { p.rdReq[RD_A] = 1; p.rdAddr[RD_A] = (this.aBase + this.aOffRow + this.aOffChunk) & 0xffff; }
        if (this.iq < this.bReads) { p.rdReq[RD_B] = 1; p.rdAddr[RD_B] = (this.bBase + this.bOffRow + this.bOffChunk) & 0xffff; }
        break;
      case S_DRAIN_RD:
        p.rdReq[RD_C] = 1; p.rdAddr[RD_C] = this.cAddr;
        break;
      case S_DRAIN_WR:
        p.wrReq[WR_C] = 1; p.wrAddr[WR_C] = this.cAddr;
        break;
      default:
        break;
    }
  }

  read(p: Ports): void {
    if (p.rdReq[RD_A] && p.rdGnt[RD_A]) this.aLatch = this.spad.word(p.rdAddr[RD_A]);
    if (p.rdReq[RD_B] && p.rdGnt[RD_B]) this.bLatch = this.spad.word(p.rdAddr[RD_B]);
    if (p.rdReq[RD_C] && p.rdGnt[RD_C]) this.cLatch = this.spad.word(p.rdAddr[RD_C]);
    if (p.rdReq[RD_A] && p.rdReq[RD_B] && !p.rdGnt[RD_B] && this.starvedBank < 0 &&
        ((p.rdAddr[RD_A] ^ p.rdAddr[RD_B]) & 0xf000) === 0) this.starvedBank = (p.rdAddr[RD_A] >>> 12) & 15;
  }

  edge(p: Ports): void {
    const aReq = p.rdReq[RD_A] === 1, bReq = p.rdReq[RD_B] === 1;
    const issueGo = (aReq || bReq) && (!aReq || p.rdGnt[RD_A] === 1) && (!bReq || p.rdGnt[RD_B] === 1);
    switch (this.state) {
      case S_STREAM: this.streamEdge(issueGo, aReq, bReq); break;
      case S_DRAIN_RD:
        if (p.rdGnt[RD_C]) this.state = S_DRAIN_WR;
        break;
      case S_DRAIN_WR:
        if (p.wrGnt[WR_C]) {
          this.spad.writeWord(this.cAddr, this.cWord(), 15);
          if (this.drow === N - 1) this.state = S_DONE;
          else this.state = this.accQ ? S_DRAIN_RD : S_DRAIN_WR;
          this.drow = (this.drow + 1) & 7;
        }
        break;
      case S_DONE: this.state = S_IDLE; break;
      default: break;
    }
    this.arrive = issueGo;
    // bank_dout: the word a grant sampled is on the port during the next clock.
    if (aReq && p.rdGnt[RD_A]) this.aRdata = this.aLatch;
    if (bReq && p.rdGnt[RD_B]) this.bRdata = this.bLatch;
    if (p.rdReq[RD_C] && p.rdGnt[RD_C]) this.cRdata = this.cLatch;
  }

  /**
   * Fast model: up to n S_STREAM clocks without the port arrays (every request granted); stops at an
   * issue whose A and B words share a bank (the arbiter's case) or when the stream ends. Returns the
   * clocks done.
   */
  private streamBulk(n: number): number {
    let done = 0;
    while (done < n && this.state === S_STREAM) {
      const aReq = this.iq < this.aReads, bReq = this.iq < this.bReads;
      if ((aReq || bReq) && !this.abMayShareBank) { done += this.issueBulk(n - done); continue; }
      if (!aReq && !bReq && !this.arrive) {
        // Issues done: the array steps every clock up to sc_last.
        const k = Math.min(n - done, this.scLast - this.sc);
        if (k > 0) { this.sc += k; done += k; continue; }
      }
      const aAddr = (this.aBase + this.aOffRow + this.aOffChunk) & 0xffff;
      const bAddr = (this.bBase + this.bOffRow + this.bOffChunk) & 0xffff;
      if (aReq && bReq && ((aAddr ^ bAddr) & 0xf000) === 0) break;
      if (aReq) this.aLatch = this.spad.word(aAddr);
      if (bReq) this.bLatch = this.spad.word(bAddr);
      const issueGo = aReq || bReq;
      this.streamEdge(issueGo, aReq, bReq);
      this.arrive = issueGo;
      if (aReq) this.aRdata = this.aLatch;
      if (bReq) this.bRdata = this.bLatch;
      done++;
    }
    return done;
  }

  /**
   * Fast model: up to n issue clocks of a stream whose A and B never share a bank, so every fetch is
   * granted: streamEdge()'s issue path in one loop (no clock of it ends the stream: sc stays below
   * sc_last while words are issued). Returns the clocks done.
   */
  private issueBulk(n: number): number {
    const words = this.spad.words, aWords = this.aWords, bWords = this.bWords;
    const aReads = this.aReads, bReads = this.bReads, iq0 = this.iq;
    const m = Math.min(n, Math.max(aReads, bReads) - iq0);
    if (m <= 0) return 0;
    if (iq0 === 0 && (m === Math.max(aReads, bReads) || this.spadInKernel)) this.issueAll();
    if (this.wordsFetched) {
      // Every word was fetched at the first issue (issueAll): the registers as these issues leave them.
      this.issuedTo(iq0, iq0 + m);
      this.sc += this.arrive ? m : m - 1;
      this.arrive = true;
      this.iq = iq0 + m;
      return m;
    }
    // A's fetches, then B's: nothing in the stretch writes their banks, so the order is free.
    const aEnd = Math.min(iq0 + m, aReads);
    if (iq0 < aEnd) {
      const aBase = this.aBase, aStride = this.aStride;
      let aOffRow = this.aOffRow, aOffChunk = this.aOffChunk, w = 0;
      for (let q = iq0; q < aEnd; q++) {
        w = words[((aBase + aOffRow + aOffChunk) & 0xffff) >>> 2];
        aWords[q] = w;
        if ((q & 7) === 7) { aOffRow = 0; aOffChunk = (aOffChunk + 4) & 0xffff; } else aOffRow = (aOffRow + aStride) & 0xffff;
      }
      this.aOffRow = aOffRow; this.aOffChunk = aOffChunk;
      this.aLatch = w; this.aRdata = w;
    }
    const bEnd = Math.min(iq0 + m, bReads);
    if (iq0 < bEnd) {
      const bBase = this.bBase, bStride = this.bStride, transpose = this.transposeQ;
      let bOffRow = this.bOffRow, bOffChunk = this.bOffChunk, w = 0;
      for (let q = iq0; q < bEnd; q++) {
        w = words[((bBase + bOffRow + bOffChunk) & 0xffff) >>> 2];
        bWords[q] = w;
        if (transpose && (q & 7) === 7) { bOffRow = 0; bOffChunk = (bOffChunk + 4) & 0xffff; } else bOffRow = (bOffRow + bStride) & 0xffff;
      }
      this.bOffRow = bOffRow; this.bOffChunk = bOffChunk;
      this.bLatch = w; this.bRdata = w;
    }
    // Each issue clock steps the array once a word has arrived (sc), and a word arrives.
    this.sc += this.arrive ? m : m - 1;
    this.arrive = true;
    this.iq = iq0 + m;
    return m;
  }

  /**
   * At the first issue clock, in a quiet stretch: every word of the issue phase fetched at once
   * (wordsFetched), A's (and a transposed B's) row by row, each row's chunks consecutive words of the
   * scratchpad (an address's word index wraps with it), a plain B's word rows in order. Whole
   * phases only, unless the scratchpad is in the kernel: there one call fetches, multiplies and
   * requantizes (seedmmspad, which mostly reads the words in place, without gathering them), and
   * a phase that outlasts the stretch keeps the words as long as every clock of it is done in
   * bulk, where nothing writes their banks; a stepped clock before the last issue drops them
   * (request(), dropFetchedWords()), and the words of the later issues are fetched then.
   */
  private issueAll(): void {
    if (this.spadInKernel) {
      const size = this.kernelSize, len = this.lenQ, a = this.args;
      a[0] = this.spad.kernelAt; a[1] = this.aBase; a[2] = this.aStride; a[3] = this.bBase; a[4] = this.bStride;
      a[5] = len; a[6] = this.transposeQ ? 1 : 0; a[7] = awAt(size); a[8] = bwAt(size); a[9] = 0; a[10] = bt16At(size);
      a[11] = pitchOf(len); a[12] = accAt(size); a[13] = this.m0; a[14] = this.n; a[15] = rqAt(size);
      this.wordsGathered = this.kernel!.seedmmat(argsAt(size)) !== 0;
      this.wordsFetched = true;
      this.sumsReady = true;
      return;
    }
    this.gatherWords();
    this.wordsFetched = true;
  }

  /** The issue phase's words from the scratchpad, in fetch order, into aWords and bWords (wordsGathered). */
  private gatherWords(): void {
    const words = this.spad.words, aWords = this.aWords, bWords = this.bWords;
    const chunks = this.aReads >>> 3, bReads = this.bReads;
    for (let i = 0; i < N; i++) {
      const rowWord = ((this.aBase + i * this.aStride) & 0xffff) >>> 2;
      for (let c = 0; c < chunks; c++) aWords[(c << 3) + i] = words[(rowWord + c) & 0x3fff];
    }
    if (this.transposeQ) {
      for (let j = 0; j < N; j++) {
        const rowWord = ((this.bBase + j * this.bStride) & 0xffff) >>> 2;
        for (let c = 0; c < chunks; c++) bWords[(c << 3) + j] = words[(rowWord + c) & 0x3fff];
      }
    } else {
      const bBase = this.bBase, bStride = this.bStride;
      for (let k = 0; k < bReads; k++) bWords[k] = words[((bBase + k * bStride) & 0xffff) >>> 2];
    }
    this.wordsGathered = true;
  }

  /**
   * A stepped clock before the last issue: the words issueAll fetched for the later issues no
   * longer hold (request()). Those of the issues done stay in aWords and bWords, gathered now if
   * the kernel read them in place: every clock since the first issue was the MXU's alone in its
   * banks (bulk), and this clock's writes come at its edge, so the scratchpad still holds them.
   */
  private dropFetchedWords(): void {
    if (!this.wordsGathered) this.gatherWords();
    this.wordsFetched = false;
    this.sumsReady = false;
  }

  /** The address offsets and the latched words as the issues iq0 .. q-1 leave them (their words fetched already). */
  private issuedTo(iq0: number, q: number): void {
    const qa = q < this.aReads ? q : this.aReads, qb = q < this.bReads ? q : this.bReads;
    this.aOffRow = ((qa & 7) * this.aStride) & 0xffff;
    this.aOffChunk = ((qa >>> 3) * 4) & 0xffff;
    if (this.transposeQ) {
      this.bOffRow = ((qb & 7) * this.bStride) & 0xffff;
      this.bOffChunk = ((qb >>> 3) * 4) & 0xffff;
    } else {
      this.bOffRow = (qb * this.bStride) & 0xffff;
      this.bOffChunk = 0;
    }
    // Words read in place: the latches keep their values (the fast datapath reads a latch only
    // after a granted read has set it: read(), streamBulk()).
    if (!this.wordsGathered) return;
    if (qa > iq0) { this.aLatch = this.aWords[qa - 1]; this.aRdata = this.aLatch; }
    if (qb > iq0) { this.bLatch = this.bWords[qb - 1]; this.bRdata = this.bLatch; }
  }

  private streamEdge(issueGo: boolean, aReq: boolean, bReq: boolean): void {
    const issuesDone = this.iq >= this.aReads && this.iq >= this.bReads;
    const arrayEn = this.arrive || issuesDone;
    if (issueGo) {
      if (!this.reference) {
        if (aReq) this.aWords[this.iq] = this.aLatch;
        if (bReq) this.bWords[this.iq] = this.bLatch;
      }
      const rowWrap = (this.iq & 7) === 7;
      if (aReq) {
        if (rowWrap) { this.aOffRow = 0; this.aOffChunk = (this.aOffChunk + 4) & 0xffff; }
        else this.aOffRow = (this.aOffRow + this.aStride) & 0xffff;
      }
      if (bReq) {
        if (this.transposeQ && rowWrap) { this.bOffRow = 0; this.bOffChunk = (this.bOffChunk + 4) & 0xffff; }
        else this.bOffRow = (this.bOffRow + this.bStride) & 0xffff;
      }
      this.iq++;
    }
    if (arrayEn) {
      if (this.reference) this.arrayStep();
      if (this.sc === this.scLast) {
        if (!this.reference) this.sumProducts();
        this.state = this.accQ ? S_DRAIN_RD : S_DRAIN_WR;
      }
      this.sc++;
    }
  }

  /** One array_en clock of the literal array (reference model). */
  private arrayStep(): void {
    const sc = this.sc;
    const feedValid = sc >= 1 && sc <= this.lenQ ? 1 : 0;
    for (let i = 0; i < N; i++) {
      this.aEdge[i] = sext4(this.arowBuf[i]);
      this.bEdge[i] = this.transposeQ ? sext4(this.bcolBuf[i]) : sext4(this.bskew[i] >>> (4 * i));
      this.vEdge[i] = i === 0 ? feedValid : (this.vchain >>> (i - 1)) & 1;
    }
    this.vchain = ((this.vchain << 1) | feedValid) & 0xff;
    for (let i = 0; i < N; i++) {
      if (sc < this.aReads && (sc & 7) === i) this.arowBuf[i] = this.aRdata;
      else if (this.vEdge[i]) this.arowBuf[i] >>>= 4;
    }
    if (this.transposeQ) {
      for (let j = 0; j < N; j++) {
        if (sc < this.bReads && (sc & 7) === j) this.bcolBuf[j] = this.bRdata;
        else if (this.vEdge[j]) this.bcolBuf[j] >>>= 4;
      }
    } else {
      for (let s = N - 1; s > 0; s--) this.bskew[s] = this.bskew[s - 1];
      this.bskew[0] = this.bRdata;
    }
    // Every PE reads its neighbours' registers from before this edge: walk from the far corner.
    for (let i = N - 1; i >= 0; i--) {
      for (let j = N - 1; j >= 0; j--) {
        const k = i * N + j;
        const inA = j === 0 ? this.aEdge[i] : this.peA[k - 1];
        const inV = j === 0 ? this.vEdge[i] : this.peV[k - 1];
        const inB = i === 0 ? this.bEdge[j] : this.peB[k - N];
        this.peA[k] = inA;
        this.peV[k] = inV;
        this.peB[k] = inB;
        if (inV) this.acc[k] = (this.acc[k] + inA * inB) | 0;
      }
    }
  }

  /**
   * Fast model: the 64 sums from the fetched words (A word iq = row iq%8, chunk iq/8). Three B lanes
   * ride in one double, 17 bits apart (b0 + b1·2^17 + b2·2^34), so one multiply-add does three
   * lanes; a lane's partial sum stays within ±2^16 for 512 steps (|a·b| ≤ 64), after which the
   * fields are split off exactly (every value is an integer below 2^53).
   */
  private sumProducts(): void {
    if (this.sumsReady) return;
    if (this.kernel) { this.sumOnKernel(); return; }
    const len = this.lenQ, aw = this.aWords, bw = this.bWords, bp = this.bPacked;
    const acc = this.acc;
    acc.fill(0);
    let packed = false;
    for (let i = 0; i < N; i++) {
      const o = i * N;
      let s0 = 0, s1 = 0, s2 = 0, steps = 0;
      for (let c = 0, k0 = 0; k0 < len; c += N, k0 += N) {
        const w = aw[c + i];
        if (w === 0) continue; // zero weights cost nothing
        if (!packed) { this.packB(); packed = true; }
        const lanes = len - k0 < N ? len - k0 : N;
        for (let l = 0; l < lanes; l++) {
          const a = ((w >>> (4 * l)) << 28) >> 28;
          if (a === 0) continue;
          const q = 3 * (k0 + l);
          s0 += a * bp[q]; s1 += a * bp[q + 1]; s2 += a * bp[q + 2];
        }
        if ((steps += lanes) >= 512 - N) {
          splitLanes(s0, acc, o, 3); splitLanes(s1, acc, o + 3, 3); splitLanes(s2, acc, o + 6, 2);
          s0 = s1 = s2 = 0; steps = 0;
        }
      }
      splitLanes(s0, acc, o, 3); splitLanes(s1, acc, o + 3, 3); splitLanes(s2, acc, o + 6, 2);
    }
  }

  /**
   * The 64 sums on the kernel: the operand words are already in its memory (non-transposed, B's
   * words from K to the next multiple of 8 are set to zeros: no lane past K is multiplied), widened
   * and multiplied there by one call (periph/matvec-kernel.wat seedmm).
   */
  private sumOnKernel(): void {
    const len = this.lenQ, kp = (len + 7) & ~7, size = this.kernelSize;
    if (!this.transposeQ) for (let q = len; q < kp; q++) this.bWords[q] = 0;
    const k = this.kernel!;
    k.seedmm(awAt(size), bwAt(size), len, this.transposeQ ? 1 : 0, 0, bt16At(size), pitchOf(len), accAt(size));
    k.seedrq(accAt(size), this.m0, this.n, rqAt(size));
  }

  /** Room for `words` operand words per side (a power of two, at least 1024): in the kernel's memory, or plain arrays without one. */
  private growOperands(words: number): void {
    let size = 1024;
    while (size < words) size *= 2;
    if (kernelsWork !== false) {
      // The scratchpad's kernel never grows (views of the scratchpad would go stale): a kernel of the MXU's own.
      const k = (this.spadInKernel ? null : this.kernel) ?? matvecKernel(kernelBytes(size));
      this.spadInKernel = false;
      kernelsWork = k !== null;
      if (k) {
        growTo(k, kernelBytes(size));
        this.useKernel(k, size);
        return;
      }
    }
    this.aWords = new Uint32Array(size);
    this.bWords = new Uint32Array(size);
    this.bPacked = new Float64Array(3 * size);
  }

  /** The kernel's memory laid out for `size` operand words a side (grown to it already): the views of its parts. */
  private useKernel(k: MatvecKernel, size: number): void {
    const buffer = k.memory.buffer;
    this.kernel = k;
    this.kernelSize = size;
    this.aWords = new Uint32Array(buffer, awAt(size), size);
    this.bWords = new Uint32Array(buffer, bwAt(size), size);
    this.acc32 = new Int32Array(buffer, accAt(size), N * N);
    this.acc = this.acc32;
    this.rqWords = new Int32Array(buffer, rqAt(size), N);
    this.rq8 = new Int8Array(buffer, rqAt(size) + 32, N * N);
    this.args = new Int32Array(buffer, argsAt(size), 16);
  }

  /** bPacked[3k..3k+2] = B[k][0..2], B[k][3..5], B[k][6..7], 17 bits apart. */
  private packB(): void {
    const len = this.lenQ, bw = this.bWords, bp = this.bPacked;
    for (let k = 0; k < len; k++) {
      let w = 0;
      if (this.transposeQ) {
        const chunk = (k >>> 3) << 3, sh = 4 * (k & 7);
        for (let j = 0; j < N; j++) w |= ((bw[chunk + j] >>> sh) & 15) << (4 * j);
      } else w = bw[k];
      const b0 = (w << 28) >> 28, b1 = (w << 24) >> 28, b2 = (w << 20) >> 28, b3 = (w << 16) >> 28;
      const b4 = (w << 12) >> 28, b5 = (w << 8) >> 28, b6 = (w << 4) >> 28, b7 = w >> 28;
      bp[3 * k] = b0 + b1 * P17 + b2 * P34;
      bp[3 * k + 1] = b3 + b4 * P17 + b5 * P34;
      bp[3 * k + 2] = b6 + b7 * P17;
    }
  }

  /** The C row `drow` as written: clip4(requant(acc) + (accumulate ? old : 0)) per lane. */
  private cWord(): number {
    let w = 0;
    const row = this.drow * N;
    if (this.kernel) {
      // The kernel's requant (seedrq): the row's word as it is, or each lane added to the old one.
      if (!this.accQ) return this.rqWords[this.drow] >>> 0;
      const q8 = this.rq8, old = this.cRdata;
      for (let j = 0; j < N; j++) {
        const v = q8[row + j] + sext4(old >>> (4 * j));
        w |= ((v > 7 ? 7 : v < -8 ? -8 : v) & 15) << (4 * j);
      }
      return w >>> 0;
    }
    const acc = this.acc, m0 = this.m0, half = this.rqHalf, scale = this.rqScale;
    const oldRow = this.accQ ? this.cRdata : 0; // nibbles of 0 add nothing
    for (let j = 0; j < N; j++) {
      const q = Math.floor((acc[row + j] * m0 + half) * scale); // exact: < 2^53, power-of-two scale
      const v = (q > 7 ? 7 : q < -8 ? -8 : q) + sext4(oldRow >>> (4 * j));
      w |= ((v > 7 ? 7 : v < -8 ? -8 : v) & 15) << (4 * j);
    }
    return w >>> 0;
  }
}
