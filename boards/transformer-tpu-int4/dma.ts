// The seed's DMA engine (dma.sv at 62a3eb39), register for register: S_IDLE,
// S_FILL (SRAM → scratchpad, one byte a clock, held while the write is not
// granted), S_SPILL (scratchpad → SRAM: a byte fetched one ahead of a
// two-clock SRAM write beat), S_DONE. The parameters are cmd_dma's head words,
// constant while the command runs. The UART host byte port is not modelled
// (the host is idle during a run).
//
// Both TPU models use this FSM. The fast model may also call fillBulk(n) while
// the DMA is alone in its banks: n fill clocks at once, each granted.

import * as ports from './ports.ts';
import type { Ports, SeedUnit, SeedSpad } from './ports.ts';
import type { MatvecKernel } from '../../periph/matvec-kernel.ts';

// Module-local copies of the constants the hot paths read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const { Ports: OwnPorts, RD_DMA, WR_DMA, bankMask } = ports;

const S_IDLE = 0, S_FILL = 1, S_SPILL = 2, S_DONE = 5;
const SRAM_MASK = 0x7ffff;

export class SeedDma implements SeedUnit {
  state = S_IDLE;
  // head fields (cmd_dma.sv)
  private op = 0; private len = 0; private rows = 0;
  private rowBytes = 0; private dramStr = 0; private spadStr = 0;
  // dma.sv registers
  private fCol = 0; private fRow = 0; private spadRowPtr = 0;
  private wCol = 0; private wRow = 0; private dramRowPtr = 0;
  private addrQ = 0; private hold = 0;
  /** we_win drives WE# (the SRAM byte is stored at the beat's start here); kept to mirror dma.sv. */
  private weWin = false;
  private beat = false; private pending = false;
  private fetchInflight = false; private wrActive = false;
  /** The byte a granted spill read sampled this clock (spad_rdata next clock). */
  private rdByte = 0;
  /** Banks of the running command: reads, writes. */
  readMask = 0; writeMask = 0;

  /** Ports of the fast model's bulk steps, where the DMA is alone in its banks. */
  private readonly own = new OwnPorts();

  /** Word views of the scratchpad and the SRAM, for fills of word rows (fillBulk). */
  private readonly spad32: Uint32Array;
  private readonly sram32: Uint32Array | null;

  /** The kernel whose memory holds both the scratchpad and the SRAM (fills of whole words in one call: copyrows), or null. */
  private readonly copier: MatvecKernel | null;
  /** The SRAM's byte offset in its buffer (the copier's address of SRAM byte 0), kept: byteOffset is a generic load in fillBulk. */
  private readonly sramAt: number;

  constructor(private readonly spad: SeedSpad, private readonly sram: Uint8Array) {
    this.spad32 = spad.words;
    this.sramAt = sram.byteOffset;
    this.sram32 = sram.byteOffset % 4 === 0 ? new Uint32Array(sram.buffer, sram.byteOffset, sram.length >>> 2) : null;
    this.copier = spad.kernel !== null && sram.buffer === spad.kernel.memory.buffer && this.sram32 !== null ? spad.kernel : null;
  }

  get busy(): boolean { return this.state === S_FILL || this.state === S_SPILL; }
  get isDone(): boolean { return this.state === S_DONE; }
  get isIdle(): boolean { return this.state === S_IDLE; }

