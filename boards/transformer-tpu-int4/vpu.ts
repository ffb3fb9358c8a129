// The seed's VPU (vpu.sv at eedda377, which adds ARGMAX = 18 to the 62a3eb39
// version; `argmax: false` gives the older unit, where 18 is an unknown op):
// one scratchpad word (8 int4 lanes) per access, states S_IDLE → per word
// S_RD0, S_RD0D (, S_RD1, S_RD1D for a binary op), S_EXEC → (S_WB for a
// reduction) → S_DONE. A denied access freezes the whole state. Narrowing
// (clip((v*m0 + 2^(n-1)) >>> n)) is fused into every elementwise op. An
// opcode the case statement does not know is neither binary nor a
// reduction: it reads src0 and writes zeros to dst, exactly as the RTL does.
// The FSM is literal and cheap, so both TPU models use it as is. The fast
// model's bulk steps run an elementwise op's whole words through byte tables,
// or, with the scratchpad in a WebAssembly SIMD kernel's memory, four words a
// vector there (periph/matvec-kernel.wat vpuew).

import * as ports from './ports.ts';
import type { Ports, SeedUnit, SeedSpad } from './ports.ts';
import * as mxu from './mxu.ts';
import type { MatvecKernel } from '../../periph/matvec-kernel.ts';

// Module-local copies of the constants the hot paths read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const { RD_V, WR_V, bankMask } = ports;
const { seedRequant } = mxu;

const S_IDLE = 0, S_RD0 = 1, S_RD0D = 2, S_RD1 = 3, S_RD1D = 4, S_EXEC = 5, S_WB = 6, S_DONE = 7;
export const VOP_DOT = 0, VOP_ADD = 1, VOP_RELU = 3, VOP_REQUANT = 10, VOP_DYT = 16, VOP_ARGMAX = 18;
const LANES = 8;
/** Sets of elementwise tables the VPU keeps (the firmware alternates a few ops and scales). */
const TABLE_SLOTS = 4;

const sext4 = (v: number): number => ((v & 15) << 28) >> 28;

export class SeedVpu implements SeedUnit {
  state = S_IDLE;
  private op = 0; private dst = 0;
  /** The running op's isBinary() and isReduction(), set by start(). */
  private binary = false; private reduction = false;
  private pSrc0 = 0; private pSrc1 = 0; private pDst = 0;
  private remaining = 0; private pElem = 0;
  private m0 = 0; private n = 0;
  private acc = 0; private maxVal = -9;
  private data0 = 0; private data1 = 0;
  private rdLatch = 0;
  /**
   * Tables of the elementwise ops, TABLE_SLOTS sets kept by op, m0 and n (op | m0 << 5 | n << 17,
   * tableKeys; filled in turn): the lane result for every lane input x (a, or a + b for a binary
   * op) at x + 16 (32 a set, from laneAt), and for whole words (256 a set, from wordAt) a unary
   * op's two result nibbles for every input byte, or a binary op's result nibble for every pair
   * of lane nibbles a << 4 | b.
   */
  private readonly laneTables = new Int8Array(32 * TABLE_SLOTS);
  private readonly wordTables = new Uint8Array(256 * TABLE_SLOTS);
  private readonly tableKeys = new Int32Array(TABLE_SLOTS).fill(-1);
  /** Whether a set's word table is built (for the first long op of its key). */
  private readonly wordTablesOk = new Uint8Array(TABLE_SLOTS);
  private nextSlot = 0;
  private laneAt = 0;
  /** The running op's word table, or -1 (a short op: lane by lane). */
  private wordAt = -1;
  /**
   * Each set's lookup vectors for the kernel's vpuew (8 int32 a set, built with its word table):
   * a unary op's result nibble for every lane nibble, then those shifted up by four; a binary
   * op's for every lane sum a + b + 16 (its lane table's 32 entries).
   */
  private readonly vectorTables = new Int32Array(8 * TABLE_SLOTS);
  /** The kernel whose memory holds the scratchpad (spad.kernel), or null: whole words in JavaScript. */
  private readonly kernel: MatvecKernel | null;
  /**
   * The table key whose lookup vectors the kernel holds (vputables), or -1: the kernel's
   * instance keeps one pair, this unit's (the TPU makes one VPU per scratchpad).
   */
  private kernelTablesKey = -1;
  /** The running op's whole words go through the kernel's vpuew (start(): vectorsFit). */
  private vectors = false;
  readMask = 0; writeMask = 0;