  /** dma_start in S_IDLE: the head's words; the edge of this clock enters FILL, SPILL or DONE. */
  start(w0: number, w1: number, w2: number, w3: number): void {
    this.op = (w0 >>> 8) & 1;
    this.len = w2 & 0xffff;
    this.rows = w2 >>> 16;
    this.rowBytes = ((this.len + 1) & 0xffff) >>> 1;
    const ds = w3 & 0xffff, ss = w3 >>> 16;
    this.dramStr = ds !== 0 ? ds : this.rowBytes;
    this.spadStr = ss !== 0 ? ss : this.rowBytes;
    this.spadRowPtr = w0 >>> 16;
    this.dramRowPtr = w1 & SRAM_MASK;
    this.addrQ = this.dramRowPtr;
    this.fCol = 0; this.fRow = 0; this.wCol = 0; this.wRow = 0;
    this.pending = false; this.fetchInflight = false; this.wrActive = false; this.beat = false; this.weWin = false;
    const m = bankMask(this.spadRowPtr, this.rows, this.rowBytes, this.spadStr);
    this.readMask = this.op ? m : 0;
    this.writeMask = this.op ? 0 : m;
    this.state = this.rows === 0 || this.rowBytes === 0 ? S_DONE : this.op ? S_SPILL : S_FILL;
  }

  private get spadAddr(): number { return (this.spadRowPtr + this.fCol) & 0xffff; }
  private get beatStart(): boolean { return this.state === S_SPILL && this.pending && (!this.wrActive || this.beat); }

  request(p: Ports): void {
    if (this.state === S_FILL) {
      if (this.fRow < this.rows) { p.wrReq[WR_DMA] = 1; p.wrAddr[WR_DMA] = this.spadAddr; }
    } else if (this.state === S_SPILL) {
      if (this.fRow < this.rows && !this.fetchInflight && (!this.pending || this.beatStart)) {
        p.rdReq[RD_DMA] = 1; p.rdAddr[RD_DMA] = this.spadAddr;
      }
    }
  }

  read(p: Ports): void {
    if (p.rdReq[RD_DMA] && p.rdGnt[RD_DMA]) {
      const a = p.rdAddr[RD_DMA];
      this.rdByte = (this.spad.word(a) >>> ((a & 3) * 8)) & 0xff;
    }
  }

  /** The clock's edge (S_IDLE is left by start(), S_DONE by this). */
  edge(p: Ports): void {
    switch (this.state) {
      case S_FILL:
        if (p.wrReq[WR_DMA] && p.wrGnt[WR_DMA]) this.fillByte();
        break;
      case S_SPILL:
        this.spillEdge(p.rdReq[RD_DMA] === 1 && p.rdGnt[RD_DMA] === 1);
        break;
      case S_DONE:
        this.state = S_IDLE;
        break;
      default:
        break;
    }
  }

  /** One granted FILL clock: spad[spad_row_ptr + f_col] <= sram[addr_q]. */
  private fillByte(): void {
    this.spad.bytes[this.spadAddr] = this.sram[this.addrQ];
    if (this.fCol + 1 >= this.rowBytes) {
      this.fCol = 0;
      this.spadRowPtr = (this.spadRowPtr + this.spadStr) & 0xffff;
      this.dramRowPtr = (this.dramRowPtr + this.dramStr) & SRAM_MASK;
      this.addrQ = this.dramRowPtr;
      if (this.fRow + 1 >= this.rows) this.state = S_DONE;
      this.fRow++;
    } else {
      this.fCol++;
      this.addrQ = (this.addrQ + 1) & SRAM_MASK;
    }
  }

  /** One S_SPILL edge, non-blocking: every right-hand side is the register's value at the start of the clock. */
  private spillEdge(readGranted: boolean): void {
    const beatStart = this.beatStart;
    const oldInflight = this.fetchInflight, oldHold = this.hold;
    if (readGranted) this.fetchInflight = true;
    if (oldInflight) {
      this.fetchInflight = false;
      this.hold = this.rdByte;
      this.pending = true;
      if (this.fCol + 1 >= this.rowBytes) {
        this.fCol = 0;
        this.fRow++;
        this.spadRowPtr = (this.spadRowPtr + this.spadStr) & 0xffff;
      } else this.fCol++;
    }
    if (beatStart) {
      this.addrQ = (this.dramRowPtr + this.wCol) & SRAM_MASK;
      // din_q <= hold: the byte of this beat (WE# low over the next clock; nothing else reads the SRAM meanwhile).
      this.sram[this.addrQ] = oldHold;
      this.weWin = true;
      this.wrActive = true;
      this.beat = false;
      this.pending = false;
      if (this.wCol + 1 >= this.rowBytes) {
        this.wCol = 0;
        this.wRow++;
        this.dramRowPtr = (this.dramRowPtr + this.dramStr) & SRAM_MASK;
      } else this.wCol++;
    } else if (this.wrActive) {
      const beatWas = this.beat;
      this.beat = true;
      if (beatWas) {
        this.wrActive = false;
        if (!(this.wRow < this.rows)) this.state = S_DONE;
      } else this.weWin = false;
    }
  }

  /**
   * Fast model: a lower bound of the clocks before S_DONE (from this clock on) when every access is
   * granted. A spill beat takes two clocks and the last one three more, so R bytes still to write
   * need more than 2R.
   */
  horizon(): number {
    if (this.state === S_FILL) return this.fillClocksLeft();
    if (this.state !== S_SPILL) return 0;
    const left = (this.rows - this.wRow - 1) * this.rowBytes + (this.rowBytes - this.wCol);
    return this.wRow < this.rows ? 2 * left : 0;
  }

  /** Fast model: n clocks (n <= horizon()) with nobody else in the DMA's banks. */
  bulk(n: number): void {
    if (this.state === S_FILL) { this.fillBulk(n); return; }
    if (this.state === S_SPILL) { this.spillBulk(n); return; }
    // S_DONE's clock (its edge returns to S_IDLE) and idle clocks request nothing: no ports.
    if (n > 0 && (this.state === S_DONE || this.state === S_IDLE)) { this.state = S_IDLE; return; }
    const p = this.own;
    for (let i = 0; i < n; i++) {
      p.clear();
      this.request(p);
      p.arbitrate();
      this.read(p);
      this.edge(p);
    }
  }

  /**
   * Fast model: n SPILL clocks alone in the DMA's banks, every fetch granted: request(), read() and
   * spillEdge() of each clock in one loop over local copies of the registers.
   */
  private spillBulk(n: number): void {
    const words = this.spad.words, sram = this.sram;
    const rows = this.rows, rowBytes = this.rowBytes, spadStr = this.spadStr, dramStr = this.dramStr;
    let state = this.state, fCol = this.fCol, fRow = this.fRow, spadRowPtr = this.spadRowPtr;
    let wCol = this.wCol, wRow = this.wRow, dramRowPtr = this.dramRowPtr, addrQ = this.addrQ;
    let hold = this.hold, weWin = this.weWin, beat = this.beat, pending = this.pending;
    let inflight = this.fetchInflight, wrActive = this.wrActive, rdByte = this.rdByte;
    let i = 0;
    while (i < n) {
      if (state === S_SPILL && !inflight && pending && wrActive && beat) {
        // The steady beat, two clocks a byte: the first writes `hold` and fetches the next byte, the
        // second takes it into `hold` (the clock-by-clock edges below, both at once); it ends with
        // these same flags and weWin low.
        while (i + 2 <= n && fRow < rows) {
          addrQ = (dramRowPtr + wCol) & SRAM_MASK;
          sram[addrQ] = hold;
          if (wCol + 1 >= rowBytes) { wCol = 0; wRow++; dramRowPtr = (dramRowPtr + dramStr) & SRAM_MASK; } else wCol++;
          const a = (spadRowPtr + fCol) & 0xffff;
          rdByte = (words[a >>> 2] >>> ((a & 3) * 8)) & 0xff;
          hold = rdByte;
          if (fCol + 1 >= rowBytes) { fCol = 0; fRow++; spadRowPtr = (spadRowPtr + spadStr) & 0xffff; } else fCol++;
          weWin = false;
          i += 2;
        }
        if (i >= n) break;
      }
      i++;
      const beatStart = state === S_SPILL && pending && (!wrActive || beat);
      const fetch = fRow < rows && !inflight && (!pending || beatStart);
      if (fetch) { const a = (spadRowPtr + fCol) & 0xffff; rdByte = (words[a >>> 2] >>> ((a & 3) * 8)) & 0xff; }
      const oldInflight = inflight, oldHold = hold;
      if (fetch) inflight = true;
      if (oldInflight) {
        inflight = false;
        hold = rdByte;
        pending = true;
        if (fCol + 1 >= rowBytes) { fCol = 0; fRow++; spadRowPtr = (spadRowPtr + spadStr) & 0xffff; } else fCol++;
      }
      if (beatStart) {
        addrQ = (dramRowPtr + wCol) & SRAM_MASK;
        sram[addrQ] = oldHold;
        weWin = true; wrActive = true; beat = false; pending = false;
        if (wCol + 1 >= rowBytes) { wCol = 0; wRow++; dramRowPtr = (dramRowPtr + dramStr) & SRAM_MASK; } else wCol++;
      } else if (wrActive) {
        const beatWas = beat;
        beat = true;
        if (beatWas) { wrActive = false; if (!(wRow < rows)) state = S_DONE; } else weWin = false;
      }
    }
    this.state = state; this.fCol = fCol; this.fRow = fRow; this.spadRowPtr = spadRowPtr;
    this.wCol = wCol; this.wRow = wRow; this.dramRowPtr = dramRowPtr; this.addrQ = addrQ;
    this.hold = hold; this.weWin = weWin; this.beat = beat; this.pending = pending;
    this.fetchInflight = inflight; this.wrActive = wrActive; this.rdByte = rdByte;
  }