  constructor(private readonly spad: SeedSpad, readonly argmax: boolean) {
    this.kernel = spad.kernel;
  }

  /** Fast model: a lower bound of the clocks before S_DONE (the states left when nothing stalls). */
  horizon(): number {
    const binary = this.binary;
    const perWord = binary ? 5 : 3;
    const wordsAfter = Math.ceil((this.remaining - this.chunkActive) / LANES);
    const tail = wordsAfter * perWord + (this.reduction ? 1 : 0);
    switch (this.state) {
      case S_RD0: return perWord + tail;
      case S_RD0D: return perWord - 1 + tail;
      case S_RD1: return 2 + tail;
      case S_RD1D: return 1 + tail;
      case S_EXEC: return 1 + tail;
      case S_WB: return 1;
      default: return 0;
    }
  }

  /** Fast model: n clocks (n <= horizon()) with nobody else in the VPU's banks. */
  bulk(n: number): void {
    // Alone in its banks, nothing stalls: whole words (their read clocks and S_EXEC) at once from
    // S_RD0, in order (a word's write lands before the next word's read, as clock by clock) ...
    if (this.state === S_RD0) {
      const perWord = this.binary ? 5 : 3;
      if (n >= perWord && !this.reduction && this.wordAt >= 0 && this.remaining > LANES) n = this.wordsBulk(n, perWord);
      if (n >= perWord && this.state === S_RD0) {
        const spad = this.spad, binary = perWord === 5;
        do {
          this.data0 = spad.word(this.pSrc0);
          if (binary) this.data1 = spad.word(this.pSrc1);
          this.rdLatch = binary ? this.data1 : this.data0;
          this.exec();
          n -= perWord;
        } while (n >= perWord && this.state === S_RD0);
      }
    }
    // ... and the state sequence without the port arrays for the rest.
    for (let i = 0; i < n; i++) {
      switch (this.state) {
        case S_RD0: this.rdLatch = this.spad.word(this.pSrc0); this.state = S_RD0D; break;
        case S_RD0D: this.data0 = this.rdLatch; this.state = this.binary ? S_RD1 : S_EXEC; break;
        case S_RD1: this.rdLatch = this.spad.word(this.pSrc1); this.state = S_RD1D; break;
        case S_RD1D: this.data1 = this.rdLatch; this.state = S_EXEC; break;
        case S_EXEC: this.exec(); break;
        case S_WB: this.spad.writeWord(this.dst, this.acc, 15); this.state = S_DONE; break;
        case S_DONE: this.state = S_IDLE; break;
        default: break;
      }
    }
  }

  get busy(): boolean { return this.state !== S_IDLE; }
  get isDone(): boolean { return this.state === S_DONE; }

  isBinary(op: number): boolean { return op === VOP_DOT || op === VOP_ADD || op === VOP_DYT; }
  isReduction(op: number): boolean { return op === VOP_DOT || (this.argmax && op === VOP_ARGMAX); }
  isKnown(op: number): boolean {
    return op === VOP_DOT || op === VOP_ADD || op === VOP_RELU || op === VOP_REQUANT || op === VOP_DYT || (this.argmax && op === VOP_ARGMAX);
  }

  /** VPU_OP at the head in S_IDLE: vpu_start; the edge of this clock leaves S_IDLE. */
  start(w0: number, w1: number, w2: number): void {
    this.op = (w0 >>> 8) & 31;
    this.binary = this.isBinary(this.op);
    this.reduction = this.isReduction(this.op);
    this.dst = w0 >>> 16;
    this.pDst = this.dst;
    this.pSrc0 = w1 & 0xffff;
    this.pSrc1 = w1 >>> 16;
    const vlen = w2 & 0x3ff;
    this.remaining = vlen;
    this.m0 = (w2 >>> 16) & 0xfff;
    this.n = (w2 >>> 28) & 15;
    this.acc = 0; this.pElem = 0; this.maxVal = -9;
    this.vectors = false;
    if (!this.reduction) {
      const key = this.op | (this.m0 << 5) | (this.n << 17);
      let slot = this.tableKeys.indexOf(key);
      const t = this.laneTables, l0 = 32 * (slot < 0 ? this.nextSlot : slot);
      if (slot < 0) {
        slot = this.nextSlot;
        this.nextSlot = (slot + 1) % TABLE_SLOTS;
        this.tableKeys[slot] = key;
        this.wordTablesOk[slot] = 0;
        for (let x = -16; x < 16; x++) t[l0 + x + 16] = this.laneOf(this.op, x);
      }
      // The word table only for a long op (its 256 entries cost more than a short op's lanes).
      if (vlen >= 64 && !this.wordTablesOk[slot]) {
        const w = this.wordTables, w0 = 256 * slot;
        if (this.binary) for (let ab = 0; ab < 256; ab++) w[w0 + ab] = t[l0 + sext4(ab >>> 4) + sext4(ab) + 16] & 15;
        else for (let b = 0; b < 256; b++) w[w0 + b] = (t[l0 + sext4(b) + 16] & 15) | ((t[l0 + sext4(b >>> 4) + 16] & 15) << 4);
        const v = this.vectorTables, v0 = 8 * slot;
        v.fill(0, v0, v0 + 8);
        if (this.binary) for (let x = 0; x < 32; x++) v[v0 + (x >>> 2)] |= (t[l0 + x] & 15) << (8 * (x & 3));
        else {
          for (let u = 0; u < 16; u++) {
            const r = t[l0 + sext4(u) + 16] & 15;
            v[v0 + (u >>> 2)] |= r << (8 * (u & 3));
            v[v0 + 4 + (u >>> 2)] |= (r << 4) << (8 * (u & 3));
          }
        }
        this.wordTablesOk[slot] = 1;
      }
      this.laneAt = 32 * slot;
      this.wordAt = this.wordTablesOk[slot] ? 256 * slot : -1;
      if (this.wordAt >= 0 && this.kernel !== null && this.vectorsFit((vlen + 7) >>> 3)) {
        this.vectors = true;
        if (this.kernelTablesKey !== key) {
          const v = this.vectorTables, v0 = 8 * slot;
          this.kernel.vputables(v[v0], v[v0 + 1], v[v0 + 2], v[v0 + 3], v[v0 + 4], v[v0 + 5], v[v0 + 6], v[v0 + 7]);
          this.kernelTablesKey = key;
        }
      }
    }
    const words = (vlen + 7) >>> 3;
    const span = words * 4;
    this.readMask = bankMask(this.pSrc0 & 0xfffc, 1, span, 0) | (this.binary ? bankMask(this.pSrc1 & 0xfffc, 1, span, 0) : 0);
    this.writeMask = this.reduction ? bankMask(this.dst & 0xfffc, 1, 4, 0) : bankMask(this.pDst & 0xfffc, 1, span, 0);
    this.state = vlen === 0 ? S_DONE : S_RD0;
  }

  /**
   * Whether `words` words from each pointer may go through the kernel's vpuew, four loaded then
   * four stored: no range wraps the scratchpad, and the destination is not one to three words
   * above a source (there a word written is read back within the same four, where the RTL's
   * word-by-word order reads it after its write; in place, below, or four or more words above,
   * every read sees what it sees word by word).
   */
  private vectorsFit(words: number): boolean {
    const span = 4 * words, s0 = this.pSrc0 & 0xfffc, s1 = this.pSrc1 & 0xfffc, d = this.pDst & 0xfffc;
    if (s0 + span > 0x10000 || d + span > 0x10000 || (d > s0 && d - s0 < 16)) return false;
    return !this.binary || (s1 + span <= 0x10000 && !(d > s1 && d - s1 < 16));
  }