  /** Fast model: fill clocks left before S_DONE when every write is granted (the current clock included). */
  fillClocksLeft(): number {
    if (this.state !== S_FILL) return 0;
    return (this.rows - this.fRow - 1) * this.rowBytes + (this.rowBytes - this.fCol);
  }

  /** Fast model: n granted FILL clocks at once (n <= fillClocksLeft()): fillByte()'s registers row by row, in locals. */
  fillBulk(n: number): void {
    const spad = this.spad.bytes, sram = this.sram;
    const rowBytes = this.rowBytes, rows = this.rows, spadStr = this.spadStr, dramStr = this.dramStr;
    let fCol = this.fCol, fRow = this.fRow, spadRowPtr = this.spadRowPtr, dramRowPtr = this.dramRowPtr, addrQ = this.addrQ;
    const sram32 = this.sram32, spad32 = this.spad32;
    while (n > 0) {
      if ((rowBytes & 3) === 0 && fCol === 0 && sram32 !== null) {
        // Whole rows of whole words (a weight panel's rows, an activation row block): copied a word
        // at a time while both ends are aligned and neither wraps.
        const rowWords = rowBytes >>> 2;
        // Every whole row left in n at once when none wraps and every one is aligned (strides of whole words).
        const k = Math.min(Math.floor(n / rowBytes), rows - fRow);
        if (k > 1 && ((spadRowPtr | dramRowPtr | spadStr | dramStr) & 3) === 0
          && spadRowPtr + (k - 1) * spadStr + rowBytes <= 0x10000 && dramRowPtr + (k - 1) * dramStr + rowBytes <= SRAM_MASK + 1) {
          let sw = spadRowPtr >>> 2, dw = dramRowPtr >>> 2;
          const sStep = spadStr >>> 2, dStep = dramStr >>> 2;
          // Both memories in one WebAssembly memory: one call. Else rows of one, two and eight
          // words (the model's panels) written out, the others a loop.
          if (this.copier !== null) this.copier.copyrows(this.spad.kernelAt + spadRowPtr, this.sramAt + dramRowPtr, k, rowWords, spadStr, dramStr);
          else if (rowWords === 1 && sStep === 1) for (const end = sw + k; sw < end; sw++, dw += dStep) spad32[sw] = sram32[dw];
          else if (rowWords === 1) for (let r = 0; r < k; r++, sw += sStep, dw += dStep) spad32[sw] = sram32[dw];
          else if (rowWords === 2) {
            for (let r = 0; r < k; r++, sw += sStep, dw += dStep) { spad32[sw] = sram32[dw]; spad32[sw + 1] = sram32[dw + 1]; }
          } else if (rowWords === 8) {
            for (let r = 0; r < k; r++, sw += sStep, dw += dStep) {
              spad32[sw] = sram32[dw]; spad32[sw + 1] = sram32[dw + 1]; spad32[sw + 2] = sram32[dw + 2]; spad32[sw + 3] = sram32[dw + 3];
              spad32[sw + 4] = sram32[dw + 4]; spad32[sw + 5] = sram32[dw + 5]; spad32[sw + 6] = sram32[dw + 6]; spad32[sw + 7] = sram32[dw + 7];
            }
          } else for (let r = 0; r < k; r++, sw += sStep, dw += dStep) for (let w = 0; w < rowWords; w++) spad32[sw + w] = sram32[dw + w];
          spadRowPtr = (spadRowPtr + k * spadStr) & 0xffff;
          dramRowPtr = (dramRowPtr + k * dramStr) & SRAM_MASK;
          n -= k * rowBytes;
          fRow += k;
          if (fRow >= rows) this.state = S_DONE;
        }
        while (n >= rowBytes && ((spadRowPtr | dramRowPtr) & 3) === 0 && spadRowPtr + rowBytes <= 0x10000 && dramRowPtr + rowBytes <= SRAM_MASK + 1) {
          const sw = spadRowPtr >>> 2, dw = dramRowPtr >>> 2;
          for (let k = 0; k < rowWords; k++) spad32[sw + k] = sram32[dw + k];
          spadRowPtr = (spadRowPtr + spadStr) & 0xffff;
          dramRowPtr = (dramRowPtr + dramStr) & SRAM_MASK;
          n -= rowBytes;
          if (fRow + 1 >= rows) this.state = S_DONE;
          fRow++;
        }
        addrQ = dramRowPtr;
        if (n === 0) break;
      }
      const inRow = n < rowBytes - fCol ? n : rowBytes - fCol;
      const s = (spadRowPtr + fCol) & 0xffff;
      const d = addrQ;
      if (s + inRow <= 0x10000 && d + inRow <= SRAM_MASK + 1) {
        let k = 0;
        if (inRow >= 8 && ((s ^ d) & 3) === 0 && sram32 !== null) {
          // Both ends alike in their words: the bytes up to a word boundary, then whole words.
          for (; ((s + k) & 3) !== 0; k++) spad[s + k] = sram[d + k];
          const sw = (s + k) >>> 2, dw = (d + k) >>> 2, words = (inRow - k) >>> 2;
          for (let w = 0; w < words; w++) spad32[sw + w] = sram32[dw + w];
          k += words << 2;
        }
        for (; k < inRow; k++) spad[s + k] = sram[d + k];
      } else for (let k = 0; k < inRow; k++) spad[(s + k) & 0xffff] = sram[(d + k) & SRAM_MASK];
      n -= inRow;
      if (fCol + inRow >= rowBytes) {
        // the row's last byte: on to the next row (fillByte's row end)
        fCol = 0;
        spadRowPtr = (spadRowPtr + spadStr) & 0xffff;
        dramRowPtr = (dramRowPtr + dramStr) & SRAM_MASK;
        addrQ = dramRowPtr;
        if (fRow + 1 >= rows) this.state = S_DONE;
        fRow++;
      } else {
        fCol += inRow;
        addrQ = (addrQ + inRow) & SRAM_MASK;
      }
    }
    this.fCol = fCol; this.fRow = fRow; this.spadRowPtr = spadRowPtr; this.dramRowPtr = dramRowPtr; this.addrQ = addrQ;
  }

  describe(): string {
    return `DMA ${this.op ? 'spill' : 'fill'} rows=${this.rows} len=${this.len}`;
  }
}