  private get chunkActive(): number { return this.remaining >= LANES ? LANES : this.remaining; }

  request(p: Ports): void {
    switch (this.state) {
      case S_RD0: p.rdReq[RD_V] = 1; p.rdAddr[RD_V] = this.pSrc0; break;
      case S_RD1: p.rdReq[RD_V] = 1; p.rdAddr[RD_V] = this.pSrc1; break;
      case S_EXEC: if (!this.reduction) { p.wrReq[WR_V] = 1; p.wrAddr[WR_V] = this.pDst; } break;
      case S_WB: p.wrReq[WR_V] = 1; p.wrAddr[WR_V] = this.dst; break;
      default: break;
    }
  }

  read(p: Ports): void {
    if (p.rdReq[RD_V] && p.rdGnt[RD_V]) this.rdLatch = this.spad.word(p.rdAddr[RD_V]);
  }

  edge(p: Ports): void {
    if ((p.rdReq[RD_V] && !p.rdGnt[RD_V]) || (p.wrReq[WR_V] && !p.wrGnt[WR_V])) return; // stalled
    switch (this.state) {
      case S_RD0: this.state = S_RD0D; break;
      case S_RD0D: this.data0 = this.rdLatch; this.state = this.binary ? S_RD1 : S_EXEC; break;
      case S_RD1: this.state = S_RD1D; break;
      case S_RD1D: this.data1 = this.rdLatch; this.state = S_EXEC; break;
      case S_EXEC: this.exec(); break;
      case S_WB: this.spad.writeWord(this.dst, this.acc, 15); this.state = S_DONE; break;
      case S_DONE: this.state = S_IDLE; break;
      default: break;
    }
  }

  /**
   * Fast model, from S_RD0 of an elementwise op: whole words of eight lanes but the last (which
   * ends the op), `perWord` clocks each, while n lasts: exec()'s tables in one loop over local
   * copies of the pointers, each word written before the next one is read (most of them four a
   * vector in the kernel, when the op's pointers allow it). Returns the clocks left.
   */
  private wordsBulk(n: number, perWord: number): number {
    const words = this.spad.words, w = this.wordTables, w0 = this.wordAt, binary = this.binary;
    let p0 = this.pSrc0, p1 = this.pSrc1, pd = this.pDst, rem = this.remaining, d0 = 0, d1 = 0;
    if (this.vectors) {
      // Four words a vector in the kernel, leaving one to four words to the loop below (whose
      // last word's reads are what data0 and data1 hold after it).
      const vecs = (Math.min(Math.floor(n / perWord), (rem - 1) >>> 3) - 1) >> 2;
      if (vecs > 0) {
        const at = this.spad.kernelAt;
        this.kernel!.vpuew(at + (p0 & 0xfffc), at + (p1 & 0xfffc), at + (pd & 0xfffc), vecs, binary ? 1 : 0);
        p0 = (p0 + 16 * vecs) & 0xffff;
        p1 = (p1 + 16 * vecs) & 0xffff;
        pd = (pd + 16 * vecs) & 0xffff;
        rem -= 4 * LANES * vecs;
        n -= 4 * perWord * vecs;
      }
    }
    while (n >= perWord && rem > LANES) {
      d0 = words[p0 >>> 2];
      let data: number;
      if (binary) {
        d1 = words[p1 >>> 2];
        data = 0;
        for (let l = 0; l < 32; l += 4) data |= w[w0 + ((((d0 >>> l) & 15) << 4) | ((d1 >>> l) & 15))] << l;
      } else {
        data = w[w0 + (d0 & 0xff)] | (w[w0 + ((d0 >>> 8) & 0xff)] << 8) | (w[w0 + ((d0 >>> 16) & 0xff)] << 16) | (w[w0 + (d0 >>> 24)] << 24);
      }
      words[pd >>> 2] = data >>> 0;
      p0 = (p0 + 4) & 0xffff;
      p1 = (p1 + 4) & 0xffff;
      pd = (pd + 4) & 0xffff;
      rem -= LANES;
      n -= perWord;
    }
    this.pElem += this.remaining - rem;
    this.remaining = rem;
    this.pSrc0 = p0; this.pSrc1 = p1; this.pDst = pd;
    // The last word's reads, as exec() leaves them.
    this.data0 = d0;
    if (binary) this.data1 = d1;
    this.rdLatch = binary ? d1 : d0;
    return n;
  }

  private exec(): void {
    const active = this.chunkActive;
    const last = this.remaining <= LANES;
    const op = this.op;
    if (this.reduction) {
      if (op === VOP_DOT) {
        let sum = 0;
        for (let l = 0; l < active; l++) sum += sext4(this.data0 >>> (4 * l)) * sext4(this.data1 >>> (4 * l));
        this.acc = (this.acc + sum) | 0;
      } else {
        // The comparator tree: the first maximum of the active lanes (ties go left; padding is -8 and loses ties).
        let best = sext4(this.data0), bestIdx = 0;
        for (let l = 1; l < active; l++) {
          const v = sext4(this.data0 >>> (4 * l));
          if (v > best) { best = v; bestIdx = l; }
        }
        if (best > this.maxVal) { this.acc = this.pElem + bestIdx; this.maxVal = best; }
      }
    } else {
      let data = 0, strb = 0;
      const d0 = this.data0, d1 = this.data1, w = this.wordTables, w0 = this.wordAt, t = this.laneTables, l0 = this.laneAt;
      if (this.binary) {
        if (w0 >= 0) for (let l = 0; l < active; l++) data |= w[w0 + ((((d0 >>> (4 * l)) & 15) << 4) | ((d1 >>> (4 * l)) & 15))] << (4 * l);
        else for (let l = 0; l < active; l++) data |= (t[l0 + sext4(d0 >>> (4 * l)) + sext4(d1 >>> (4 * l)) + 16] & 15) << (4 * l);
      } else if (active === LANES && w0 >= 0) {
        data = w[w0 + (d0 & 0xff)] | (w[w0 + ((d0 >>> 8) & 0xff)] << 8) | (w[w0 + ((d0 >>> 16) & 0xff)] << 16) | (w[w0 + (d0 >>> 24)] << 24);
      } else {
        for (let l = 0; l < active; l++) data |= (t[l0 + sext4(d0 >>> (4 * l)) + 16] & 15) << (4 * l);
      }
      for (let b = 0; b < 4; b++) if (2 * b < active) strb |= 1 << b;
      this.spad.writeWord(this.pDst, data >>> 0, strb);
    }
    this.pSrc0 = (this.pSrc0 + 4) & 0xffff;
    this.pSrc1 = (this.pSrc1 + 4) & 0xffff;
    this.pDst = (this.pDst + 4) & 0xffff;
    this.pElem += active;
    this.remaining -= active;
    this.state = last ? (this.reduction ? S_WB : S_DONE) : S_RD0;
  }

  /** res4 of a lane whose input is x: a (unary ops), a + b (binary ones); unknown ops: 0. */
  private laneOf(op: number, x: number): number {
    switch (op) {
      case VOP_ADD: return seedRequant(x, this.m0, this.n, -8);
      case VOP_RELU: return seedRequant(x > 0 ? x : 0, this.m0, this.n, -8);
      case VOP_REQUANT: return seedRequant(x, this.m0, this.n, -8);
      case VOP_DYT: return seedRequant(x, this.m0, this.n, -7);
      default: return 0;
    }
  }
}
